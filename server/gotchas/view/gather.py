"""Reading what the page shows: the record, the task histories, the stored proposals with
their holds now, when the corrected tasks landed, the findings, and where the record lives
on its hosting service. Reads only, through the same confined readers and the same safe git
runner as every other command; the model (:mod:`gotchas.view.model`) is built from it.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol, cast

from gotchas import journal
from gotchas.errors import GotchasError
from gotchas.record import Record
from gotchas.results import HistoryResult, HoldView, ProposalSummary
from gotchas.view import model
from gotchas.view.hosting import Hosting, blob_id, hosting
from gotchas.workspace import Workspace, git_top_level

if TYPE_CHECKING:
    from gotchas.proposal import Proposal

MAX_TIMELINES = 200
"""Tasks given a timeline at most (each is one ``history``); the page says when there are more."""
MAX_LANDING_CHECKS = 25
"""Tasks whose landing is asked of the hold sources when the journal does not say it."""
GIT_TIMEOUT = 30.0


class _Finding(Protocol):
    def to_view(self) -> Mapping[str, object]: ...


class _Report(Protocol):
    findings: Sequence[_Finding]
    notices: Sequence[str]


class RunCheck(Protocol):
    """What the page asks of ``gotchas check``: its report for the workspace's record."""

    def __call__(self, ws: Workspace, *, ask_sources: bool = ...) -> _Report: ...


def gather(ws: Workspace, *, record: str | None = None, holds: bool = True) -> model.Page:
    """The page's model for the workspace's record. ``holds`` off: no hold is evaluated (no
    git log, no tracker asked), so proposals show their hold without its state now."""
    path = ws.record_path(record)
    name = ws.name(path)
    parsed = ws.load(path)
    notices: list[str] = []
    if parsed.notice:
        notices.append(parsed.notice)
    proposals, diffs = _proposals(ws, name, holds, notices)
    tasks = model.corrected_tasks(parsed)
    tasks += [
        p["task"] for p in proposals if p["task"] and p["status"] == "pending" and p["task"] not in tasks
    ]
    if len(tasks) > MAX_TIMELINES:
        notices.append(
            f"{len(tasks)} tasks have corrections; the first {MAX_TIMELINES} have a timeline here "
            "(`gotchas history TASK` tells any task's)"
        )
        tasks = tasks[:MAX_TIMELINES]
    histories = _histories(ws, name, tasks)
    landings = _landings(ws, [h["task"] for h in histories if h["entries"]], proposals, holds)
    site = _hosting(ws, name, parsed)
    hrefs = {e.id: site.line_href(*e.lines) for e in parsed.entries} if site else {}
    return model.build(
        parsed,
        record=name,
        generated_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        histories=histories,
        landings=landings,
        proposals=proposals,
        diffs=diffs,
        findings=_findings(ws, holds, notices),
        line_href=hrefs,
        file_href=site.file_href if site else None,
        notices=notices,
        mentions=_mentions(parsed),
    )


def _mentions(parsed: Record) -> dict[str, tuple[str, ...]]:
    """Tasks named in the text of lessons without a ``tasks:`` field, as ``list --task`` finds them."""
    return {e.id: found for e in parsed.without_tasks if (found := parsed.mentions(e))}


def _proposals(
    ws: Workspace, record: str, holds: bool, notices: list[str]
) -> tuple[list[ProposalSummary], dict[str, str]]:
    """The stored proposals for this record with their status (and hold now), and their diffs."""
    if not ws.proposals_dir.is_dir():
        return [], {}
    from gotchas import pending, proposal

    stored = [p for p in pending.ordered(ws) if p.record == record]
    if not stored:
        return [], {}
    if holds:
        summaries = [s for s in pending.assess(ws) if s["record"] == record]
    else:
        summaries = [_unevaluated(p) for p in stored]
    notices += [f"left out: {problem}" for problem in proposal.unreadable(ws.proposals_dir)]
    return summaries, {p.id: p.diff for p in stored}


def _unevaluated(p: Proposal) -> ProposalSummary:
    from gotchas.pending import summary_of

    return summary_of(p, reason="holds were not evaluated (--no-holds)" if p.hold else "no hold")


def _histories(ws: Workspace, record: str, tasks: Sequence[str]) -> list[HistoryResult]:
    if not tasks:
        return []
    from gotchas.history import history

    return [history(ws, task=task, record=record) for task in tasks]


def _landings(
    ws: Workspace, tasks: Sequence[str], proposals: Sequence[ProposalSummary], holds: bool
) -> dict[str, model.Landing]:
    """When each task landed: from the holds the journal recorded at apply, from the holds of
    the stored proposals evaluated now, else (for a few tasks) from the hold sources."""
    found: dict[str, model.Landing] = {}
    if not tasks:
        return found
    answers: list[object] = [event.get("hold") for event in journal.read(ws.journal_path)]
    answers += [p["hold_state"] for p in proposals if p["hold_state"]]
    for answer in answers:
        for task in tasks:
            if task not in found and (landing := _landing(task, answer)) is not None:
                found[task] = landing
    if not holds:
        return found
    from gotchas.holding import check_hold
    from gotchas.holds.predicate import Predicate

    for task in [t for t in tasks if t not in found][:MAX_LANDING_CHECKS]:
        try:
            answer = check_hold(ws, predicate=Predicate(task, "lands").text).to_view()
        except GotchasError:
            continue
        if (landing := _landing(task, answer)) is not None:
            found[task] = landing
    return found


def _landing(task: str, answer: object) -> model.Landing | None:
    """The landing a hold's answer reports; a journal line is hostile, so a damaged one says nothing."""
    if not isinstance(answer, Mapping):
        return None
    try:
        return model.landing_of(task, cast(HoldView, answer))
    except (KeyError, TypeError, AttributeError):
        return None


def _hosting(ws: Workspace, record: str, parsed: Record) -> Hosting | None:
    """The record on its hosting service at HEAD, when ``origin`` is a known host and HEAD
    holds exactly these bytes (otherwise its line numbers would point elsewhere)."""
    if git_top_level(ws.root) is None:
        return None
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import Git

    git = Git(ws.root, timeout=GIT_TIMEOUT)
    try:
        remote = git.settings().get("remote.origin.url")
        if not remote:
            return None
        # every argument starts with a word of ours, so none can be read as an option
        done = git.run("rev-parse", "--show-prefix", "HEAD", f"HEAD:./{record}", check=False)
    except SourceFailed:
        return None
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != 3:
        return None
    prefix, commit, blob = (line.strip() for line in lines)
    if blob != blob_id(parsed.data, len(blob)):
        return None
    return hosting(remote, commit, f"{prefix}{record}")


def _findings(ws: Workspace, holds: bool, notices: list[str]) -> tuple[model.Finding, ...] | None:
    """The findings of ``gotchas check`` (its ``gotchas.check.command.run_check``) where this
    version has it; ``None`` where it has not, so the page says it did not check."""
    if importlib.util.find_spec("gotchas.check") is None:
        return None
    try:
        module = importlib.import_module("gotchas.check.command")
    except ImportError:
        return None
    run = cast("RunCheck | None", getattr(module, "run_check", None))
    if run is None:
        return None
    try:
        report = run(ws, ask_sources=holds)
    except GotchasError as exc:
        notices.append(f"findings: {exc.message}")
        return ()
    notices += [f"check: {notice}" for notice in report.notices]
    return model.findings_of(f.to_view() for f in report.findings)
