"""`gotchas verify` / `lint` as a linter: `path:line:col: severity code message` lines that
editors and problem matchers read, GitHub Actions annotations, and an exit code that agrees
with the verdict it prints. Runs the real CLI on records written here."""

from __future__ import annotations

import json
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


def place_of(text: str, after_title: str, needle: str) -> tuple[int, int]:
    """(line, column), 1-based, of the first ``needle`` below the heading ``after_title``."""
    lines = text.splitlines()
    start = heading_line(text, after_title)
    for n, line in enumerate(lines[start:], start=start + 1):
        if needle in line:
            return n, line.index(needle) + 1
    raise AssertionError(needle)


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
    assert dangling["severity"] == "error"
    # at the link's target in the field line, not at the entry's heading
    where = place_of(BROKEN, "Retry, with the reason", "no-such-lesson (for #13)")
    assert (int(dangling["line"]), int(dangling["col"])) == where
    assert "no-such-lesson" in dangling["message"]
    warning = by_code["confirmed-without-diagnostic"]
    assert warning["severity"] == "warning"
    assert (int(warning["line"]), int(warning["col"])) == place_of(
        BROKEN, "Flaky downloads need a retry", "root-cause: confirmed"
    )
    assert verdict == ".claude/rules/gotchas.md: 2 problems (1 error, 1 warning) in 3 entries: failed"


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
    line_no, col = place_of(BROKEN, "Retry, with the reason", "no-such-lesson")
    assert error.startswith(
        f"::error file=.claude/rules/gotchas.md,line={line_no},col={col},title=dangling-supersedes::"
    )
    warning = next(line for line in lines if line.startswith("::warning "))
    assert "title=confirmed-without-diagnostic::" in warning
    assert lines[-1].endswith("2 problems (1 error, 1 warning) in 3 entries: failed")


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
        (CLEAN, False, 0, "no problems in 1 entry: ok"),
        (CLEAN, True, 0, "no problems in 1 entry: ok"),
        (WARNING_ONLY, False, 0, "1 problem (0 errors, 1 warning) in 2 entries: ok"),
        (
            WARNING_ONLY,
            True,
            1,
            "1 problem (0 errors, 1 warning) in 2 entries: failed (--strict fails on warnings)",
        ),
        (BROKEN, False, 1, "2 problems (1 error, 1 warning) in 3 entries: failed"),
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
    assert last.endswith(": ok") == (code == 0)


# --- the controls of a linter ----------------------------------------------------------------


def test_ignore_silences_a_code_and_select_keeps_only_some(tmp_path: Path) -> None:
    root = project(tmp_path, BROKEN)
    ignored = cli(root, "lint", "--ignore", "dangling-supersedes")
    assert ignored.returncode == 0, ignored.stdout
    assert "dangling-supersedes" not in ignored.stdout
    assert ignored.stdout.splitlines()[-1].endswith(
        "1 problem (0 errors, 1 warning) in 3 entries, 1 more not selected: ok"
    )
    by_prefix = cli(root, "lint", "--ignore", "dangling,confirmed")
    assert by_prefix.returncode == 0 and by_prefix.stdout.splitlines() == [
        ".claude/rules/gotchas.md: no problems in 3 entries, 2 more not selected: ok"
    ]
    selected = cli(root, "lint", "--select", "confirmed-without-diagnostic")
    codes = [m["code"] for m in map(LINE.match, selected.stdout.splitlines()[:-1]) if m]
    assert codes == ["confirmed-without-diagnostic"] and selected.returncode == 0
    assert cli(root, "lint", "--select", "dangling").returncode == 1
    as_json = json.loads(cli(root, "lint", "--json", "--ignore", "dangling-supersedes").stdout)
    assert as_json["ok"] is True and [p["code"] for p in as_json["problems"]] == [
        "confirmed-without-diagnostic"
    ]


