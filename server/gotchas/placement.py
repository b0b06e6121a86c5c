"""Where a new lesson goes when no entry is named: the end of the section it belongs to.

A lesson appended at the end of the file lands in whatever section happens to be last.
A section is a run of consecutive entries under one heading (``Entry.section``); the new
lesson joins the one whose lessons share its tasks, else the one that shares the most of
its words (its title and body against the section's title and its lessons' titles). When
no section stands out, the caller is asked to choose (``NeedsPlacement``, naming the
candidates), never guessed for. Pure: the parsed record and the lesson's text in, an entry out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gotchas import surface
from gotchas.errors import NeedsPlacement
from gotchas.record import Entry, Record

MIN_WORDS = 2  # shared words a section needs to be chosen on words alone
_WORD = re.compile(r"[^\W_]{3,}|\b[A-Z]{2}\b")  # a word, or two capitals (CI, OS, DB)
_COMMON = frozenset(
    "the and for with from that this when into over then than not but are was were has have had "
    "its their they them use used using all any can may one two new old does did don't only "
    "also each per via why how what which who out off too very".split()
)


@dataclass(frozen=True)
class Section:
    """Consecutive entries under one heading (``title`` None: before any heading)."""

    title: str | None
    entries: tuple[Entry, ...]

    @property
    def last(self) -> Entry:
        return self.entries[-1]


def sections(record: Record) -> list[Section]:
    """The record's sections in file order, each a run of entries sharing ``Entry.section``."""
    runs: list[Section] = []
    for entry in record.entries:
        if runs and runs[-1].title == entry.section:
            runs[-1] = Section(entry.section, (*runs[-1].entries, entry))
        else:
            runs.append(Section(entry.section, (entry,)))
    return runs


def words(text: str) -> frozenset[str]:
    """The words of ``text`` that can tell sections apart: three letters or more, not common."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(text)) if w not in _COMMON)


def after(record: Record, *, title: str, body: str, tasks: Sequence[str]) -> Entry | None:
    """The entry a new lesson goes after: the last of the section it fits; None for an empty
    record. NeedsPlacement, naming each section's last entry, when no one section fits."""
    runs = sections(record)
    if len(runs) <= 1:
        return runs[0].last if runs else None
    wanted = set(tasks)
    by_task = [len(wanted & {t for e in s.entries for t in e.tasks}) for s in runs]
    mine = words(f"{title}\n{body}")
    by_word = [_word_score(s, mine) for s in runs]
    best = max(range(len(runs)), key=lambda i: (by_task[i], by_word[i]))
    score = (by_task[best], by_word[best])
    tied = sum((by_task[i], by_word[i]) == score for i in range(len(runs))) > 1
    if not tied and (by_task[best] > 0 or by_word[best] >= MIN_WORDS):
        return runs[best].last
    raise NeedsPlacement(
        _question(runs, ranked=sorted(range(len(runs)), key=lambda i: (-by_task[i], -by_word[i])))
    )


def _word_score(section: Section, mine: frozenset[str]) -> int:
    """Shared words: those of the lessons' titles, those of the section's own title twice."""
    own = words(section.title or "")
    titles = words(" ".join(e.title for e in section.entries))
    return len(mine & (titles | own)) + len(mine & own)


def _question(runs: Sequence[Section], ranked: Sequence[int]) -> str:
    shown = [f"{runs[i].title or '(before the first section)'!r} → {runs[i].last.id}" for i in ranked[:8]]
    more = f" and {len(runs) - 8} more sections" if len(runs) > 8 else ""
    return (
        "no one section of the record shares this lesson's tasks or enough of its words, so where "
        f"it goes is yours to say: give {surface.after_option()} with the entry to place it after "
        f"(a section's last entry puts it at that section's end): {'; '.join(shown)}{more}"
    )
