"""Parsing in windows gives the very block map and record markdown-it gives in one go.

The record is parsed by the line scanner (``scanner.scan_lines``; markdown-it a chunk at a
time, ``blocks.scan_lines``, must agree too), and an edit is parsed from the parse it was
made on (``record.parse(after, near=before)``): only the lines around what changed are
read again, the rest of the block map and the entries are taken over from ``before``.
Whatever the Markdown (fences and HTML blocks left open, lazy continuation, nested lists,
setext underlines, front matter, CRLF) and whatever the edit, the block map must be the
one markdown-it gives the whole text, and the reading and every entry those of a full
parse.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gotchas import blocks, edit, record
from support import edits

SHARED = Path(__file__).resolve().parents[2] / "shared"

LINES = [
    "",
    "",
    "",
    "# Gotchas",
    "## Section",
    "### A lesson title",
    "### Another lesson (#12)",
    "#### Deeper",
    "Title in setext",
    "===",
    "---",
    "***",
    "Plain prose line.",
    "tasks: #7, #8 · root-cause: confirmed",
    "diagnostic: the log says so",
    "supersedes: a-lesson-title (for #7)",
    "status: fixed",
    "**Status: Fixed**",
    "- item one",
    "- item two",
    "  - nested item",
    "  continued item text",
    "lazy continuation",
    "1. first",
    "2) second",
    "10. tenth",
    "* star item",
    "```",
    "```python",
    "~~~",
    "    indented code",
    "\tTabbed line",
    "> quoted text",
    "> - quoted item",
    "<div>",
    "</div>",
    "<!-- a comment",
    "-->",
    "<pre>",
    "</pre>",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "[ref]: https://example.com",
    "- **Lesson in bold** — and prose",
    "  ```",
    "   ```",
    "    ```",
]

line = st.sampled_from(LINES)
doc = st.lists(line, min_size=0, max_size=40)


def _join(lines: list[str], eol: str, final: bool) -> bytes:
    text = eol.join(lines) + (eol if final and lines else "")
    return text.encode("utf-8")


def _reference(data: bytes) -> blocks.BlockMap:
    """markdown-it alone over the whole text, front matter blanked, as the record reads it."""
    lines = [raw.decode("utf-8") for raw in data.splitlines(keepends=True)]
    if data.startswith(record.BOM):
        lines[0] = lines[0][1:]
    bare = [line.rstrip("\r\n") for line in lines]
    matter = record.lines.front_matter(bare)
    if matter is not None:
        lines = ["\n" if matter[0] <= n < matter[1] else line for n, line in enumerate(lines)]
    return blocks.scan("".join(lines), bare)


def _windows_agree(data: bytes) -> None:
    reference = _reference(data)
    parsed = record.parse(data)
    assert parsed.block_map == reference
    bare = record.lines.bare_lines(record.decode(data))
    matter = record.lines.front_matter(bare)
    view = bare if matter is None else record.lines.blank(bare, matter)
    for chunk in (1, 2, 3, 5, 8, 13):
        assert blocks.scan_lines(view, bare, chunk) == reference, chunk


def _same(before: bytes, after: bytes) -> None:
    near = record.parse(before)
    full = record.parse(after)
    spliced = record.parse(after, near=near)
    assert spliced.block_map == full.block_map
    assert spliced.reading == full.reading
    assert spliced.entries == full.entries
    assert spliced == full


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    doc,
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=4),
    st.lists(line, max_size=8),
    st.sampled_from(["\n", "\r\n", "\r"]),
    st.booleans(),
    st.booleans(),
)
def test_an_edit_parses_the_same_spliced(
    lines: list[str], at: int, removed: int, inserted: list[str], eol: str, final: bool, matter: bool
) -> None:
    head = ["---", "title: x", "---"] if matter else []
    at = min(at, len(lines))
    changed = [*lines[:at], *inserted, *lines[at + removed :]]
    _windows_agree(_join(head + lines, eol, final))
    _same(_join(head + lines, eol, final), _join(head + changed, eol, final))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line, min_size=30, max_size=120), st.data())
def test_a_small_edit_far_from_the_ends(lines: list[str], data: st.DataObject) -> None:
    """Long documents, so the parse rejoins the old blocks well before the end."""
    at = data.draw(st.integers(min_value=0, max_value=len(lines)))
    inserted = data.draw(st.lists(line, min_size=1, max_size=5))
    changed = [*lines[:at], *inserted, *lines[at:]]
    _same(_join(lines, "\n", True), _join(changed, "\n", True))


def test_a_supersede_parses_the_same_spliced_in_a_long_record() -> None:
    lines = ["# Gotchas", ""]
    for n in range(300):
        lines += [f"### Lesson {n}", "", f"tasks: #{n + 1} · root-cause: suspected", "", "- a point", ""]
    data = "\n".join(lines).encode()
    before = record.parse(data)
    lesson = edit.lesson(
        "The real cause",
        body="It was the cache.",
        tasks=["#7"],
        root_cause="confirmed",
        diagnostic="the log says so",
    )
    for target in before.entries[::37]:
        plan = edit.plan_supersede(before, target=target, task="#7", new=lesson)
        spliced = record.parse(plan.data, near=before)
        assert spliced == record.parse(plan.data)
        assert spliced.block_map == record.parse(plan.data).block_map
        # entries away from the edit were taken over, not read again
        at = before.entries.index(target)
        assert all(spliced.entries[i] is before.entries[i] for i in range(at - 3))
        moved = zip(before.entries[at + 3 :], spliced.entries[at + 4 :], strict=True)
        assert all(new.sha256 is old.sha256 for old, new in moved)


def _corpus() -> list[Path]:
    folder = SHARED / "corpus" / "real"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.skipif(not _corpus(), reason="../shared/corpus/real is not beside the repository")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:50])
def test_edits_of_real_files_parse_the_same_spliced(path: Path) -> None:
    data = path.read_bytes()
    try:
        before = record.parse(data)
    except Exception:  # a file the record refuses has nothing to splice
        pytest.skip("not a readable record")
    _windows_agree(data)
    rnd = random.Random(path.name)
    raw = data.splitlines(keepends=True)
    for _ in range(12):
        at = rnd.randrange(len(raw) + 1)
        inserted = [(rnd.choice(LINES) + "\n").encode() for _ in range(rnd.randrange(1, 4))]
        after = b"".join([*raw[:at], *inserted, *raw[at:]])
        _same(data, after)
    for planned in edits.supersedes(before, 4):
        _same(data, planned)


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab\r\n", max_size=40),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=6),
    st.text(alphabet="ab\r\n", max_size=8),
)
def test_line_starts_near_an_edit_are_those_of_the_whole_text(
    text: str, at: int, removed: int, inserted: str
) -> None:
    """Any bytes changed anywhere, line breaks of every kind split or joined by the change."""
    before = text.encode()
    at = min(at, len(before))
    after = before[:at] + inserted.encode() + before[at + removed :]
    near = record.parse(before)
    assert list(record.parsing._line_starts_near(near, after)) == list(record.lines.line_starts(after))
