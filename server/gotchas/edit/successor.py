"""The successor's lines: its title line in the target's lead style, its field line, its body."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas.edit.caveat import INTERRUPTS
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import ATX, BOLD_LEAD, block_tokens
from gotchas.edit.titles import is_label_only, shared_mark, split_title, styled_title, wraps_bold
from gotchas.fields import SEPARATOR, is_plain_field_line
from gotchas.reading.text import after_mark
from gotchas.record import Entry, Record, slugify

_STAMP_LEAD = re.compile(r"^(\[\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\])\s")


_INNER_PUNCT = re.compile(r"[:：.。]$")


_AFTER_SEP = re.compile(r"^(?:\s*[—–-]\s+|\s*[:：;；]\s*|\s+)")


_SENTENCE = re.compile(r"[.!?。]\s|\s[—–]\s")


def field_line(new: Lesson, new_id: str, links: str | None, needs_id: bool) -> str:
    parts = []
    if needs_id:
        parts.append(f"id: {new_id}")
    parts.append(f"tasks: {', '.join(new.tasks)}")
    parts.append(f"root-cause: {new.root_cause}")
    if links:
        parts.append(links)
    return SEPARATOR.join(parts)


def wants_id(shown: str, new: Lesson, new_id: str) -> bool:
    """An explicit ``id:`` whenever the title as written is not the lesson's own title, so the
    id never depends on how the numbering or decoration is read."""
    return shown != new.title or new_id != slugify(new.title)


def tail_fields(new: Lesson) -> list[str]:
    out = []
    if new.ruled_out:
        out.append(f"ruled-out: {'; '.join(new.ruled_out)}")
    if new.evidence:
        out.append(f"evidence: {new.evidence}")
    return out


def body_lines(body: str) -> list[str]:
    return re.split(r"\r\n|\r|\n", body)


def setext_title(shown: str, underline: str) -> list[str]:
    """``shown`` over a line of ``underline`` (``=`` or ``-``) as long as it, three at least."""
    return [shown, underline * max(3, len(shown))]


def heading_lines(
    level: int,
    shown: str,
    new: Lesson,
    new_id: str,
    links: str | None,
    closing: str = "",
    underline: str = "",
) -> list[str]:
    """A heading entry; ``closing`` is the target's closing sequence (`` ##``), when it has one;
    ``underline`` its setext underline's character (``=`` or ``-``), when it is written so."""
    title = setext_title(shown, underline) if underline else [f"{'#' * level} {shown}{closing}"]
    head = [*title, "", field_line(new, new_id, links, wants_id(shown, new, new_id))]
    if new.diagnostic:
        head.append(f"diagnostic: {new.diagnostic}")
    tail = tail_fields(new)
    return [*head, "", *body_lines(new.body), *(["", *tail] if tail else [])]


def lead_lines(
    record: Record,
    like: Entry,
    rest: str,
    opening: str,
    indent: str,
    new: Lesson,
    new_id: str,
    links: str | None,
    tight: bool = False,
) -> tuple[list[str], str]:
    """A lead entry (list item, lead paragraph) in ``like``'s lead style: ``**Title:** text``,
    ``**Title** — text``, a bold title alone on its line, or a plain ``Title — text``. In a
    tight list the body's paragraphs are joined (see ``joined_paragraphs``)."""
    first, more, shown = lead_head(record, like, rest, opening, new)
    lines = [*first, indent + field_line(new, new_id, links, wants_id(shown, new, new_id))]
    if new.diagnostic:
        lines.append(f"{indent}diagnostic: {new.diagnostic}")
    if tight:
        more = joined_paragraphs(more)
    lines += [f"{indent}{line}" if line.strip() else "" for line in more]
    lines += [indent + line for line in tail_fields(new)]
    return lines, shown


