"""The pin that reads the lessons a person names: where each lesson starts, in; a pin out.

Detection is a guess, and a person who finds it wrong knows the answer better than any pin's
name: "the lessons start on lines 5, 12 and 30". This searches the pins for one that reads
exactly those entries, so the person never learns the pin language to correct a reading. The
search is small: the file's own unit first, then a row of ``[sections]`` at a time, tried only
for the sections where the reading and the person disagree, each step keeping the three pins
that come closest (a beam: a row that helps only beside another is found too). It stops when
one reads exactly, when two steps in a row come no closer, or after a bounded number of
readings, fewer the longer the file, so a search costs about as much on a file of any size.

Pure: bytes (or blocks and lines) in, a pin and what it reads out.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from gotchas import reading
from gotchas.blockmap import Block
from gotchas.reading import UNITS, Pin
from gotchas.record import parse
from gotchas.record.lines import bare_lines, decode

# the units a file's pin may take, ``single`` and ``none`` first: they read the same in every file
FILE_UNITS = ("single", "none", *(unit for unit in UNITS if unit not in ("single", "none")))
_SECTION_UNITS = ("none", "single", "list", "paragraph", "table-row")
MAX_ROWS = 6  # rows of ``[sections]`` a found pin may hold: more is no longer a pin a person reads
# readings tried at most: 200 on a file of up to 5,000 lines, fewer on a longer one, down to
# 30, so that readings times lines stays near a million (a 10,000-lesson record: 30 readings)
MAX_READS = 200
_LINES_READ = 1_000_000
_SECTIONS_A_STEP = 12  # sections tried at each step: those holding most of the disagreement
WIDTH = 3  # pins kept at each step: one that comes no closer may lead to one that reads exactly


@dataclass(frozen=True, slots=True)
class Fit:
    """The closest pin found, the entries it reads (0-based first lines) and how many readings
    were tried. ``exact`` when it reads the lessons asked, no more and no fewer."""

    pin: Pin
    read: frozenset[int]
    wanted: frozenset[int]
    tries: int

    @property
    def exact(self) -> bool:
        return self.read == self.wanted

    @property
    def missing(self) -> list[int]:
        return sorted(self.wanted - self.read)

    @property
    def extra(self) -> list[int]:
        return sorted(self.read - self.wanted)


@dataclass(frozen=True, slots=True)
class _Heading:
    start: int
    end: int  # the section's end: the next heading of its level or above
    level: int
    title: str


def fit_record(data: bytes, starts: frozenset[int], now: Pin | None = None, name: str | None = None) -> Fit:
    """``fit`` for a lessons file's bytes (at ``name``) and the 1-based lines its lessons start on."""
    parsed = parse(data, reuse=False, name=name)
    assert parsed.block_map is not None  # a parse from bytes always keeps its block map
    lines = bare_lines(decode(data))
    wanted = frozenset(n - 1 for n in starts)
    return fit(parsed.block_map.blocks, lines, parsed.front_matter, wanted, now, name)


def fit(
    blocks: Sequence[Block],
    lines: Sequence[str],
    matter: tuple[int, int] | None,
    wanted: frozenset[int],
    now: Pin | None = None,
    name: str | None = None,
) -> Fit:
    """The pin closest to reading entries starting on ``wanted`` (0-based lines), from ``now``
    (the project's pin, or none: detection) for the file at ``name``."""
    budget = max(30, min(MAX_READS, _LINES_READ // max(1, len(lines))))
    heads = _headings(blocks, len(lines))
    levels = {h.level for h in heads}
    kinds: set[str] = {b.kind for b in blocks}
    tries = 0

    def read(pin: Pin) -> frozenset[int]:
        nonlocal tries
        tries += 1
        chosen = pin if pin.unit or pin.sections else None
        found = reading.read(blocks, lines, matter, chosen, keep=False, name=name)
        return frozenset(span.start for span in found.spans)

    start = now or Pin()
    best, got = start, read(start)
    beam = [(best, got)]
    stale = 0  # steps in a row that came no closer
    while got != wanted and tries < budget and stale < 2:
        seen: set[tuple[str | None, frozenset[tuple[str, str]]]] = set()
        scored: list[tuple[int, int, Pin, frozenset[int]]] = []
        for base, base_got in beam:
            for pin in _candidates(base, base_got ^ wanted, heads, levels, kinds):
                key = (pin.unit, frozenset(pin.sections))
                if key in seen or len(pin.sections) > MAX_ROWS:
                    continue  # the same rows reached in another order
                seen.add(key)
                if tries >= budget:
                    break
                then = read(pin)
                scored.append((len(then ^ wanted), len(pin.sections) + (pin.unit is not None), pin, then))
                if then == wanted:
                    break  # exact: no other pin of this step can do better than the first found
            if scored and scored[-1][0] == 0:
                break
        if not scored:
            break
        scored.sort(key=lambda row: (row[0], row[1]))  # closest first, then the fewest lines
        beam = [(pin, then) for _, _, pin, then in scored[:WIDTH]]
        if scored[0][0] < len(got ^ wanted):
            (best, got), stale = beam[0], 0
        else:
            stale += 1
    return Fit(best, got, wanted, tries)


def _candidates(
    pin: Pin, differ: frozenset[int], heads: list[_Heading], levels: set[int], kinds: set[str]
) -> list[Pin]:
    """One more choice on ``pin``: the file's unit while it has none, then a unit for each of the
    sections holding most of the lines the reading and the person disagree on."""
    out: list[Pin] = []
    if pin.unit is None:
        for unit in FILE_UNITS:
            if unit[1:].isdigit() and int(unit[1:]) not in levels:
                continue
            if unit == "table-row" and "table" not in kinds:
                continue
            out.append(dataclasses.replace(pin, unit=unit))
    pinned = {title for title, _ in pin.sections}
    lines = sorted(differ)
    touched = []
    for head in heads:
        inside = bisect.bisect_left(lines, head.end) - bisect.bisect_left(lines, head.start)
        if inside and head.title not in pinned:
            touched.append((inside, head))
    # the sections holding most of the disagreement first, the innermost of equals
    touched.sort(key=lambda pair: (-pair[0], -pair[1].level, pair[1].start))
    for _, head in touched[:_SECTIONS_A_STEP]:
        if head.title in pinned:
            continue  # a second section of the same title: its row is already tried
        units = [*_SECTION_UNITS, *(f"h{n}" for n in sorted(levels) if n > head.level)]
        out.extend(dataclasses.replace(pin, sections=(*pin.sections, (head.title, unit))) for unit in units)
        pinned.add(head.title)
    return out


def _headings(blocks: Sequence[Block], total: int) -> list[_Heading]:
    """Each heading a pin may name, with its section's extent. A title a config cannot hold (too
    long, or with a tab, a line break or ``@``) is left out."""
    found = [b for b in blocks if b.kind == "heading"]
    out = []
    for n, block in enumerate(found):
        end = next((b.start for b in found[n + 1 :] if b.level <= block.level), total)
        title = " ".join(block.title.split())
        if title and len(title) <= 200 and not any(c in title for c in "\t\n\r@"):
            out.append(_Heading(block.start, end, block.level, title))
    return out
