"""How a supersede's result renders as CommonMark: where the caveat lands, which numbers a list uses.

The caveat must be a block of its own inside the target: a direct child of the target's
list item or of the target's callout (``> [!WARNING]``), or a top-level block within the
target's heading section, and every block of the
target before it is the target's title or holds nothing but metadata lines, or it closes
the target after all of its parts — either way it never sits between two of the lesson's
parts, and the mark line comes before it. A table row's caveat is a row of the same table
(rendered with the GFM table rule) right after the target's own row and its continuation
rows, a continuation row itself (``↳``), with the mark row before it.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from gotchas import edit
from gotchas.fields import parse_line
from gotchas.record import Entry

_MD = MarkdownIt("commonmark")
_TABLES = MarkdownIt("commonmark").enable("table")


def _metadata_only(lines: list[str], start: int, end: int) -> bool:
    for number in range(start, end):
        text = lines[number]
        if not text.strip():
            continue
        found = parse_line(text, number + 1)
        if not found or found[0].key not in edit.METADATA_KEYS:
            return False
    return True


def caveat_problems(data: bytes, target: Entry, task: str) -> list[str]:
    """What is wrong with where the caveat for ``task`` renders, [] when it is right."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    if target.kind == "row":
        return _row_caveat_problems(text, target, task)
    lines = text.splitlines()
    tokens = _MD.parse(text)
    heading = f"Red herring for {task}."
    stack: list[Token] = []
    quote: Token | None = None
    parents: list[Token] = []
    for index, token in enumerate(tokens):
        if token.type == "blockquote_open":
            inline = next((t for t in tokens[index:] if t.type == "inline"), None)
            if inline is not None and inline.content.startswith(f"**{heading}**"):
                quote, parents = token, list(stack)
                break
        if token.nesting == 1:
            stack.append(token)
        elif token.nesting == -1:
            stack.pop()
    if quote is None or quote.map is None:
        return [f"no blockquote opens with {heading!r}"]
    first, last = target.start_line - 1, target.end_line
    if not first <= quote.map[0] < last:
        return [f"the caveat (line {quote.map[0] + 1}) is outside the target (lines {first + 1}-{last})"]
    if target.kind == "item":
        items = [t for t in parents if t.type == "list_item_open"]
        if not items or items[-1].map is None or items[-1].map[0] != first:
            return ["the caveat is not inside the target's own list item"]
        if parents[-1] is not items[-1]:
            return [f"the caveat is inside a {parents[-1].type}, not directly in the target's item"]
        level = items[-1].level + 1
    elif re.match(r"^\s*>\s*\[!\w+\]\s*$", lines[first]):
        # a callout entry (``> [!WARNING]``): the caveat is a block of the callout's own
        quotes = [t for t in parents if t.type == "blockquote_open"]
        if not quotes or quotes[0].map is None or quotes[0].map[0] != first:
            return ["the caveat is not inside the target's callout"]
        if parents[-1] is not quotes[0]:
            return [f"the caveat is folded into a {parents[-1].type}"]
        level = quotes[0].level + 1
    else:
        if parents:
            return [f"the caveat is folded into a {parents[-1].type}"]
        level = 0
    siblings = [
        t
        for t in tokens
        if t.nesting == 1 and t.level == level and t.map and first <= t.map[0] < quote.map[0]
    ]
    # the title is not a part: the heading itself, or the item's first paragraph
    siblings = siblings[1:] if siblings and siblings[0].map and siblings[0].map[0] == first else siblings
    if not siblings and target.kind == "heading":
        return ["no block with the mark comes before the caveat"]
    closes = not any(
        t.nesting >= 0 and t.level == level and t.map and quote.map[1] <= t.map[0] < last for t in tokens
    )
    # closing the target, the caveat still needs the mark as a block of its own right before it
    for block in siblings[-1:] if closes else siblings:
        assert block.map is not None
        if not _metadata_only(lines, *block.map):
            where = f"lines {block.map[0] + 1}-{block.map[1]}"
            return [f"the caveat follows a part of the lesson ({block.type} at {where}), not only its fields"]
    before = "\n".join(lines[first : quote.map[0]])
    if "red-herring-for:" not in before:
        return ["the mark line is not before the caveat"]
    return []


