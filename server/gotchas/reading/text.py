"""Evidence from one line of text: list markers, lead-in labels, word counts, titles.

Pure functions of a string, shared by every rule family: what a line's first words are
(a field label, a bold title, a timestamp) and what an entry's title reads as.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gotchas import parts, vocabulary
from gotchas import table as table_rows
from gotchas.blockmap import Block
from gotchas.pattern import LazyPattern

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from gotchas.reading.model import SpanKind

# a measured value in a table cell: ``314``, ``1,204``, ``12.5%``, ``$40``, ``~3 s``
MEASURE = LazyPattern(r"^[~≈<>]?\s*[$€£]?\s*-?\d[\d,.]*\s*(?:%|ms|s|kb|mb|gb|x|×|k|m)?$", re.IGNORECASE)
ITEM_MARKER = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s*")
# a list marker opening a block: followed by a space, so ``**bold**`` keeps its first star
BLOCK_MARKER = LazyPattern(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+")
CHECKBOX = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\[[ xX]\]")
DONE = re.compile(r"^(?:✅|✔️?|☑️?|✓)")
DONE_MARKS = ("✅", "✔", "☑", "✓")  # what ``DONE`` opens with: a cheap test before it
# an item that is only a link, bold or not: ``[Setup guide](docs/setup.md)``
LINK_ONLY = LazyPattern(r"^(?:\*\*|__)?\[[^\]]+\]\([^)\s]+(?:\s+\"[^\"]*\")?\)(?:\*\*|__)?\s*$")
LEDGER_REF = LazyPattern(r"^(?:✅|✔️?|☑️?|✓)\s*(?:\*\*|__)?(?:#\d+|[A-Z][A-Z0-9]{1,9}-\d+)\b")  # `✅ #12 …`
# an id opening a lesson, a bullet's or a paragraph's: ``**PITFALL-001**:``, ``L-007 —``, ``[BUG-12]``
ID_LEAD = re.compile(r"^(?:\*\*|__)?\[?[A-Z][A-Z0-9]{0,11}-\d{1,4}(?:\.\d{1,3})?\]?(?:\*\*|__)?(?:[\s:]|$)")
# a bold label, code spans inside it kept whole (``**`/$count` needs `Accept: */*`.**``)
BOLD_LABEL = re.compile(r"^(?:\*\*|__)(?P<label>(?:`[^`]{1,60}`|[^*_`]){1,200}?)(?:\*\*|__)\s*(?P<after>.*)$")
# a full-width colon needs no space after it (``- 原因：…``)
_PLAIN_LABEL = LazyPattern(r"^(?P<label>[^\W\d][\w .'/()&-]{0,40}?)\s*(?::\s+|：\s*)(?P<after>\S.*)$")
# a label alone on its line (``- Validation:`` over the field's own list)
_BARE_LABEL = LazyPattern(r"^(?P<label>[^\W\d][\w .'/()&-]{0,40}?)\s*[:：]\s*$")
# an item opening with a file's own name, in code or as a link's text (``- `deploy.md` — …``),
# or a folder's (``- `PLAYBOOKS/` — …``): a line of an index of files, whatever it says of them
NAMED_FILE = LazyPattern(
    r"^(?:\*\*|__)?(?:`[^`\s]+\.(?:md|mdc|txt)`|`[^`\s]+/`|\[[^\]\s]+\.(?:md|mdc|txt)\]\([^)\s]+\))"
)
# an item opening with a link into a folder of lessons (``- [Cache keys](lessons/cache-keys.md) —
# area:build``): a catalog's line pointing at a lesson kept in a file of its own
LESSON_LINK = LazyPattern(
    r"^(?:\*\*|__)?\[(?:`[^`]*`|[^\]`])+\]\((?:[^)\s]*/)?(?:lessons?|learnings?|gotchas|pitfalls|mistakes)/[^)\s]+\.mdc?"
    r"(?:#[^)\s]*)?\)",
    re.IGNORECASE,
)
# a line saying where entries went: ``→ `archive/mistakes.md` に移動``, ``Moved to [old.md](old.md)``
MOVED_TO = LazyPattern(
    r"^(?:→|⇒|➡️?|->|moved\s+to:?|see:?)\s*(?:`[^`\s]+\.(?:md|mdc|txt)`|\[[^\]]+\]\([^)\s]+\.mdc?\))",
    re.IGNORECASE,
)
LINKED_FILE = LazyPattern(r"^(?:`[^`]+\.(?:md|mdc|txt)`|\[[^\]]+\]\([^)]+\.(?:md|mdc)\))")
MD_REFERENCE = LazyPattern(r"[\w./-]+\.mdc?\b")
# a cell of a table that maps to files: a file's or folder's name in code (`` `src/lib/db.ts` ``,
# `` `rules/` ``) or a link to one in the repository; what is left beside those (``+ migration``)
# is a word or two
# (a link's text holds no bracket and its target no parenthesis, so a run of ``[`` or ``](`` is
# read once, not once from each of its characters)
FILE_REF = LazyPattern(r"`[^`\s]*(?:\w\.[A-Za-z]{1,5}|\w/)`|\[[^\[\]]*\]\((?!https?:)[^()\s]+\)")
CODE_OR_LINK = LazyPattern(r"`[^`]*`|\[[^\[\]]*\]\([^()]*\)")
TIMESTAMP_LEAD = LazyPattern(r"^\[?\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\]?\s*[:—–-]?\s*\S")
# ``2030-01-02``, ``2.1.2030``, ``2030/01/02``: the first digit outside the alternation, so a
# search skips to digits instead of trying each form at every character
DATE = re.compile(r"\d(?:\d{3}-\d{2}-\d{2}|\d?\.\d{1,2}\.\d{4}|\d{3}/\d{2}/\d{2})")
CODE_SPAN = re.compile(r"`[^`]+`")
TICKET = re.compile(r"[(\[]\s*(?:[A-Z][A-Z0-9]{1,9}-\d+|#\d+)\s*[)\]]")  # `(BUG-008)`, `[#12]` after a title
NUMBERED_TITLE = re.compile(r"^\s*(?:\d+(?:\.\d+)*[.):]?\s|[^\W\d]{1,12}\s*\d+\s*[:：.]|[A-Z]{1,6}-\d+\b)")
CLAUSE = re.compile(r"\S\s+[—–]\s+\S|\S[:：]\s*\S|\S\s+-\s+\S")
# (an aside holds no ``(`` of its own, so a run of them is read once, not from each of its starts)
DISCOVERED = re.compile(
    r"\([^()]*(?:\b(?:19|20)\d{2}\b|\b\d{1,2}\.\s*(?:jan|feb|mar|apr|ma[iy]|jun|jul|aug|sep|o[ck]t|nov|de[sc])\w*)[^()]*\)",
    re.IGNORECASE,
)
# this tool's own field line, as a lesson it wrote carries it (``tasks: #7 · supersedes: …``)
OWN_FIELDS = re.compile(r"\b(?:supersedes|root-cause)\s*:", re.IGNORECASE)
ENTRY_FIELD = re.compile(
    r"^\s{0,3}(?:[-*+]\s+|\d{1,9}[.)]\s+)?(?:id|tasks|root-cause|supersedes|superseded-by|red-herring-for)\s*:",
    re.IGNORECASE,
)
# the field a successor this tool wrote carries (``supersedes: old-id (for #7)``)
_SUPERSEDES = re.compile(r"\bsupersedes\s*:", re.IGNORECASE)


def names_superseded(field_lines: Iterable[str]) -> bool:
    """Field lines saying what their lesson supersedes: a successor this tool wrote, which was
    not there before the correction and so weighs in no share or run of its siblings."""
    return any(_SUPERSEDES.search(line) for line in field_lines)


ARTICLE = LazyPattern(r"^(?:the|a|an)\s+")
NUMBERED_FIELD = LazyPattern(r"^[^\W\d]+(?:\s+[^\W\d]+)?\s+(?:\d+|[a-z])\s*[:：]")
_CHECKBOX_LEAD = re.compile(r"^\[[ xX]\]\s+")
SECOND_FIELD = LazyPattern(
    r"[.;,!?)]\s+(?:\*\*|__)?(?:fix|solution|workaround|cause|root cause|resolution|lösung|solution|"
    r"solución|solução|решение|解决)(?:\*\*|__)?\s*[:：]",
    re.IGNORECASE,
)
TEMPLATE = LazyPattern(r"YYYY|<[\w -]{1,30}>|\bshort title\b", re.IGNORECASE)
NUMBER_PREFIX = LazyPattern(r"^\s*\d+(?:\.\d+)*[.)]?\s+")


# a bullet that continues the one before it (``Otherwise …``, ``Without it …``, ``Only then …``):
# one lesson's facts or one procedure's steps, not lessons side by side
CONTINUES = re.compile(
    r"^(?:otherwise|without\s+(?:it|this|that|(?:the\s+)?[\w-]+,)|both\b|this\s+(?:means|is\s+why|causes|breaks)|"
    r"that\s+(?:means|is\s+why)|so\s+|hence\b|therefore\b|as\s+a\s+result\b|also\b|(?:only\s+)?then\b)",
    re.IGNORECASE,
)


def item_text(first_line: str) -> str:
    return ITEM_MARKER.sub("", first_line, count=1).strip()


def lead_label(text: str) -> tuple[str, bool] | None:
    """A lead-in label and whether it is written as a field (ending in a colon or period).

    ``**Symptom:** …`` → ("symptom", True); ``**Title** — …`` → ("title", False);
    ``Context: …`` → ("context", True).
    """
    bold = BOLD_LABEL.match(text)
    if bold:
        label = bold["label"].strip()
        after = bold["after"]
        if vocabulary.numbers_entry(label):
            return vocabulary.plain(label).strip(" :：."), False  # `**Lesson 1:**` numbers the entry
        as_field = label.endswith((":", "：", ".")) or after.startswith((":", "："))
        return parts.field_name(label), as_field
    if ":" not in text and "：" not in text:
        return None  # no colon: no plain label (the pattern would try every length of one first)
    plain = _PLAIN_LABEL.compiled.match(text)
    if plain and len(plain["label"].split()) <= 3 and "`" not in plain["label"]:
        return parts.field_name(plain["label"]), True
    bare = _BARE_LABEL.compiled.match(text)
    if bare and len(bare["label"].split()) <= 3:
        return parts.field_name(bare["label"]), True
    return None


# ---------------------------------------------------------------- labels that open a block

LABELLED = ("item", "paragraph")


def opening_label(block: Block, first: str) -> str | None:
    """The field label an item or paragraph opens with (``first`` is its first line), if any."""
    head = first[:60]
    if block.kind == "paragraph" and not head.lstrip().startswith(("**", "__")):
        return None
    if "**" not in head and "__" not in head and ":" not in head and "：" not in head:
        return None
    found = lead_label(item_text(first) if block.kind == "item" else first.strip())
    return found[0] if found and found[1] else None


# ---------------------------------------------------------------- titles

_MAX_TITLE = 100
# a sentence ends at the space after ``.!?。`` (group 1) or at a spaced dash; no look-behind,
# which would be tried at every character
_SENTENCE_END = re.compile(r"[.!?。](\s)|\s[—–]\s")
_BOLD_LEAD = re.compile(r"^(\*\*|__)(?P<title>.+?)\1")
_LINK_LEAD = re.compile(r"^\[(?P<title>[^\]]+)\]\([^)]*\)")
_DATED_LEAD = re.compile(r"\d{4}-\d{2}-\d{2}(?:[ T]\d{1,2}:\d{2})?\s+[—–]\s+")


def item_title(first_line: str) -> str:
    """A list entry's title: its bold lead-in or link text, else its first sentence (≤ 100 characters)."""
    text = ITEM_MARKER.sub("", first_line, count=1).strip()
    if text.startswith("["):
        text = _CHECKBOX_LEAD.sub("", text)
    return lead_title(text)


