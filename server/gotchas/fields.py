"""Field lines: the plain ``key: value`` metadata written inside an entry.

Agents read the raw file, so metadata is visible text, never hidden syntax. Accepted
shapes (one entry may mix them):

    tasks: #601, #653 · root-cause: confirmed      several fields joined by " · "
    - Root cause: confirmed                          one field per list item
    **Diagnostic:** profile one _render() call       a bold key
    | ↳ | tasks: #601 · root-cause: confirmed |       a table row's continuation row
    > tasks: #601                                    inside a quote (a callout read as a lesson)

Parsing is lenient: unknown keys are kept as they are; a line whose first segment is
not ``key: value`` is prose. Keys are compared in a normal form (``Root cause`` and
``root_cause`` are both ``root-cause``).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from gotchas import table

__all__ = [
    "ALIASES",
    "KNOWN",
    "SEPARATOR",
    "Field",
    "is_plain_field_line",
    "normalize_key",
    "parse_line",
    "parse_root_cause",
    "parse_row",
]

SEPARATOR = " · "

_PREFIX = re.compile(r"^\s{0,3}(?:>[ \t]?){0,3}[ \t]{0,3}(?:[-*+]\s+|\d{1,9}[.)]\s+)?")
_SEGMENT = re.compile(
    r"^(?P<b1>\*\*|__)?(?P<key>[^\W\d_][\w.'/ -]{0,39}?)(?P<b2>\*\*|__)?\s*"
    r"(?:(?::(?P<b3>\*\*|__)?\s+)|(?:：(?P<b4>\*\*|__)?\s*))(?P<value>\S.*)"
)
# Linear on any line: every repetition is bounded, or greedy with nothing after it to trade
# characters with (a lazy value before a trailing-space run was quadratic); callers strip.
_MAX_KEY_WORDS = 4

ALIASES = {
    "task": "tasks",
    "issue": "tasks",
    "issues": "tasks",
    "root-cause-status": "root-cause",
    "rootcause": "root-cause",
    "cause-status": "root-cause",
    "red-herring": "red-herring-for",
    "superseded": "superseded-by",
    "diagnosis": "diagnostic",
}
KNOWN = frozenset(
    (
        "id",
        "tasks",
        "root-cause",
        "supersedes",
        "superseded-by",
        "red-herring-for",
        "diagnostic",
        "status",
        "ruled-out",
        "evidence",
    )
)


@dataclass(frozen=True, slots=True)
class Field:
    """One ``key: value`` as written; ``line`` is 1-based in the record."""

    key: str
    value: str
    line: int
    raw_key: str


_KEY_GAPS = re.compile(r"[\s_]+")
# A key is at most 40 characters, so a field's colon sits within its first 48.
_COLON_WITHIN = 48


def normalize_key(raw: str) -> str:
    key = _KEY_GAPS.sub("-", raw.strip().strip("*_").strip().lower())
    return ALIASES.get(key, key)


def _has_colon_early(text: str) -> bool:
    return text.find(":", 0, _COLON_WITHIN) != -1 or text.find("：", 0, _COLON_WITHIN) != -1


def parse_line(line: str, number: int) -> list[Field]:
    """Fields of one line of text, or [] when the line is prose."""
    if ":" not in line and "：" not in line:
        return []
    body = _PREFIX.sub("", line, count=1)
    parts = body.split(SEPARATOR)
    fields: list[Field] = []
    values: list[list[str]] = []  # joined once at the end: growing a string per part is quadratic
    for index, part in enumerate(parts):
        field = _parse_segment(part, number)
        if field is None:
            if index == 0:
                return []
            # A stray " · " inside a value: keep it in the previous value.
            values[-1].append(part)
            continue
        fields.append(field)
        values.append([field.value])
    return [
        field if len(value) == 1 else Field(field.key, SEPARATOR.join(value).strip(), number, field.raw_key)
        for field, value in zip(fields, values, strict=True)
    ]


def parse_row(line: str, number: int) -> list[Field]:
    """Fields of a table's continuation row (``| ↳ | tasks: #7 · root-cause: confirmed |``): each
    cell read as a field line; a lesson's own row holds its text, never its fields."""
    if not table.is_continuation(line):
        return []
    found: list[Field] = []
    for cell in table.cells(line):
        text = table.continued(cell)
        if text:
            found.extend(parse_line(text, number))
    return found


def _parse_segment(text: str, number: int) -> Field | None:
    text = text.strip()
    if not _has_colon_early(text):
        return None
    match = _SEGMENT.match(text)
    if match is None:
        return None
    raw_key = match["key"].strip()
    if len(raw_key.split()) > _MAX_KEY_WORDS:
        return None
    value = match["value"].rstrip()
    if match["b1"] and not (match["b2"] or match["b3"] or match["b4"]):
        return None
    if (match["b3"] or match["b4"]) is None and value.startswith(("**", "__")):
        value = value[2:].lstrip()
    # keys repeat on every entry: one string each, not one per field
    return Field(sys.intern(normalize_key(raw_key)), value.strip(), number, sys.intern(raw_key))


def is_plain_field_line(line: str) -> bool:
    """A short, un-bolded ``Key: value`` line: metadata inside an entry, never an entry itself."""
    body = _PREFIX.sub("", line, count=1).strip()
    if not _has_colon_early(body):
        return False
    match = _SEGMENT.match(body)
    if match is None or match["b1"]:
        return False
    key = normalize_key(match["key"])
    return key in KNOWN or len(match["key"].split()) <= 3


_ROOT_CAUSE = re.compile(r"^\W*(confirmed|suspected)\b", re.IGNORECASE)


def parse_root_cause(value: str) -> str | None:
    match = _ROOT_CAUSE.match(value)
    return match[1].lower() if match else None
