"""What the page shows, as typed values built from a parsed record and what was read beside it.

Pure: the record, the task histories (:mod:`gotchas.history`), the stored proposals with
their holds now, the landings and the findings are all passed in; nothing here reads a
file or runs a program. The page is then a rendering of one :class:`Page`.

A correction is written on both sides of the record, and the page draws it both ways: the
old lesson's card says which lesson replaced it for which task (its text struck through
for that task, still active for the others it serves), the new lesson's card which lesson
it replaced and for which task.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gotchas.record import Entry, Record
from gotchas.results import HistoryResult, HoldView, ProposalSummary

SUPERSEDED_STATUSES = frozenset(("superseded", "red-herring"))
SHOWN_PROPOSALS = ("pending", "conflicting")
_LINK_FIELDS = frozenset(("tasks", "root-cause", "supersedes", "superseded-by", "red-herring-for", "id"))
_NOTE_FIELDS = ("diagnostic", "ruled-out", "evidence")
MAX_NOTE = 2000


@dataclass(frozen=True, slots=True)
class LinkRef:
    """One end of a supersede link: the other lesson, by id, and the tasks the link is for
    (empty: every task). ``title`` is ``None`` when no lesson of the record has that id."""

    id: str
    title: str | None
    tasks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Card:
    """One lesson, as its card shows it."""

    id: str
    title: str
    status: str  # as the record says it: active, red-herring, superseded, fixed, ...
    root_cause: str | None
    tasks: tuple[str, ...]  # its ``tasks:``, else the tasks its text mentions
    mentioned: bool  # the tasks are mentions, not a ``tasks:`` field
    section: str | None
    lines: tuple[int, int]
    body: str  # Markdown: the entry without its heading and field lines
    notes: tuple[tuple[str, str], ...]  # diagnostic, ruled-out, evidence
    supersedes: tuple[LinkRef, ...]  # the lessons it replaced
    superseded_by: tuple[LinkRef, ...]  # the lessons that replaced it
    struck_for: tuple[str, ...]  # tasks it is a red herring for: its text is struck through there
    active_for: tuple[str, ...]  # tasks it still serves
    filter_tasks: tuple[str, ...]  # every task the card is found by

    @property
    def struck_everywhere(self) -> bool:
        """A red herring for every task it names: its text is struck through wherever it shows."""
        return bool(self.struck_for) and not self.active_for


@dataclass(frozen=True, slots=True)
class Replacement:
    """What replaced a hypothesis, and when: from the journal, from git, or not known."""

    id: str
    title: str | None
    at: str | None
    by: str | None
    source: str | None
    proposal_id: str | None
    commit: str | None


@dataclass(frozen=True, slots=True)
class Step:
    """One hypothesis recorded for a task, in the order the corrections give."""

    id: str
    title: str
    state: str  # superseded, confirmed, suspected, none
    red_herring: bool
    lines: tuple[int, int]
    ruled_out: tuple[str, ...]
    diagnostic: str | None
    replaced_by: tuple[Replacement, ...]


@dataclass(frozen=True, slots=True)
class Landing:
    """When a task landed and who says so (a commit, the ledger)."""

    task: str
    at: str | None
    source: str
    commit: str | None
    subject: str | None


@dataclass(frozen=True, slots=True)
class Timeline:
    task: str
    steps: tuple[Step, ...]
    current: str | None
    landing: Landing | None
    waiting: tuple[str, ...]  # ids of pending proposals for the task


@dataclass(frozen=True, slots=True)
class TaskHold:
    task: str
    state: str | None
    source: str | None
    evidence: tuple[tuple[tuple[str, str], ...], ...]  # each item's keys and values, as text


@dataclass(frozen=True, slots=True)
class Hold:
    predicate: str
    state: str
    checked_at: str
    tasks: tuple[TaskHold, ...]


@dataclass(frozen=True, slots=True)
class Pending:
    """A stored proposal not yet in the record, with its diff and its hold now."""

    id: str
    kind: str
    status: str
    reason: str
    title: str
    target_id: str | None
    task: str | None
    new_id: str
    created_at: str
    diff: str | None
    hold: str | None
    hold_now: Hold | None


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding of ``gotchas check``: what it is, where, and the evidence for it."""

    code: str
    severity: str
    entry: str | None
    line: int | None
    message: str
    evidence: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Summary:
    lessons: int
    active: int
    superseded: int
    pending: int
    findings: int | None  # None: no check ran (not available here)


