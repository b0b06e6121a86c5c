"""Reading as data: each fixture case names a pattern, its input and the entries a person sees."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gotchas import record
from gotchas.blockmap import Block
from gotchas.reading.text import opening_label

FIXTURES = Path(__file__).parent / "fixtures" / "reading"
# a case name ending ``(file CLAUDE.md)`` reads its input as the file at that path
_FILE = re.compile(r"\s\(file (\S+)\)$")


def cases() -> list[object]:
    """(input, expected lines, file path or None) from every ``.md`` fixture, in markdown-it-py's
    format."""
    out: list[object] = []
    for path in sorted(FIXTURES.glob("*.md")):
        if path.name == "README.md":
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        index = 0
        while index < len(lines):
            if not lines[index].strip():
                index += 1
                continue
            name = lines[index]
            assert lines[index + 1] == ".", f"{path.name}: a '.' must follow the case name {name!r}"
            parts: list[list[str]] = [[]]
            index += 2
            while len(parts) < 3:
                if lines[index] == ".":
                    parts.append([])
                else:
                    parts[-1].append(lines[index])
                index += 1
            source, expected = parts[0], parts[1]
            named = _FILE.search(name)
            file = named.group(1) if named else None
            out.append(pytest.param("\n".join(source) + "\n", expected, file, id=f"{path.stem}: {name}"))
    return out


@pytest.mark.parametrize(("source", "expected", "file"), cases())
def test_fixture(source: str, expected: list[str], file: str | None) -> None:
    parsed = record.parse(source.encode("utf-8"), name=file)
    got = [f"{e.start_line} {e.kind} {e.title}" for e in parsed.entries]
    want = [] if expected == ["none"] else expected
    assert got == want, parsed.reading.reason if parsed.reading else ""
    if not want:
        assert parsed.notice and "no lessons" in parsed.notice


def test_fixtures_cover_every_entry_kind() -> None:
    kinds = {line.split()[1] for case in cases() for line in case.values[1] if line != "none"}  # type: ignore[attr-defined]
    assert kinds == {"heading", "item", "paragraph", "block", "row", "document"}


def test_a_pin_overrides_the_reading() -> None:
    data = b"# Lessons\n\n## Build\n\n- **Pin it** - a.\n- **Cache it** - b.\n\n## Run\n\nProse.\n"
    assert [e.kind for e in record.parse(data).entries] == ["item", "item", "heading"]
    assert [e.title for e in record.parse(data, "h2").entries] == ["Build", "Run"]
    assert [e.title for e in record.parse(data, "list").entries] == ["Pin it", "Cache it"]
    assert record.parse(data, "none").entries == ()
    single = record.parse(data, "single").entries
    assert [(e.kind, e.start_line) for e in single] == [("document", 1)]


def test_a_pinned_lessons_section_limits_the_reading() -> None:
    data = b"# Guide\n\n## Setup\n\n- run make\n\n## Traps\n\n- **Port in use** - stop the old one.\n"
    assert [e.title for e in record.parse(data, "list@Traps").entries] == ["Port in use"]
    assert [e.title for e in record.parse(data, "@Traps").entries] == ["Port in use"]


def test_the_reading_knows_the_entry_fields_the_record_model_knows() -> None:
    """The reading names this tool's field keys itself (it sits below the record model)."""
    from gotchas import fields, vocabulary

    assert vocabulary.ENTRY_FIELD_KEYS == fields.KNOWN


def test_a_paragraph_bold_label_is_read_as_an_items_is() -> None:
    # ``**Problem**:`` opening a paragraph is the same label as opening a bullet; read as a
    # bullet, the paragraph's first star went as a list marker and the label was lost
    paragraph = opening_label(Block("paragraph", 0, 1), "**Problem**: the cache key misses the lockfile")
    item = opening_label(Block("item", 0, 1), "- **Problem**: the cache key misses the lockfile")
    assert paragraph is not None
    assert paragraph == item
