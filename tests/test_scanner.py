"""The line scanner plus its markdown-it fallback give the block map markdown-it alone gives.

A record is parsed by ``scanner.scan_lines``: lines whose meaning their first characters
settle are scanned, and any top-level block the scanner cannot be sure of is read by
markdown-it alone. Whatever the Markdown — generated from pieces that mean different
things in different places (markers, fences, quotes, HTML, tabs, setext underlines,
lazy lines), every real lessons file of the corpus, every fixture — the block map and
every entry must be those of markdown-it over the whole text.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gotchas import blocks, record, scanner
from support import whole_parse

TESTS = Path(__file__).resolve().parent
SHARED = TESTS.parents[1] / "shared"

INDENTS = ["", "", "", " ", "  ", "   ", "    ", "      ", "\t", " \t", "\u00a0"]
PREFIXES = ["", "", "", "- ", "* ", "+ ", "1. ", "2) ", "10. ", "> ", ">", "-", "1.", "-     ", "-\t", "> > "]
# Lines that open or close an HTML block of each start condition, and near misses.
HTML = [
    "<!-- note -->",
    "<!--",
    "<!-->",
    "<!--->",
    "text -->",
    "<?php",
    "?>",
    "<?x ?>",
    "<!DOCTYPE html>",
    "<!DOCTYPE",
    "<!1>",
    ">",
    "<![CDATA[",
    "]]>",
    "<![CDATA[ x ]]>",
    "<script>",
    "</script>",
    "<PRE class=x>",
    "</pre>",
    "<Style",
    "</STYLE>",
    "<textarea>x</textarea>",
    "<scripts>",
    "<pre\u00a0x",
    "<div>",
    "</DIV>",
    "<div/>",
    "<div/x",
    "<details open>",
    "<H1>",
    "<hr/>",
    "<divx>",
    "<p",
    "<col",
    "<br>",
    "<span>inline</span> start",
    "<a href='x'>",
    "<custom-tag>",
]
BODIES = [
    "",
    "plain words",
    "more plain words | with a pipe",
    "tasks: #7 · root-cause: confirmed",
    "```",
    "```python",
    "``` not `a fence",
    "~~~",
    "~~~~",
    "# A heading",
    "### A lesson (#12)",
    "####### seven",
    "#not a heading",
    "## closed ##",
    "===",
    "---",
    "- - -",
    "***",
    "___",
    "<div>",
    "</div>",
    "<!-- note",
    "-->",
    "<span>inline</span> start",
    "[ref]: https://example.com",
    "[a link](https://example.com) in text",
    "| a | b |",
    "|---|---|",
    "    code",
    "\tTabbed",
    "- nested",
    "1. one",
    "2. two",
    "2. ",
    "1)",
    "+",
    "* * *",
    "-  -  x",
    "> ```",
    ">     code",
    "```\t",
    "~~~ ~",
    "<!-- x -->",
    "# x \\#",
    "#\t#",
    " \t ",
    "\x0c",
    "\u00a0x",
    "#\u00a0x",
    "-\u00a0x",
    *HTML,
]


@st.composite
def lines(draw: st.DrawFn, bodies: Sequence[str] = BODIES) -> str:
    """A line at any indent, behind any list or quote prefix, with one of ``bodies``."""
    return draw(st.sampled_from(INDENTS)) + draw(st.sampled_from(PREFIXES)) + draw(st.sampled_from(bodies))


WHOLE_LINES = [
    "# Gotchas",
    "## Section",
    "### Lesson",
    "",
    "",
    "Some prose.",
    "- item",
    "  continued",
    "- **Bold** item",
    "  - nested",
    "> quoted",
    "```",
    "~~~",
    "---",
]
doc = st.lists(st.one_of(lines(), st.sampled_from(WHOLE_LINES)), max_size=40)


AROUND_HTML = [
    "",
    "",
    "Some prose.",
    "lazy text",
    "- item",
    "  continued",
    "1. one",
    "> quoted",
    "### Lesson",
]
html_doc = st.lists(st.one_of(lines(HTML), st.sampled_from(HTML), st.sampled_from(AROUND_HTML)), max_size=30)


def _views(data: bytes) -> tuple[list[str], list[str]]:
    bare = record.lines.bare_lines(record.decode(data))
    matter = record.lines.front_matter(bare)
    return (bare if matter is None else record.lines.blank(bare, matter)), bare


@contextmanager
def _markdown_it_alone() -> Iterator[None]:
    with mock.patch.object(scanner, "scan_lines", whole_parse._whole):
        yield


def _agree(data: bytes) -> None:
    view, bare = _views(data)
    reference = whole_parse._whole(view, bare)
    assert scanner.scan_lines(view, bare) == reference
    scanned = record.parse(data)
    with _markdown_it_alone():
        alone = record.parse(data)
    assert scanned.block_map == alone.block_map
    assert scanned.reading == alone.reading
    assert scanned.entries == alone.entries


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc, st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_generated_markdown_scans_as_markdown_it_reads_it(
    found: list[str], eol: str, final: bool, matter: bool
) -> None:
    head = ["---", "title: x", "---"] if matter else []
    text = eol.join(head + found) + (eol if final and found else "")
    _agree(text.encode("utf-8"))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html_doc, st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_generated_html_blocks_scan_as_markdown_it_reads_them(
    found: list[str], eol: str, final: bool
) -> None:
    """HTML blocks opening and closing on one line or many, unclosed, indented, after prose, in items."""
    text = eol.join(found) + (eol if final and found else "")
    _agree(text.encode("utf-8"))


EVERYDAY = [
    ["## Section"],
    ["### A lesson (#12)"],
    ["Title", "====="],
    ["Some prose.", "More prose on the next line."],
    ["tasks: #7 · root-cause: confirmed", "diagnostic: the log says so"],
    ["- item", "  continued", "- **Bold** item", "  - nested", "    - deeper"],
    ["1. first", "2. second", "   more of it"],
    ["> quoted", "> more"],
    ["```python", "code", "", "more code", "```"],
    ["~~~", "- not an item", "~~~"],
    ["| a | b |", "|---|---|", "| 1 | 2 |"],
    ["---"],
    ["<!-- a template comment -->"],
    ["<!--", "a hidden note", "", "- not an item", "-->"],
    ["<?x a processing instruction ?>"],
    ["<!DOCTYPE html>"],
    ["<![CDATA[", "# not a heading", "]]>"],
    ["<script>", "", "x = 1", "</script>"],
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EVERYDAY), max_size=30))
def test_everyday_lessons_files_need_no_fallback(found: list[list[str]]) -> None:
    """What lessons files are mostly made of, blocks apart, is scanned without markdown-it."""
    body = [line for block in found for line in [*block, ""]]
    data = ("\n".join(["# Gotchas", "", *body]) + "\n").encode()
    view, bare = _views(data)
    with mock.patch.object(scanner._Scan, "fallback", side_effect=AssertionError("fell back")):
        scanned = scanner.scan_lines(view, bare)
    assert scanned == whole_parse._whole(view, bare)


@pytest.mark.parametrize(
    "text",
    [
        "- a\n<div>\n",  # HTML may interrupt: markdown-it decides
        "para\n<div>\nx\n",
        "- a\nlazy line\n",
        "> quote\nlazy line\n",
        "[ref]: /url\n\ntext\n",
        "    indented code\n",
        "-\n  foo\n",
        "- a\n\n        code\n",
        "- ```\n  code\n  ```\n",
        "> a\n>\n\n\nx\n",  # a quote ending empty reaches past the blank lines
    ],
)
def test_an_ambiguous_block_goes_to_markdown_it(text: str) -> None:
    data = text.encode()
    view, bare = _views(data)
    called = []
    real = scanner._Scan.fallback

    def spy(self: scanner._Scan, start: int) -> int:
        called.append(start)
        return real(self, start)

    with mock.patch.object(scanner._Scan, "fallback", spy):
        scanned = scanner.scan_lines(view, bare)
    assert called
    assert scanned == whole_parse._whole(view, bare)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("<!-- one line -->\n# Title\n", ["html", "heading"]),
        ("  <!--\n\n# hidden\n\n-->\n", ["html"]),
        ("<!-- never closed\n\n# hidden\n", ["html"]),
        ("prose\n<!-- interrupts -->\nprose\n", ["paragraph", "html", "paragraph"]),
        ("- item\n<!-- ends the list -->\n", ["item", "html"]),
        ("<!-->\ntext\n", ["html", "paragraph"]),
        ("<?x\n?> after\ntext\n", ["html", "paragraph"]),
        ("<!DOCTYPE html\n>\n", ["html"]),
        ("<![CDATA[ x ]]>\n", ["html"]),
        ("<TextArea>\n\n</textarea>\n", ["html"]),
    ],
)
def test_html_blocks_of_start_conditions_1_to_5_need_no_fallback(text: str, kinds: list[str]) -> None:
    _scanned_alone(text, kinds)


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("prose\n<br> is inline here\n<span>so is this</span>\n", ["paragraph"]),
        ("prose\n<custom-tag>\n", ["paragraph"]),
        ("> quote\n<!-- ends it -->\n", ["quote", "html"]),
    ],
)
def test_lines_starting_with_a_tag_are_decided_without_fallback(text: str, kinds: list[str]) -> None:
    _scanned_alone(text, kinds)


def _scanned_alone(text: str, kinds: list[str]) -> None:
    """The scanner reads ``text`` into blocks of ``kinds`` without handing any to markdown-it,
    and its map is markdown-it's own."""
    data = text.encode()
    view, bare = _views(data)
    with mock.patch.object(scanner._Scan, "fallback", side_effect=AssertionError("fell back")):
        scanned = scanner.scan_lines(view, bare)
    assert scanned == whole_parse._whole(view, bare)
    assert [b.kind for b in scanned.blocks] == kinds