@dataclass(frozen=True, slots=True)
class Page:
    record: str
    record_sha256: str
    generated_at: str
    summary: Summary
    cards: tuple[Card, ...]
    timelines: tuple[Timeline, ...]
    pending: tuple[Pending, ...]
    findings: tuple[Finding, ...]
    statuses: tuple[tuple[str, int], ...]  # every status shown, with how many lessons have it
    tasks: tuple[str, ...]  # every task a card is found by, sorted
    file_href: str | None
    line_hrefs: Mapping[str, str]  # card id -> link to its lines on the hosting service
    notices: tuple[str, ...]


def build(
    parsed: Record,
    *,
    record: str,
    generated_at: str,
    histories: Sequence[HistoryResult] = (),
    landings: Mapping[str, Landing] | None = None,
    proposals: Sequence[ProposalSummary] = (),
    diffs: Mapping[str, str] | None = None,
    findings: Sequence[Finding] | None = None,
    line_href: Mapping[str, str] | None = None,
    file_href: str | None = None,
    notices: Sequence[str] = (),
    mentions: Mapping[str, tuple[str, ...]] | None = None,
) -> Page:
    """The page for ``parsed``; ``mentions`` gives task-less entries the tasks their text names."""
    entries = parsed.entries
    titles: dict[str, str] = {}
    for entry in entries:
        titles.setdefault(entry.id, entry.title)
    cards = tuple(_card(parsed, e, titles, (mentions or {}).get(e.id, ())) for e in entries)
    shown = tuple(
        _pending(p, (diffs or {}).get(p["proposal_id"])) for p in proposals if p["status"] in SHOWN_PROPOSALS
    )
    waiting: dict[str, list[str]] = {}
    for p in shown:
        if p.task:
            waiting.setdefault(p.task, []).append(p.id)
    timelines = tuple(
        _timeline(h, titles, (landings or {}).get(h["task"]), waiting.get(h["task"], ())) for h in histories
    )
    statuses: dict[str, int] = {}
    for card in cards:
        statuses[card.status] = statuses.get(card.status, 0) + 1
    superseded = sum(n for s, n in statuses.items() if s in SUPERSEDED_STATUSES)
    summary = Summary(
        lessons=len(cards),
        active=statuses.get("active", 0),
        superseded=superseded,
        pending=sum(p.status == "pending" for p in shown),
        findings=None if findings is None else len(findings),
    )
    tasks = sorted({t for card in cards for t in card.filter_tasks}, key=_task_order)
    return Page(
        record=record,
        record_sha256=parsed.sha256,
        generated_at=generated_at,
        summary=summary,
        cards=cards,
        timelines=timelines,
        pending=shown,
        findings=tuple(findings or ()),
        statuses=tuple(sorted(statuses.items(), key=lambda item: (-item[1], item[0]))),
        tasks=tuple(tasks),
        file_href=file_href,
        line_hrefs=dict(line_href or {}),
        notices=tuple(notices),
    )


def corrected_tasks(parsed: Record) -> list[str]:
    """The tasks whose root cause was corrected at least once: they get a timeline."""
    found: dict[str, None] = {}
    for entry in parsed.entries:
        for task in entry.red_herring_for:
            found.setdefault(task)
        for ln in (*entry.supersedes, *entry.superseded_by):
            for task in ln.tasks:
                found.setdefault(task)
    return sorted(found, key=_task_order)


def _task_order(task: str) -> tuple[str, int, str]:
    head, _, number = task.rpartition("#")
    if number.isdigit():
        return (head, int(number), "")
    return (task, 0, task)


def _card(parsed: Record, entry: Entry, titles: Mapping[str, str], mentioned: tuple[str, ...]) -> Card:
    struck = entry.red_herring_for
    tasks = entry.tasks or mentioned
    linked = [t for ln in (*entry.supersedes, *entry.superseded_by) for t in ln.tasks]
    return Card(
        id=entry.id,
        title=entry.title,
        status=entry.status,
        root_cause=entry.root_cause,
        tasks=tasks,
        mentioned=not entry.tasks and bool(mentioned),
        section=entry.section,
        lines=entry.lines,
        body=body(parsed, entry),
        notes=tuple(
            (f.key, f.value[:MAX_NOTE]) for key in _NOTE_FIELDS for f in entry.fields if f.key == key
        ),
        supersedes=tuple(LinkRef(ln.target, titles.get(ln.target), ln.tasks) for ln in entry.supersedes),
        superseded_by=tuple(
            LinkRef(ln.target, titles.get(ln.target), ln.tasks) for ln in entry.superseded_by
        ),
        struck_for=struck,
        active_for=tuple(t for t in tasks if t not in struck),
        filter_tasks=tuple(dict.fromkeys((*tasks, *struck, *linked))),
    )


