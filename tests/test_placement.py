"""Where a new lesson goes without --after: the end of the section whose lessons share its
tasks (else enough of its words), or a refusal that asks for --after and names the
candidates; never wherever the file happens to end. Through the real CLI, and the pure
choice on its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gotchas import errors, placement, record, recording
from support.clients import RECORD_PATH, gotchas, make_scenario_repo, run_gotchas
from support.project import SCENARIO

SECTIONS = ("## vLLM", "## Hugging Face", "## Git and CI")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    return repo


def captured(root: Path, title: str, tasks: str, body: str = "What we saw.") -> str:
    """The record after proposing and applying a lesson without --after."""
    args = ["propose", "--json", "--no-hold", "--title", title, "--body", body, "--tasks", tasks]
    made = json.loads(run_gotchas(root, *args, "--root-cause", "suspected").stdout)
    run_gotchas(root, "apply", made["proposal_id"])
    return (root / RECORD_PATH).read_text("utf-8")


def section_of(text: str, title: str) -> str:
    """The ``##`` section the line holding ``title`` lies in."""
    at = text.index(f"### {title}")
    return [s for s in SECTIONS if text.find(s) < at][-1]


def test_a_lesson_sharing_a_task_goes_to_the_end_of_that_section(root: Path) -> None:
    before = (root / RECORD_PATH).read_text("utf-8")
    text = captured(root, "Tokenizer warm-up hides the first-call cost", "#547")
    assert section_of(text, "Tokenizer warm-up hides") == "## Hugging Face"
    # at its end: right before the next section, after the section's last lesson
    assert text.index("### Tokenizer warm-up") > text.index("### Tokenizer loads are not free")
    assert text.index("### Tokenizer warm-up") < text.index("## Git and CI")
    # one insertion, every other byte as it was
    head = _common(before, text)
    tail = _common(before[head:][::-1], text[head:][::-1])
    assert head + tail == len(before) and "Tokenizer warm-up hides" in text[head : len(text) - tail]


def _common(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_a_lesson_sharing_words_goes_to_that_section(root: Path) -> None:
    text = captured(root, "vLLM sampler seeds are per request", "#900")
    assert section_of(text, "vLLM sampler seeds") == "## vLLM"
    text = captured(root, "CI runners reuse stale wheels", "#901")
    assert section_of(text, "CI runners reuse") == "## Git and CI"


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts[:1]
    }


def test_a_lesson_sharing_nothing_is_refused_asking_for_after(root: Path) -> None:
    before = tree(root)
    args = ["propose", "--no-hold", "--title", "Docker layers order pip installs", "--body", "Order them."]
    done = gotchas(root, *args, "--tasks", "#902", "--root-cause", "suspected")
    assert done.returncode == 2
    assert "needs-after" in done.stderr and "--after ID" in done.stderr
    for last in ("max-model-len-silently-drifts-from-the", "tokenizer-loads-are-not-free"):
        assert last in done.stderr
    assert tree(root) == before
    with_after = gotchas(
        root, *args, "--tasks", "#902", "--root-cause", "suspected", "--after", "tokenizer-loads-are-not-free"
    )
    assert with_after.returncode == 0, with_after.stderr


def test_the_choice_is_pure_and_one_section_needs_no_choice() -> None:
    parsed = record.parse(SCENARIO.read_bytes())
    chosen = placement.after(parsed, title="x", body="y", tasks=["#601"])
    assert chosen is not None and chosen.id == "max-model-len-silently-drifts-from-the"
    with pytest.raises(errors.NeedsPlacement):
        placement.after(parsed, title="Nothing here", body="at all", tasks=["#1"])
    # a tie on tasks is no choice either
    with pytest.raises(errors.NeedsPlacement):
        placement.after(parsed, title="x", body="y", tasks=["#601", "#547"])
    flat = record.parse(b"# G\n\n## One\n\ntasks: #1\n\nA.\n\n## Two\n\ntasks: #2\n\nB.\n")
    last = placement.after(flat, title="Other", body="c", tasks=["#3"])
    assert last is not None and last.id == "two"
    assert placement.after(record.parse(b""), title="First", body="a", tasks=["#1"]) is None