def opens_wrapped_bold(text: str) -> bool:
    """``**Reproduce the case before you`` with no closing ``**`` on its line: a bold lead-in
    wrapped onto the next line."""
    return text[:2] in ("**", "__") and text[:2] not in text[2:]


# bold by either mark; the other may stand inside (``**`node_modules` is shared.**``)
_BOLD_SENTENCE = re.compile(r"\*\*([^*]+?)\*\*|__([^_]+?)__")
# a mark before a bold lead-in (``🔴 **…**``, ``⚠️ **…**``): the lead-in is still the title
MARK_BEFORE_BOLD = re.compile(r"^[^\w\s*_\[`(<~>|#-]{1,4}\s+(?=\*\*|__)")


def after_mark(text: str) -> str:
    """``text`` less a mark before a bold lead-in that is a sentence (``🔴 **Measure the whole
    screen.**``); before a label (``✅ **Fixed:** …``) the mark stays part of the title."""
    if text[:1] in ("*", "_", "[") or text[:1].isalnum():
        return text  # most texts open with the lead-in or a word
    mark = MARK_BEFORE_BOLD.match(text)
    if mark is None or not _bold_sentence(text[mark.end() :]):
        return text
    return text[mark.end() :]


def _bold_sentence(text: str) -> bool:
    lead = _BOLD_SENTENCE.match(text)
    if lead is None:
        return False
    words = lead[1] or lead[2]
    return len(words.split()) >= 3 and not words.rstrip().endswith((":", "："))


