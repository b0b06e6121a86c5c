"""Lessons that are table rows, their fields on continuation rows (``| ↳ | … |``)."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gotchas import blocks, reading, table
from gotchas.edit.form import Form
from gotchas.edit.lesson import Lesson
from gotchas.edit.lines import bare_line, bare_line_at
from gotchas.edit.splice import Insertion
from gotchas.edit.successor import body_lines, field_line, tail_fields, wants_id
from gotchas.edit.titles import Label, carries_title, next_label, taken_numbers
from gotchas.errors import InvalidArgument
from gotchas.record import Entry, Record

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


class RowForm(Form):
    """A table row: the successor is a row of the same table right after the target's rows, with
    the table's column count and the target's cell padding, numbered in the id column when the
    table has one; fields, the mark and the caveat are continuation rows (``| ↳ | … |``) right
    after the row they belong to, their text in the table's widest text column."""

    kind = "row"
    blocks = False  # a blank line would end the table

    def successor(
        self,
        record: Record,
        lines: Sequence[bytes],
        like: Entry,
        new: Lesson,
        new_id: str,
        links: str | None,
    ) -> tuple[list[str], str]:
        shape = _TableShape.of(lines, like)
        values = [""] * shape.columns
        if shape.id_column:
            values[0] = _next_id_cell(record, shape, like)
        body = _cell_text(new.body)
        shown = ""
        for bold in (False, True):
            title = f"**{new.title}**" if bold or shape.bold_title else new.title
            if shape.text == shape.title:
                title = f"**{new.title}** — {body}"
            values[shape.title] = table.escape(title)
            if shape.text != shape.title:
                values[shape.text] = body
            row = shape.render(values)
            shown = reading.row_title(row, shape.id_column)
            if carries_title(shown, new.title) and not table.is_continuation(row):
                break
        else:
            raise InvalidArgument(
                f"title {new.title!r} does not read back whole as a row's title in this table; "
                "nothing was proposed"
            )
        fields = [field_line(new, new_id, links, wants_id(shown, new, new_id))]
        if new.diagnostic:
            fields.append(f"diagnostic: {new.diagnostic}")
        fields += tail_fields(new)
        rows = [row, *(shape.continuation(table.escape(f)) for f in fields)]
        return shape.checked(rows), shown

    def annotate(
        self, record: Record, lines: Sequence[bytes], target: Entry, marks: str, caveat: str
    ) -> list[Insertion]:
        shape = _TableShape.of(lines, target)
        rows = [shape.continuation(marks), shape.continuation(table.escape(caveat.removeprefix("> ")))]
        return [Insertion(target.end_line, tuple(shape.checked(rows)))]

    def place(
        self, record: Record, lines: Sequence[bytes], anchor: Entry, entry_lines: Sequence[str]
    ) -> Insertion:
        return Insertion(anchor.end_line, tuple(entry_lines))


