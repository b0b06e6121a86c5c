"""The red-herring mark and the caveat: their words, and where they go inside the target.

They go after the metadata lines an entry opens with, as a block of their own, never between
two of the entry's parts (``Symptom:`` and ``Cause:``) and never into a fence or a quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas.edit.lesson import one_line
from gotchas.edit.lines import bare_line
from gotchas.edit.splice import Insertion
from gotchas.fields import KNOWN
from gotchas.record import Entry


def caveat_text(
    task: str, title: str, ruled_out: Sequence[str], new_id: str, note: str | None, where: str
) -> str:
    # Only what is known goes into the durable record: the task, what was ruled out *for it*
    # (the session's words, said as such) and where the confirmed cause is. Never a claim about
    # what this entry advised: the ruled-out causes need not be what it said.
    text = one_line(note, "red_herring_note")
    if not text:
        failed = "; ".join(" ".join(cause.split()) for cause in ruled_out if cause.strip())
        text = f"Ruled out for {task}: {failed}." if failed else ""
    title = " ".join(title.split())
    said = f"{text} " if text else ""
    return (
        f"> **Red herring for {task}.** {said}The confirmed cause is in "
        f"\u201c{title}\u201d (`{new_id}`), {where}. This entry may still hold for other tasks."
    )


# Keys that say something about an entry rather than being one of its parts: a caveat goes
# after these, never between ``Symptom:`` and ``Cause:``.
METADATA_KEYS = KNOWN | frozenset(
    (
        "date",
        "added",
        "updated",
        "discovered",
        "resolved",
        "fixed",
        "severity",
        "priority",
        "category",
        "tags",
        "area",
        "component",
        "owner",
        "author",
        "related",
        "refs",
        "references",
        "pr",
        "confidence",
        "frequency",
        "impact",
        "scope",
        "type",
    )
)


def _metadata_lines(target: Entry) -> frozenset[int]:
    """0-based lines whose first field is a metadata key."""
    first: dict[int, str] = {}
    for field in target.fields:
        first.setdefault(field.line - 1, field.key)
    return frozenset(line for line, key in first.items() if key in METADATA_KEYS)


_LIST_PREFIX = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])(\s+)")


def _field_prefix(line: str, plain: str) -> str:
    """The prefix a mark line takes after ``line``: a field bullet's own marker, else ``plain``."""
    match = _LIST_PREFIX.match(line)
    if not match:
        return plain
    marker = match[2]
    if marker[:-1].isdigit():
        marker = f"{int(marker[:-1]) + 1}{marker[-1]}"
    return f"{match[1]}{marker}{match[3]}"


def _marks_then_caveat(
    lines: Sequence[bytes], at: int, end: int, prefix: str, indent: str, marks: str, caveat: str
) -> Insertion:
    """The mark line, a blank line, the caveat; a blank line after it when the entry goes on."""
    tail: tuple[str, ...] = ("",) if at < end and bare_line(lines[at]).strip() else ()
    return Insertion(at, (prefix + marks, "", indent + caveat, *tail))


def annotate_block(
    lines: Sequence[bytes], target: Entry, body: int, marks: str, caveat: str
) -> list[Insertion]:
    """Under a heading: after the metadata lines the body opens with, else before the body."""
    end = target.end_line
    first = next((i for i in range(body, end) if bare_line(lines[i]).strip()), None)
    if first is None:
        return [Insertion(end, ("", marks, "", caveat))]
    metadata = _metadata_lines(target)
    run = first
    while run < end and run in metadata:
        run += 1
    if run == first:
        return [Insertion(first, (marks, "", caveat, ""))]
    opened = _LIST_PREFIX.match(bare_line(lines[run - 1]))
    going_on = _LIST_PREFIX.match(bare_line(lines[run])) if run < end else None
    if opened is not None and going_on is not None and len(going_on[1]) == len(opened[1]):
        # metadata bullets opening a list of field bullets (``- **Date:**`` then ``- **Problem:**``):
        # a mark between them would split the list, so both go before it, as for any other list
        return [Insertion(first, (marks, "", caveat, ""))]
    last = bare_line(lines[run - 1])
    if (run >= end or not bare_line(lines[run]).strip()) and _LABEL_LINE.match(last):
        # a paragraph of bold-label metadata (``**Status:** open``): a mark line after it would
        # read as more of the last label's text, so it is a paragraph of its own
        tail = ("",) if run < len(lines) and bare_line(lines[run]).strip() else ()
        return [Insertion(run, ("", marks, "", caveat, *tail))]
    prefix = _field_prefix(last, "")
    return [_marks_then_caveat(lines, run, end, prefix, "", marks, caveat)]


CODE_INDENT = re.compile(r"^(?: {4}|\t| {1,3}\t)")


OPENS_BLOCK = re.compile(r"^\s*(?:[-*+]\s|\d{1,9}[.)]\s|>|```|~~~|#{1,6}\s|<)")


