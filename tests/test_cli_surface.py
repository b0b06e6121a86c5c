"""The CLI as a person meets it: hints in its own words, a listing people can read, help for
every option, a repository without a record, and settings that only block what they govern.
Every case runs the real `gotchas` command in a real git repository."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from mcp import Client

from gotchas.cli.parser import build as _parser
from gotchas.server import build
from gotchas.workspace import Workspace
from support.clients import HOLD, git, land_task, make_scenario_repo, run_gotchas
from support.clients import gotchas as cli

TARGET = "a-single-large-llm-generate-deadlocks-the-v1"
CORRECTION = (
    "--target-id",
    TARGET,
    "--task",
    "#664",
    "--title",
    "Per-call tokenizer reloads starve generation; cache the tokenizer",
    "--body",
    "Every render reloaded the tokenizer, which starved generation until it looked like a hang.",
    "--diagnostic",
    "profile one render call; a reload per call is the cause",
    "--hold",
    HOLD,
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    return root


def test_hints_name_cli_commands_and_options(repo: Path) -> None:
    missing = cli(repo, "show", "no-such-entry-at-all")
    assert "`gotchas list` shows the ids" in missing.stderr
    assert "list_gotchas" not in missing.stderr

    no_record = cli(repo, "show", TARGET, "--record", ".claude/other.md")
    assert "--record" in no_record.stderr and "`record` argument" not in no_record.stderr

    run_gotchas(repo, "task", "set", "664", "running")
    proposed = run_gotchas(repo, "propose", *CORRECTION, "--json")
    pid = json.loads(proposed.stdout)["proposal_id"]
    step = json.loads(proposed.stdout)["next_step"]
    assert f"`gotchas apply {pid}` is refused until the hold" in step
    assert "apply_supersede" not in step

    bad = cli(repo, "apply", "p-nothing")
    assert "`gotchas proposals` shows the stored ones" in bad.stderr

    suspected = cli(repo, "propose", *CORRECTION, "--root-cause", "suspected")
    assert suspected.returncode != 0
    assert "`gotchas propose` (without --target-id)" in suspected.stderr
    assert "propose_lesson" not in suspected.stderr


@pytest.mark.anyio
async def test_the_same_hints_name_the_tools_on_the_mcp_side(repo: Path) -> None:
    async with Client(build(Workspace.discover(root=str(repo)))) as client:
        missing = await client.call_tool("get_gotcha", {"id": "no-such-entry-at-all"})
        text = missing.content[0].text  # type: ignore[union-attr]
        assert "list_gotchas shows the ids" in text and "gotchas list" not in text


def test_an_id_prefix_or_fragment_gets_suggestions(repo: Path) -> None:
    prefix = cli(repo, "show", "a-single")
    assert prefix.returncode == 1
    assert f"did you mean {TARGET}?" in prefix.stderr
    fragment = cli(repo, "show", "deadlocks")
    assert TARGET in fragment.stderr
    nothing = cli(repo, "show", "L-05")
    assert "did you mean" not in nothing.stderr and "`gotchas list`" in nothing.stderr


def test_the_listing_shows_titles_in_aligned_columns_with_full_ids(repo: Path) -> None:
    table = cli(repo, "list", "--format", "table", COLUMNS="300").stdout.splitlines()
    listed = json.loads(run_gotchas(repo, "list", "--json", "--verbose").stdout)["entries"]
    header, footer = table[0], table[-1]
    rows = [line for line in table[1:-1] if line not in {e["section"] for e in listed}]  # not a group
    assert header.split() == ["ID", "LINES", "TASKS", "STATE", "TITLE"]
    assert footer == "6 entries"
    assert len(rows) == len(listed)
    title_at = header.index("TITLE")
    for row, entry in zip(rows, listed, strict=True):
        assert row.startswith(entry["id"] + " ")
        assert row[title_at:] == entry["title"]
        assert row.index(f"{entry['lines'][0]}-{entry['lines'][1]}") == header.index("LINES")


def test_one_entry_reads_as_one_entry_and_all_lists_past_a_page(repo: Path) -> None:
    one = cli(repo, "list", "--format", "table", "--task", "#664").stdout.splitlines()
    assert one[-1] == "1 entry"
    page = cli(repo, "list", "--format", "table", "--limit", "4").stdout.splitlines()
    assert page[-1] == "4 of 6 entries shown; --all lists every one"
    piped = cli(repo, "list", "--limit", "4")
    assert len(piped.stdout.splitlines()) == 4
    assert piped.stderr == "gotchas: 4 of 6 entries shown; --all lists every one\n"
    record = repo / ".claude/rules/gotchas.md"
    extra = "".join(
        f"\n## Extra lesson number {n}\n\nroot-cause: suspected · task: #{900 + n}\n" for n in range(1100)
    )
    record.write_text(record.read_text(encoding="utf-8") + extra, encoding="utf-8")
    everything = run_gotchas(repo, "list", "--all").stdout.splitlines()
    assert len(everything) == 1106 and everything[-1].startswith("extra-lesson-number-1099\t")
    as_json = json.loads(run_gotchas(repo, "list", "--all", "--json").stdout)
    assert len(as_json["entries"]) == 1106 and as_json["next_cursor"] is None


def test_a_repository_without_a_record_gets_a_short_hint(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    done = cli(root, "list")
    assert done.returncode == 0
    assert done.stdout == ""  # a pipe gets rows only: there are none
    assert cli(root, "list", "--format", "table").stdout.strip() == "0 entries"
    assert done.stderr.count("\n") == 1
    assert "no lessons record yet at .claude/rules/gotchas.md" in done.stderr
    assert "gotchas propose" in done.stderr and "gotchas apply" in done.stderr
    named = cli(root, "list", "--record", ".claude/other.md")
    assert named.returncode == 1 and "record-not-found" in named.stderr


@pytest.mark.anyio
async def test_the_server_says_once_that_there_is_no_record(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    async with Client(build(Workspace.discover(root=str(root)))) as client:
        instructions = client.instructions or ""
        listed = await client.call_tool("list_gotchas", {})
    assert instructions.startswith("This repository has no lessons record yet (.claude/rules/gotchas.md)")
    assert not listed.is_error
    assert listed.structured_content is not None
    assert listed.structured_content["total"] == 0
    assert "propose_lesson" in listed.structured_content["notice"]


@pytest.mark.anyio
async def test_with_a_record_the_instructions_carry_no_notice(repo: Path) -> None:
    async with Client(build(Workspace.discover(root=str(repo)))) as client:
        instructions = client.instructions or ""
    assert instructions.startswith("gotchas keeps the team's lessons file")


def test_proposals_show_their_status(repo: Path) -> None:
    run_gotchas(repo, "task", "set", "664", "running")
    pid = json.loads(run_gotchas(repo, "propose", *CORRECTION, "--json").stdout)["proposal_id"]
    pending = run_gotchas(repo, "proposals").stdout.splitlines()
    assert pending[0].split() == ["PROPOSAL", "STATUS", "KIND", "NEW", "ID", "HOLD"]
    assert pending[1].split()[:2] == [pid, "pending"]
    assert pending[-1] == "1 proposal"
    land_task(repo, 664)
    run_gotchas(repo, "apply", pid)
    applied = run_gotchas(repo, "proposals").stdout.splitlines()
    assert applied[1].split()[:2] == [pid, "applied"]


def test_superseded_by_is_a_list_of_id_and_tasks(repo: Path) -> None:
    run_gotchas(repo, "task", "set", "664", "landed")
    proposed = json.loads(run_gotchas(repo, "propose", *CORRECTION, "--json").stdout)
    run_gotchas(repo, "apply", proposed["proposal_id"])
    old = json.loads(run_gotchas(repo, "show", TARGET, "--json").stdout)
    assert old["superseded_by"] == [{"id": proposed["new_id"], "tasks": ["#664"]}]
    new = json.loads(run_gotchas(repo, "show", proposed["new_id"], "--json").stdout)
    assert new["supersedes"] == [{"id": TARGET, "tasks": ["#664"]}]
    listed = json.loads(run_gotchas(repo, "list", "--json", "--task", "#664").stdout)["entries"]
    by_id = {e["id"]: e for e in listed}
    assert by_id[TARGET]["superseded_by"] == [{"id": proposed["new_id"], "tasks": ["#664"]}]
    table = run_gotchas(repo, "list", "--task", "#664", "--format", "table").stdout
    assert "red herring" in table and proposed["new_id"] in table  # the successor's own row
    assert f"superseded-by: {proposed['new_id']} (for #664)" in run_gotchas(repo, "show", TARGET).stdout


def test_a_typo_under_holds_blocks_hold_checks_only(repo: Path) -> None:
    config = repo / ".claude/gotchas.toml"
    config.write_text('[holds]\nsourcs = ["ledger"]\n', encoding="utf-8")
    listed = cli(repo, "list", "--format", "table")
    assert listed.returncode == 0 and listed.stdout.splitlines()[-1] == "6 entries"
    assert cli(repo, "show", TARGET).returncode == 0
    held = cli(repo, "check-hold", HOLD)
    assert held.returncode == 1
    assert "config-error" in held.stderr and "[holds] has unknown key 'sourcs'" in held.stderr


def _actions(parser: argparse.ArgumentParser, path: str = "gotchas") -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found += _actions(child, f"{path} {name}")
        else:
            found.append((path, action))
    return found


def test_every_option_and_argument_has_help_and_a_plain_metavar() -> None:
    actions = _actions(_parser())
    assert len(actions) > 60
    for where, action in actions:
        assert action.help, f"{where}: {action.option_strings or action.dest} has no help"
        assert "GLOBAL" not in str(action.metavar or ""), where
    usage = run_help("--help")
    assert "GLOBAL_" not in usage and "$CLAUDE_PROJECT_DIR" in usage
    assert "exit codes:" in usage and "  6 " in usage


def run_help(*args: str) -> str:
    done = cli(Path.cwd(), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_serve_help_shows_defaults_and_the_variables() -> None:
    text = " ".join(run_help("serve", "--help").split())
    assert "default: 127.0.0.1" in text and "default: 8000" in text
    assert "GOTCHAS_TOKEN" in text and "GOTCHAS_ALLOWED_HOSTS" in text and "--allowed-host" in text
    propose = run_help("propose", "--help")
    assert "GLOBAL_" not in propose and "--red-herring-note TEXT" in propose


def test_the_readme_exit_code_table_is_the_cli_s() -> None:
    from gotchas.cli import EXIT_CODES
    from support.clients import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.partition("### Exit codes\n")[2].partition("\n### ")[0]
    codes = [
        int(row.split("|")[1]) for row in section.splitlines() if row.startswith("| ") and row[2].isdigit()
    ]
    assert codes == [code for code, _ in EXIT_CODES]
    assert len(set(codes)) == len(codes)


def test_a_command_line_builds_its_own_command_exactly_as_the_whole_parser_does() -> None:
    """Only the named command's parser is built: it must be the very one the whole parser holds."""
    from gotchas.cli import COMMANDS

    whole = _parser()
    (choices,) = [a.choices for a in whole._actions if isinstance(a, argparse._SubParsersAction)]
    assert set(choices) == set(COMMANDS)
    assert _parser(["--help"]).format_help() == whole.format_help()
    assert _parser(["no-such-command"]).format_help() == whole.format_help()
    for name in COMMANDS:
        alone = _parser([name, "--json"])
        (built,) = [a.choices for a in alone._actions if isinstance(a, argparse._SubParsersAction)]
        assert list(built) == [name]
        assert alone.format_usage() == whole.format_usage()
        assert built[name].format_help() == choices[name].format_help(), name
        assert _described(built[name]) == _described(choices[name]), name


def _described(parser: argparse.ArgumentParser) -> list[tuple[str, dict[str, object]]]:
    return [(where, {k: v for k, v in vars(a).items() if k != "container"}) for where, a in _actions(parser)]


def test_with_json_an_error_is_a_json_object_on_stdout(repo: Path) -> None:
    """A script reading stdout gets an answer it can parse, and the exit code still tells."""
    done = cli(repo, "show", "no-such-entry", "--json")
    assert done.returncode == 1
    error = json.loads(done.stdout)
    assert error["code"] == "entry-not-found"
    assert "no-such-entry" in error["message"]
    assert error["hint"] == "`gotchas list` shows the ids"
    assert done.stderr.startswith("gotchas: entry-not-found: ")
    bad = cli(repo, "apply", "--json")
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["code"] == "invalid-argument"
    plain = cli(repo, "show", "no-such-entry")
    assert plain.returncode == 1 and plain.stdout == ""


def test_gotchas_mcp_help_names_itself() -> None:
    import subprocess
    import sys

    program = "import sys; from gotchas.entry import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run([sys.executable, "-c", program, "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: gotchas-mcp ")
    assert "gotchas serve" not in done.stdout and "--http" in done.stdout
