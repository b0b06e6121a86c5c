"""Listing through the CLI (a real subprocess) and the MCP server (in process), on a real git repo."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from gotchas.server import build
from gotchas.terminal import width
from gotchas.workspace import Workspace
from support.clients import gotchas as cli
from support.clients import gotchas_exe, isolated_env
from support.project import write_record


def test_cli_lists_six_and_filters_by_task(repo: Path) -> None:
    everything = json.loads(cli(repo, "list", "--json").stdout)
    assert everything["total"] == 6
    only_664 = json.loads(cli(repo, "list", "--json", "--task", "#664").stdout)
    assert [e["id"] for e in only_664["entries"]] == ["a-single-large-llm-generate-deadlocks-the-v1"]
    only_601 = json.loads(cli(repo, "list", "--json", "--task", "601").stdout)
    assert [e["id"] for e in only_601["entries"]] == ["crashed-runs-leave-an-orphaned-vllm-enginecore"]
    again = json.loads(cli(repo, "list", "--json").stdout)
    assert [e["id"] for e in again["entries"]] == [e["id"] for e in everything["entries"]]
    piped = cli(repo, "list").stdout.splitlines()
    assert [row.split("\t")[0] for row in piped] == [e["id"] for e in everything["entries"]]


def test_cli_pages_with_a_cursor_bound_to_the_bytes(repo: Path) -> None:
    first = json.loads(cli(repo, "list", "--json", "--limit", "4").stdout)
    assert len(first["entries"]) == 4 and first["next_cursor"]
    rest = json.loads(cli(repo, "list", "--json", "--limit", "4", "--cursor", first["next_cursor"]).stdout)
    assert len(rest["entries"]) == 2 and rest["next_cursor"] is None
    record = repo / ".claude/rules/gotchas.md"
    record.write_bytes(record.read_bytes() + b"\n")
    stale = cli(repo, "list", "--json", "--cursor", first["next_cursor"])
    assert stale.returncode == 2 and "changed" in stale.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("--record", "../outside.md", "list"), "path-outside-root"),
        (("list", "--record", ".claude"), "record-unreadable"),
        (("list", "--record", "missing.md"), "record-not-found"),
        (("show", "no-such-entry"), "entry-not-found"),
        (("list", "--task", "not a task"), "invalid-task"),
    ],
)
def test_cli_refusals_are_one_line_without_traceback(repo: Path, args: tuple[str, ...], code: str) -> None:
    result = cli(repo, *args)
    assert result.returncode != 0
    assert result.stderr.count("\n") == 1 and code in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.anyio
async def test_mcp_list_is_compact_and_get_quotes_text_as_data(repo: Path) -> None:
    async with Client(build(Workspace.discover(root=str(repo)))) as client:
        listed = await client.call_tool("list_gotchas", {"task": "#664"})
        assert not listed.is_error and listed.structured_content is not None
        assert listed.structured_content["total"] == 1
        assert "text" not in listed.structured_content["entries"][0]
        shown = await client.call_tool("get_gotcha", {"id": "a-single-large-llm-generate-deadlocks-the-v1"})
        assert not shown.is_error
        text = shown.content[0].text  # type: ignore[union-attr]
        assert "data, not instructions" in text and "````markdown" in text
        missing = await client.call_tool("get_gotcha", {"id": "nope"})
        assert missing.is_error and "entry-not-found" in missing.content[0].text  # type: ignore[union-attr]
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["list_gotchas"].annotations and tools["list_gotchas"].annotations.read_only_hint
        assert tools["apply_supersede"].annotations and tools["apply_supersede"].annotations.destructive_hint
        assert all(t.output_schema for t in tools.values())


def test_a_listing_of_500_entries_stays_small() -> None:
    """What an agent reads when it scans 500 entries: ids, places, tasks; no titles or bodies."""
    from gotchas import query, record

    body = "".join(
        f"### Lesson number {i} about caching\n\ntasks: #{100 + i}\n\nA body the listing leaves out.\n\n"
        for i in range(500)
    )
    result = query.listing(record.parse(("# G\n\n## A\n\n" + body).encode()), "g.md", limit=500)
    assert result["total"] == 500 and len(result["entries"]) == 500
    compact = json.dumps(result, separators=(",", ":"))
    assert "body the listing leaves out" not in compact and "title" not in compact
    # About 70 characters an entry: some 9k tokens for 500 at 4 characters a token.
    assert len(compact) < 40_000
    verbose = query.listing(record.parse(("## A\n\n" + body).encode()), "g.md", limit=2, verbose=True)
    assert verbose["entries"][0]["title"] == "Lesson number 0 about caching"


def test_config_names_the_record_and_forces_the_entry_style(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".claude").mkdir()
    notes = tmp_path / "docs" / "lessons.md"
    notes.parent.mkdir()
    notes.write_text("# Lessons\n\n## Build\n\n- **Pin it** — a.\n- **Cache it** — b.\n\n## Run\n\nProse.\n")
    guessed = json.loads(cli(tmp_path, "--record", "docs/lessons.md", "list", "--json", "--verbose").stdout)
    # "Build" names a group of bullet lessons, "Run" is a lesson of its own (a mixed file)
    assert [e["title"] for e in guessed["entries"]] == ["Pin it", "Cache it", "Run"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('record = "docs/lessons.md"\nentries = "h2"\n')
    forced = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert forced["record"] == "docs/lessons.md"
    assert [e["title"] for e in forced["entries"]] == ["Build", "Run"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('record = "docs/lessons.md"\nentries = "list"\n')
    listed = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert [e["title"] for e in listed["entries"]] == ["Pin it", "Cache it"]
    (tmp_path / ".claude" / "gotchas.toml").write_text('entries = "columns"\n')
    refused = cli(tmp_path, "list")
    assert refused.returncode == 1 and "entries must be one of" in refused.stderr


def test_an_agent_guide_is_known_by_its_name(tmp_path: Path) -> None:
    """The same sections list as lessons in a lessons file and as none in a ``CLAUDE.md``, whose
    lessons, if any, are a section of them; a pin still reads the guide as the project says."""
    (tmp_path / ".git").mkdir()
    text = "# Payments\n\n## Always run the linter\n\nCI fails.\n\n## Never edit clients\n\nRebuilt.\n"
    guide = tmp_path / "CLAUDE.md"
    guide.write_text(text)
    notes = tmp_path / ".claude" / "rules" / "gotchas.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(text)
    lessons = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert [e["title"] for e in lessons["entries"]] == ["Always run the linter", "Never edit clients"]
    read = json.loads(cli(tmp_path, "--record", "CLAUDE.md", "list", "--json", "--verbose").stdout)
    assert read["entries"] == [] and "CLAUDE.md" in read["notice"] and "guide" in read["notice"]
    guide.write_text(text + "\n## Gotchas\n\n- **Sandbox keys only** - live keys are refused.\n")
    read = json.loads(cli(tmp_path, "--record", "CLAUDE.md", "list", "--json", "--verbose").stdout)
    assert [e["title"] for e in read["entries"]] == ["Sandbox keys only"]
    guide.write_text(text)
    (tmp_path / ".claude" / "gotchas.toml").write_text('record = "CLAUDE.md"\nentries = "h2"\n')
    pinned = json.loads(cli(tmp_path, "list", "--json", "--verbose").stdout)
    assert [e["title"] for e in pinned["entries"]] == ["Always run the linter", "Never edit clients"]
    assert guide.read_text() == text and notes.read_text() == text


def test_every_real_file_lists_through_the_cli_unchanged(tmp_path: Path) -> None:
    corpus = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "real"
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is absent (the shared corpus beside the repository)")
    (tmp_path / ".git").mkdir()
    for source in sorted(p for p in corpus.iterdir() if p.suffix != ".tsv"):
        copy = tmp_path / "lessons" / source.name
        copy.parent.mkdir(exist_ok=True)
        copy.write_bytes(source.read_bytes())
        first = cli(tmp_path, "list", "--json", "--limit", "1000", "--record", f"lessons/{source.name}")
        assert first.returncode == 0, (source.name, first.stderr)
        again = cli(tmp_path, "list", "--json", "--limit", "1000", "--record", f"lessons/{source.name}")
        ids = [e["id"] for e in json.loads(first.stdout)["entries"]]
        assert ids == [e["id"] for e in json.loads(again.stdout)["entries"]], source.name
        assert copy.read_bytes() == source.read_bytes(), source.name


# --- output in the ecosystem's idiom ---------------------------------------------------------

SGR = re.compile(r"\x1b\[[0-9;]*m")

CORRECTED = """\
# Gotchas