def body(parsed: Record, entry: Entry) -> str:
    """The entry's Markdown without what the card shows apart: the heading line, and the
    field lines (``tasks: … · root-cause: …``) shown as badges and links."""
    text = parsed.text(entry)
    lines = text.splitlines(keepends=True)
    skip = {f.line - entry.start_line for f in entry.fields} if entry.kind != "row" else set()
    if entry.kind == "heading":
        skip.add(0)
    if not skip:
        return text
    return "".join(line for n, line in enumerate(lines) if n not in skip)


def _timeline(
    history: HistoryResult, titles: Mapping[str, str], landing: Landing | None, waiting: Iterable[str]
) -> Timeline:
    steps = tuple(
        Step(
            id=e["id"],
            title=e["title"],
            state=e["root_cause"],
            red_herring=e["red_herring"],
            lines=(e["lines"][0], e["lines"][1]),
            ruled_out=tuple(e["ruled_out"]),
            diagnostic=e["diagnostic"],
            replaced_by=tuple(
                Replacement(
                    id=s["id"],
                    title=titles.get(s["id"]),
                    at=s["at"],
                    by=s["by"],
                    source=s["source"],
                    proposal_id=s["proposal_id"],
                    commit=s["commit"],
                )
                for s in e["superseded_by"]
            ),
        )
        for e in history["entries"]
    )
    return Timeline(history["task"], steps, history["current"], landing, tuple(waiting))


def _pending(summary: ProposalSummary, diff: str | None) -> Pending:
    return Pending(
        id=summary["proposal_id"],
        kind=summary["kind"],
        status=summary["status"],
        reason=summary["reason"],
        title=summary["title"],
        target_id=summary["target_id"],
        task=summary["task"],
        new_id=summary["new_id"],
        created_at=summary["created_at"],
        diff=diff,
        hold=summary["hold"],
        hold_now=hold_of(summary["hold_state"]),
    )


def hold_of(view: HoldView | None) -> Hold | None:
    if view is None:
        return None
    return Hold(
        predicate=view["predicate"],
        state=view["state"],
        checked_at=view["checked_at"],
        tasks=tuple(
            TaskHold(
                task=t["task"],
                state=t["state"],
                source=t["source"],
                evidence=tuple(_pairs(item) for item in t["evidence"]),
            )
            for t in view["tasks"]
        ),
    )


def _pairs(item: Mapping[str, object]) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), _text(v)) for k, v in item.items())


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return ", ".join(f"{k}={_text(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return "; ".join(_text(v) for v in value)
    return str(value)


def landing_of(task: str, hold: HoldView | None) -> Landing | None:
    """When ``task`` landed, from a hold's answer for it: the commit that closed it, or the
    ledger line that recorded it."""
    if hold is None:
        return None
    for verdict in hold["tasks"]:
        if verdict["task"] != task or verdict["state"] != "landed":
            continue
        for item in verdict["evidence"]:
            if item.get("source") == verdict["source"] and ("commit" in item or "at" in item):
                return Landing(
                    task=task,
                    at=_optional(item.get("date") or item.get("at") or item.get("merged_at")),
                    source=str(verdict["source"]),
                    commit=_optional(item.get("commit")),
                    subject=_optional(item.get("subject") or item.get("title")),
                )
        return Landing(task, verdict["observed_at"], str(verdict["source"]), None, None)
    return None


def _optional(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


def findings_of(views: Iterable[Mapping[str, object]]) -> tuple[Finding, ...]:
    """Findings from ``gotchas check``'s views (``code``, ``severity``, ``entry``, ``line``,
    ``message``, ``evidence``): the typed slot the page fills."""
    out = []
    for view in views:
        line = view.get("line")
        evidence = view.get("evidence")
        out.append(
            Finding(
                code=str(view.get("code") or "finding"),
                severity=str(view.get("severity") or "warning"),
                entry=_optional(view.get("entry")),
                line=line if isinstance(line, int) else None,
                message=str(view.get("message") or ""),
                evidence=_pairs(evidence) if isinstance(evidence, Mapping) else (),
            )
        )
    return tuple(out)