def opens_bold_sentence(text: str) -> bool:
    """Text that opens with a bold sentence (``**One style anchor beats many.**``), as a lesson
    of its own does; a field's label (``**Fix:**``) is a word or two, or ends in a colon."""
    return _bold_sentence(after_mark(text))


def lead_title(text: str) -> str:
    text = after_mark(text)
    head = text[:1]  # a bold lead opens with ``*`` or ``_``, a link with ``[``
    bold = _BOLD_LEAD.match(text) if head in ("*", "_") else None
    if bold:
        return bold["title"].strip().rstrip(":：.").strip()
    if head in ("*", "_") and opens_wrapped_bold(text):
        text = text[2:].lstrip()  # a bold lead wrapped onto the next line: its first line's words
    link = _LINK_LEAD.match(text) if head == "[" else None
    if link:
        return link["title"].strip()
    # a line opening with its date (``2026-05-14 — Maximize the viewport …``): the title runs on
    # past the date to the sentence it dates, not the date alone
    dated = _DATED_LEAD.match(text) if head.isdigit() else None
    end = _SENTENCE_END.search(text, dated.end() if dated else 0, _MAX_TITLE * 2)
    sentence = text[: _MAX_TITLE * 2 if end is None else end.start(1) if end.lastindex else end.start()]
    if len(sentence) > _MAX_TITLE:
        sentence = sentence[:_MAX_TITLE].rsplit(" ", 1)[0] + "…"
    return sentence


