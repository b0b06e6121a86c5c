"""Hold predicates: ``predicate-<task>-lands`` and ``predicate-<task>-terminal``, joined by ``+``.

A hold written on a task card is a promise to wait; parsing it strictly means a typo
or a pasted shell fragment is refused loudly instead of being read as "no hold".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gotchas.errors import PredicateError, TaskRefError
from gotchas.taskref import normalize

PredicateKind = Literal["lands", "terminal"]

ACCEPTED_PREDICATES = (
    "predicate-<task>-lands or predicate-<task>-terminal, where <task> is 664, "
    "owner/repo#664 or a tracker key such as ABC-123; join several with '+' "
    "(predicate-664-lands+predicate-ABC-123-terminal)"
)

_MAX_LENGTH = 2000
_WHITESPACE = re.compile(r"\s")
_ONE = re.compile(r"^predicate-(?P<task>.+)-(?P<kind>lands|terminal)$", re.IGNORECASE)
_TASK_ALONE = re.compile(r"^(?:[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+#|#)?[0-9]+$")


@dataclass(frozen=True)
class Predicate:
    """One condition on one task: it must land, or merely reach any terminal state."""

    task: str
    kind: PredicateKind

    @property
    def text(self) -> str:
        return f"predicate-{self.task.removeprefix('#')}-{self.kind}"


def parse_predicates(text: str) -> list[Predicate]:
    """Every condition in ``text``, in order, without duplicates; PredicateError otherwise."""
    if len(text) > _MAX_LENGTH:
        raise PredicateError(f"predicate is too long ({len(text)} characters); use {ACCEPTED_PREDICATES}")
    stripped = text.strip()
    if not stripped:
        raise PredicateError(f"empty predicate; use {ACCEPTED_PREDICATES}")
    found: list[Predicate] = []
    for part in stripped.split("+"):
        predicate = _parse_one(part.strip(), whole=text)
        if predicate not in found:
            found.append(predicate)
    return found


def _parse_one(part: str, whole: str) -> Predicate:
    match = None if _WHITESPACE.search(part) else _ONE.match(part)
    if match is None:
        raise PredicateError(f"not a hold predicate: {part or whole!r}; use {ACCEPTED_PREDICATES}")
    try:
        task = normalize(match["task"])
    except TaskRefError:
        raise PredicateError(
            f"not a task in predicate {part!r}: {match['task']!r}; use {ACCEPTED_PREDICATES}"
        ) from None
    kind: PredicateKind = "lands" if match["kind"].lower() == "lands" else "terminal"
    return Predicate(task=task, kind=kind)


def expand_shorthand(text: str) -> str:
    """``8244``, ``#8244`` or ``owner/repo#8244`` alone read as "that task lands"
    (``predicate-8244-lands``); anything else is returned as it is, for the parser to judge."""
    stripped = text.strip()
    if len(stripped) > _MAX_LENGTH or not _TASK_ALONE.match(stripped):
        return text
    try:
        return Predicate(task=normalize(stripped), kind="lands").text
    except TaskRefError:
        return text