def test_lint_config_selects_and_ignores_and_typos_are_named(tmp_path: Path) -> None:
    root = project(tmp_path, WARNING_ONLY)
    config = root / ".claude" / "gotchas.toml"
    assert cli(root, "lint", "--strict").returncode == 1
    config.write_text('[lint]\nignore = ["confirmed-without-diagnostic"]\n', encoding="utf-8")
    assert cli(root, "lint", "--strict").returncode == 0
    config.write_text('[lint]\nselect = ["duplicate-id"]\n', encoding="utf-8")
    assert cli(root, "lint", "--strict").returncode == 0
    assert cli(root, "lint", "--strict", "--select", "confirmed").returncode == 1  # the flag wins
    typo = cli(root, "lint", "--ignore", "confirmed-without-diagnostics")
    assert "matches no lint code; did you mean confirmed-without-diagnostic?" in typo.stderr
    config.write_text('[lint]\nignor = ["confirmed-without-diagnostic"]\n', encoding="utf-8")
    refused = cli(root, "lint")
    assert refused.returncode == 2 and "config-error" in refused.stderr
    assert "[lint] has unknown key 'ignor'; did you mean 'ignore'?" in refused.stderr


def test_an_unknown_config_key_exits_2_naming_the_nearest(tmp_path: Path) -> None:
    root = project(tmp_path, CLEAN)
    config = root / ".claude" / "gotchas.toml"
    config.write_text('recrod = "docs/LESSONS.md"\n', encoding="utf-8")
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    for command in (("list",), ("lint",), ("show", "pin-the-cuda-wheel-index")):
        done = cli(root, *command)
        assert done.returncode == 2, (command, done.stderr)
        assert done.stderr.startswith("gotchas: config-error: .claude/gotchas.toml: unknown key 'recrod'")
        assert "did you mean 'record'?" in done.stderr and done.stderr.count("\n") == 1
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts} == before


def test_statistics_count_per_code(tmp_path: Path) -> None:
    many = "# Lessons\n\n" + "".join(
        f"### Lesson {n}\n\ntasks: #{n} · root-cause: confirmed\n\nBody.\n\n" for n in range(1, 41)
    )
    many += "### Last\n\ntasks: #99 · root-cause: confirmed · supersedes: gone (for #99)\n\nBody.\n"
    root = project(tmp_path, many)
    full = cli(root, "lint")
    assert len(full.stdout.splitlines()) == 40 + 2 + 1
    stats = cli(root, "lint", "--statistics")
    assert stats.returncode == 1
    assert [line.split() for line in stats.stdout.splitlines()] == [
        ["40", "confirmed-without-diagnostic", "warning"],
        ["1", "confirmed-without-diagnostic", "error"],
        ["1", "dangling-supersedes", "error"],
        [
            ".claude/rules/gotchas.md:",
            "42",
            "problems",
            "(2",
            "errors,",
            "40",
            "warnings)",
            "in",
            "41",
            "entries:",
            "failed",
        ],
    ]
    quiet = cli(root, "lint", "--statistics", "--ignore", "confirmed")
    assert quiet.stdout.splitlines()[0].split() == ["1", "dangling-supersedes", "error"]


RENAMED = (
    "\ufeff# Lessons\r\n"
    "\r\n"
    "### Chunk the prompts into batches of two thousand\r\n"
    "\r\n"
    "tasks: #13\r\n"
    "red-herring-for: #13 · superseded-by: cache-the-tokenizer (for #13)\r\n"
    "\r\n"
    "Split the batch; the chunk-the-prompts advice stays here as written.\r\n"
    "\r\n"
    "### Cache the tokenizer\r\n"
    "\r\n"
    "tasks: #13 · root-cause: confirmed · supersedes: chunk-the-prompts (for #13)\r\n"
    "diagnostic: profile one render call\r\n"
    "\r\n"
    "Load it once; chunk-the-prompts was not the cause.\r\n"
    "\r\n"
    "### Pin the wheel index\r\n"
    "\r\n"
    "tasks: #12 · root-cause: suspected\r\n"
    "\r\n"
    "The CPU wheel wins otherwise."  # no final line ending
)


