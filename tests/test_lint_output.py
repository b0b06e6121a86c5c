"""`gotchas verify` / `lint` as a linter: `path:line:col: severity code message` lines that
editors and problem matchers read, GitHub Actions annotations, and an exit code that agrees
with the verdict it prints. Runs the real CLI on records written here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from support.clients import git
from support.clients import gotchas as cli

CLEAN = """\
# Lessons

### Pin the CUDA wheel index

tasks: #12 · root-cause: confirmed
diagnostic: `pip download torch` picks the CPU wheel

Install torch from the CUDA index, or the CPU wheel wins.
"""

WARNING_ONLY = (
    CLEAN
    + """
### Flaky downloads need a retry

tasks: #14 · root-cause: confirmed

Retry three times with backoff.
"""
)

BROKEN = (
    WARNING_ONLY
    + """
### Retry, with the reason

tasks: #13 · root-cause: confirmed · supersedes: no-such-lesson (for #13)
diagnostic: the log shows a reset connection

Retry three times with backoff; the reset was the proxy.
"""
)

LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): "
    r"(?P<severity>error|warning) (?P<code>[a-z-]+) (?P<message>.+)$"
)


def project(tmp_path: Path, text: str) -> Path:
    root = tmp_path / "repo"
    record = root / ".claude" / "rules" / "gotchas.md"
    record.parent.mkdir(parents=True)
    record.write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    return root


def heading_line(text: str, title: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), start=1) if line.endswith(title))


def test_problems_are_path_line_col_severity_code_message(tmp_path: Path) -> None:
    root = project(tmp_path, BROKEN)
    done = cli(root, "verify")
    assert done.returncode == 1
    *problems, verdict = done.stdout.splitlines()
    parsed = [LINE.match(line) for line in problems]
    assert problems and all(parsed), problems
    by_code = {m["code"]: m for m in parsed if m}
    dangling = by_code["dangling-supersedes"]
    assert dangling["path"] == ".claude/rules/gotchas.md"
    assert (dangling["severity"], dangling["col"]) == ("error", "1")
    assert int(dangling["line"]) == heading_line(BROKEN, "Retry, with the reason")
    assert "no-such-lesson" in dangling["message"]
    warning = by_code["confirmed-without-diagnostic"]
    assert warning["severity"] == "warning"
    assert int(warning["line"]) == heading_line(BROKEN, "Flaky downloads need a retry")
    assert verdict == ".claude/rules/gotchas.md: 3 entries, failed: 1 error, 1 warning"


def test_paths_are_relative_to_where_the_command_runs(tmp_path: Path) -> None:
    root = project(tmp_path, BROKEN)
    (root / "src").mkdir()
    done = cli(root / "src", "lint")
    first = LINE.match(done.stdout.splitlines()[0])
    assert first and first["path"] == "../.claude/rules/gotchas.md"
    assert (root / "src" / first["path"]).is_file()


def test_github_format_prints_workflow_annotations(tmp_path: Path) -> None:
    root = project(tmp_path, BROKEN)
    done = cli(root, "verify", "--format", "github")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    error = next(line for line in lines if line.startswith("::error "))
    line_no = heading_line(BROKEN, "Retry, with the reason")
    assert error.startswith(
        f"::error file=.claude/rules/gotchas.md,line={line_no},col=1,title=dangling-supersedes::"
    )
    warning = next(line for line in lines if line.startswith("::warning "))
    assert "title=confirmed-without-diagnostic::" in warning
    assert lines[-1].endswith("failed: 1 error, 1 warning")


def test_annotation_text_is_escaped(tmp_path: Path) -> None:
    """A message with a newline or percent sign cannot break out of its annotation."""
    from gotchas.cli.verify import problem_line
    from gotchas.results import ProblemView

    problem: ProblemView = {
        "severity": "error",
        "code": "x",
        "entry": "a,b",
        "line": 3,
        "message": "50%\nnext",
    }
    assert problem_line("dir:1/f.md", problem, "github") == (
        "::error file=dir%3A1/f.md,line=3,col=1,title=x::a,b: 50%25%0Anext"
    )


@pytest.mark.parametrize(
    ("text", "strict", "code", "verdict"),
    [
        (CLEAN, False, 0, "1 entry, ok"),
        (CLEAN, True, 0, "1 entry, ok"),
        (WARNING_ONLY, False, 0, "2 entries, ok (1 warning)"),
        (WARNING_ONLY, True, 1, "2 entries, failed: 1 warning (--strict fails on warnings)"),
        (BROKEN, False, 1, "3 entries, failed: 1 error, 1 warning"),
    ],
)
def test_the_exit_code_agrees_with_the_verdict(
    tmp_path: Path, text: str, strict: bool, code: int, verdict: str
) -> None:
    root = project(tmp_path, text)
    done = cli(root, "verify", *(["--strict"] if strict else []))
    assert done.returncode == code
    last = done.stdout.splitlines()[-1]
    assert last == f".claude/rules/gotchas.md: {verdict}"
    assert ("ok" in last.split(", ")[-1]) == (code == 0)
