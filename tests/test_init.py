"""`gotchas init` sets a repository up in one command: it says each change, merges into JSON
that is there without losing a key, changes nothing on a second run or with --dry-run, and
stops with nothing written when a file it must merge into is malformed."""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gotchas import handshake, initialize, outline
from support.clients import RECORD_PATH, git, git_env, gotchas, make_scenario_repo, run_gotchas
from support.project import LAST


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.relative_to(root).parts[0] != ".git"
    }


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "home").mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo


def test_init_on_an_empty_repository_then_again(root: Path) -> None:
    dry = run_gotchas(root, "init", "--dry-run", "--json")
    planned = json.loads(dry.stdout)["changes"]
    assert {c["target"] for c in planned} == {
        ".claude/rules/gotchas.md",
        ".mcp.json",
        ".claude/settings.json",
        ".gitattributes",
        "git config merge.gotchas.name",
        "git config merge.gotchas.driver",
    }
    assert tree(root) == {}
    assert "merge.gotchas" not in git(root, "config", "--local", "--list")

    assert json.loads(dry.stdout)["reading"] is None, "no record yet: nothing was read"
    done = run_gotchas(root, "init")
    said = done.stdout.splitlines()
    assert len(said) == len(planned) + 3 and "changed .mcp.json" in done.stdout
    assert said[-3:] == ["read .claude/rules/gotchas.md: no lesson found", outline.CHECK_IT, initialize.NEXT]
    assert (root / ".claude/rules/gotchas.md").read_text("utf-8").startswith("# Gotchas")
    server = json.loads((root / ".mcp.json").read_text("utf-8"))["mcpServers"]["gotchas"]
    assert server in (handshake.SERVER, handshake.installed_server())
    assert handshake.answers(server, root) is None, "the server written answers an MCP initialize"
    settings = json.loads((root / ".claude/settings.json").read_text("utf-8"))
    assert "mcp__gotchas__history" in settings["permissions"]["allow"]
    assert "mcp__gotchas__apply_supersede" not in settings["permissions"]["allow"]
    hook = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert "exec gotchas session-start" in hook and ".venv" not in hook
    attributes = (root / ".gitattributes").read_text("utf-8").splitlines()
    assert ".claude/rules/gotchas.md merge=gotchas" in attributes
    assert ".claude/gotchas/journal.jsonl merge=union" in attributes
    driver = git(root, "config", "merge.gotchas.driver").strip()
    python, args = shlex.split(driver)[0], shlex.split(driver)[1:]
    assert driver.startswith("'") and args == ["-m", "gotchas", "merge-record", "--", "%O", "%A", "%B", "%P"]
    assert Path(python).is_absolute() and Path(python).samefile(sys.executable)
    assert git(root, "check-attr", "merge", ".claude/rules/gotchas.md").strip().endswith("merge: gotchas")
    assert run_gotchas(root, "verify").returncode == 0

    before = tree(root)
    again = run_gotchas(root, "init")
    assert again.stdout.splitlines() == ["nothing to change: already set up", *said[-3:]]
    assert tree(root) == before


def test_init_merges_into_existing_files_and_keeps_every_key_and_line(root: Path) -> None:
    settings: dict[str, Any] = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
        "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]},
    }
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text(json.dumps(settings), "utf-8")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}}}), "utf-8")
    (root / ".gitattributes").write_bytes(b"*.png binary\r\n*.sh text eol=lf")
    record = root / ".claude/rules/gotchas.md"
    record.parent.mkdir(parents=True)
    record.write_bytes(b"# Our lessons\r\n\r\n## One\r\n\r\ntasks: #1\r\n\r\nKeep.\r\n")
    kept = record.read_bytes()

    run_gotchas(root, "init")
    merged = json.loads((root / ".claude/settings.json").read_text("utf-8"))
    assert merged["model"] == "opus" and merged["permissions"]["deny"] == ["Read(./.env)"]
    assert merged["permissions"]["allow"][0] == "Bash(npm test)"
    assert merged["hooks"]["Stop"] == settings["hooks"]["Stop"]
    assert set(json.loads((root / ".mcp.json").read_text("utf-8"))["mcpServers"]) == {"other", "gotchas"}
    assert (root / ".gitattributes").read_bytes().startswith(b"*.png binary\r\n*.sh text eol=lf\r\n")
    assert record.read_bytes() == kept


