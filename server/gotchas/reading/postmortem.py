"""A postmortem of one incident, read as that incident: its lessons are those of its section of
what was learned, else the separate changes it would make next time, else the whole file is one
lesson. Its timeline, impact and action items are the incident's own parts, not lessons beside it."""

from __future__ import annotations

import re

from gotchas import vocabulary
from gotchas.reading.model import Reading
from gotchas.reading.sections import Reader
from gotchas.reading.text import CONTINUES, item_text
from gotchas.reading.tree import Section

# a file titled as one incident's review, named after a colon or a dash: ``# Postmortem: …``,
# ``# Post-mortem — …``, ``# Incident report: …``
_INCIDENT_TITLE = re.compile(
    r"^(?:post[-\s]?mortem|incident\s+(?:report|review|analysis)|root[-\s]cause\s+analysis)"
    r"\s*(?:[:：]|\s[-—–]\s)\s*\S",  # and its one subject: a bare ``# Postmortems`` may log many
    re.IGNORECASE,
)
_LEARNED = re.compile(r"\blearn(?:ed|t|ings?)\b|\blessons?\b|\btakeaways?\b", re.IGNORECASE)
# what to change next time (``## Do differently next time``, ``## What the next player should do
# differently``)
_DIFFERENTLY = re.compile(r"\bdo\s+(?:\w+\s+)?differently\b", re.IGNORECASE)


def _changes(reader: Reader, section: Section) -> bool:
    """A section of what to do differently whose body is a list of two changes or more, each
    standing alone: the lessons drawn. Steps that lead on to each other (``Only then, re-attempt
    RS``) are the one lesson's remedy."""
    if section.children or not _DIFFERENTLY.search(vocabulary.plain(section.title)):
        return False
    items = [b for b in section.body if b.kind == "item"]
    if len(items) < 2:
        return False
    texts = [item_text(reader.lines[b.start]).lstrip("*_ ") for b in items]
    return not any(CONTINUES.match(text) for text in texts[1:])


def incident_review(reader: Reader, root: Section) -> Reading | None:
    """A postmortem (``# Postmortem: Why the integration failed``) tells one incident: its
    lessons are those of a section titled as what was learned (``## What we actually learned``,
    ``## Lessons Learned``); with none, the whole file is that one lesson. Its other parts
    (timeline, impact, what went wrong, what to do differently) are the incident's own."""
    if root.heading is None or not _INCIDENT_TITLE.match(vocabulary.bare_title(root.title)):
        return None
    if vocabulary.names_lessons(root.title):
        return None  # ``# Postmortem lessons``: many, read as a lessons file is
    learned = [s for s in root.children if vocabulary.names_lessons(s.title) and _LEARNED.search(s.title)]
    if learned:
        # a lesson added beside that section carries this tool's entry fields, as in a guide
        added = [s for s in root.children if s not in learned and reader.has_entry_fields(s, marks=False)]
        scopes = sorted([*learned, *added], key=lambda s: s.start)
        return reader.read_scopes(scopes, "a postmortem: its lessons are in its section of what was learned")
    changes = [s for s in root.children if _changes(reader, s)]
    if changes:
        why = "a postmortem: its lessons are the changes it would make next time"
        return reader.read_scopes(changes, why)
    return reader.single("a postmortem: the whole file tells one incident, one lesson")