@dataclass(frozen=True)
class _TableShape:
    """What a new row of a table copies: the column count, which columns hold the id, the title
    and the text, and the target row's indentation, outer pipes and cell padding."""

    header: str
    delimiter: str
    columns: int
    id_column: bool
    title: int
    text: int
    indent: str
    outer: tuple[bool, bool]
    pads: tuple[tuple[int, int, int], ...]  # (leading spaces, width, trailing spaces) per cell
    bold_title: bool
    rows: tuple[str, ...]

    @classmethod
    def of(cls, lines: Sequence[bytes], row: Entry) -> _TableShape:
        at = row.start_line - 1
        # the table block holding the row, as the reading found it: its first line the header,
        # its second the delimiter (a body row may look like a delimiter too)
        source = b"".join(lines).decode("utf-8").removeprefix("\ufeff")
        found = next(
            (b for b in blocks.scan(source).blocks if b.kind == "table" and b.start + 2 <= at < b.end), None
        )
        if found is None:
            raise InvalidArgument(
                f"entry {row.id!r} is not a row of a table with a header; nothing was proposed"
            )
        delimiter = found.start + 1
        bare = [bare_line(lines[n]) for n in range(found.start, found.end)]
        rows = tuple(bare[2 : table.rows_end(bare, 2, len(bare))])
        columns = len(table.raw_cells(bare_line(lines[delimiter])))
        id_column = columns >= 2 and table.has_id_column(rows)
        title = 1 if id_column else 0
        own = [table.cells(r) for r in rows if not table.is_continuation(r)]
        widths = {c: max((len(r[c]) for r in own if c < len(r)), default=0) for c in range(columns)}
        texts = [c for c in range(columns) if c not in (0, title)]
        text = max(texts, key=lambda c: (widths[c], -c)) if texts else title
        line = bare_line(lines[at])
        stripped = line.strip()
        raw = table.raw_cells(line)
        pads = tuple(_pad(cell) for cell in raw)
        written = table.cells(line)
        bold_title = title < len(written) and bool(re.fullmatch(r"(\*\*|__).+\1", written[title]))
        return cls(
            bare_line(lines[delimiter - 1]),
            bare_line(lines[delimiter]),
            columns,
            id_column,
            title,
            text,
            line[: min(3, len(line) - len(line.lstrip(" ")))],  # four spaces would make code
            (stripped.startswith("|") or columns == 1, stripped.endswith("|") or columns == 1),
            pads,
            bold_title,
            rows,
        )

    def render(self, values: Sequence[str]) -> str:
        cells = []
        for index, value in enumerate(values):
            lead, width, trail = self.pads[index] if index < len(self.pads) else (1, 0, 1)
            if index == 0 and not self.outer[0]:
                lead = 0
            cells.append(" " * lead + value + " " * max(width - lead - len(value), min(trail, 1)))
        return f"{self.indent}{'|' if self.outer[0] else ''}{'|'.join(cells)}{'|' if self.outer[1] else ''}"

    def continuation(self, text: str) -> str:
        values = [""] * self.columns
        if self.text == 0:
            values[0] = f"{table.CONTINUATION} {text}"
        else:
            values[0] = table.CONTINUATION
            values[self.text] = text
        return self.render(values)

    def checked(self, rows: Sequence[str]) -> list[str]:
        """``rows``, once a Markdown table parser reads them as rows of this table: a cell that
        opens like a list, a quote or a fence would end the table instead."""
        snippet = "\n".join([self.header, self.delimiter, *rows])
        tokens = _table_parser().parse(snippet)
        found = [t for t in tokens if t.type == "tr_open"]
        if len(found) != len(rows) + 1 or not any(t.type == "table_open" for t in tokens):
            raise InvalidArgument(
                "the lesson cannot be written as rows of this table (a cell would end the table); "
                "nothing was proposed"
            )
        return list(rows)


def _pad(cell: str) -> tuple[int, int, int]:
    """(leading spaces, width, trailing spaces) of a cell as written; an empty cell: one each side."""
    if not cell.strip():
        return (min(1, len(cell)), len(cell), min(1, len(cell)))
    return (len(cell) - len(cell.lstrip(" ")), len(cell), len(cell) - len(cell.rstrip(" ")))


@functools.lru_cache(maxsize=1)
def _table_parser() -> MarkdownIt:
    """CommonMark with tables, loaded only when a table row is written."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _cell_text(body: str) -> str:
    """A body as one cell: its lines joined by ``<br>`` (a blank line: two), pipes escaped. A
    code block has no form inside a cell, so a body holding one is refused."""
    lines = body_lines(body)
    if any(line.lstrip().startswith(("```", "~~~")) for line in lines):
        raise InvalidArgument(
            "a table row holds its lesson in one cell, and the body has a fenced code block, which "
            "a cell cannot hold: write the code inline (`like this`) or in a few lines; nothing was proposed"
        )
    parts = [line.strip() for line in lines]
    parts = [p[:-1] if p.endswith("\\") and not p.endswith("\\\\") else p for p in parts]
    while parts and not parts[0]:
        parts.pop(0)
    while parts and not parts[-1]:
        parts.pop()
    return table.escape("<br>".join(parts))


def _next_id_cell(record: Record, shape: _TableShape, like: Entry) -> str:
    """The id the successor's row takes: the target's, + 1 when no row or title uses it, else the
    first free sub-number under it (the rule ``next_label`` keeps for titles)."""
    cells = table.cells(bare_line_at(record, like.start_line - 1))
    own = table.id_cell(cells[0]) if cells else None
    if own is None:
        return ""
    # the rows of every table of lessons: a numbering may run on from one table into the next
    rows = [*shape.rows, *(bare_line_at(record, e.start_line - 1) for e in record.entries if e.kind == "row")]
    column = {
        found.number
        for r in rows
        if not table.is_continuation(r)
        and (c := table.cells(r))
        and (found := table.id_cell(c[0])) is not None
        and found.stem == own.stem
    }
    taken = frozenset(column | taken_numbers(record, own.stem))
    following = next_label(Label(own.stem, own.number, own.widths, ""), taken)
    return dataclasses.replace(own, number=following.number).text()


ROW = RowForm()