def test_a_fallback_reads_one_block_and_scanning_resumes_after_it() -> None:
    body = ["# Gotchas", "", "<div>", "html", "</div>", ""] + [
        f"### Lesson {n}\n\nprose {n}\n" for n in range(200)
    ]
    data = "\n".join(body).encode()
    view, bare = _views(data)
    read: list[int] = []
    real = scanner._Scan.fallback

    def spy(self: scanner._Scan, start: int) -> int:
        after = real(self, start)
        read.append(after - start)
        return after

    with mock.patch.object(scanner._Scan, "fallback", spy):
        scanned = scanner.scan_lines(view, bare)
    assert read == [4]  # the HTML block and the blank line after it
    assert scanned == whole_parse._whole(view, bare)
    assert [b.kind for b in scanned.blocks[:3]] == ["heading", "html", "heading"]


def _files() -> list[Path]:
    corpus = SHARED / "corpus" / "real"
    found = sorted(p for p in corpus.iterdir() if p.is_file()) if corpus.is_dir() else []
    fixtures = sorted(p for p in (TESTS / "fixtures").rglob("*") if p.is_file())
    return found + fixtures


@pytest.mark.parametrize("path", _files(), ids=lambda p: f"{p.parent.name}/{p.name}"[:60])
def test_real_files_and_fixtures_scan_as_markdown_it_reads_them(path: Path) -> None:
    data = path.read_bytes()
    try:
        record.decode(data)
    except Exception:  # not a record at all (binary, bad UTF-8): the record refuses it first
        pytest.skip("not readable as a record")
    _agree(data)


def test_the_record_is_parsed_by_the_scanner_unless_told_otherwise() -> None:
    data = b"# Gotchas\n\n### One\n\ntasks: #1\n"
    with mock.patch.object(blocks, "parser", side_effect=AssertionError("markdown-it used")):
        parsed = record.parse(data)
    assert [e.title for e in parsed.entries] == ["One"]
