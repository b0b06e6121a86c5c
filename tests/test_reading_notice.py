"""Say when the reading is a guess: a mixed reading carries a one-line notice naming what was
chosen, the runner-up and the pin that chooses it; ``gotchas list`` and ``gotchas outline``
print it (real processes), the pin it names silences it, and a proposal's next step repeats it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from gotchas import outline, record
from support.clients import gotchas_exe, isolated_env

MIXED = b"""# Gotchas

## Docker

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.

## The CI runner has two cores and `-n 8` thrashes

Use `-n 2` with pytest-xdist on the shared runners.
"""

PLAIN = b"""# Gotchas

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.
"""


def _run(root: Path, home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [gotchas_exe(), "--root", str(root), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(home),
    )


def _project(tmp_path: Path, data: bytes, config: str | None = None) -> Path:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "rules" / "gotchas.md").write_bytes(data)
    if config is not None:
        (root / ".claude" / "gotchas.toml").write_text(config, encoding="utf-8")
    return root


def _listed_lines(root: Path, home: Path) -> list[str]:
    """The line ranges ``gotchas list`` prints, in a run that says nothing of a guess."""
    done = _run(root, home, "list")
    assert done.returncode == 0, done.stderr
    assert "guess" not in done.stdout + done.stderr
    return [line.split("\t")[1] for line in done.stdout.splitlines()]


def test_a_mixed_reading_says_it_is_a_guess() -> None:
    parsed = record.parse(MIXED)
    assert parsed.reading is not None and parsed.reading.notice is not None
    notice = parsed.reading.notice
    assert "guess" in notice and "runner-up" in notice and 'entries = "list"' in notice
    assert "\n" not in notice
    assert parsed.notice == notice  # what list and list_gotchas show
    assert outline.describe(parsed.reading, [e.id for e in parsed.entries])["notice"] == notice


def test_a_plain_reading_says_nothing() -> None:
    parsed = record.parse(PLAIN)
    assert parsed.reading is not None and parsed.reading.notice is None and parsed.notice is None


SELF_NAMED = b"""# Gotchas

## Docker

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.

## Backend gotcha

The worker reads its settings once at start, so a changed setting needs a restart.
"""


def test_a_heading_that_calls_itself_a_lesson_beside_list_lessons_is_not_a_guess() -> None:
    """The runner-up of a mixed reading (the list items alone) would drop a heading whose own
    title says it is a gotcha: no close second reading, no notice."""
    parsed = record.parse(SELF_NAMED)
    assert parsed.reading is not None and parsed.reading.unit == "mixed"
    assert [e.kind for e in parsed.entries] == ["item", "item", "heading"]
    assert parsed.reading.notice is None
    named_otherwise = SELF_NAMED.replace(b"## Backend gotcha", b"## Settings need a restart")
    again = record.parse(named_otherwise)
    assert again.reading is not None and again.reading.unit == "mixed"
    assert again.reading.notice is not None and "runner-up" in again.reading.notice


def test_list_and_outline_print_the_notice(tmp_path: Path) -> None:
    root = _project(tmp_path, MIXED)
    for command in ("list", "outline"):
        done = _run(root, tmp_path / "home", command)
        assert done.returncode == 0, done.stderr
        assert "the reading is a guess" in done.stdout + done.stderr, command


def test_the_pin_it_names_chooses_the_runner_up_and_silences_it(tmp_path: Path) -> None:
    root = _project(tmp_path, MIXED, 'entries = "list"\n')
    done = _run(root, tmp_path / "home", "list")
    assert done.returncode == 0, done.stderr
    assert "guess" not in done.stdout + done.stderr
    assert "Pin base images" in done.stdout and "two cores" not in done.stdout


def test_a_proposal_against_a_guessed_reading_carries_the_notice(tmp_path: Path) -> None:
    from gotchas import operations
    from gotchas.holds.sources.ledger import set_task_state
    from gotchas.workspace import Workspace

    def propose(data: bytes, name: str) -> str:
        root = tmp_path / name
        (root / ".claude" / "rules").mkdir(parents=True)
        (root / ".claude" / "rules" / "gotchas.md").write_bytes(data)
        set_task_state(root, "#9001", "landed", "notice-test")
        target = record.parse(data).entries[0]
        proposed = operations.propose_supersede(
            Workspace(root),
            target_id=target.id,
            task="#9001",
            title="Pin by digest",
            body="Tags move; digests do not.",
            diagnostic="compare the digests",
            ruled_out=["the advice of the entry above"],
            evidence="ledger line for #9001",
        )
        assert proposed["status"] == "proposed"
        return str(proposed["next_step"])

    assert "the reading is a guess" in propose(MIXED, "mixed")
    assert "guess" not in propose(PLAIN, "plain")


FOLDED = """# 教訓ログ

## デプロイ
- 本番DBにマイグレーション未適用 → マージ前に適用確認
- 環境変数がビルドに無い → `.env.example` を更新

## クエリ
- `description` ではなく `memo` → スキーマから名前を写す
- `salon_id` の絞り込み漏れ → 全クエリで絞り込む
- **対策**: コミット前に `make check-columns` を実行

## コード品質
- ページが900行に膨張 → 1ページ300行まで
""".encode()

UNLABELLED_FOLD = b"""# Gotchas