def lead_head(
    record: Record, like: Entry, rest: str, opening: str, new: Lesson
) -> tuple[list[str], list[str], str]:
    """A lead entry's first line in ``like``'s lead style (see ``lead_lines``), the body lines
    left to follow it, and its title as it will read."""
    body = body_lines(new.body)
    unmarked = after_mark(rest)  # ``🔴 **Title.**``: the bold lead-in is the style, the mark the target's
    symbol = rest[: len(rest) - len(unmarked)]
    rest = unmarked
    bold = BOLD_LEAD.match(rest)
    numbered = styled_title(record, like, bold["inner"], "") if bold and is_label_only(bold["inner"]) else ""
    if bold and numbered:
        # ``**1.** Title``: the bold lead-in is the number alone; the successor's is the free
        # number after it (``**1.1.**``), its title after the number as the target's is
        after = bold["after"]
        gap = after[: len(after) - len(after.lstrip())] or " "
        shown = f"{numbered.rstrip()} {new.title}"
        first, more = [f"{opening}{bold['b']}{numbered}{bold['b']}{gap}{new.title}"], body
    elif bold:
        inner = bold["inner"]
        punct = _INNER_PUNCT.search(inner)
        mark = punct[0] if punct else ""
        shown = styled_title(record, like, inner[: len(inner) - len(mark)], new.title)
        after = bold["after"]
        head = f"{opening}{bold['b']}{shown}{mark}{bold['b']}"
        if after.strip():
            sep = _AFTER_SEP.match(after)
            first = [f"{head}{sep[0] if sep else ' '}{body[0]}"]
            more = body[1:]
        else:
            first, more = [head], body
    elif wraps_bold(rest):
        # a bold lead-in wrapped onto the next line (``**Reproduce the case before you``): the
        # successor's is a sentence that closes on its own line, led as the target's is (its
        # date, its id: ``**2026-09-11 · A slice-and-replace edit removes …``)
        shown = styled_title(record, like, rest[2:], new.title)
        first, more = [f"{opening}{rest[:2]}{shown.rstrip('.')}.{rest[:2]} {body[0]}"], body[1:]
    elif stamp := _STAMP_LEAD.match(rest):
        # ``[2030-01-02 10:00] Title: text``: the edit has no clock, so the successor reuses the
        # target's stamp (the date its advice was recorded); `` — `` ends the title so it reads
        # back whole even when it holds a colon
        shown = f"{stamp[1]} {new.title}"
        first, more = [f"{opening}{shown} — {body[0]}"], body[1:]
    else:
        shown = styled_title(record, like, rest, new.title)
        plain = f"{opening}{shown} — {body[0]}"
        parts = split_title(shown)
        label = parts.label if shown != new.title else None
        labelled = label is not None
        # the date a title opens with ends no sentence (``2026-05-14 — Title``), nor does the dash
        # after an id (``L-007 — Title``), which its siblings' titles end at too
        dated = parts.date if shown[:1].isdigit() else ""
        core = shown[len(dated) :]
        if label is not None and core.startswith(label.text()):
            core = core[len(label.text()) :]
        if _SENTENCE.search(core + " ") or (is_plain_field_line(plain) and not labelled):
            # a plain title must read back whole: not cut at a sentence end, not taken for a field
            shown = new.title
            plain = f"{opening}**{shown}** — {body[0]}"
        first, more = [plain], body[1:]
    # unless its siblings open with the mark too (``⛔ **…**`` on every rule): then it is their
    # form as well, kept where it reads back as a mark (before a bold sentence, as the target's)
    own = first[0][len(opening) :]
    if symbol and after_mark(symbol + own) == own and shared_mark(record, like, symbol):
        first[0] = f"{opening}{symbol}{own}"
    return first, more, shown


_HARD_BREAK_AFTER = re.compile(r"^(?! {4})(?!\s*(?:[-*+]|\d{1,9}[.)])(?:\s|$))(?!\s*(?:>|#|```|~~~|\|))\S")


def joined_paragraphs(more: Sequence[str]) -> list[str]:
    """The body's lines after the field lines with the blank lines between its paragraphs taken
    out, so they stay in one item of a tight list (a blank line there would make the list loose):
    a paragraph ends with a backslash hard break, except the one the field lines close (a field
    line keeps its own value) and one before a line that opens a block anyway. A blank line
    whose neighbours cannot be joined so (after a list line, inside a fence) is kept."""
    out: list[str] = []
    fence = ""
    pending = False  # a blank line seen since the last text line
    for line in more:
        stripped = line.strip()
        if not stripped:
            pending = pending or bool(out)
            if fence:
                out.append(line)
            continue
        if pending and not fence:
            last = out[-1]
            if INTERRUPTS.match(line) or ATX.match(last) or last.lstrip().startswith(("```", "~~~")):
                pass  # a block that ends on its line, or one that interrupts a paragraph
            elif _HARD_BREAK_AFTER.match(last) and not last.endswith("\\"):
                out[-1] = last + "\\"
            else:
                out.append("")
        pending = False
        opener = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
        if opener and not fence:
            fence = opener[1]
        elif fence and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            fence = ""
        out.append(line)
    return out


def next_ordinal(record: Record, like: Entry) -> int:
    """A numbered item's number: the target's + 1 when no item of its numbering has it, else one
    above every number of the numbering (a list marker can carry no sub-number)."""
    numbers = _list_numbers(record, like.start_line - 1)
    own = numbers.get(like.start_line - 1, 0)
    used = set(numbers.values())
    return own + 1 if own + 1 not in used else max(used) + 1


def _list_numbers(record: Record, line: int) -> dict[int, int]:
    """The numbers of the items of the numbering that holds the item on 0-based ``line``: its
    ordered list and the other ordered lists of the same container that continue it, being in
    the same section (a code block or a paragraph between items splits one numbering into
    several Markdown lists) or starting where the list before them stopped (``3.`` after ``2.``
    under the next group heading)."""
    lists: list[tuple[tuple[int, int], int, dict[int, int]]] = []  # (container, level), section
    opened: list[dict[int, int] | None] = []  # per open token: the numbers of an ordered list
    containers: list[int] = []  # token index of each open container
    section = 0
    for index, token in enumerate(block_tokens(record.data)):
        if token.type == "heading_open":
            section += 1
        if token.nesting == 1:
            numbers: dict[int, int] | None = None
            if token.type == "ordered_list_open":
                numbers = {}
                lists.append(((containers[-1] if containers else -1, token.level), section, numbers))
            opened.append(numbers)
            containers.append(index)
        elif token.nesting == -1:
            opened.pop()
            containers.pop()
        if token.type == "list_item_open" and token.map and len(opened) >= 2:
            into = opened[-2]
            if into is not None:
                into[token.map[0]] = int(token.info) if token.info.isdigit() else 0
    groups: dict[tuple[int, int], tuple[int, dict[int, int]]] = {}  # the numbering going on
    found: dict[int, int] = {}
    for where, section, numbers in lists:
        current = groups.get(where)
        ordered = sorted(numbers.values())
        if current is not None and (
            current[0] == section or (ordered and current[1] and ordered[0] == max(current[1].values()) + 1)
        ):
            current[1].update(numbers)
            groups[where] = (section, current[1])
        else:
            groups[where] = (section, dict(numbers))
        if line in numbers:
            found = groups[where][1]  # the same dict takes in the lists that continue it later
    return found