ABOVE_MARKER = """# Lessons

## 2026-06-01 · `astro check` is stricter than `astro build`

Validate with the full `npm run check` before claiming green.

## 2026-06-02 · Island imports are extensionless

Import `.astro` islands without their extension.

<!-- Append new lessons above this line. -->

## Format

Each lesson: a dated `##` heading, what happened, the rule.
"""

BELOW_MARKER = """# Gotchas

- **Prisma migrate runs inside Docker** - the host has no database.
- **Zod v4 takes `error:`** - `required_error:` is gone.

<!-- Add new gotchas below this line as they are discovered -->
"""


@pytest.mark.parametrize(("text", "side"), [(ABOVE_MARKER, "above"), (BELOW_MARKER, "below")])
def test_a_lesson_goes_where_the_files_own_marker_asks(root: Path, text: str, side: str) -> None:
    """A comment after the lessons asking for new ones above or below itself is followed: the
    new lesson is written on that side of it, in the form of the lesson before it, and every
    other byte is kept. Through the real CLI, propose then apply."""
    (root / RECORD_PATH).write_text(text, encoding="utf-8")
    after = captured(root, "Captured cause", "#901")
    marker = next(line for line in text.splitlines() if line.startswith("<!--"))
    new = after.index("Captured cause")
    assert (new < after.index(marker)) == (side == "above")
    assert after.count(marker) == 1
    head = _common(text, after)
    tail = _common(text[head:][::-1], after[head:][::-1])
    assert head + tail == len(text) and "Captured cause" in after[head : len(after) - tail]
    titles = [e.title for e in record.parse(after.encode()).entries]
    assert [t.endswith("Captured cause") for t in titles] == [False, False, True]


def test_a_marker_above_every_lesson_is_not_followed(root: Path) -> None:
    """A log whose newest entries go on top, under its marker: an edit writes a new lesson after
    another, never before the first, so the lesson goes after the last one as before."""
    marker = "<!-- New entries below this line, newest first -->"
    text = f"# Lessons\n\n{marker}\n\n" + BELOW_MARKER.split("\n\n", 1)[1]
    (root / RECORD_PATH).write_text(text, encoding="utf-8")
    after = captured(root, "Captured cause", "#901")
    assert after.index("Captured cause") > after.index("Zod v4")


def test_a_lesson_applied_after_the_record_changed_still_goes_where_the_marker_asks(root: Path) -> None:
    """Apply plans the capture again on the record as it is now, and makes the same choice."""
    (root / RECORD_PATH).write_text(ABOVE_MARKER, encoding="utf-8")
    args = ["propose", "--json", "--no-hold", "--title", "Captured cause", "--body", "What we saw."]
    made = json.loads(run_gotchas(root, *args, "--tasks", "#901", "--root-cause", "suspected").stdout)
    changed = ABOVE_MARKER.replace("# Lessons\n", "# Lessons\n\nRead before touching the site.\n")
    (root / RECORD_PATH).write_text(changed, encoding="utf-8")
    run_gotchas(root, "apply", made["proposal_id"])
    after = (root / RECORD_PATH).read_text("utf-8")
    assert "Read before touching the site." in after
    assert after.index("Island imports") < after.index("Captured cause") < after.index("<!-- Append new")


@pytest.mark.parametrize(
    ("comment", "side"),
    [
        ("<!-- Append new lessons above this line. -->", "above"),
        ("<!-- New entries go above this line. Newest-first. -->", "above"),
        ("<!-- Add new gotchas below this line as they are discovered -->", "below"),
        ("<!-- New lessons are appended below this line. Do not remove this comment. -->", "below"),
        ("<!-- Append entries below. After a drain this section is empty again. -->", "below"),
        ("<!-- lessons will be appended here by the reflection process -->", "below"),
        ("<!-- Entries are auto-appended by the failure hook -->", None),
        ("<!-- Append only: never edit or remove existing entries. -->", None),
        ("<!-- See the guide here -->", None),
        ("Append new lessons above this line.", None),  # not a comment: the file's prose
    ],
)
def test_the_comments_that_mark_where_new_lessons_go(comment: str, side: str | None) -> None:
    assert recording.place_asked(comment) == side