def _row_caveat_problems(text: str, target: Entry, task: str) -> list[str]:
    """The caveat's row renders in the target's table, among the target's continuation rows."""
    tokens = _TABLES.parse(text)
    rows: list[tuple[int, list[str]]] = []  # (line, cell texts) of the target's table
    table_of_target = False
    current: list[str] | None = None
    line = -1
    for token in tokens:
        if token.type == "table_open":
            rows, table_of_target = [], False
        elif token.type == "tr_open" and token.map:
            current, line = [], token.map[0]
            table_of_target = table_of_target or line == target.start_line - 1
        elif token.type == "inline" and current is not None:
            current.append(token.content)
        elif token.type == "tr_close" and current is not None:
            rows.append((line, current))
            current = None
        elif token.type == "table_close" and table_of_target:
            break
    if not table_of_target:
        return ["the target's row does not render as a row of a table"]
    heading = f"**Red herring for {task}.**"
    found = [n for n, (_, cells) in enumerate(rows) if any(_unmarked(c).startswith(heading) for c in cells)]
    if not found:
        return [f"no row of the target's table holds {heading!r}"]
    start = next(n for n, (at, _) in enumerate(rows) if at == target.start_line - 1)
    caveat = found[0]
    if not start < caveat or rows[caveat][0] > target.end_line - 1:
        return [f"the caveat's row (line {rows[caveat][0] + 1}) is not one of the target's rows"]
    between = rows[start + 1 : caveat + 1]
    if any(not cells or not cells[0].startswith("↳") for _, cells in between):
        return ["the caveat's row is not a continuation row right after the target's row"]
    if not any("red-herring-for:" in cell for _, cells in between[:-1] for cell in cells):
        return ["the mark row is not before the caveat"]
    return []


def _unmarked(cell: str) -> str:
    return cell.removeprefix("↳").strip()


def sibling_numbers(data: bytes, line: int) -> list[int]:
    """The numbers of the other items of the ordered list whose item starts on 0-based ``line``."""
    text = data.decode("utf-8").removeprefix("\ufeff")
    stack: list[tuple[int, dict[int, int]]] = []
    for token in _MD.parse(text):
        if token.type == "ordered_list_open":
            stack.append((token.level, {}))
        elif token.type == "ordered_list_close":
            _, numbers = stack.pop()
            if line in numbers:
                return [n for start, n in numbers.items() if start != line]
        elif token.type == "list_item_open" and token.map and stack and stack[-1][0] + 1 == token.level:
            stack[-1][1][token.map[0]] = int(token.info)
    return []


def list_tightness(data: bytes) -> list[tuple[int, str, bool]]:
    """Every list of the document in order, top-level and nested: its first line (0-based), its
    kind and whether it is tight (its items' paragraphs render without ``<p>``: hidden)."""
    tokens = _MD.parse(data.decode("utf-8").removeprefix("\ufeff"))
    out: list[tuple[int, str, bool]] = []
    for index, token in enumerate(tokens):
        if token.type not in ("bullet_list_open", "ordered_list_open") or token.map is None:
            continue
        tight = True
        for inner in tokens[index + 1 :]:
            if inner.level == token.level:
                break
            if inner.type == "paragraph_open" and inner.level == token.level + 2:
                tight = inner.hidden
                break
        out.append((token.map[0], token.type.removesuffix("_list_open"), tight))
    return out


def list_is_tight(data: bytes, line: int) -> bool:
    """Whether the list holding the item that starts on 0-based ``line`` is tight."""
    tokens = _MD.parse(data.decode("utf-8").removeprefix("\ufeff"))
    opened: list[int] = []
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open") and token.map:
            opened.append(token.map[0])
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            opened.pop()
        elif token.type == "list_item_open" and token.map and token.map[0] == line:
            return dict((start, tight) for start, _, tight in list_tightness(data))[opened[-1]]
    raise AssertionError(f"no list item starts on line {line + 1}")