def annotate_lead(
    lines: Sequence[bytes], target: Entry, indent: str, marks: str, caveat: str, tight: bool = False
) -> list[Insertion]:
    """In a lead paragraph's entry (a list item, a bold-lead paragraph): after the metadata lines
    that follow the lead, else after the lead paragraph; the caveat a paragraph of the entry's
    own, at its content column, with a blank line before it. In a tight list the mark and the
    caveat take no blank line (one would make the list loose): the mark continues the paragraph
    above it and the quote interrupts it, after the whole paragraph when the metadata lines are
    followed by more of its text (that text would otherwise continue the quote)."""
    start, end = target.start_line - 1, target.end_line
    metadata = _metadata_lines(target)
    # the entry's own item only: a sibling bullet it holds as a field (``- Root cause: …``
    # after ``- **Title.** …``) is an item of its own, and a mark there would not be the target's
    column = len(bare_line(lines[start])) - len(bare_line(lines[start]).lstrip(" "))
    run = start + 1
    while run < end and run in metadata and not _sibling_item(bare_line(lines[run]), column):
        run += 1
    if run > start + 1:
        prefix = _field_prefix(bare_line(lines[run - 1]), indent)
        # lazy lines (indented less than the content) belong to the paragraph they follow:
        # a blank line before them would push them out of the entry
        while run < end and _is_lazy(bare_line(lines[run]), indent):
            run += 1
        if tight and run < end and not _ends_quote(bare_line(lines[run]), indent):
            run = _paragraph_end(lines, run, end)
            prefix = _field_prefix(bare_line(lines[run - 1]), indent) if run - 1 in metadata else indent
        if tight and (run >= end or _ends_quote(bare_line(lines[run]), indent)):
            return [Insertion(run, (prefix + marks, indent + caveat))]
        if tight and (closing := _closing_in_tight_item(lines, start, end, indent, marks, caveat)):
            return [closing]
        return [_marks_then_caveat(lines, run, end, prefix, indent, marks, caveat)]
    at = _paragraph_end(lines, start + 1, end)
    if tight and (at >= end or _ends_quote(bare_line(lines[at]), indent)):
        return [Insertion(at, (indent + marks, indent + caveat))]
    if tight and (closing := _closing_in_tight_item(lines, start, end, indent, marks, caveat)):
        return [closing]
    if not tight and at - start > 1 and _LABEL_LINE.match(bare_line(lines[at - 1])[len(indent) :]):
        # a paragraph of bold-label lines (``**Fix:** pin it``): a mark line after them would read
        # as more of the last label's text, so it is a paragraph of the entry's own
        tail = ("",) if at < end and bare_line(lines[at]).strip() else ()
        return [Insertion(at, ("", indent + marks, "", indent + caveat, *tail))]
    return [_marks_then_caveat(lines, at, end, indent, indent, marks, caveat)]


_LABEL_LINE = re.compile(r"^(\*\*|__)[^*_]{1,60}?[:：]?\1[ \t]*[:：]?[ \t]*\S")


def _closing_in_tight_item(
    lines: Sequence[bytes], start: int, end: int, indent: str, marks: str, caveat: str
) -> Insertion | None:
    """The mark and the caveat closing a tight item whose lead is followed by a quote (a
    callout), which the caveat's quote would run into: after the item's last line, the mark a
    field bullet of its own (a bullet ends the quote before it without a blank line) and the
    caveat after it. ``None`` when the line after the item would continue the caveat."""
    close = next((n + 1 for n in range(end - 1, start, -1) if bare_line(lines[n]).strip()), None)
    if close is None or (close < len(lines) and not _ends_quote(bare_line(lines[close]), indent)):
        return None
    return Insertion(close, (f"{indent}- {marks}", indent + caveat))


def _sibling_item(text: str, column: int) -> bool:
    """A list item opening at ``column``, the target item's own: a sibling, not its content."""
    match = MARKER.match(text)
    return match is not None and len(match[1]) == column


def _paragraph_end(lines: Sequence[bytes], at: int, end: int) -> int:
    """The first line from ``at`` that is blank or opens a block of its own."""
    while at < end:
        text = bare_line(lines[at])
        if not text.strip() or OPENS_BLOCK.match(text):
            break
        at += 1
    return at


# a line that can interrupt a paragraph (so it does not continue a quote lazily), once the
# item's content column is taken off; a ``>`` line would continue the quote itself
INTERRUPTS = re.compile(r"^ {0,3}(?:[-*+][ \t]+\S|1[.)][ \t]+\S|```|~~~|#{1,6}(?:[ \t]|$))")


def _ends_quote(text: str, indent: str) -> bool:
    """``text``, right after the caveat's line, ends the quote rather than continuing it."""
    if not text.strip():
        return True
    inner = text[len(indent) :] if text.startswith(indent) else text.lstrip(" ")
    if len(text) - len(text.lstrip(" ")) < len(indent):
        # less indented than the item's content: a line of the list (another item) or after it;
        # a quote there starts a block of its own outside the item
        stripped = text.lstrip(" ")
        return bool(INTERRUPTS.match(stripped) or MARKER.match(text) or stripped.startswith(">"))
    return bool(INTERRUPTS.match(inner))


def _is_lazy(text: str, indent: str) -> bool:
    stripped = text.lstrip(" ")
    return bool(stripped) and len(text) - len(stripped) < len(indent) and not OPENS_BLOCK.match(text)


MARKER = re.compile(r"^(\s{0,3})([-*+]|\d{1,9}[.)])(\s{1,4})")


def content_column(first_line: str) -> int:
    match = MARKER.match(first_line)
    return len(match[0]) if match else 2