def title_of(kind: SpanKind, first_line: str) -> str:
    if kind == "item":
        return item_title(first_line)
    if kind == "row":
        return row_title(first_line, False)
    text = (
        BLOCK_MARKER.compiled.sub("", first_line, count=1).strip() if kind == "block" else first_line.strip()
    )
    return lead_title(text.strip("`> "))


def row_title(line: str, id_column: bool) -> str:
    """A row's title: its title cell's lead, after the row's id when the table has an id column
    (``| L-055 | Pin the tokenizer | … |`` → ``L-055 · Pin the tokenizer``; ``| 3. | … |`` → ``3. …``)."""
    cells = table_rows.cells(line)
    if not cells:
        return line.strip()
    at = table_rows.title_cell(cells, id_column)
    title = lead_title(cells[at])
    found = table_rows.id_cell(cells[0]) if at == 1 else None
    if found is None:
        return title
    if not title:
        return found.plain()
    return f"{found.plain()} {title}" if found.dot else f"{found.plain()} · {title}"


# a red-herring or superseded-by mark this tool writes into a lesson it corrects
MARK = LazyPattern(r"^\s{0,3}(?:[-*+]\s+)?(?:red-herring-for|superseded-by)\s*:", re.IGNORECASE)
# the caveat this tool writes under that mark (``edit.caveat``): a quote naming the red herring
CAVEAT = LazyPattern(r"^\s*(?:>\s*)+\*\*Red herring for\b")


def own_field_line(line: str) -> bool:
    """A line of this tool's entry fields (``tasks: #7 · root-cause: confirmed``), not a
    red-herring mark: the mark makes no lesson its own, the fields do."""
    return ENTRY_FIELD.match(line) is not None and not MARK.compiled.match(line)


