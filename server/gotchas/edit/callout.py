"""Lessons that are GitHub callouts (``> [!WARNING]``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import bare_line, block_tokens
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import lead_lines
from gotchas.record import Entry, Record

CALLOUT_OPENER = re.compile(r"^(?P<quote> {0,3}>[ \t]?)\[![A-Za-z]+\][ \t]*$")


class CalloutForm(Form):
    """A GitHub callout (``> [!WARNING]`` and its quoted lines) read as a lesson. The successor
    is a callout of the same kind, its lead, fields and body quoted as the target's lines are;
    the mark is a quoted paragraph closing the target's callout, and the caveat a quote nested
    in it after the mark, so it renders inside the target's callout, after all of its parts.
    The reading gives such a lesson the kind ``paragraph``: ``PARAGRAPH`` hands it on here."""

    kind = "paragraph"

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        opener = bare_line(lines[like.start_line - 1])
        quote = _callout_quote(lines, like)
        second = bare_line(lines[like.start_line]) if like.start_line < like.end_line else ""
        rest = second.lstrip(" ")[1:].lstrip(" \t") if second.lstrip(" ").startswith(">") else ""
        inner, shown = lead_lines(record, like, rest, "", "", new, new_id, links)
        return [opener, *(_quoted(quote, line) for line in inner)], shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        quote = _callout_quote(lines, target)
        end = _quote_end(record, target)
        return [Insertion(end, (quote.rstrip(), quote + marks, quote.rstrip(), quote + caveat))]

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, ("", *entry_lines))


def _callout_quote(lines: Sequence[bytes], entry: Entry) -> str:
    """The quote marker the callout's own lines use (``> ``), read off its opener."""
    found = CALLOUT_OPENER.match(bare_line(lines[entry.start_line - 1]))
    quote = found["quote"] if found else "> "
    return quote if quote.endswith((" ", "\t")) else quote + " "


def _quoted(quote: str, line: str) -> str:
    return quote + line if line.strip() else quote.rstrip()


def _quote_end(record: Record, entry: Entry) -> int:
    """The 0-based line after the block quote that opens ``entry`` (lazy lines included)."""
    for token in block_tokens(record.data):
        if token.type == "blockquote_open" and token.map and token.map[0] == entry.start_line - 1:
            return min(token.map[1], entry.end_line)
    return entry.end_line


CALLOUT = CalloutForm()