- **Abstain votes**
Abstaining counts toward quorum but not toward the result.

- **Route builder quirks**
- The builder is immutable; redeploy it instead of upgrading.

- **Council member updates**
Start them from the manager contract, never the timelock.
"""


def test_a_labelled_bullet_read_as_the_field_of_the_bullet_before_is_a_guess() -> None:
    parsed = record.parse(FOLDED)
    assert parsed.reading is not None and parsed.reading.unit == "list-item"
    titles = [e.title for e in parsed.entries]
    assert not any("対策" in t for t in titles)  # read as a field of the lesson before it
    notice = parsed.reading.notice
    assert notice is not None and "fields of the lesson before" in notice and "runner-up" in notice


def test_an_unlabelled_bullet_under_a_title_bullet_is_not_a_guess() -> None:
    parsed = record.parse(UNLABELLED_FOLD)
    assert parsed.reading is not None and len(parsed.entries) == 3
    assert parsed.reading.notice is None


ODD_TITLE = b"""# Gotchas

## Gotcha: the cache key ignores the locale

Two locales share one cached page; key on the locale too.

## Gotcha: retries double-charge without an idempotency key

Send the key on every retry.

## Gotcha: the cron runs in UTC

Schedules written in local time fire an hour off in summer.

## Gotcha: `make dev` reuses a stale volume

Run `make clean` after changing the schema.

## Where "things" stand

Billing moved to the new provider in March; the cache work is paused.
"""

ODD_FIELDS = b"""# Known issues

## Upload stalls at 99%
- **Cause:** the proxy buffers the last chunk.
- **Fix:** turn off proxy buffering for `/upload`.

## Login loops on Safari
- **Cause:** the cookie lacks `SameSite=None`.
- **Fix:** set `SameSite=None; Secure`.

## Export drops emoji
- **Cause:** the CSV writer uses latin-1.
- **Fix:** write UTF-8 with a BOM.

## Thumbnails are blank
- **Cause:** the worker has no fonts installed.
- **Fix:** install `fonts-dejavu` in the image.

## Progress
- 2026-03-02: upload stall fixed in the proxy config
- 2026-03-09: Safari login fixed
"""

WITHIN = b"""# Importer lessons

## What shipping the importer taught us

Three releases went out with a broken importer before these stuck.

- **Parse dates with an explicit format.** The default guesses day-first in some locales.
- **Stream large files instead of loading them.** A 2 GB export killed the worker.
- **Keep the raw row beside the parsed one.** Every bug report needed the original line.
- **Validate the whole file before writing.** A half-written import is worse than none.
- **Log the row number with every error.** Without it nobody can find the bad line.

## Still open

The retry queue is not kept across deploys.
"""

CROWDED = b"""# Lessons learned

## Health checks share the thread pool

A slow request starved the probe, and the pod was killed under load.

## Packaging the wheel

We shipped three broken releases before the build was made repeatable. What we do now:

- Build from a clean tree, or stale modules ship.
- Pin the build backend; a new release changed the default includes.
- Run the import smoke test against the built wheel, not the source tree.
- Strip the tests folder from the sdist; it doubled the download size.
- Keep the version in one file; two copies drifted within a week.
- Sign the tag before pushing it; a pushed tag cannot be re-signed.
- Upload to the test index first; a bad upload cannot be deleted.
- Check that the long description renders; a broken one blocks the upload.

## Cache keys need the lockfile hash

Stale modules came back after every upgrade.
"""

EMPTY = b"""# Pitfalls

## Builds break when the cache outlives the lockfile

Key the cache on the lockfile hash, or stale modules come back after an upgrade.

## Tokens expire during long uploads

Refresh the token before each chunk, not once per upload.

## Sync markers

