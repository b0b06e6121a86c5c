"""Does a commit message say a task landed, or does it undo a commit? Pure functions on text.

A hold releases on a landing, so this grammar errs towards "no": a closing keyword
counts only when nothing in its clause negates it ("does not fix #664", "won't fix
#664"), a work-in-progress or revert subject lands nothing, and a ``Task:`` trailer
lands only when its value, or a ``Landed:``/``Status:`` trailer next to it, says so
affirmatively. An explicit "not landed" in the trailers vetoes every other form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CLOSING_KEYWORDS = r"close[sd]?|fix(?:e[sd])?|resolve[sd]?"

# Words that, among the few before a closing keyword in the same clause, negate it.
NEGATORS = frozenset("not no never without nor cannot partially partly half neither".split())
# Words in a trailer value that mean the task has not landed (yet).
NOT_LANDED = NEGATORS | frozenset(
    "false n pending wip draft todo tbd open running partial reverted unlanded abandoned "
    "cancelled canceled failed soon later".split()
)
LANDED_WORDS = frozenset("landed yes true y done merged".split())

_NEGATION_WINDOW = 3
_CLAUSE_END = re.compile(r"[.!?;:\n]")
_WORD = re.compile(r"[\w'’]+")
_REVERT_SUBJECT = re.compile(r'^\s*Revert\s+"', re.IGNORECASE)
_QUOTED_REVERT = re.compile(r'\bRevert\s+"[^\n]*', re.IGNORECASE)
_WORK_IN_PROGRESS = re.compile(
    r"^\s*(?:\[\s*(?:wip|draft|dnm)\s*\]|(?:wip|dnm)\b|draft\s*:|do not merge\b|(?:fixup|squash|amend)!)",
    re.IGNORECASE,
)
_TRAILER = re.compile(r"^\s*(?P<key>[A-Za-z][\w-]*)\s*:\s*(?P<value>.*?)\s*$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}\b")
_SHA = re.compile(r"^[0-9a-f]{7,40}$", re.IGNORECASE)
_REVERTS = re.compile(
    r"This\s+reverts\s+commit\s+(?P<sha>[0-9a-f]{7,40})(?![0-9a-f])"
    r"(?:\s*,\s*reversing\s+changes\s+made\s+to\s+(?P<mainline>[0-9a-f]{7,40})(?![0-9a-f]))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RevertRef:
    """One ``This reverts commit <sha>`` line; ``mainline`` is set for a reverted merge."""

    sha: str
    mainline: str | None = None


def task_ref_pattern(number: int, repo: str | None) -> str:
    """``#N`` (leading zeros allowed, no more digits after it), or ``owner/repo#N`` for ``repo``."""
    prefix = rf"(?:{re.escape(repo)})?" if repo else ""
    return rf"{prefix}#0*{number}(?!\d)"


def closing_reason(message: str, number: int, repo: str | None = None) -> str | None:
    """How ``message`` says task ``number`` (of ``repo``, when known) landed, or None.

    Accepted: a closing keyword before ``#N`` (or ``owner/repo#N``) that nothing in its
    clause negates, a squash-merge subject ending in ``(#N)``, or a ``Task: #N``
    trailer that says the task landed. Never: a ``Revert "…"`` or work-in-progress
    subject, or a commit whose trailers say the task has not landed.
    """
    ref = task_ref_pattern(number, repo)
    subject, _, body = message.partition("\n")
    if _REVERT_SUBJECT.match(subject) or _WORK_IN_PROGRESS.match(subject):
        return None
    verdict = trailer_verdict(body, ref)
    if verdict is False:
        return None
    if has_closing_keyword(message, ref):
        return "closing keyword"
    if re.search(rf"\({ref}\)\s*$", subject.strip(), re.IGNORECASE):
        return "squash-merge subject"
    if verdict is True:
        return "Task trailer"
    return None


def has_closing_keyword(message: str, ref: str) -> bool:
    """A closing keyword right before ``ref``, not negated and not inside a quoted revert."""
    text = _QUOTED_REVERT.sub("", message)
    keyword = re.compile(rf"(?<![\w-])(?:{CLOSING_KEYWORDS})(?::\s*|\s+){ref}", re.IGNORECASE)
    return any(not negated_before(text, match.start()) for match in keyword.finditer(text))


def negated_before(text: str, at: int) -> bool:
    """Whether one of the few words before ``at``, in the same clause, negates what follows."""
    clause_start = 0
    for boundary in _CLAUSE_END.finditer(text, max(0, at - 200), at):
        clause_start = boundary.end()
    words = _WORD.findall(text[max(clause_start, at - 200) : at])[-_NEGATION_WINDOW:]
    return any(is_negator(word) for word in words)


def is_negator(word: str) -> bool:
    lowered = word.lower().replace("’", "'")
    return lowered in NEGATORS or lowered.endswith("n't")


def trailer_verdict(body: str, ref: str) -> bool | None:
    """What the trailer block (the body's last paragraph) says about the task.

    True: a ``Task: #N`` trailer with ``landed`` as its value, or next to a ``Landed:``
    or ``Status: landed`` trailer with an affirmative value. False: any of them says it
    has not (``Task: #N (not landed)``, ``Landed: no``, ``Status: running``). None: the
    trailers do not name the task, or say nothing either way.
    """
    paragraphs = [p for p in re.split(r"\n\s*\n", body.strip()) if p.strip()]
    if not paragraphs:
        return None
    task_value = re.compile(rf"^{ref}(?P<rest>.*)$", re.IGNORECASE)
    mentioned = False
    said: list[bool | None] = []
    for line in paragraphs[-1].splitlines():
        trailer = _TRAILER.match(line)
        if trailer is None:
            continue
        key, value = trailer["key"].lower(), trailer["value"]
        if key == "task":
            match = task_value.match(value)
            if match is not None:
                mentioned = True
                said.append(value_says_landed(match["rest"].strip(" \t()[]-–—,.")))
        elif key == "landed":
            said.append(value_says_landed(value, lenient=True))
        elif key in ("status", "state", "task-state"):
            said.append(value_says_landed(value))
    if not mentioned:
        return None
    if False in said:
        return False
    return True if True in said else None


def value_says_landed(value: str, lenient: bool = False) -> bool | None:
    """True for ``landed`` (and, when ``lenient``, yes/true/done, a date or a commit), False
    for a value that names an unfinished or negated state, None for empty or unclear."""
    words = [word.lower() for word in _WORD.findall(value)]
    if not words:
        return None
    if any(word in NOT_LANDED or is_negator(word) for word in words):
        return False
    if words[0] == "landed":
        return True
    if lenient and (words[0] in LANDED_WORDS or _ISO_DATE.match(value) or _SHA.match(value)):
        return True
    return None


def revert_refs(message: str) -> list[RevertRef]:
    """Every ``This reverts commit <sha>[, reversing changes made to <sha>]`` in ``message``."""
    return [
        RevertRef(match["sha"].lower(), match["mainline"].lower() if match["mainline"] else None)
        for match in _REVERTS.finditer(message)
    ]
