"""The line scanner: the block map of everyday Markdown in one pass over its lines.

Entry detection needs only top-level blocks (``blockmap.BlockMap``). Most lessons files
are headings, paragraphs, plain lists, fences, quotes and rules, whose extent a line's
first characters decide; for those the scanner is exact and makes no tokens. So is it for
HTML blocks that their first and last lines delimit (comments, ``<?``, ``<!X``, CDATA,
``<script>``/``<pre>``/``<style>``/``<textarea>``). Wherever a line could mean more than
one thing to a CommonMark parser (lazy continuation, HTML blocks a blank line ends, link
reference definitions, indented code, tabs in indentation, code or HTML nested in a
container, empty list items), the scanner hands that one top-level block to markdown-it,
starting on a line where a top-level block is known to start, and goes on
scanning after it. The block map is the one markdown-it alone gives (``tests/test_scanner.py``
checks it on generated Markdown and real files).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gotchas import tokens
from gotchas.blockmap import Block, BlockMap, LineSet, moved

_MARKER = re.compile(r"[-+*]|([0-9]{1,9})([.)])")
_RULE = re.compile(r"([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_BLANK = " \t"
# The first characters of the lines that can end a paragraph (``_interrupts``): a line that
# starts otherwise continues it, decided without a call.
_INTERRUPTING = frozenset("`~>-*_+0123456789#<")
# The first characters ``_classify`` reads further; a line starting otherwise opens a paragraph.
_OPENING = frozenset("`~>-*_+0123456789#<[\t")

# What a line at a top-level block start begins: classified from its first characters.
_TEXT, _UNSURE, _FENCE, _QUOTE, _RULE_LINE, _HEADING, _ITEM, _HTML = range(8)

# The HTML blocks whose extent their first and last lines settle (CommonMark's start conditions
# 1 to 5): each runs from its start line to the first line holding its end string, the start
# line included, or to the end of the document. markdown-it matches tag names ASCII-only.
_RAW_TAGS = ("script", "pre", "style", "textarea")
_RAW_ENDS = tuple(f"</{tag}>" for tag in _RAW_TAGS)
_HTML_ENDS = ("", "", "-->", "?>", ">", "]]>")  # by start condition
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
# The tag names that open an HTML block a blank line ends (start condition 6), which can end a
# paragraph; any other tag (start condition 7) cannot.
_BLOCK_TAGS = frozenset(
    "address article aside base basefont blockquote body caption center col colgroup dd details"
    " dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6"
    " head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option"
    " p param search section summary table tbody td tfoot th thead title tr track ul".split()
)


# A block made from all its fields at once: the scanner makes one a line or so, and a named
# tuple's keyword-taking constructor costs twice as much (the fields in ``Block``'s order).
_new = tuple.__new__


class _Unsure(Exception):
    """The block being scanned needs a CommonMark parser: markdown-it reads it instead."""


def scan_lines(view: Sequence[str], bare: Sequence[str]) -> BlockMap:
    """The block map of the text whose lines are ``view`` (as ``blocks.scan_lines`` takes them).

    ``bare`` are the same lines before front matter was blanked out of ``view``.
    """
    return _Scan(view, bare).run()


def _is_blank(line: str) -> bool:
    return not line.strip(_BLANK)


def _fence_open(rest: str) -> tuple[str, int] | None:
    """The fence character and run length when ``rest`` (indentation removed) opens a fence."""
    char = rest[0]
    run = len(rest) - len(rest.lstrip(char))
    if run < 3 or (char == "`" and "`" in rest[run:]):
        return None
    return char, run


def _atx(rest: str) -> tuple[int, str] | None:
    """Level and title of an ATX heading line (indentation removed), as markdown-it reads it."""
    after = rest.lstrip("#")
    level = len(rest) - len(after)
    if level > 6 or (after and after[0] not in _BLANK):
        return None
    content = after.rstrip(_BLANK)
    if content.endswith("#"):  # a closing sequence, when white space comes before it
        closing = content.rstrip("#")
        if closing and closing[-1] in _BLANK:
            content = closing
    return level, " ".join(content.split())


def _item(rest: str, indent: int) -> tuple[str, int, str] | None:
    """Marker, content column and content of a list item line; ``None`` when it is no item.

    Raises ``_Unsure`` for the items whose width a line alone does not settle: empty ones,
    a tab after the marker, or content starting five or more spaces on (indented code).
    """
    found = _MARKER.match(rest)
    if found is None:
        return None
    after = rest[found.end() :]
    if not after:
        raise _Unsure
    if after[0] not in _BLANK:
        return None
    content = after.lstrip(" ")
    spaces = len(after) - len(content)
    if not content.strip(_BLANK) or content[0] == "\t" or spaces > 4:
        raise _Unsure
    return found.group(0), indent + found.end() + spaces, content


def _html_start(rest: str) -> int:
    """The start condition (1 to 5) of the HTML block ``rest`` (indentation removed) opens, else 0.

    0 also for the conditions 6 and 7, whose blocks a blank line ends: they are handed over.
    """
    if rest.startswith("<!"):
        if rest.startswith("<!--"):
            return 2
        if rest.startswith("<![CDATA["):
            return 5
        return 4 if rest[2:3] in _ASCII_LETTERS else 0
    if rest.startswith("<?"):
        return 3
    for tag in _RAW_TAGS:
        size = len(tag) + 1
        if rest[1:size].translate(_ASCII_LOWER) == tag:
            after = rest[size : size + 1]
            return 1 if not after or after == ">" or after.isspace() else 0
    return 0


def _html_ends(condition: int, text: str) -> bool:
    """Whether the line ``text`` holds the end string of an HTML block of start ``condition``."""
    if condition == 1:
        lowered = text.translate(_ASCII_LOWER)
        return any(end in lowered for end in _RAW_ENDS)
    return _HTML_ENDS[condition] in text


def _block_tag(rest: str) -> bool:
    """Whether ``rest`` (indentation removed) opens an HTML block of start condition 6."""
    at = 2 if rest.startswith("</") else 1
    end, size = at, len(rest)
    while end < size and rest[end].isascii() and rest[end].isalnum():
        end += 1
    if rest[at:end].translate(_ASCII_LOWER) not in _BLOCK_TAGS:
        return False
    after = rest[end : end + 2]
    return not after or after[0] == ">" or after[0].isspace() or after == "/>"


def _interrupts(rest: str) -> bool:
    """Whether a line (indentation under four spaces removed) ends the paragraph before it.

    A line starting with ``<`` ends it when it opens an HTML block of start condition 1 to 6;
    condition 7 (any other tag alone on a line) cannot interrupt a paragraph.
    """
    char = rest[0]
    if char in "`~":
        return _fence_open(rest) is not None
    if char == ">":
        return True
    if char in "-*_" and _RULE.match(rest):
        return True
    if char in "-+*0123456789":
        found = _MARKER.match(rest)
        if found is not None:
            after = rest[found.end() :]
            number = found.group(1)
            if after and after[0] in _BLANK and after.strip(_BLANK) and (number is None or int(number) == 1):
                return True
    if char == "#":
        return _atx(rest) is not None
    if char == "<":
        return _html_start(rest) > 0 or _block_tag(rest)
    return False


def _risky(rest: str) -> bool:
    """Whether a line inside a list item or quote may hold code, HTML, a tab or an empty item.

    ``rest`` starts at the line's first non-space character; quote and list markers
    are read off its start one by one (by position: a line of a million markers stays
    linear), then what follows them is checked.
    """
    at, size = 0, len(rest)
    while at < size:
        char = rest[at]
        if char == "\t":
            return True
        if char == ">":
            after = at + 1
        else:
            found = _MARKER.match(rest, at) if char in "-+*0123456789" else None
            if found is None:
                return rest.startswith(("```", "~~~", "<"), at)
            after = found.end()
            if after < size and rest[after] not in _BLANK:
                return False
        content = after
        while content < size and rest[content] == " ":
            content += 1
        if content - after > 4 or (char != ">" and (content == size or rest[content] == "\t")):
            return True
        at = content
    return False


def _classify(rest: str, indent: int) -> int:
    """What a non-blank line at a top-level block start opens (``rest``: indentation removed)."""
    char = rest[0]
    if indent >= 4 or char == "\t":
        return _UNSURE
    if char in "`~" and _fence_open(rest) is not None:
        return _FENCE
    if char == ">":
        return _QUOTE
    if char in "-*_" and _RULE.match(rest):
        return _RULE_LINE
    if char == "#" and _atx(rest) is not None:
        return _HEADING
    if char in "-+*0123456789" and _MARKER.match(rest):
        return _ITEM
    if char == "<" and _html_start(rest):
        return _HTML
    if char in "<[":
        return _UNSURE
    return _TEXT


class _Scan:
    """One pass over the lines: blocks in order, literal lines marked, lists numbered."""

    def __init__(self, view: Sequence[str], bare: Sequence[str]) -> None:
        self.view = view
        self.bare = bare
        self.total = len(view)
        self.blocks: list[Block] = []
        self.literal = bytearray(len(view))
        self.lists = 0

    def run(self) -> BlockMap:
        view, total = self.view, self.total
        line = 0
        while line < total:
            text = view[line]
            if not text or not text.strip(_BLANK):  # most blank lines are empty: no call
                line += 1
                continue
            try:
                line = self.block(line, text)
            except _Unsure:  # raised before the block kept anything: nothing to take back
                line = self.fallback(line)
        return BlockMap(tuple(self.blocks), LineSet.of(self.literal))

    def block(self, start: int, text: str) -> int:
        """Scan the top-level block starting on line ``start``; the line after it."""
        rest = text.lstrip(" ")
        indent = len(text) - len(rest)
        if rest[0] not in _OPENING and indent < 4:
            return self.paragraph(start)  # prose: what ``_classify`` would find, without the call
        if rest[0] == "#" and indent < 4:  # a heading, read once (``_classify`` would read it too)
            heading = _atx(rest)
            if heading is not None:
                self.blocks.append(_new(Block, ("heading", start, start + 1, heading[0], "", heading[1], -1)))
                return start + 1
        kind = _classify(rest, indent)
        if kind == _TEXT:
            return self.paragraph(start)
        if kind == _ITEM:
            item = _item(rest, indent)
            return self.paragraph(start) if item is None else self.list(start, *item)
        if kind == _HEADING:
            level, title = _atx(rest) or (0, "")
            self.blocks.append(Block("heading", start, start + 1, level=level, title=title))
            return start + 1
        if kind == _RULE_LINE:
            self.blocks.append(_new(Block, ("hr", start, start + 1, 0, "", "", -1)))
            return start + 1
        if kind == _FENCE:
            return self.fence(start, rest)
        if kind == _QUOTE:
            return self.quote(start)
        if kind == _HTML:
            return self.html(start, _html_start(rest))
        raise _Unsure

    def paragraph(self, start: int) -> int:
        """A paragraph, a table (a paragraph with a delimiter row), or a setext heading."""
        view, total = self.view, self.total
        line = start + 1
        while line < total:
            text = view[line]
            if not text:
                break  # the usual end: an empty line, told without a call
            rest = text.lstrip(" ")
            if not rest.strip(_BLANK):
                break
            if len(text) - len(rest) >= 4 or rest[0] == "\t":
                line += 1  # a lazy line: indented code cannot interrupt a paragraph
                continue
            char = rest[0]
            if char in "=-" and not rest.lstrip(char).strip(_BLANK):
                title = " ".join(" ".join(view[start:line]).split())
                level = 1 if char == "=" else 2
                self.blocks.append(Block("heading", start, line + 1, level=level, title=title))
                return line + 1
            if char in _INTERRUPTING and _interrupts(rest):
                break
            line += 1
        bare = self.bare
        table = line - start >= 2 and "|" in bare[start] and _TABLE_DELIMITER.match(bare[start + 1])
        self.blocks.append(_new(Block, ("table" if table else "paragraph", start, line, 0, "", "", -1)))
        return line

    def fence(self, start: int, rest: str) -> int:
        char, run = _fence_open(rest) or ("`", 3)
        closer = char * run
        view, total = self.view, self.total
        line = start + 1
        while line < total:
            text = view[line]
            line += 1
            if closer in text:
                body = text.lstrip(" ")
                if (
                    len(text) - len(body) < 4
                    and body.startswith(closer)
                    and not body.lstrip(char).strip(_BLANK)
                ):
                    break
        self.blocks.append(_new(Block, ("fence", start, line, 0, "", "", -1)))
        self.literal[start:line] = b"\x01" * (line - start)
        return line

    def html(self, start: int, condition: int) -> int:
        """An HTML block of start condition 1 to 5: blank lines do not end it, its end string does."""
        view, total = self.view, self.total
        line = start
        while line < total and not _html_ends(condition, view[line]):
            line += 1
        end = min(line + 1, total)
        self.blocks.append(_new(Block, ("html", start, end, 0, "", "", -1)))
        self.literal[start:end] = b"\x01" * (end - start)
        return end

    def quote(self, start: int) -> int:
        """A quote whose every line starts with ``>`` and which a blank line ends."""
        view, total = self.view, self.total
        line = start
        while line < total:
            text = view[line]
            rest = text.lstrip(" ")
            if not rest.strip(_BLANK):
                break
            if rest[0] == "<" and len(text) - len(rest) < 4 and (_html_start(rest) or _block_tag(rest)):
                break  # an HTML block of start condition 1 to 6 ends a quote
            if len(text) - len(rest) >= 4 or rest[0] != ">" or _risky(rest):
                raise _Unsure
            line += 1
        if not view[line - 1].strip(" >\t"):
            raise _Unsure  # a quote ending on empty lines reaches on past the blank ones after it
        self.blocks.append(_new(Block, ("quote", start, line, 0, "", "", -1)))
        return line

    def list(self, start: int, marker: str, width: int, content: str) -> int:
        """A list: its items, each to the line where the next block starts.

        The items are kept only once the whole list is read, so a list handed to markdown-it
        halfway leaves nothing behind.
        """
        view, total = self.view, self.total
        kind = marker[-1]  # "-", "+", "*" or an ordered list's "." or ")"
        list_id = self.lists + 1
        items: list[Block] = []
        line = start
        while True:
            if _risky(content):
                raise _Unsure
            first = line
            last = line  # the item's last non-blank line
            line += 1
            while line < total:
                text = view[line]
                rest = text.lstrip(" ")
                if not rest.strip(_BLANK):
                    line += 1
                    continue
                if rest[0] == "\t":
                    raise _Unsure
                indent = len(text) - len(rest)
                if indent < width:
                    break
                if indent >= width + 4 or _risky(rest):
                    raise _Unsure
                last = line
                line += 1
            items.append(_new(Block, ("item", first, line, 0, marker, "", list_id)))
            if line >= total:
                break
            text = view[line]
            rest = text.lstrip(" ")
            if last < line - 1 and rest[0] not in "-+*0123456789":
                break  # past a blank line only a next item goes on the list: no need to classify
            indent = len(text) - len(rest)
            after = _classify(rest, indent)
            if after == _ITEM:
                found = _item(rest, indent)
                if found is None:
                    after = _TEXT
                elif found[0][-1] == kind:
                    marker, width, content = found
                    continue
                else:
                    break  # another kind of marker: a new list starts here
            if after in (_TEXT, _UNSURE) and last == line - 1:
                raise _Unsure  # perhaps a lazy continuation line
            break
        self.blocks.extend(items)
        self.lists = list_id
        return line

    def fallback(self, start: int) -> int:
        """markdown-it reads the top-level block starting on line ``start``; the line after it."""
        view, total = self.view, self.total
        size = 16
        while True:
            stop = min(total, start + size)
            found = tokens.parser().parse("\n".join(view[start:stop]) + "\n")
            if stop == total:
                rejoin = stop - start
            else:
                rejoin = min(
                    (t.map[0] for t in found if t.level == 0 and t.nesting >= 0 and t.map and t.map[0] > 0),
                    default=0,
                )
                if rejoin == 0:  # the block may go on past the window: read a larger one
                    size *= 4
                    continue
            window = tokens.from_tokens(found, self.bare[start:stop])
            del found
            used = 0
            for block in window.blocks:
                if block.start >= rejoin:
                    break
                lists = self.lists if block.list_id >= 0 else 0
                self.blocks.append(moved(block, start, lists))
                used = max(used, block.list_id)
            part = window.literal.marks[:rejoin]
            self.literal[start : start + len(part)] = part
            self.lists += used
            return start + rejoin