`LOG_START` `LOG_END`
"""

PIN = re.compile(r'pin \[sections\] (".+?") = "([a-z-]+)" in \.claude/gotchas\.toml')


def _titles(root: Path, home: Path) -> tuple[list[str], str]:
    done = _run(root, home, "list", "--json", "--all", "--verbose")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    return [e["title"] for e in listed["entries"]], str(listed.get("notice") or "")


@pytest.mark.parametrize(
    ("data", "says", "chosen", "runner_up"),
    [
        (ODD_TITLE, "most of them prefixed 'gotcha'", 'Where "things" stand', None),
        (EMPTY, "holds next to nothing", "Sync markers", None),
    ],
    ids=[
        "a-title-written-otherwise",
        "a-lesson-with-nothing-in-it",
    ],
)
def test_a_sibling_unlike_the_others_is_a_guess_and_its_pin_reads_the_runner_up(
    tmp_path: Path, data: bytes, says: str, chosen: str, runner_up: int | None
) -> None:
    """The notice names the section in doubt and the ``[sections]`` pin that reads it the other
    way; that pin, written into a real config, reads the runner-up, and the notice no longer
    names that section."""
    root = _project(tmp_path, data)
    titles, notice = _titles(root, tmp_path / "home")
    assert chosen in titles and says in notice and "runner-up" in notice
    pin = PIN.search(notice)
    assert pin is not None, notice
    (root / ".claude" / "gotchas.toml").write_text(f'[sections]\n{pin[1]} = "{pin[2]}"\n', encoding="utf-8")
    pinned, after = _titles(root, tmp_path / "home")
    assert chosen not in pinned and chosen not in after  # what is left of a guess is about the rest
    if runner_up is None:  # the odd section is left out, the lessons stay
        assert pinned == [t for t in titles if t != chosen]
    else:  # the units inside are the lessons now
        assert sum(t.endswith(".") or "**" in t or t[:1].isupper() for t in pinned) >= runner_up
        assert len(pinned) == len(titles) - 1 + runner_up


@pytest.mark.parametrize(("data", "entries"), [(ODD_FIELDS, 5), (WITHIN, 2), (CROWDED, 3)])
def test_signs_that_spoke_on_more_right_readings_than_wrong_say_nothing(data: bytes, entries: int) -> None:
    """A heading lesson without its siblings' fields, or holding many items or bold sentences:
    on real files these spoke for readings that were right more often than for wrong ones, so
    they no longer make a reading a guess (``docs/reading.md``)."""
    parsed = record.parse(data)
    assert parsed.reading is not None and len(parsed.entries) == entries
    assert parsed.reading.notice is None


def test_siblings_written_alike_say_nothing() -> None:
    """Every heading numbered, every lesson with the shared fields: no sibling stands out."""
    alike = ODD_FIELDS.split(b"## Progress")[0]
    numbered = ODD_TITLE.split(b'## Where "things" stand')[0]
    for data in (alike, numbered):
        parsed = record.parse(data)
        assert parsed.reading is not None and len(parsed.entries) == 4
        assert parsed.reading.notice is None


DATED_LOG = b"""# Pitfalls

- Changing the retry policy: read the network notes first
- Touching the worker pool: read the pool notes first

## Log

- [2026-05-12] The speech model's timestamps drift by a second inside each chunk.
- [2026-05-12] The API gateway stops every request at 30 s; stream long answers.
- [2026-05-24] A blurred shadow spills past the box it is drawn on; pad the box.
- [2026-05-26] The new test runner scans build output unless told not to.
- [2026-05-27] Child processes outlive a killed test run; kill the process group.
"""


def test_bullets_written_otherwise_than_the_dated_log_are_a_guess() -> None:
    """Entries other than headings are compared with all entries of their kind: two undated
    bullets above a dated log may be pointers, not lessons."""
    parsed = record.parse(DATED_LOG)
    assert parsed.reading is not None and parsed.reading.unit == "list-item"
    assert len(parsed.entries) == 7
    notice = parsed.reading.notice
    assert notice is not None and "most of them dated" in notice and "Changing the retry policy" in notice
    assert "(and 1 more)" in notice and "no pin leaves out single entries" in notice
    alike = DATED_LOG.replace(b"- Changing", b"- [2026-05-11] Changing").replace(
        b"- Touching", b"- [2026-05-11] Touching"
    )
    again = record.parse(alike)
    assert again.reading is not None and again.reading.notice is None


ONE_OF_MANY = b"""# Pitfalls

> Known mistakes and the rules that prevent them.

Don't delete files the user created: an empty notes file was deleted as unused on 2026-03-14.
Ask before deleting anything the user made.

Don't rewrite a document without saying what changes: the guide was rewritten without a summary.
Summarise the planned changes first.

Don't assume the architecture: a change went to a layer that had been removed.
Read the current decisions first.
"""

SHAPELESS = b"""# Lessons

This file collects what the team learns while shipping.

Write one entry for each incident, newest first, and keep it short.

Link the pull request that fixed it.
"""


UNIT_PIN = re.compile(r'pin entries = "([a-z0-9-]+)" in \.claude/gotchas\.toml')


def test_a_file_titled_as_lessons_in_no_lesson_shape_is_a_guess_and_its_pin_reads_the_paragraphs(
    tmp_path: Path,
) -> None:
    """A file titled as lessons is seldom one lesson. Written in plain paragraphs, in no lesson's
    shape, it may be lessons (``ONE_OF_MANY``) as well as the file's own notes on how to keep
    them (``SHAPELESS``): it is read as holding none yet and says it guessed, and the pin it
    names, written into a real config, lists the paragraphs as lessons."""
    for name, data, lines in (
        ("many", ONE_OF_MANY, ["5-6", "8-9", "11-12"]),
        ("shapeless", SHAPELESS, ["3", "5", "7"]),
    ):
        parsed = record.parse(data)
        assert parsed.reading is not None and parsed.reading.kind == "not-lessons" and not parsed.entries
        notice = parsed.reading.notice or ""
        assert "titled as lessons but holds none" in notice
        pin = UNIT_PIN.search(notice)
        assert pin is not None and pin[1] == "paragraph"
        root = _project(tmp_path / name, data, f'entries = "{pin[1]}"\n')
        assert _listed_lines(root, tmp_path / "home") == lines


def _one_lesson_guessed(tmp_path: Path, data: bytes, said: str, unit: str) -> Path:
    """``data`` reads as one lesson with a notice saying ``said`` and naming the pin ``unit``;
    the project that pin is written into, as a real config."""
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "single-lesson"
    notice = parsed.reading.notice or ""
    assert said in notice
    pin = UNIT_PIN.search(notice)
    assert pin is not None and pin[1] == unit
    return _project(tmp_path, data, f'entries = "{pin[1]}"\n')


_FIX_PART = """# Lessons Learned - Parser fix