_TITLE_FORM = LazyPattern(
    r"[*_`\s]*(?:[^\w\s#\[*_`(]{1,3}\s*)?"  # an emoji before it: ``🔹 9. …``
    r"(?:(?P<numbered>#?\d+[a-z]?(?:\.\d+)*[.):]?(?:\s|$))|(?P<id>\[?[A-Z]{1,6}-?\d+\b)"
    r"|(?P<dated>.{0,6}(?:19|20)\d\d[-/.]\d\d?\b)|(?P<prefixed>[^\W\d][\w-]{1,15})\s*[:：])"
)
DEFINITE_FORMS = ("numbered", "id", "dated")


def title_form(title: str) -> str | None:
    """How a lesson's title is written: numbered (``9a.`` too), an id, dated, or ``Pattern: …``
    (a prefix, named by its word); None for a plain title."""
    found = _TITLE_FORM.compiled.match(title)
    if found is None:
        return None
    kind = found.lastgroup
    return f"prefixed {found['prefixed'].lower()!r}" if kind == "prefixed" else kind


# a field waiting to be filled in: ``- **Issue**: [Issue Name]``, ``Fix: [how it was solved]``,
# ``- Most common blocker: N/A``
_BLANK_FIELD = re.compile(
    r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:\*\*|__)?[^\[\]*_:]{1,40}"
    r"(?::?(?:\*\*|__)?:?\s*\[[^\[\]]{1,120}\]|(?:\*\*|__)?:(?:\*\*|__)?\s*(?:(?i:n/a|tbd|todo)|[—–]))\s*$"
)


_FIELD_LINE = 240  # characters at most in a form's field line: a marker, a label and its blank
_BLANK_ENDS = ("]", "n/a", "tbd", "todo", "—", "–")  # how a field's blank ends its line


def blank_field(line: str) -> bool:
    """A form's field left blank (``- **Issue**: [Issue Name]``, ``- Blocker: N/A``). Most lines
    end otherwise than a blank does and are settled before the pattern, which a long line would
    keep busy."""
    line = line.rstrip()
    if len(line) > _FIELD_LINE or not line.lower().endswith(_BLANK_ENDS):
        return False
    return _BLANK_FIELD.match(line) is not None


def blank_form(lines: Iterable[str]) -> bool:
    """An entry written as a form, every field a blank: a template, no lesson yet."""
    fields = 0
    for line in lines:
        if not line.strip():
            continue
        if not blank_field(line):
            return False
        fields += 1
    return fields >= 2


# a blank where an entry's form is filled in: ``<title>``, ``[DATE]``, ``YYYY``, ``Lesson-XXX``
PLACEHOLDER = re.compile(
    r"<[^<>]{1,40}>|\[[^\[\]]{1,40}\]|YYYY|NNN|XXX|\bshort (?:title|description)\b", re.IGNORECASE
)


def blank_title(title: str) -> bool:
    """A heading written as the entries' form, placeholders not filled in (``## YYYY-MM-DD
    <title>``, ``### [DATE] — [TITLE]``): no digit of a real date or number in it. Asked of
    every section's title: most hold none of the placeholders' characters, seen without a search."""
    if "<" not in title and "[" not in title:  # what a placeholder holds but a bracket
        lowered = title.lower()
        if "yyyy" not in lowered and "nnn" not in lowered and "xxx" not in lowered and "short" not in lowered:
            return False
    return PLACEHOLDER.search(title) is not None and not any(c.isdigit() for c in title)


# what is left of a form's line once its marker, label and blanks are taken away: no word
_FORM_LINE = re.compile(
    r"^\s{0,3}(?:>\s*+)*+(?:(?:[-*+]|\d{1,9}[.)])\s*+)?"  # a quote's or a list's marker
    r"(?:(?:\*\*|__)?[^\s\[\]<>*_:：][^\[\]<>*_:：\n]{0,39}[:：](?:\*\*|__)?[:：]?)?"  # a field's label
    r"(?:<[^<>\n]{1,80}>|\[[^\[\]\n]{1,80}\]|\.{3}|…|\s)*+$"  # its blanks, or nothing
)


def unfilled(lines: Sequence[str]) -> bool:
    """Lines of a form nobody filled in: field labels over empty bullets, ``...``, bracketed
    blanks (``**症状:**`` / ``-``, ``**A:** [回答]``); at least one such line, none with a word
    of its own."""
    seen = False
    for line in lines:
        if not line.strip():
            continue
        if _FORM_LINE.match(line) is None:
            return False
        seen = True
    return seen
