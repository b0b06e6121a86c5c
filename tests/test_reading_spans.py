"""Span building is linear in the units and the cuts between them (rules, comments).

Counted, not timed: ``unit_stops`` reads each cut a bounded number of times however many
units there are, and a record of ``---``-separated or comment-separated lessons reads with
the same number of cut reads per unit at 500 and at 2,000 entries.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gotchas import record
from gotchas.reading import state
from gotchas.reading.state import unit_stops


class Counted(list[int]):
    """A list that counts how often an element is read."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        Counted.reads += 1
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[int]:
        for n in range(len(self)):
            yield self[n]


def test_stops_match_the_definition() -> None:
    # units at 0, 10, 20 (each one line long), cuts at 5 and 25, the last unit cut too
    assert unit_stops([0, 10, 20], [1, 11, 21], [5, 25], 30, True) == [5, 20, 25]
    assert unit_stops([0, 10, 20], [1, 11, 21], [5, 25], 30, False) == [5, 20, 30]
    # a cut inside a unit's own first block does not count; one at the next start changes nothing
    assert unit_stops([0, 10], [4, 11], [2, 10], 20, True) == [10, 20]
    assert unit_stops([], [], [3], 9, True) == []


@pytest.mark.parametrize("units", [100, 1000, 4000])
def test_cut_reads_are_linear(units: int) -> None:
    starts = [n * 3 for n in range(units)]
    cuts = Counted(n * 3 + 2 for n in range(units))
    Counted.reads = 0
    stops = unit_stops(starts, [s + 1 for s in starts], cuts, units * 3, True)
    assert stops == [s + 2 for s in starts]
    assert Counted.reads <= 2 * units + 2


def _record(entries: int, separator: str) -> bytes:
    parts = ["# Lessons", ""]
    for n in range(entries):
        parts += [f"- **Lesson {n}** — keep the cache warm.", "", separator, ""]
    return "\n".join(parts).encode()


@pytest.mark.parametrize("separator", ["---", "<!-- entry -->"])
def test_reading_reads_cuts_in_proportion(separator: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The whole reading, through the record: cut reads per entry do not grow with the entries."""
    reads: list[int] = []
    real = state.unit_stops

    def counting(starts, ends, cuts, end, cut_last):  # type: ignore[no-untyped-def]
        counted = Counted(cuts)
        Counted.reads = 0
        found = real(starts, ends, counted, end, cut_last)
        reads.append(Counted.reads)
        return found

    monkeypatch.setattr(state, "unit_stops", counting)
    per_entry = []
    for entries in (500, 2000):
        reads.clear()
        parsed = record.parse(_record(entries, separator))
        assert len(parsed.entries) == entries
        per_entry.append(sum(reads) / entries)
    assert per_entry[1] <= per_entry[0] * 1.1 + 0.01


class CountedBlocks(list):  # type: ignore[type-arg]
    """A block list that counts every block read: by index, by slice (each block in it) and by
    iteration."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        found = super().__getitem__(index)
        CountedBlocks.reads += len(found) if isinstance(index, slice) else 1
        return found

    def __iter__(self):  # type: ignore[no-untyped-def]
        for block in super().__iter__():
            CountedBlocks.reads += 1
            yield block


SHAPES = {
    "--- blocks": lambda n: [f"**Lesson {n}.** Keep the cache warm.", "", "---", ""],
    "bullets and rules": lambda n: [f"- **Lesson {n}** - keep it warm.", "", "---", ""],
    "bullets and comments": lambda n: [f"- **Lesson {n}** - keep it warm.", "", "<!-- entry -->", ""],
    "plain bullets": lambda n: [f"- **Lesson {n}** - keep it warm."],
    "headings": lambda n: [f"## Lesson {n}", "", "Keep it warm.", ""],
    "mixed shapes": lambda n: (
        [f"## Lesson {n}", "", "Keep it warm.", ""]
        if n % 2
        else ["## Group", "", f"- **Lesson {n}** - a.", f"- **Lesson {n}b** - b.", ""]
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_whole_reading_reads_each_block_a_bounded_number_of_times(shape: str) -> None:
    """Block reads per entry do not grow with the entries (a quadratic step would quadruple)."""
    from gotchas import blocks as block_map
    from gotchas.reading import read

    per_entry = []
    for entries in (300, 1200):
        lines = ["# Lessons", ""]
        for n in range(entries):
            lines += SHAPES[shape](n)
        found = block_map.scan("\n".join(lines) + "\n", lines)
        counted = CountedBlocks(found.blocks)
        CountedBlocks.reads = 0
        reading = read(counted, lines, None)
        assert reading.spans
        per_entry.append(CountedBlocks.reads / entries)
    assert per_entry[1] <= per_entry[0] * 1.25 + 1, per_entry
