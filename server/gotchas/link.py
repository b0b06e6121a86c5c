"""The supersede link: how a correction points at the lesson it replaced, in one place.

A correction is written on both sides. The new entry says ``supersedes: OLD (for TASK)``;
the old one says ``red-herring-for: TASK · superseded-by: NEW (for TASK)``. Writing those
lines, reading them back, checking that both sides agree and walking a chain of
corrections all live here, so the editor, the verifier, apply and history cannot
disagree about what a link is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from gotchas import taskref
from gotchas.fields import SEPARATOR
from gotchas.pattern import LazyPattern


@dataclass(frozen=True, slots=True)
class Link:
    """A supersede link: ``target`` id, scoped to ``tasks`` (empty: unscoped)."""

    target: str
    tasks: tuple[str, ...]

    def render(self) -> str:
        scope = f" (for {', '.join(self.tasks)})" if self.tasks else ""
        return f"{self.target}{scope}"

    def covers(self, task: str) -> bool:
        """Whether the link holds for ``task``: scoped to it, or to every task."""
        return not self.tasks or task in self.tasks


# --- writing ------------------------------------------------------------------------------


def supersedes_line(target_id: str, task: str) -> str:
    """The field line the correction carries."""
    return f"supersedes: {Link(target_id, (task,)).render()}"


def marks_line(task: str, new_id: str) -> str:
    """The field line the corrected entry gets: a red herring for ``task``, and its successor."""
    return f"red-herring-for: {task}{SEPARATOR}superseded-by: {Link(new_id, (task,)).render()}"


# --- parsing ------------------------------------------------------------------------------

_LINK = LazyPattern(r"(?P<target>[^\s(),;]+)(?:\s*\((?:for\s+)?(?P<scope>[^()]*)\))?")
"""A scope stops at the next parenthesis either way, so unclosed ``(`` runs stay linear."""


def parse_links(value: str) -> list[Link]:
    """``a-id (for #664), b-id`` → links; a scope lists the tasks the link is limited to."""
    links: list[Link] = []
    for match in _LINK.compiled.finditer(value.strip("`")):
        target = match["target"].strip("`*_")
        if not target:
            continue
        scope = tuple(taskref.parse_list(match["scope"])) if match["scope"] else ()
        links.append(Link(target, scope))
    return links


# --- what the link reads of an entry ---------------------------------------------------


class Linked(Protocol):
    """What the link reads of an entry (``gotchas.record.Entry``): the model sits above this
    module, so it is named by its shape here, not imported."""

    @property
    def id(self) -> str: ...
    @property
    def tasks(self) -> tuple[str, ...]: ...
    @property
    def root_cause(self) -> str | None: ...
    @property
    def supersedes(self) -> tuple[Link, ...]: ...
    @property
    def superseded_by(self) -> tuple[Link, ...]: ...
    @property
    def red_herring_for(self) -> tuple[str, ...]: ...


Entry = TypeVar("Entry", bound=Linked)
Entry_co = TypeVar("Entry_co", bound=Linked, covariant=True)


class Record(Protocol[Entry_co]):
    """What the link reads of a record: its entries, in file order."""

    @property
    def entries(self) -> tuple[Entry_co, ...]: ...


# --- reading a record ---------------------------------------------------------------------


def successor(record: Record[Entry], target: Entry, task: str) -> Entry | None:
    """A confirmed entry that already supersedes ``target`` for ``task`` (or for every task)."""
    for entry in record.entries:
        if entry.root_cause == "confirmed" and links_to(entry, target.id, task):
            return entry
    return None


def links_to(entry: Entry, target_id: str | None, task: str | None) -> bool:
    """Whether ``entry`` says it supersedes ``target_id`` for ``task``."""
    return any(
        link.target == target_id and (not link.tasks or task in link.tasks) for link in entry.supersedes
    )


def marked(target: Entry, new: Entry, task: str) -> bool:
    """Whether ``target`` is marked a red herring for ``task`` and points to ``new``."""
    return task in target.red_herring_for and any(link.target == new.id for link in target.superseded_by)


def plan_problems(target: Entry, new_id: str, task: str | None) -> list[str]:
    """What is missing from the corrected side of a link an edit was to write."""
    out = []
    if task not in target.red_herring_for:
        out.append(f"the target is not marked red-herring-for {task}")
    if not any(link.target == new_id for link in target.superseded_by):
        out.append(f"the target does not point to {new_id!r} with superseded-by")
    return out


# --- checking -----------------------------------------------------------------------------


@dataclass(frozen=True)
class LinkProblem(Generic[Entry]):
    """A link that does not hold: ``code`` names the kind, ``entry`` the entry that says it."""

    code: str
    entry: Entry
    message: str


def check(entry: Entry, by_id: Mapping[str, Entry]) -> list[LinkProblem[Entry]]:
    """Both sides of every link of ``entry`` agree, and every red-herring mark has a successor."""
    out: list[LinkProblem[Entry]] = []
    for link in entry.supersedes:
        old = by_id.get(link.target)
        if old is None:
            out.append(
                LinkProblem(
                    "dangling-supersedes", entry, f"supersedes {link.target!r}, which is not in the record"
                )
            )
            continue
        back = any(b.target == entry.id for b in old.superseded_by)
        if not back or not all(t in old.red_herring_for for t in link.tasks):
            out.append(
                LinkProblem(
                    "one-sided-supersedes",
                    entry,
                    f"supersedes {link.render()} but {old.id!r} does not point back "
                    f"(needs `superseded-by: {entry.id}` and `red-herring-for:` its tasks)",
                )
            )
    for link in entry.superseded_by:
        new = by_id.get(link.target)
        if new is None:
            out.append(
                LinkProblem(
                    "dangling-superseded-by",
                    entry,
                    f"superseded-by {link.target!r}, which is not in the record",
                )
            )
        elif not any(s.target == entry.id for s in new.supersedes):
            out.append(
                LinkProblem(
                    "one-sided-superseded-by",
                    entry,
                    f"superseded-by {link.target!r}, which does not say `supersedes: {entry.id}`",
                )
            )
    for task in entry.red_herring_for:
        if not any(link.covers(task) for link in entry.superseded_by if link.target in by_id):
            out.append(
                LinkProblem(
                    "red-herring-without-successor",
                    entry,
                    f"marked a red herring for {task} but no entry supersedes it for {task}",
                )
            )
    return out


def cycles(entries: Sequence[Entry], by_id: Mapping[str, Entry]) -> list[LinkProblem[Entry]]:
    """Chains of ``supersedes`` that come back to themselves, each reported once."""
    out: list[LinkProblem[Entry]] = []
    reported: set[str] = set()
    for entry in entries:
        seen = [entry.id]
        current = entry
        while current.supersedes:
            nxt = by_id.get(current.supersedes[0].target)
            if nxt is None:
                break
            if nxt.id in seen:
                cycle = seen[seen.index(nxt.id) :]
                if not reported.intersection(cycle):
                    reported.update(cycle)
                    out.append(
                        LinkProblem(
                            "supersede-cycle",
                            entry,
                            "supersede links form a cycle: " + " → ".join([*cycle, nxt.id]),
                        )
                    )
                break
            seen.append(nxt.id)
            current = nxt
    return out


# --- walking ------------------------------------------------------------------------------


def chain(record: Record[Entry], task: str) -> list[Entry]:
    """The hypotheses recorded for ``task``, oldest first.

    Every entry that names the task (in ``tasks:``, a red-herring mark, or a link scoped to
    it) takes part. Each is placed after the entry it supersedes for the task, so the order
    follows the links, not the file; entries outside any chain keep their file order. A
    cycle (which verification reports) is broken where it closes.
    """
    members = [e for e in record.entries if _names(e, task)]
    ids = {e.id for e in members}
    previous: dict[str, str] = {}
    for entry in members:
        for link in entry.supersedes:
            if link.target in ids and link.covers(task) and entry.id not in previous:
                previous[entry.id] = link.target
    later: dict[str, list[Entry]] = {}
    for entry in members:
        if entry.id in previous:
            later.setdefault(previous[entry.id], []).append(entry)
    ordered: list[Entry] = []
    placed: set[str] = set()

    def place(entry: Entry) -> None:
        if entry.id in placed:
            return
        placed.add(entry.id)
        ordered.append(entry)
        for nxt in later.get(entry.id, ()):
            place(nxt)

    for entry in members:
        if entry.id not in previous or not _reaches_root(entry.id, previous):
            place(entry)
    for entry in members:  # what a cycle left out, in file order
        place(entry)
    return ordered


def _reaches_root(entry_id: str, previous: Mapping[str, str]) -> bool:
    seen = {entry_id}
    current = entry_id
    while current in previous:
        current = previous[current]
        if current in seen:
            return False
        seen.add(current)
    return True


def _names(entry: Entry, task: str) -> bool:
    return (
        task in entry.tasks
        or task in entry.red_herring_for
        or any(task in link.tasks for link in (*entry.supersedes, *entry.superseded_by))
    )


def superseded_for(entry: Entry, task: str, by_id: Mapping[str, Entry]) -> Iterable[Entry]:
    """The entries that say they supersede ``entry`` for ``task``, as its marks name them."""
    for link in entry.superseded_by:
        if link.covers(task) and link.target in by_id:
            yield by_id[link.target]