## Character encoding

### Problem
- Non-breaking spaces look like spaces but do not match them

### Solution
- Normalise the text before comparing it

## Test structure

### Problem
- Fixtures drifted from the real export

### Solution
- Build fixtures from a saved real export

"""
# the same notes pasted twice: each copy is read as one lesson of two parts
TWICE_PASTED = (_FIX_PART + _FIX_PART).encode()


def test_a_section_titled_as_lessons_read_as_one_lesson_is_a_guess_and_its_pin_reads_the_lessons(
    tmp_path: Path,
) -> None:
    """A section titled as lessons (``# Lessons Learned - Parser fix``), less its subject, is
    seldom one lesson: read so, it says it guessed, and the section pin it names, written into
    a real config, lists the lessons inside it."""
    parsed = record.parse(TWICE_PASTED)
    assert parsed.reading is not None
    assert [e.start_line for e in parsed.entries] == [1, 19]
    notice = parsed.reading.notice or ""
    assert "the section 'Lessons Learned - Parser fix', titled as lessons, is read as one lesson" in notice
    pin = re.search(r'pin (\[sections\] "[^"]+" = "h2") in \.claude/gotchas\.toml', notice)
    assert pin is not None
    config = pin[1].replace("] ", "]\n", 1) + "\n"
    root = _project(tmp_path, TWICE_PASTED, config)
    assert _listed_lines(root, tmp_path / "home") == ["3-9", "11-17", "21-27", "29-35"]


TRAPS_SECTION = """# Looks done but isn't — launch checklist

> Run through every item below before the launch. Each box is something that looks complete
> but silently fails.

---

## Section A — Test-Infrastructure Traps

Three patterns that make tests appear to pass while hiding real bugs.

- [ ] **Pitfall 1 — The job store's schema init fails silently in the test host.**
  The host never starts and every test is skipped rather than failing.
  _Verify:_ run the integration tests and confirm the job tables exist after start-up.

- [ ] **Pitfall 2 — Parallel factories crash on top-level statements.**
  Tests pass alone and fail flakily in the full suite.
  _Verify:_ confirm parallel runs are disabled for the integration collection.

- [ ] **Pitfall 3 — The reset tool deletes the migrations table.**
  The second test sees an unmigrated schema.
  _Verify:_ check the reset options ignore the migrations table.

---

## Section B — Release

- [ ] Sign the build
- [ ] Tag the release
""".encode()


def test_a_lessons_section_read_as_one_lesson_is_a_guess_and_its_pin_reads_the_lessons(
    tmp_path: Path,
) -> None:
    """The section chosen for its lessons (``Section A — Test-Infrastructure Traps``, plural) read
    as one lesson: it says it guessed, and the section pin it names lists the traps."""
    parsed = record.parse(TRAPS_SECTION)
    assert parsed.reading is not None and parsed.reading.kind == "lessons-section"
    assert [e.start_line for e in parsed.entries] == [8]
    notice = parsed.reading.notice or ""
    pin = re.search(r'pin (\[sections\] "[^"]+" = "list") in \.claude/gotchas\.toml', notice)
    assert pin is not None
    root = _project(tmp_path, TRAPS_SECTION, pin[1].replace("] ", "]\n", 1) + "\n")
    assert _listed_lines(root, tmp_path / "home") == ["12-14", "16-18", "20-22"]


@pytest.mark.parametrize(
    "title",
    [
        "Mistake 1: Ink script skips its first divert",
        "Known issue: the cache never expires",
        "Process mistake: work began on the main branch",
    ],
)
def test_a_section_titled_as_one_numbered_or_singular_lesson_says_nothing(title: str) -> None:
    """``Mistake 1: …`` carries the entry's own number, ``Known issue: …`` is in the singular:
    each names one lesson, read as one."""
    data = (
        f"# {title}\n\n## Problem\n\nThe first line was skipped.\n\n"
        "## Fix\n\nDivert to the start knot first.\n"
    ).encode()
    data = (data.decode() + "\n" + data.decode()).encode()  # pasted twice, as above
    parsed = record.parse(data)
    assert parsed.reading is not None
    assert [e.start_line for e in parsed.entries] == [1, 11]
    assert parsed.reading.notice is None


def test_a_single_lesson_titled_as_one_lesson_says_nothing() -> None:
    data = (
        b"# Nested agent deadlock: a critical lesson\n\n## What happened\n\nThe agent waited on itself.\n\n"
        b"## Fix\n\nRun the inner agent in its own process.\n"
    )
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "single-lesson"
    assert parsed.reading.notice is None


GUIDE_WITH_PROBLEMS = b"""# Shopfront

A storefront and its order API.

## Tech stack

- Next.js 15, Postgres 16

## Commands

- `pnpm dev` starts everything

## Errors we hit

- Changing `NEXT_PUBLIC_*` variables without rebuilding the web image: they are baked in.
- Running `docker compose up -d` without `--no-deps` in production restarts the database.
"""


def test_a_guide_read_as_holding_none_beside_a_section_of_problems_is_a_guess(tmp_path: Path) -> None:
    """A guide read as holding no lessons, with a section titled as problems in words the
    lessons vocabulary leaves out: it says so, and the pin it names, written by `gotchas pin`,
    lists that section's bullets."""
    parsed = record.parse(GUIDE_WITH_PROBLEMS)
    assert parsed.reading is not None and parsed.reading.kind == "not-lessons" and not parsed.entries
    notice = parsed.reading.notice or ""
    assert "'Errors we hit' is titled as problems met" in notice
    pin = PIN.search(notice)
    assert pin is not None and pin[1] == '"Errors we hit"' and pin[2] == "list"
    root = _project(tmp_path, GUIDE_WITH_PROBLEMS)
    pinned = _run(root, tmp_path / "home", "pin", "--section", "Errors we hit", pin[2])
    assert pinned.returncode == 0, pinned.stderr
    assert _listed_lines(root, tmp_path / "home") == ["15", "16"]


@pytest.mark.parametrize(
    "title", ["## Deployment", "## Error Handling", "## 6. Bug fixing", "## 错误处理模式"]
)
def test_a_guide_without_a_section_of_problems_says_nothing(title: str) -> None:
    """A guide's section on how to handle errors (``Error Handling``, ``错误处理模式``) is its
    practice, not problems met: the sign spoke on 5 such guides read right, and on none read
    wrong, among 430 unseen labelled files."""
    plain = GUIDE_WITH_PROBLEMS.replace(b"## Errors we hit", title.encode())
    parsed = record.parse(plain)
    assert parsed.reading is not None and parsed.reading.kind == "not-lessons"
    assert parsed.reading.notice is None


GUIDE_FILE = b"""# Guide: Errors

## Who is at fault

- **A misconfigured consumer** gets a list of `{key, message}` pairs back. Never raise.
- **A request that cannot be parsed** is an error struct, not an exception.

## Rescuing

- **Every `rescue` names the exceptions it expects.** A bare one hides upstream changes.
- **Wrap at the boundary only**, so the failing request travels with the exception.
"""


def test_a_file_titled_as_a_guide_read_as_lessons_is_a_guess_and_its_pin_reads_none(tmp_path: Path) -> None:
    """A file titled as a guide, naming no lessons, read as lessons: it says so, and
    the pin it names, written into a real config, reads the file as holding none."""
    assert len(record.parse(GUIDE_FILE).entries) == 4
    _guessed_and_pinned_none(tmp_path, GUIDE_FILE, "titled 'Guide: Errors' as a guide, is read as 4 lessons")


def _guessed_and_pinned_none(tmp_path: Path, data: bytes, says: str) -> None:
    """``data`` is read as lessons and its notice ``says`` so; the pin it names, written into a
    real config, lists none."""
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "lessons" and parsed.entries
    notice = parsed.reading.notice or ""
    assert says in notice
    pin = UNIT_PIN.search(notice)
    assert pin is not None and pin[1] == "none"
    root = _project(tmp_path, data, f'entries = "{pin[1]}"\n')
    assert _listed_lines(root, tmp_path / "home") == []


def test_a_guide_titled_with_lessons_says_nothing() -> None:
    titled = GUIDE_FILE.replace(b"# Guide: Errors", b"# Error rules and lessons learned")
    parsed = record.parse(titled)
    assert parsed.reading is not None and parsed.reading.kind == "lessons"
    assert parsed.reading.notice is None


DEBUGGING_METHOD = b"""# Debugging

## Root cause first

Reproduce the failure before changing code. Read the whole traceback, not its last line.

## Isolated testing

Run the one failing test with `-x -vv` before the suite.

## Subprocess failures

Print the child's stderr: the exit code alone says nothing.
"""


def test_a_file_titled_as_debugging_read_as_lessons_is_a_guess_and_its_pin_reads_none(tmp_path: Path) -> None:
    """A file titled as debugging, naming no lessons and no problems met in any section, read as
    lessons: it may be a method to follow; it says so, and its pin reads none."""
    assert len(record.parse(DEBUGGING_METHOD).entries) == 3
    says = "titled 'Debugging' as a way to debug, is read as 3 lesson(s)"
    _guessed_and_pinned_none(tmp_path, DEBUGGING_METHOD, says)


@pytest.mark.parametrize(
    ("old", "new"),
    [(b"## Subprocess failures", b"## Subprocess errors"), (b"# Debugging", b"# Debugging lessons")],
)
def test_a_debugging_file_with_a_section_of_problems_or_titled_with_lessons_says_nothing(
    old: bytes, new: bytes
) -> None:
    data = DEBUGGING_METHOD.replace(old, new, 1)
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.entries
    assert parsed.reading.notice is None


KEEPING_RULE = b"""---
description: Read LESSONS.md before work; after a fix, add a lesson to it
alwaysApply: true
---

# Lessons rule

## When

- Before every change to the booking flow
- After every bug fixed in review

## What to do

- Read the lessons that share the task's tags
- Add one in the file's format when something new was learned
"""


def test_a_rule_described_by_another_file_is_a_guess_and_its_pin_reads_none(tmp_path: Path) -> None:
    """A rule whose front matter describes it by another Markdown file, read as lessons: it
    names that file, and the pin it names, written into a real config, reads none."""
    _guessed_and_pinned_none(tmp_path, KEEPING_RULE, "front matter names LESSONS.md")


def test_a_rule_describing_its_own_lessons_says_nothing() -> None:
    said = b"Read LESSONS.md before work; after a fix, add a lesson to it"
    plain = KEEPING_RULE.replace(said, b"Booking flow lessons")
    parsed = record.parse(plain)
    assert parsed.reading is not None and parsed.reading.notice is None


SHORT_TITLED = b"""# Day 4

What I picked up today:

\xe2\x80\xa2 Sessions and tokens expire on different clocks.

\xe2\x80\xa2 Index the column the dashboard filters on.

\xe2\x80\xa2 Seed data belongs in fixtures, not migrations.
"""


def test_a_file_read_as_one_lesson_for_want_of_any_shape_is_a_guess_and_its_pin_reads_paragraphs(
    tmp_path: Path,
) -> None:
    """Read as one lesson only because nothing takes a lesson's shape, under a title that names
    a topic (``•`` opens no Markdown list): it says it guessed, and the pin it names, in a real
    config, lists the paragraphs."""
    said = "is read as one lesson; runner-up: its 4 paragraphs, each a lesson"
    root = _one_lesson_guessed(tmp_path, SHORT_TITLED, said, "paragraph")
    assert _listed_lines(root, tmp_path / "home") == ["3", "5", "7", "9"]


def test_one_lesson_for_want_of_shape_under_a_title_saying_what_was_learned_says_nothing() -> None:
    data = SHORT_TITLED.replace(b"# Day 4", b"# Token expiry broke the nightly import twice")
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "single-lesson"
    assert parsed.reading.notice is None


def test_one_lesson_for_want_of_shape_under_a_three_word_title_is_a_guess(tmp_path: Path) -> None:
    data = SHORT_TITLED.replace(b"# Day 4", b"# Things I've Learned")
    said = "is read as one lesson; runner-up: its 4 paragraphs, each a lesson"
    _one_lesson_guessed(tmp_path, data, said, "paragraph")


UNTITLED = b"""Here are the issues most likely to come up while testing the mod:

Save data: custom state written on exit is lost when the game crashes.

Tick timing: effects applied on ticks drift from the real clock.

Key bindings: the menu's hotkey clashes with the map's.
"""


def test_one_lesson_for_want_of_shape_with_no_title_at_all_is_a_guess(tmp_path: Path) -> None:
    """No heading and no front matter: the first line stands in for a title and says nothing of
    one lesson, however long it is."""
    said = "is read as one lesson; runner-up: its 4 paragraphs, each a lesson"
    root = _one_lesson_guessed(tmp_path, UNTITLED, said, "paragraph")
    assert _listed_lines(root, tmp_path / "home") == ["1", "3", "5", "7"]


def test_one_lesson_for_want_of_shape_named_by_its_front_matter_says_nothing() -> None:
    data = b"---\nname: tick timing\ntype: feedback\n---\n\n" + UNTITLED
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "single-lesson"
    assert parsed.reading.notice is None


def test_one_lesson_for_want_of_shape_under_a_short_front_matter_title_is_a_guess(tmp_path: Path) -> None:
    """A front matter's ``title:`` names the file as a heading would: a topic, in a word or two."""
    data = b"---\ntitle: Testing notes\n---\n\n" + UNTITLED
    _one_lesson_guessed(tmp_path, data, "is read as one lesson; runner-up: its 4 paragraphs", "paragraph")


def test_one_lesson_for_want_of_shape_under_a_rule_files_front_matter_is_a_guess(tmp_path: Path) -> None:
    """A rule file's front matter (where it applies, what it is for) names no lesson."""
    data = b"---\ndescription: Issues met while testing\nglobs: src/**\n---\n\n" + UNTITLED
    _one_lesson_guessed(tmp_path, data, "is read as one lesson; runner-up: its 4 paragraphs", "paragraph")


def _numbered_guide(pitfalls_title: str, others: list[str]) -> bytes:
    """A user guide of numbered sections, one of them titled as pitfalls over two bullets."""
    parts = ["# Sampler — user guide\n"]
    for n, title in enumerate([*others[:3], pitfalls_title, *others[3:]], 1):
        parts.append(f"\n## {n}. {title}\n\n")
        if title == pitfalls_title:
            parts.append("- **Unbounded priors** - the sampler wanders off.\n")
            parts.append("- **Fixed seeds** - every chain agrees.\n")
        else:
            parts.append(f"The {title.lower()} is easy to get wrong: check it before every run.\n")
    return "".join(parts).encode()


SERIES = [
    "Metallicity is solar-relative",
    "The parameter vector is a dict",
    "Units mismatch in the flux",
    "Observations come before the model",
    "Broadening widths are in km/s",
]


def test_a_lessons_section_in_a_numbered_series_is_a_guess_and_its_pin_reads_the_file_whole(
    tmp_path: Path,
) -> None:
    """A guide's one section titled as pitfalls among numbered sections written alike: those may
    be lessons too. It says so, and the pin it names lists every section."""
    data = _numbered_guide("Sampler pitfalls", SERIES)
    assert len(record.parse(data).entries) == 2
    says = "chose the lessons of '4. Sampler pitfalls', one of 6 sections written alike"
    assert _whole_file_pinned(tmp_path, data, says) == 6


def _whole_file_pinned(tmp_path: Path, data: bytes, says: str) -> int:
    """``data`` is read as a guide's lessons section and its notice ``says`` so; the pin it
    names, written into a real config, reads the whole file: how many lessons it lists."""
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "lessons-section"
    notice = parsed.reading.notice or ""
    assert says in notice
    pin = UNIT_PIN.search(notice)
    assert pin is not None and pin[1] == "h2"
    root = _project(tmp_path, data, f'entries = "{pin[1]}"\n')
    return len(_listed_lines(root, tmp_path / "home"))


def test_a_lessons_section_in_a_short_series_says_nothing() -> None:
    """Three sections beside it are no series: a guide's parts."""
    parsed = record.parse(_numbered_guide("Sampler pitfalls", SERIES[:3]))
    assert parsed.reading is not None and parsed.reading.kind == "lessons-section"
    assert parsed.reading.notice is None


TAGGED = b"""# Build notes

## [LESSON] Gotchas of the grammar files

- **Never mix tabs and spaces** - the lexer counts both as one column.
- **Keep one rule a line** - the generator joins them otherwise.

## [CYCLE 4] Seven-layer architecture integration

The layers talk through one bus; each adapter owns its own retries.

## [FIX] TS5097 cascade after the import rewrite

Every `.ts` import needs `allowImportingTsExtensions` once `noEmit` is on.

## [FIX] TS2339 on the timeouts object

The object was declared `as const` in one package and widened in the other.

## [CYCLE 5] Caching layer rewrite

The cache keys now carry the schema version, so old entries die with a deploy.

## [FIX] Flaky watcher on network drives

Polling replaces native events when the path is a mount.

## [CYCLE 6] Release gating

A release waits for two green nightly runs in a row.
"""


def test_a_lessons_section_beside_many_plain_sections_is_a_guess(tmp_path: Path) -> None:
    """A guide's section titled as lessons beside six sections about neither the file, a
    report's parts nor the project's setup: they may hold lessons too."""
    says = "beside 6 sections about neither the file nor the project"
    assert _whole_file_pinned(tmp_path, TAGGED, says) == 7


POSTMORTEM = b"""# Postmortem: embeddings queue stalled

## Issue summary

The embeddings queue stopped for nine hours.

## Timeline

The first alert fired at 16:00; the fix shipped at 05:45.

## Root causes identified

A step reused a variable across retries.

## Why it took so long to find

The logs of each step were kept apart.

## Prevention measures implemented

Each step now logs its inputs.

## Lessons learned

- **Isolate step state** - a retry must not see the last attempt's variables.
- **Log at the boundary** - the input of each step, once.

## Action items

Add an alert on queue depth.
"""


@pytest.mark.parametrize(
    "data",
    [
        POSTMORTEM,
        # a record of progress: its status sections hold no lessons
        TAGGED.replace(b"one bus;", b"one bus.\n\n- [x] Wire the bus\n- [ ] Wire the retries\n\nEach"),
    ],
)
def test_a_report_or_a_progress_file_with_a_lessons_section_says_nothing(data: bytes) -> None:
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.reading.kind == "lessons-section"
    assert parsed.reading.notice is None


LONE = b"""# Mistakes

## Build

### The cache key ignored the lockfile

Hash the lockfile into the key.

### Tags went out before the build passed

Push tags last.

### The nightly job ran on the old runner

Pin the runner by label.

## Runtime

### The worker pool leaked file handles

Close the handle in the finally block.

### The retry loop hid the real error

Log the first failure before retrying.

## Cost of the slow path

Four days went into it before anyone profiled a call.
"""


def test_a_lone_heading_left_out_beside_lessons_is_read_as_one_by_a_section_pin(tmp_path: Path) -> None:
    """A heading written otherwise than the lessons beside it is left out as the file's own
    note, with no notice: the sign spoke on more files read right than read wrong (6 to 3 of
    430 unseen labelled files) and was taken out. A ``single`` section pin, written into a real
    config, lists that heading as one more lesson."""
    root = _project(tmp_path, LONE)
    titles, notice = _titles(root, tmp_path / "home")
    assert "Cost of the slow path" not in titles and len(titles) == 5
    assert "Cost of the slow path" not in notice
    config = '[sections]\n"Cost of the slow path" = "single"\n'
    (root / ".claude" / "gotchas.toml").write_text(config, encoding="utf-8")
    pinned, after = _titles(root, tmp_path / "home")
    assert pinned == [*titles, "Cost of the slow path"]
    assert "Cost of the slow path" not in after


GAP = b"""# Writing externals for Max

Everything here was hit at least once.

## 1. Attributes are set after the constructor

Read them in `setup()`, not in the constructor: the constructor sees defaults.

## 2. Outlets must be driven from the main thread

A worker thread that calls `send()` crashes the patcher on the next redraw.

## 3. Where the class names live

| Layer | File |
|---|---|
| external | `source/max.foo.cpp` |
| help | `help/max.foo.maxhelp` |
| package | `package-info.json` |

## 4. `cout` goes nowhere

Use `cout` only through the object's own console stream.

## 5. The NIL macro clashes with the OSC headers

Undefine it before including them.
"""


def test_a_section_left_out_in_the_gap_of_a_numbered_series_is_a_guess_and_its_pin_reads_it(
    tmp_path: Path,
) -> None:
    """A section numbered between two numbered lessons (``## 3.`` between ``## 2.`` and ``## 4.``)
    but left out (a table of files) was counted among them by its writer: the reading says it
    guessed, and the entries pin it names, written into a real config, lists it in its place."""
    root = _project(tmp_path, GAP)
    titles, notice = _titles(root, tmp_path / "home")
    assert "3. Where the class names live" not in titles and len(titles) == 4
    assert "numbered among the 4 numbered lessons" in notice and "runner-up" in notice
    pin = re.search(r'pin (entries = "h2") in \.claude/gotchas\.toml', notice)
    assert pin is not None, notice
    (root / ".claude" / "gotchas.toml").write_text(pin[1] + "\n", encoding="utf-8")
    pinned, after = _titles(root, tmp_path / "home")
    assert pinned == [*titles[:2], "3. Where the class names live", *titles[2:]]
    assert after == ""


def test_a_numbered_section_left_out_after_the_series_says_nothing() -> None:
    """A numbered section after the last lesson (``## 5. Where …`` after ``## 4.``) closes the
    series: the writer's own part around it, no gap, so no guess is said of it."""
    head, table, rest = re.split(rb"(?=\n## 3\. |\n## 4\. )", GAP)
    rest = rest.replace(b"## 4.", b"## 3.").replace(b"## 5.", b"## 4.")
    data = head + rest + table.replace(b"## 3.", b"## 5.") + b"\n"
    parsed = record.parse(data)
    assert parsed.reading is not None and len(parsed.entries) == 4
    assert b"\n## 5. Where the class names live" in data and parsed.reading.notice is None


RETROSPECTIVE = b"""# Sprint 4 Retrospective

## What went well

- The new CI cache cut builds to four minutes.
- Pairing on the billing bug found it in a day.

## What did not go well

- The staging database ran out of disk twice.
- Nobody owned the flaky login test.

## Action items

- Add a disk alert on staging.
- Give the login test an owner.
"""

PHASE_REVIEW = b"""# Phase 1 Postmortem

## The rewrite took three times the estimate

### What happened

We rewrote the tokenizer before measuring it.

### What we do now

Profile first.

## Nobody tested on Windows until the last week

### What happened

Line endings broke every fixture.
"""


@pytest.mark.parametrize(
    ("data", "title", "pinned"),
    [
        (RETROSPECTIVE, "Sprint 4 Retrospective", ["What went well", "What did not go well", "Action items"]),
        (
            PHASE_REVIEW,
            "Phase 1 Postmortem",
            ["What happened", "What we do now", "What happened"],
        ),
    ],
)
def test_a_review_of_a_stretch_of_work_is_a_guess_and_its_pin_reads_it_the_other_way(
    tmp_path: Path, data: bytes, title: str, pinned: list[str]
) -> None:
    """A retrospective, or a postmortem of a phase rather than of one incident, is split into
    lessons in more ways than one (what went wrong, each section, each bullet): the reading says
    it guessed, and the pin it names, written into a real config, reads it the other way."""
    root = _project(tmp_path, data)
    titles, notice = _titles(root, tmp_path / "home")
    assert titles and titles != pinned
    assert f"the review {title!r} is read as {len(titles)} lessons; runner-up" in notice
    pin = UNIT_PIN.search(notice)
    assert pin is not None, notice
    (root / ".claude" / "gotchas.toml").write_text(f'entries = "{pin[1]}"\n', encoding="utf-8")
    assert _titles(root, tmp_path / "home") == (pinned, "")


@pytest.mark.parametrize(
    "data",
    [
        b"# Postmortem: the staging database filled its disk\n\n## Timeline\n\n- 09:00 alerts.\n\n"
        b"## What we learned\n\n- Alert on disk at 80%.\n- Rotate logs daily.\n",
        RETROSPECTIVE.replace(b"# Sprint 4 Retrospective", b"# Sprint 4 notes"),
    ],
)
def test_a_postmortem_of_one_incident_or_a_file_titled_otherwise_says_nothing_of_a_review(
    data: bytes,
) -> None:
    """A postmortem of one incident is read as that incident, and a title that names no review
    is no sign of one."""
    parsed = record.parse(data)
    assert parsed.reading is not None and parsed.entries
    assert "the review" not in (parsed.reading.notice or "")


def test_the_outline_lines_up_its_line_numbers() -> None:
    """Entries on lines 3 and 120 of one file: their titles start in one column."""
    body = "".join(f"## Lesson {n}\n\nDo {n}.\n\n" + "filler line\n" * 20 for n in range(1, 7))
    parsed = record.parse(f"# Lessons\n\n{body}".encode())
    assert parsed.reading is not None
    shown = outline.text(outline.describe(parsed.reading, [e.id for e in parsed.entries]))
    entries = [line for line in shown.splitlines() if line.startswith("entry")]
    assert len(entries) == 6 and entries[0].startswith("entry     3:")
    assert len({line.index("[") for line in entries}) == 1, entries
