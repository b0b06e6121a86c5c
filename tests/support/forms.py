"""What a supersede's successor must share with its target, read off their first lines: the form
(marker, box, heading level, bold lead-in, decoration) and the number or id the title opens with."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d+(?:\.\d+)*")
# a title's decoration around its words: a bold wrapper, a symbol, a date, a number or id with
# its separator, the kind of lesson it names (``Issue: ``), the punctuation that closes a bold
# lead-in, closing hashes. A number after ``#`` is no part of the form: a count (``#2``) goes
# on in a successor, a task's own number (``#664 — …``) does not, and one line cannot tell
# which (``tests/fixtures/successor/numbering.md`` holds both)
_TITLE = re.compile(
    r"^(?P<open>\*\*|__)?(?P<symbol>(?:[^\w\s*_`#\[(]+\s+)?)(?P<date>(?:(?:DATE|\[DATE\])\s*[—–·:|-]?\s*)?)"
    r"(?P<label>(?:(?:[^\W\d_]{1,12}[-_ ])?\d+(?:\.\d+)*"
    r"(?:\.?[ \t]*[·—–:：|)][ \t]*|\.[ \t]+|[ \t]+-[ \t]+)"
    r"|\d+\.\d+(?:\.\d+)*[ \t]+)?)"
    r"(?P<kind>(?:[^\W\d_]+(?: [^\W\d_]+){0,2}[ \t]?[:：][ \t]+(?=\S))?)"
    r"(?P<words>.*?)(?P<mark>[:：.]?)(?P<close>\*\*|__)?(?P<closing>[ \t]+#+)?[ \t]*$"
)


def form(line: str, kind: bool = False) -> str:
    """A first line's form: its marker, box and the decoration of its title, words abstracted;
    with ``kind``, the kind of lesson a heading's title names (``Issue: ``), which a successor
    carries only where its siblings share it."""
    line = line.removeprefix("\ufeff").rstrip("\r\n")
    line = re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", line)
    line = re.sub(r"\[[xX ]\]", "[ ]", line)
    if line.lstrip().startswith("|"):
        # an escaped pipe (``\|``) is a cell's text, not a column's edge
        return f"row of {line.count('|') - line.count(chr(92) + '|')} pipes"
    callout = re.match(r"^\s*>\s*\[!\w+\]", line)
    if callout:
        return " ".join(callout[0].split())  # a callout's opener: its kind
    opening = re.match(r"^\s*(?:#{1,6}\s+|(?:[-*+]|\d+[.)])\s+)?(?:\[ \]\s+)?", line)
    assert opening is not None
    rest = line[opening.end() :]
    bold = re.match(r"^(\*\*|__)(.+?)\1", rest)
    if not bold and rest[:2] in ("**", "__"):
        # a bold lead-in wrapped onto the next line: the form of one closing on its own, as a
        # successor writes it (a sentence, closed with its full stop)
        bold = re.match(r"^(\*\*|__)(.+?)\1", f"{rest.rstrip(' .')}.{rest[:2]}")
    after = ""
    if bold:
        # the mark that parts a bold lead-in from its text (``**Title** — text``, ``**Title**；…``);
        # after a bold number or id alone (``**PITFALL-001**: …``) the title is the id's, and the
        # successor's own words follow it without one
        parted = re.match(r"\s*([—–:：;；])", rest[len(bold[0]) :])
        alone = re.fullmatch(r"(?:[^\W\d_]{1,12}[-_ ]?)?\d+(?:\.\d+)*[.)]?", bold[2].strip())
        after = parted[1] if parted and not alone else ""
        rest = bold[0]
    elif not opening[0].lstrip().startswith("#"):
        rest = ""  # a plain lead: its words are the title
    title = _TITLE.match(rest)
    assert title is not None
    parts = [title[k] or "" for k in ("open", "symbol", "date", "label")]
    parts.append(title["kind"] if kind else "")
    parts[3] = _NUMBER.sub("9", parts[3])
    words = "w" if title["words"].strip() else ""
    # a bold close is a wrapper's only where a bold open began the title: ``### Logs contain
    # **TrieNodeException**`` ends in bold words, not in a bold title
    close = title["close"] if title["open"] else ""
    tail = [title["mark"] or "", close or "", title["closing"] or ""]
    return _NUMBER.sub("9", opening[0]) + "".join(parts) + words + "".join(tail) + after


def successor_form(line: str, kind: bool = False) -> str:
    """The form a successor of ``line`` takes: the same, but a heading that is a date alone
    (``## 2026-02-07``, ``## [2026-02-07]``) gains the successor's title after a dash, as a
    dated title carries one."""
    alone = r"\s*#{1,6}[ \t]+(?:\d{4}-\d{2}-\d{2}|\[\d{4}-\d{2}-\d{2}\])[ \t]*"
    if re.fullmatch(alone, line.removeprefix("\ufeff").rstrip("\r\n")):
        return form(line.rstrip() + " — title", kind)
    return form(line, kind)


_LABEL = re.compile(
    r"^\s*(?:#{1,6}\s+|\|\s*|(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)?+"  # a heading, row or item opening
    r"(?:\*\*|__)?(?:⚠️ )?(?:([A-Z]+-)(\d+(?:\.\d+)*)(?=\s*(?:\.(?!\d)|[·:)|—–])|\s+-\s|\*\*)"
    # an id needs its separator (not ``CUDA-12 builds``); after a plain space only a dotted number
    # is one (``11.4 Title``, not ``400 Bad Request``)
    r"|()(\d+(?:\.\d+)+(?=\s)|\d+(?:\.\d+)*(?=[.·:)|—]|\s*[·—–:|]|\s+-\s|\*\*)))"
)


def label(line: str) -> str | None:
    """The number or id a first line's title opens with, as written (``L-003``, ``11.2``, ``2.``)."""
    line = re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", line.removeprefix("\ufeff"))
    found = _LABEL.match(line)
    if found is None:
        return None
    stem, number = (found[1], found[2]) if found[2] else ("", found[4])
    return f"{stem}{tuple(int(n) for n in number.split('.'))}"
