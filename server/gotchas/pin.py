"""The reading's pin, edited in ``.claude/gotchas.toml``: the file's ``entries`` or one row of
its ``[sections]`` set or cleared.

The unsure notice names the pin that chooses the runner-up; ``gotchas pin`` writes it, so a
person who has looked at the outline changes the reading with one command. The edit is made
line by line, so every other line, comment and byte of the file stays as it was; the new
text is read back and must hold exactly the change asked, else nothing is written and the
person is asked to edit the file by hand (a pin written as an inline table or a dotted key).
Pure: text in, text out.
"""

from __future__ import annotations

import re
import tomllib

from gotchas.errors import ConfigError
from gotchas.layout import CONFIG_PATH
from gotchas.quoting import toml_string

_HEADER = re.compile(r"^\s*\[\[?\s*([^\[\]]*?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r'^\s*("(?:[^"\\]|\\.)*"|\'[^\']*\'|[A-Za-z0-9_-]+)\s*=')


def edit(text: str, unit: str | None, section: str | None = None) -> tuple[str, list[str]]:
    """``text`` with the pin set to ``unit`` (or cleared, ``None``): the file's ``entries``, or
    with ``section`` that title's row of ``[sections]``; and what changed, in words. Setting a
    unit other than ``list`` drops ``checkboxes``, which only a list pin takes."""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{CONFIG_PATH}: not valid TOML: {exc}; nothing was written") from None
    eol = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    expected = {key: (dict(value) if isinstance(value, dict) else value) for key, value in before.items()}
    said: list[str] = []
    if section is None:
        _top(lines, "entries", unit, eol, expected, said)
        if unit != "list" and "checkboxes" in before:
            _top(lines, "checkboxes", None, eol, expected, said)
    else:
        _row(lines, section, unit, eol, expected, said)
    after = "".join(lines)
    try:
        read = tomllib.loads(after)
    except tomllib.TOMLDecodeError:
        read = None
    if read != expected:
        raise ConfigError(
            f"{CONFIG_PATH} writes its pin in a form this command does not edit (an inline table "
            "or a dotted key); edit it by hand; nothing was written"
        )
    return after, said


def _region(lines: list[str], table: str | None) -> tuple[int, int] | None:
    """Where the top level (``None``) or ``[table]`` is, as lines ``[start, end)``; ``None`` when
    the file has no such table."""
    start = 0 if table is None else None
    for n, line in enumerate(lines):
        header = _HEADER.match(line)
        if header is None:
            continue
        if start is not None:
            return start, n
        if header[1] == table and not line.lstrip().startswith("[["):
            start = n + 1
    return None if start is None else (start, len(lines))


def _key_line(lines: list[str], region: tuple[int, int], key: str) -> int | None:
    for n in range(*region):
        found = _KEY.match(lines[n])
        if found and _key(found[1]) == key:
            return n
    return None


def _key(written: str) -> str | None:
    """A key as TOML reads it: bare, literal or basic (its escapes read by ``tomllib``)."""
    if written[0] == "'":
        return written[1:-1]
    if written[0] == '"':
        try:
            value = tomllib.loads(f"k = {written}")["k"]
        except tomllib.TOMLDecodeError:
            return None
        return value if isinstance(value, str) else None
    return written


def _top(
    lines: list[str], key: str, unit: str | None, eol: str, expected: dict[str, object], said: list[str]
) -> None:
    region = _region(lines, None)
    assert region is not None  # the top level is always there
    start, end = region
    while end > start and not lines[end - 1].strip():
        end -= 1  # before the blank lines that part the top level from the first table
    at = _key_line(lines, region, key)
    if at is None and unit and end < len(lines) and end == start:
        lines.insert(end, eol)  # the file opens with a table: a blank line between
    _put(lines, at, end, f"{key} = {toml_string(unit)}{eol}" if unit else None, said, "", key)
    _expect(expected, key, unit)


def _row(
    lines: list[str], title: str, unit: str | None, eol: str, expected: dict[str, object], said: list[str]
) -> None:
    region = _region(lines, "sections")
    row = f"{toml_string(title)} = {toml_string(unit)}{eol}" if unit else None
    table = expected.get("sections")
    rows = dict(table) if isinstance(table, dict) else {}
    if region is None:
        if row is not None:
            _close(lines, eol)
            if lines and lines[-1].strip():
                lines.append(eol)
            lines.extend([f"[sections]{eol}", row])
            said.append(f"[sections] {row.strip()}: added")
        else:
            said.append(f"[sections] {toml_string(title)}: not pinned; nothing to clear")
    else:
        start, end = region
        while end > start and not lines[end - 1].strip():
            end -= 1  # a new row goes after the table's last line, before its trailing blanks
        at = _key_line(lines, region, title)
        _put(lines, at, end, row, said, "[sections] ", toml_string(title))
    _expect(rows, title, unit)
    if rows or region is not None or unit:
        expected["sections"] = rows


def _put(
    lines: list[str], at: int | None, end: int, line: str | None, said: list[str], table: str, key: str
) -> None:
    """Replace, insert or remove the line of ``key`` in ``table`` (``""`` for the top level);
    say which. A replaced line keeps its indentation, its comment and its ending."""
    shown = (line or "").strip()
    name = f"{table}{shown}"
    if at is None and line is None:
        said.append(f"{table}{key}: not pinned; nothing to clear")
    elif at is None:
        assert line is not None  # the case above took a missing line
        if end == len(lines):
            _close(lines, line[len(shown) :])
        lines.insert(end, line)
        said.append(f"{name}: added")
    elif line is None:
        said.append(f"{table}{lines.pop(at).strip()}: removed")
    else:
        old = lines[at]
        body = old.rstrip("\r\n")
        kept = _KEPT.match(body)
        assert kept is not None  # any line matches: indentation, a key's assignment, a comment or not
        new = kept["indent"] + shown + (kept["comment"] or "")
        if new == body:
            said.append(f"{name}: already so")
        else:
            said.append(f"{table}{kept['assignment']} → {shown}")
            lines[at] = new + old[len(body) :]


# a key's line: its indentation, the assignment, and a comment after the value
_KEPT = re.compile(
    r"(?P<indent>\s*)(?P<assignment>[^#]*?(?:\"(?:[^\"\\]|\\.)*\"|'[^']*'|[^\s#]*))(?P<comment>\s+#.*)?$"
)


def _close(lines: list[str], eol: str) -> None:
    """End the last line, so that a line added after it starts a line of its own."""
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += eol


def _expect(table: dict[str, object], key: str, unit: str | None) -> None:
    if unit is None:
        table.pop(key, None)
    else:
        table[key] = unit