def test_fix_repairs_a_renamed_target_and_changes_nothing_else(tmp_path: Path) -> None:
    root = project(tmp_path, "")
    record = root / ".claude" / "rules" / "gotchas.md"
    record.write_bytes(RENAMED.encode("utf-8"))
    before = record.read_bytes()
    assert "dangling-supersedes" in cli(root, "lint").stdout
    fixed = cli(root, "lint", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fixed dangling-supersedes in cache-the-tokenizer" in fixed.stderr
    assert "chunk-the-prompts → chunk-the-prompts-into-batches-of-two-thousand" in fixed.stderr
    link = b"supersedes: chunk-the-prompts (for #13)"
    assert before.count(link) == 1
    expected = before.replace(link, b"supersedes: chunk-the-prompts-into-batches-of-two-thousand (for #13)")
    assert record.read_bytes() == expected  # BOM, CRLF, no final newline, the prose mentions: kept
    assert cli(root, "lint", "--strict").stdout.endswith("no problems in 3 entries: ok\n")
    again = cli(root, "lint", "--fix")
    assert again.returncode == 0 and again.stderr == "" and record.read_bytes() == expected


MISSING_MARK = """\
# Lessons

### Chunk the prompts

tasks: #13

Split the batch.

### Cache the tokenizer

tasks: #13 · root-cause: confirmed · supersedes: chunk-the-prompts (for #13)
diagnostic: profile one render call

Load it once.

### Pin the wheel index

tasks: #12

The CPU wheel wins otherwise.
"""


def test_fix_adds_a_missing_reciprocal_mark_through_the_edit_path(tmp_path: Path) -> None:
    root = project(tmp_path, MISSING_MARK)
    record = root / ".claude" / "rules" / "gotchas.md"
    assert "one-sided-supersedes" in cli(root, "lint").stdout
    fixed = cli(root, "lint", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fixed one-sided-supersedes in cache-the-tokenizer" in fixed.stderr
    after = record.read_text(encoding="utf-8")
    assert "red-herring-for: #13 · superseded-by: cache-the-tokenizer (for #13)" in after
    old_lines = MISSING_MARK.splitlines()
    remaining = iter(after.splitlines())
    assert all(any(line == got for got in remaining) for line in old_lines)  # only lines added
    start = after.index("### Cache the tokenizer")
    assert after[start:] == MISSING_MARK[MISSING_MARK.index("### Cache the tokenizer") :]
    assert "error" not in cli(root, "lint").stdout


AMBIGUOUS = """\
# Lessons

### Chunk the prompts, first try

tasks: #13
red-herring-for: #13 · superseded-by: cache-the-tokenizer (for #13)

One.

### Chunk the prompts, second try

tasks: #13
red-herring-for: #13 · superseded-by: cache-the-tokenizer (for #13)

Two.

### Cache the tokenizer

tasks: #13 · root-cause: confirmed · supersedes: chunk-the-prompts (for #13)
diagnostic: profile one render call

Load it once.
"""


def test_fix_leaves_what_has_no_single_repair(tmp_path: Path) -> None:
    root = project(tmp_path, AMBIGUOUS)
    record = root / ".claude" / "rules" / "gotchas.md"
    before = record.read_bytes()
    stamp = record.stat().st_mtime_ns
    done = cli(root, "lint", "--fix")
    assert done.returncode == 1 and "dangling-supersedes" in done.stdout and "fixed" not in done.stderr
    assert record.read_bytes() == before and record.stat().st_mtime_ns == stamp


def test_the_demo_record_passes_strict() -> None:
    from support.clients import REPO

    demo = REPO / "server" / "gotchas" / "demo"
    done = cli(demo, "--root", str(demo), "--record", "record.md", "lint", "--strict")
    assert done.returncode == 0, done.stdout
    assert done.stdout.endswith("no problems in 6 entries: ok\n")


BOTH_WAYS = """\
# Lessons

### Old advice one, renamed

tasks: #1
red-herring-for: #1 · superseded-by: new-answer-one (for #1)

Old.

### New answer one

tasks: #1 · root-cause: confirmed · supersedes: old-advice-one (for #1)
diagnostic: seen

New.

### Old advice two

tasks: #2
red-herring-for: #2 · superseded-by: new-answer-two (for #2)

Old.

### New answer two, renamed

tasks: #2 · root-cause: confirmed · supersedes: old-advice-two (for #2)
diagnostic: seen

New.
"""


def test_fix_repairs_renamed_links_both_ways_at_once(tmp_path: Path) -> None:
    root = project(tmp_path, BOTH_WAYS)
    record = root / ".claude" / "rules" / "gotchas.md"
    found = cli(root, "lint").stdout
    assert "dangling-supersedes new-answer-one" in found
    assert "dangling-superseded-by old-advice-two" in found
    fixed = cli(root, "lint", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert fixed.stderr.count("gotchas: fixed dangling-") == 2
    expected = BOTH_WAYS.replace(
        "supersedes: old-advice-one (for #1)", "supersedes: old-advice-one-renamed (for #1)"
    ).replace("superseded-by: new-answer-two (for #2)", "superseded-by: new-answer-two-renamed (for #2)")
    assert record.read_bytes() == expected.encode()
    assert fixed.stdout.endswith("no problems in 4 entries: ok\n")


def test_fix_repairs_only_the_selected_codes(tmp_path: Path) -> None:
    root = project(tmp_path, BOTH_WAYS)
    record = root / ".claude" / "rules" / "gotchas.md"
    fixed = cli(root, "lint", "--fix", "--ignore", "dangling-superseded-by")
    assert fixed.stderr.count("gotchas: fixed ") == 1 and "fixed dangling-supersedes" in fixed.stderr
    expected = BOTH_WAYS.replace(
        "supersedes: old-advice-one (for #1)", "supersedes: old-advice-one-renamed (for #1)"
    )
    assert record.read_bytes() == expected.encode()
    assert "dangling-superseded-by" in cli(root, "lint").stdout


SLUG_RENAMED = """\
# Lessons

### Chunk the prompts

id: L-7
tasks: #13

Split the batch.

### Cache the tokenizer

tasks: #13 · root-cause: confirmed · supersedes: chunk-the-prompts (for #13)
diagnostic: profile one render call

Load it once.
"""


def test_fix_follows_an_id_given_to_a_title_then_marks_it(tmp_path: Path) -> None:
    """The link names the title's slug, which the entry's new ``id:`` replaced: the link gets
    the id, then the entry gets the marks it never had."""
    root = project(tmp_path, SLUG_RENAMED)
    record = root / ".claude" / "rules" / "gotchas.md"
    fixed = cli(root, "lint", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "supersedes: chunk-the-prompts → L-7" in fixed.stderr
    assert "fixed one-sided-supersedes in cache-the-tokenizer" in fixed.stderr
    after = record.read_text(encoding="utf-8")
    assert "supersedes: L-7 (for #13)" in after
    assert "red-herring-for: #13 · superseded-by: cache-the-tokenizer (for #13)" in after
    assert "error" not in cli(root, "lint").stdout


def test_statistics_on_the_10k_record_are_counts_not_thousands_of_lines(tmp_path: Path) -> None:
    import subprocess
    import sys

    generator = Path(__file__).resolve().parents[2] / "shared" / "bench" / "gen_record.py"
    if not generator.is_file():
        pytest.skip(f"{generator} is absent (the shared bench beside the repository)")
    made = subprocess.run([sys.executable, str(generator), "10000"], capture_output=True, check=True)
    root = project(tmp_path, "")
    (root / ".claude" / "rules" / "gotchas.md").write_bytes(made.stdout)
    stats = cli(root, "lint", "--statistics")
    *counts, summary = stats.stdout.splitlines()
    problems = len(json.loads(cli(root, "lint", "--json").stdout)["problems"])
    assert problems > 1000 and 1 <= len(counts) <= 10  # one line a code, however many problems
    total = sum(int(line.split()[0]) for line in counts)
    assert (
        summary.startswith(f".claude/rules/gotchas.md: {total} problems (") and "in 10000 entries" in summary
    )
