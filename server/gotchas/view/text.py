"""Lesson text made inert in HTML: escaped, its hidden characters shown, its Markdown sanitised.

Everything the page shows comes from the repository, so all of it is hostile data. Plain
text is escaped for element content and attributes alike. Characters a reader cannot see
but a browser obeys -- bidi overrides and isolates that make text read in another order
than it is stored, zero-width marks, C0 and C1 controls -- are shown as ``⟦U+202E⟧``
instead of acting. Lesson bodies are rendered by markdown-it-py with raw HTML off (a
``<script>`` or an HTML comment is shown as text), only ``http``, ``https`` and ``mailto``
links (a ``javascript:`` or ``data:`` link stays literal text), and images shown as links,
since the page loads nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.renderer import RendererHTML
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict

_HIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_LINK_SCHEMES = re.compile(r"^(?:https?://|mailto:)[^\s<>\"'`]*$", re.IGNORECASE)
_FRAGMENT = re.compile(r"^#[A-Za-z0-9_.~%-]*$")


def _mark(match: re.Match[str]) -> str:
    return f"⟦U+{ord(match[0]):04X}⟧"


def visible(text: str) -> str:
    """``text`` with every bidi, zero-width and control character shown as ``⟦U+XXXX⟧``."""
    return _HIDDEN.sub(_mark, text) if _HIDDEN.search(text) else text


_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}
_SPECIAL = re.compile(f"[&<>\"'{_HIDDEN.pattern[1:-1]}]")


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    return _ESCAPES.get(char) or f"⟦U+{ord(char):04X}⟧"


def esc(text: str) -> str:
    """``text`` for HTML element content or a quoted attribute: hidden characters shown,
    ``& < > " '`` escaped (one search for the common text that needs neither)."""
    return _SPECIAL.sub(_escape, text) if _SPECIAL.search(text) else text


_TICKS = re.compile(r"`([^`]+)`")


def inline(text: str) -> str:
    """A title: escaped, its backtick spans shown as code (the only Markdown a title needs)."""
    escaped = esc(text)
    return _TICKS.sub(r"<code>\1</code>", escaped) if "`" in escaped else escaped


def when(stamp: str) -> str:
    """An ISO time as people read it (``2026-12-04 14:17 UTC``); anything else as written, escaped."""
    match = _STAMP.match(stamp)
    if match is None:
        return esc(stamp)
    return f"{match[1]} {match[2]} UTC"


_STAMP = re.compile(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(?:Z|\+00:00)$")


def anchor(entry_id: str) -> str:
    """The element id of an entry's card; its ``href`` is ``#`` + the same, percent-encoded
    so nothing but URL-safe characters reaches an ``href``."""
    return "e-" + quote(entry_id, safe="")


def safe_link(url: str) -> bool:
    """Whether ``url`` (normalised by markdown-it) may be an ``href``: web and mail links,
    and fragments of this page. Everything else -- ``javascript:``, ``data:``, ``file:``,
    ``vbscript:``, relative paths that would point at a file beside the page -- stays text."""
    return bool(_LINK_SCHEMES.match(url) or _FRAGMENT.match(url))


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """An image as a link to it, labelled: the page loads nothing, not even a picture."""
    token = tokens[idx]
    src = html.escape(str(token.attrGet("src") or ""), quote=True)
    label = html.escape(token.content, quote=True) or "image"
    return f'<a href="{src}" rel="nofollow noreferrer">image: {label}</a>'


def _link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", "nofollow noreferrer")
    return renderer.renderToken(tokens, idx, options, env)


def _fence(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """A code block; its info string is shown as a label, never made a class or an attribute."""
    token = tokens[idx]
    words = token.info.split(maxsplit=1)
    label = f'<span class="lang">{html.escape(words[0], quote=True)}</span>' if words else ""
    return f"<pre>{label}<code>{html.escape(token.content, quote=True)}</code></pre>\n"


def parser() -> MarkdownIt:
    """CommonMark with tables and strikethrough, raw HTML off, links checked, images as links."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.disable(["html_block", "html_inline"])  # off anyway with html=False: never even tried
    md.validateLink = safe_link  # type: ignore[method-assign]  # markdown-it's documented hook
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("fence", _fence)
    return md


def render_all(md: MarkdownIt, sources: Sequence[str]) -> list[str]:
    """Each of ``sources`` as :func:`render` gives it, from one parse of them all.

    Ten thousand parses cost a third more than one parse of the same text, so the bodies are
    parsed as one document (a blank line after each) and its top-level blocks handed back to
    the body they start in. A block that runs on into the next body (a list continued by the
    next body's first item, a fence never closed) sends the bodies it spans to a parse of
    their own, so each body renders as it would alone. Link reference definitions are shared,
    as they are across the record.
    """
    trimmed = [_trim(source) for source in sources]
    starts: list[int] = []
    ends: list[int] = []  # the blank line after each body
    parts: list[str] = []
    line = 0
    for text in trimmed:
        starts.append(line)
        line += text.count("\n")
        ends.append(line)
        parts += (text, "\n")
        line += 1
    env: dict[str, object] = {}
    tokens = md.parse("".join(parts), env)
    groups: list[list[Token]] = [[] for _ in sources]
    alone: set[int] = set()
    at = 0
    for token in tokens:
        if token.level == 0 and token.nesting >= 0 and token.map:
            first, end = token.map
            while at + 1 < len(starts) and starts[at + 1] <= first:
                at += 1
            last = at
            while last + 1 < len(starts) and starts[last + 1] < end:
                last += 1
            alone.update(range(at, last + 1) if last > at else ())
        if token.type == "fence" and token.map and token.map[1] > ends[at]:
            alone.add(at)  # a fence never closed took the blank line after the body as code
        groups[at].append(token)
    return [
        render(md, text) if n in alone else visible(md.renderer.render(groups[n], md.options, env))
        for n, text in enumerate(trimmed)
    ]


def _trim(source: str) -> str:
    """``source`` without blank lines before and after it, ending in one line feed, so a
    block's trailing blank lines never reach into the next body (linear on any input)."""
    lines = source.split("\n")
    first, last = 0, len(lines)
    while first < last and not lines[first].strip(" \t"):
        first += 1
    while last > first and not lines[last - 1].strip(" \t"):
        last -= 1
    return "\n".join(lines[first:last]) + "\n" if last > first else ""


def render(md: MarkdownIt, source: str) -> str:
    """``source`` as sanitised HTML. Hidden characters are shown after rendering, so one that
    an entity (``&#x202E;``) or an escape produced is caught as well as one written as is."""
    return visible(md.render(source))