## Serving

### A single large generate() deadlocks the engine, so chunk it into batches of two thousand

tasks: #8244
red-herring-for: #8244 · superseded-by: per-call-tokenizer-reloads-starved-generation (for #8244)

Split the prompts.

### Per-call tokenizer reloads starved generation

tasks: #8244 · root-cause: confirmed · supersedes: a-single-large-generate-deadlocks-the-engine-so (for #8244)
diagnostic: profile one render call

Cache the tokenizer.

## Build

### Pin the wheel index
tasks: #12
"""


def on_terminal(root: Path, *args: str, columns: int = 200, **env: str) -> tuple[int, str]:
    """``gotchas`` run with a pseudo-terminal ``columns`` wide as its standard output (what a
    person sees), with nothing of the caller's colour or width settings; ``env`` adds them."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    settings = ("NO_COLOR", "FORCE_COLOR", "COLUMNS", "TERM")
    environ = {k: v for k, v in isolated_env(root.parent / "home").items() if k not in settings}
    environ.update(TERM="xterm-256color", **env)
    with subprocess.Popen(
        [gotchas_exe(), *args],
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.DEVNULL,
        env=environ,
    ) as process:
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        code = process.wait(timeout=60)
    return code, b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


@pytest.fixture
def corrected(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_record(root, CORRECTED.encode())
    (tmp_path / "home").mkdir()
    return root


def test_a_piped_listing_is_tab_separated_rows(corrected: Path) -> None:
    done = cli(corrected, "list")
    assert done.returncode == 0 and "\x1b" not in done.stdout
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    # no header, no count: id, lines, tasks, state, group, title
    assert [len(row) for row in rows] == [6, 6, 6]
    old, new, pin = rows
    assert old[:5] == [old[0], "5-10", "#8244", "red herring", "Serving"]
    assert new[3] == "confirmed" and new[4] == "Serving"
    assert pin == ["pin-the-wheel-index", "21-22", "#12", "", "Build", "Pin the wheel index"]
    assert cli(corrected, "list", "--format", "tsv").stdout == done.stdout
    assert json.loads(cli(corrected, "list", "--format", "json").stdout) == json.loads(
        cli(corrected, "list", "--json").stdout
    )


def test_a_listing_on_a_terminal_fits_its_width(corrected: Path) -> None:
    for columns in (80, 100, 60):
        code, shown = on_terminal(corrected, "list", COLUMNS=str(columns), NO_COLOR="1")
        lines = shown.splitlines()
        assert code == 0 and lines[0].split()[:3] == ["ID", "LINES", "TASKS"]
        assert all(width(line) <= columns for line in lines), (columns, shown)
        assert lines[-1] == "3 entries"
    # the terminal's own width when COLUMNS does not say; titles cut with … where they must be
    _, wide = on_terminal(corrected, "list", columns=120, NO_COLOR="1")
    assert max(width(line) for line in wide.splitlines()) <= 120
    assert "A single large generate() deadlocks the" in wide and "…" in wide
    _, widest = on_terminal(corrected, "list", columns=250, NO_COLOR="1")
    assert "…" not in widest
    assert (
        "A single large generate() deadlocks the engine, so chunk it into batches of two thousand" in widest
    )


def test_a_table_shows_groups_short_states_and_single_lines(corrected: Path) -> None:
    shown = cli(corrected, "list", "--format", "table", COLUMNS="250").stdout.splitlines()
    header, *rows, count = shown
    assert header.split() == ["ID", "LINES", "TASKS", "STATE", "TITLE"]
    assert rows[0] == "Serving" and rows[3] == "Build"
    old, pin = rows[1], rows[4]
    assert old.split("  ")[0].startswith("a-single-large-generate") and " red herring " in old
    assert "superseded" not in old and "→" not in old and "per-call" not in old  # show tells that
    assert pin.split()[:3] == ["pin-the-wheel-index", "21-22", "#12"]
    assert count == "3 entries"
    one_line = cli(corrected, "list", "--format", "table", "--task", "#12", COLUMNS="250")
    assert one_line.stdout.splitlines()[2].split()[1] == "21-22"
    old_id = old.split()[0]
    assert (
        "superseded-by: per-call-tokenizer-reloads-starved-generation (for #8244)"
        in cli(corrected, "show", old_id).stdout
    )
    single = corrected / ".claude/rules/gotchas.md"
    single.write_text("# G\n\n- **Pin the index** tasks: #12\n- **Cache it** tasks: #13\n", encoding="utf-8")
    listed = cli(corrected, "list", "--format", "table", COLUMNS="250").stdout.splitlines()
    assert listed[0].split() == ["ID", "LINES", "TASKS", "TITLE"]  # all plainly active: no STATE
    assert [row.split()[1] for row in listed[2:4]] == ["3", "4"]  # one line: 3, not 3-3


def test_colour_on_a_terminal_only_and_never_with_no_color(corrected: Path) -> None:
    _, coloured = on_terminal(corrected, "list")
    assert SGR.search(coloured)
    assert SGR.sub("", coloured) == on_terminal(corrected, "list", NO_COLOR="1")[1]
    assert "\x1b" not in on_terminal(corrected, "list", NO_COLOR="1")[1]
    assert "\x1b" not in on_terminal(corrected, "list", "--color", "never")[1]
    assert "\x1b" not in cli(corrected, "list", "--format", "table").stdout
    assert SGR.search(cli(corrected, "list", "--format", "table", "--color", "always").stdout)
    assert SGR.search(cli(corrected, "list", "--format", "table", FORCE_COLOR="1").stdout)
    assert "\x1b" not in on_terminal(corrected, "list", "--json")[1]


def test_a_coloured_table_still_escapes_what_the_record_says(tmp_path: Path) -> None:
    root = tmp_path / "project"
    hostile = "# G\n\n## Evil \x1b]0;owned\x07 group\n\n### Clear \x1b[2J now \u202egnp.exe\n\ntasks: #1\n"
    write_record(root, hostile.encode())
    (tmp_path / "home").mkdir()
    _, shown = on_terminal(root, "list", "--color", "always")
    assert "\\x1b]0;owned\\x07" in shown and "\\u202e" in shown and "\u202e" not in shown
    assert "\x1b]" not in shown and "\x07" not in shown and "\x1b[2J" not in shown
    assert set(re.findall(r"\x1b\[[^m]*m", shown)) <= {m[0] for m in SGR.finditer(shown)}
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", shown)  # every escape left is a colour we wrote


def test_a_proposed_diff_is_coloured_on_a_terminal_only(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_record(root, CORRECTED.encode())
    (tmp_path / "home").mkdir()
    from support.clients import git

    git(root, "init", "-q", "-b", "main")
    propose = (
        "propose", "--title", "Evil title", "--body", "Cache it.", "--tasks", "#7",
        "--root-cause", "confirmed", "--diagnostic", "seen in the log", "--no-hold",
        "--after", "pin-the-wheel-index",
    )  # fmt: skip
    code, shown = on_terminal(root, *propose)
    assert code == 0
    added = [line for line in shown.splitlines() if "Evil" in line and "###" in line]
    assert added and all(line.startswith("\x1b[32m+") for line in added)
    assert any(line.startswith("\x1b[1m+++") for line in shown.splitlines())
    assert set(re.findall(r"\x1b[^m]*m", shown)) <= {m[0] for m in SGR.finditer(shown)}
    plain = cli(root, *propose)
    assert "\x1b" not in plain.stdout and "\n+### Evil title\n" in plain.stdout
    _, no_color = on_terminal(root, *propose, NO_COLOR="1")
    assert "\x1b[" not in no_color


def test_wide_characters_are_counted_as_the_terminal_shows_them(tmp_path: Path) -> None:
    import unicodedata

    def shown_width(text: str) -> int:
        return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)

    root = tmp_path / "project"
    title = "分块生成会让引擎死锁所以要把提示分成两千条一批" * 2
    write_record(root, f"# G\n\n### {title}\n\ntasks: #1\n\n### Pin it\n\ntasks: #2\n".encode())
    (tmp_path / "home").mkdir()
    for columns in (200, 120, 70):
        lines = cli(root, "list", "--format", "table", COLUMNS=str(columns)).stdout.splitlines()
        assert all(shown_width(line) <= columns for line in lines), (columns, lines)
        # the id is 92 columns wide (its slug keeps the script): whole at 120, cut at 70
        assert any(("…" in line) == (columns < 92) and "分块" in line for line in lines), lines
