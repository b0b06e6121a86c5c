"""Lesson text is data: the parts of a proposed lesson may not create structure in the record.

A body is written inside one new entry. A heading in it (ATX or setext, any level: the
entry level is not known until the target is, and a heading splits a heading entry's
body or ends a list), a thematic break (``---``, ``***``, ``___``: what ``hr-block``
records split entries on, and what opens front matter) or a field line the reader would
take as the new entry's own (``status:``, ``tasks:``, ``supersedes:``, ``id:`` …) would
make a section, an entry or a field that nobody asked for. One-line parts (title,
diagnostic, ruled-out items, evidence) may not smuggle a second field through the
`` · `` separator or a status marker. Code (fenced or indented) is left alone except
for a bolded status line, which the reader finds anywhere in an entry. The red-herring
note lands in the old entry's caveat line, so it is held to the one-line rule too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gotchas import blocks, status
from gotchas.errors import ForgedStructure, InvalidArgument
from gotchas.fields import KNOWN, parse_line

ENTRY_KEYS = KNOWN | status.STATUS_KEYS
"""Field keys that change what an entry says about itself."""


def refuse_structure(
    title: str,
    body: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> None:
    """Raise :class:`ForgedStructure` naming the first part and line that would add structure,
    or :class:`InvalidArgument` for a control character (a NUL would make the record binary)."""
    control = control_problem(title, body, diagnostic, ruled_out, evidence)
    if control is not None:
        raise InvalidArgument(control)
    problem = structure_problem(title, body, diagnostic, ruled_out, evidence)
    if problem is not None:
        raise ForgedStructure(problem)


_CONTROL = frozenset(chr(c) for c in (*range(0x20), 0x7F)) - {"\t", "\n", "\r"}


def refuse_note(note: str | None) -> None:
    """Raise as :func:`refuse_structure` does when the red-herring note would be more than words:
    a control character, a second field after `` · `` or a bolded status line in the caveat."""
    if not note:
        return
    control = _control_in([("red_herring_note", note)])
    if control is not None:
        raise InvalidArgument(control)
    problem = _one_field_problem("red_herring_note", note)
    if problem is not None:
        raise ForgedStructure(problem)


def control_problem(
    title: str,
    body: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> str | None:
    """The first control character (other than tab and line ends) in any part, named with where."""
    parts = [("title", title), ("body", body), ("diagnostic", diagnostic or ""), ("evidence", evidence or "")]
    parts += [("ruled_out item", item) for item in ruled_out]
    return _control_in(parts)


def _control_in(parts: Iterable[tuple[str, str]]) -> str | None:
    for name, text in parts:
        if _CONTROL.isdisjoint(text):
            continue
        at = next(i for i, char in enumerate(text) if char in _CONTROL)
        return (
            f"{name} holds the control character U+{ord(text[at]):04X} at position {at}; "
            "lesson text must be printable: remove it"
        )
    return None


def structure_problem(
    title: str,
    body: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> str | None:
    """What in the lesson's parts would create structure, or None."""
    one_line = title.strip()
    if one_line and "\n" not in one_line and "\r" not in one_line:
        found = _block_problem(one_line, "title") or _field_problem(one_line, "title", 1)
        if found:
            return found
        if status.from_title(one_line) is not None:
            return (
                f"title {one_line!r} carries a status marker the reader would take as the new "
                "lesson's status; write the title without it"
            )
    found = _block_problem(body, "body") or _body_fields(body)
    if found:
        return found
    for key, value in _one_line_parts(diagnostic, ruled_out, evidence):
        found = _one_field_problem(key, value)
        if found:
            return found
    return None


def _block_problem(text: str, part: str) -> str | None:
    """A heading or thematic break anywhere outside code, found by the same parser the reader uses."""
    for token in blocks.parser().parse(text):
        line = token.map[0] + 1 if token.map else 1
        if token.type == "heading_open":
            kind = "a setext heading underline" if token.markup in ("=", "-") else f"a {token.markup} heading"
            return (
                f"{part} line {line} is {kind}: it would start a section or entry of its own in the "
                "record; write it as a bold line or plain text"
            )
        if token.type == "hr":
            return (
                f"{part} line {line} is a thematic break ({token.markup}): it would split the record's "
                "entries or open front matter; remove it"
            )
    return None


def _literal_lines(body: str) -> frozenset[int]:
    lines: set[int] = set()
    for token in blocks.parser().parse(body):
        if token.type in ("fence", "code_block", "html_block") and token.map:
            lines.update(range(token.map[0], token.map[1]))
    return frozenset(lines)


def _body_fields(body: str) -> str | None:
    literal = _literal_lines(body)
    for index, line in enumerate(body.splitlines()):
        if status.from_bold_line(line) is not None:
            return _forged("body", index + 1, "a bolded status line")
        if index not in literal:
            found = _field_problem(line, "body", index + 1)
            if found:
                return found
    return None


def _field_problem(line: str, part: str, number: int) -> str | None:
    for field in parse_line(line, number):
        if _changes_entry(field.key, field.value):
            return _forged(part, number, f"a {field.raw_key!r} field")
    return None


def _one_line_parts(
    diagnostic: str | None, ruled_out: Sequence[str], evidence: str | None
) -> Iterable[tuple[str, str]]:
    if diagnostic:
        yield "diagnostic", diagnostic
    for item in ruled_out:
        yield "ruled-out", item
    if evidence:
        yield "evidence", evidence


def _one_field_problem(key: str, value: str) -> str | None:
    """The part as it is written (``key: value`` on its own line) must read back as that one field."""
    text = " ".join(value.split())
    if status.from_bold_line(text) is not None:
        return _forged(key, 1, "a bolded status line")
    extra = [f for f in parse_line(f"{key}: {text}", 1)[1:] if _changes_entry(f.key, f.value)]
    if extra:
        return _forged(key, 1, f"a second field {extra[0].raw_key!r} after ' · '")
    return None


def _changes_entry(key: str, value: str) -> bool:
    return key in ENTRY_KEYS or status.from_word_field(key, value) is not None


def _forged(part: str, number: int, what: str) -> str:
    where = part if part != "body" else f"body line {number}"
    return (
        f"{where} holds {what}, which the reader would take as an entry's own metadata; "
        "lesson text is data: reword it (for example, drop the colon or put it in a code span)"
    )