def test_a_malformed_settings_file_stops_init_with_nothing_written(root: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude/settings.json").write_text('{"permissions": {"allow": "everything"}}', "utf-8")
    before = tree(root)
    done = gotchas(root, "init")
    assert done.returncode == 1 and "permissions.allow" in done.stderr and done.stderr.count("\n") == 1
    assert tree(root) == before
    (root / ".claude/settings.json").write_text("{not json", "utf-8")
    assert gotchas(root, "init").returncode == 1


@pytest.mark.parametrize(
    "name",
    [
        ".claude/rules/team gotchas.md",
        '.claude/rules/our "hard" lessons [v2] #1.md',
        ".claude/rules/what*we?learned\\ today!.md",
        ".claude/rules/leçons\tapprises.md",
    ],
)
def test_the_attributes_line_names_exactly_a_record_with_spaces_or_specials(root: Path, name: str) -> None:
    (root / ".claude").mkdir()
    (root / ".claude/gotchas.toml").write_text(f"record = {json.dumps(name)}\n", "utf-8")
    run_gotchas(root, "init")
    assert (root / name).is_file()
    line = (root / ".gitattributes").read_text("utf-8").splitlines()[0]
    assert line.startswith('"') and line.endswith('" merge=gotchas'), line

    def attribute(path: str) -> str:
        shown = git(root, "-c", "core.quotepath=off", "check-attr", "-z", "merge", "--", path)
        return shown.split("\0")[2]

    assert attribute(name) == "gotchas"
    # the name's glob characters are literal: a file the glob would match is not the record
    if "*" in name:
        assert attribute(name.replace("*", "X*Y")) == "unspecified"
    assert run_gotchas(root, "init").stdout.splitlines()[0] == "nothing to change: already set up"


def test_a_quoted_path_is_c_style_and_a_plain_one_is_left_plain() -> None:
    assert initialize._quoted(".claude/rules/gotchas.md") == ".claude/rules/gotchas.md"
    assert initialize._quoted('a b/"c"\\d*.md') == '"a b/\\"c\\"\\\\\\\\d\\\\*.md"'
    assert initialize._quoted("a\nb.md") == '"a\\nb.md"'


def test_a_custom_merge_driver_is_kept_and_reported(root: Path) -> None:
    git(root, "config", "merge.gotchas.driver", "my-merge --careful %O %A %B")
    dry = json.loads(run_gotchas(root, "init", "--dry-run", "--json").stdout)["changes"]
    [kept] = [c for c in dry if c["target"] == "git config merge.gotchas.driver"]
    assert kept["kept"] is True and "my-merge --careful %O %A %B" in kept["what"]
    done = run_gotchas(root, "init")
    assert "kept git config merge.gotchas.driver: already 'my-merge --careful %O %A %B'" in done.stdout
    assert git(root, "config", "merge.gotchas.driver").strip() == "my-merge --careful %O %A %B"
    again = run_gotchas(root, "init").stdout
    assert "kept git config merge.gotchas.driver" in again and "nothing to change" in again


def capture(root: Path, task: str, title: str) -> None:
    args = ["propose", "--no-hold", "--json", "--title", title, "--body", f"What {task} showed."]
    args += ["--tasks", task]
    args += ["--after", LAST]  # at the end of the file: what the merge is about
    proposed = json.loads(run_gotchas(root, *args, "--root-cause", "suspected").stdout)
    run_gotchas(root, "apply", proposed["proposal_id"])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"Record what {task} showed")


def test_the_configured_driver_merges_with_no_gotchas_on_path(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    make_scenario_repo(origin)
    (tmp_path / "home").mkdir()
    run_gotchas(origin, "init")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "Set gotchas up")
    a, b = tmp_path / "a", tmp_path / "b"
    for clone in (a, b):
        git(tmp_path, "clone", "-q", str(origin), clone.name)
    capture(a, "#701", "Warm caches hide cold-start regressions")
    capture(b, "#702", "CI runners reuse stale wheels")
    run_gotchas(a, "init")  # a clone has no local config: init sets the driver here
    git(a, "fetch", "-q", str(b), "main")
    bare_path = os.pathsep.join(d for d in ("/usr/bin", "/bin") if Path(d).is_dir())
    env = {**git_env(), "PATH": bare_path}
    assert subprocess.run(["sh", "-c", "command -v gotchas"], env=env, check=False).returncode != 0
    done = subprocess.run(
        ["git", "merge", "--no-edit", "FETCH_HEAD"], cwd=a, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "merged: both sides' corrections kept and verified" in done.stderr
    text = (a / RECORD_PATH).read_text("utf-8")
    assert "Warm caches hide" in text and "CI runners reuse" in text and "<<<<<<<" not in text
    assert run_gotchas(a, "verify").returncode == 0


@pytest.mark.parametrize("answers", [False, True])
def test_the_server_is_the_published_one_only_when_uvx_starts_it(root: Path, answers: bool) -> None:
    """A ``uvx`` that cannot resolve ``gotchas-mcp`` leaves this installation's command in
    ``.mcp.json``; one that answers the MCP initialize is written as the README adds it."""
    bin_dir = root.parent / "bin"
    bin_dir.mkdir()
    reply = '{"jsonrpc": "2.0", "id": 1, "result": {"serverInfo": {"name": "gotchas"}}}'
    body = (
        f"echo '{reply}'"
        if answers
        else "echo 'error: gotchas-mcp was not found in the registry' >&2; exit 2"
    )
    (bin_dir / "uvx").write_text(f"#!/bin/sh\ncat >/dev/null\n{body}\n", "utf-8")
    (bin_dir / "uvx").chmod(0o755)
    done = gotchas(root, "init", PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    server = json.loads((root / ".mcp.json").read_text("utf-8"))["mcpServers"]["gotchas"]
    assert server == (handshake.SERVER if answers else handshake.installed_server())


GUESSED = """# Gotchas

## Docker

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.

## The CI runner has two cores and `-n 8` thrashes

Use `-n 2` with pytest-xdist on the shared runners.
"""


def test_init_says_how_the_record_reads_and_when_that_is_a_guess(root: Path) -> None:
    """A new user's first look: how many lessons, in what shape, the notice when the reading
    is a guess (the same line ``gotchas list`` prints), and where to check and pin it."""
    record = root / ".claude/rules/gotchas.md"
    record.parent.mkdir(parents=True)
    record.write_text(GUESSED, encoding="utf-8")
    notice = run_gotchas(root, "list").stderr.strip().removeprefix("gotchas: ")
    assert notice.startswith("the reading is a guess") and 'entries = "list"' in notice

    done = run_gotchas(root, "init")
    assert done.returncode == 0, done.stderr
    said = done.stdout.splitlines()
    assert said[-4:] == [
        "read .claude/rules/gotchas.md: 3 lessons (entries of mixed shapes) in 1 group, 1 part left out",
        f"notice: {notice}",
        outline.CHECK_IT,
        initialize.NEXT,
    ]
    assert record.read_text("utf-8") == GUESSED, "init reads the record, never rewrites it"
    view = json.loads(run_gotchas(root, "init", "--json").stdout)["reading"]
    assert view == {"kind": "lessons", "unit": "mixed", "lessons": 3, "notice": notice}

    (root / ".claude/gotchas.toml").write_text('entries = "list"\n', encoding="utf-8")
    pinned = run_gotchas(root, "init").stdout.splitlines()
    assert pinned[-3:] == [
        "read .claude/rules/gotchas.md: 2 lessons (list items), as pinned",
        outline.CHECK_IT,
        initialize.NEXT,
    ]
