"""The shapes of what the tools and commands return.

Plain TypedDicts with no dependencies of their own, so the server can declare its output
schemas at start-up without importing the record model.
"""

from __future__ import annotations

from typing import Literal, NotRequired

from typing_extensions import TypedDict


class LinkView(TypedDict):
    """A supersede link: the entry it points to and the tasks it is scoped to (empty: all)."""

    id: str
    tasks: list[str]


class EntrySummary(TypedDict):
    """One entry in a listing, as small as it can be: an agent scans hundreds of these.

    Keys are left out when empty. ``title`` is given when the id is not its slug (an explicit
    ``id:``), or when asked for with ``verbose``; so is ``section``, the group it sits in.
    """

    id: str
    lines: list[int]
    title: NotRequired[str]
    section: NotRequired[str]
    tasks: NotRequired[list[str]]
    root_cause: NotRequired[str]
    status: NotRequired[str]
    supersedes: NotRequired[list[LinkView]]
    superseded_by: NotRequired[list[LinkView]]
    red_herring_for: NotRequired[list[str]]
    mentions: NotRequired[list[str]]


class FieldView(TypedDict):
    key: str
    value: str
    line: int


class EntryDetail(TypedDict):
    """One entry in full: every parsed field, its exact place and hash, and its text."""

    id: str
    title: str
    kind: str
    section: str | None
    lines: list[int]
    byte_range: list[int]
    sha256: str
    tasks: list[str]
    mentions: list[str]
    root_cause: str | None
    status: str
    status_text: str | None
    status_date: str | None
    supersedes: list[LinkView]
    superseded_by: list[LinkView]
    red_herring_for: list[str]
    diagnostic: str | None
    fields: list[FieldView]
    text: str


class ListResult(TypedDict):
    entries: list[EntrySummary]
    total: int
    next_cursor: str | None
    record: str
    record_sha256: str
    notice: NotRequired[str]  # why nothing is listed: the file holds no lessons structure


class ProblemView(TypedDict):
    code: str
    severity: str
    entry: str | None
    line: int | None
    message: str
    column: NotRequired[int]  # 1-based, on ``line``: where the field at fault is written


class VerifyResult(TypedDict):
    ok: bool
    record: str
    record_sha256: str
    entries: int
    problems: list[ProblemView]


class TaskVerdictView(TypedDict):
    """Where one task stands, which source said so, and everything the sources reported."""

    task: str
    state: str | None
    source: str | None
    evidence: list[dict[str, object]]
    observed_at: str | None


class HoldView(TypedDict):
    """A hold's answer: ``released`` is the only state that lets an apply write."""

    predicate: str
    state: Literal["held", "released", "unsatisfiable", "unknown"]
    tasks: list[TaskVerdictView]
    checked_at: str
    release: NotRequired[list[str]]  # what would release it: one way per source, when not released


class EditCheckView(TypedDict):
    """An edit checked against what it was meant to do."""

    ok: bool
    entries_before: int
    entries_after: int
    unchanged_entries: int
    target: str | None
    new_entry: str
    problems: list[str]


class AppliedCheckView(EditCheckView):
    """The bytes read back after an apply: the edit's checks, plus the links it touches."""

    link_problems: list[ProblemView]


class RecordedCheckView(TypedDict):
    """A supersede already in the record: its successor and whether the links verify."""

    ok: bool
    successor: str
    successor_lines: list[int]
    diagnostic: str | None
    target_marked_for: list[str]
    problems: list[ProblemView]


class ProposalResult(TypedDict):
    """``proposed``: review ``diff``, then apply ``proposal_id``; ``already-recorded``: nothing to do."""

    status: Literal["proposed", "already-recorded"]
    proposal_id: str | None
    record: str
    diff: str
    base_sha256: str
    target_sha256: str | None
    new_id: str | None
    hold: HoldView | None
    checks: EditCheckView | RecordedCheckView
    next_step: str


class ApplyResult(TypedDict):
    status: Literal["applied", "already-applied", "refused"]
    reason: str
    proposal_id: str
    record: str
    rebased: bool
    before_sha256: str
    after_sha256: str
    hold: HoldView | None
    verification: AppliedCheckView | None
    code: NotRequired[str]
    warnings: NotRequired[list[str]]
    commit: NotRequired[str]


class WithdrawalView(TypedDict):
    """Who withdrew a proposal, when and why (from the journal)."""

    at: str
    by: str
    why: str | None


class ProposalSummary(TypedDict):
    """A stored proposal and where it stands now: ``status`` is read from the current record
    (pending, applied, superseded by a newer proposal for the same entry and task, or
    conflicting with the record), ``hold_state`` is its hold evaluated now, with evidence."""

    proposal_id: str
    kind: str
    record: str
    target_id: str | None
    task: str | None
    new_id: str
    title: str
    hold: str | None
    created_at: str
    status: Literal["pending", "applied", "superseded", "conflicting", "withdrawn"]
    reason: str
    hold_state: HoldView | None
    superseded_by: NotRequired[str]
    code: NotRequired[str]
    withdrawn: NotRequired[WithdrawalView]


class WithdrawResult(TypedDict):
    """``withdrawn`` now, or ``already-withdrawn`` (nothing written): either way it is never applied."""

    status: Literal["withdrawn", "already-withdrawn"]
    proposal_id: str
    withdrawn: WithdrawalView
    next_step: str


class ProposalRefusal(TypedDict):
    """A stored proposal refused before any apply: a file that cannot be read, is damaged,
    forged or of an unknown kind, or a proposal in conflict with the record. ``proposal_id``
    is the file's name when the file cannot be trusted to say it."""

    proposal_id: str
    status: Literal["refused"]
    reason: str
    code: str


class ReleasedResult(TypedDict):
    """``apply --released``: what was applied, what stays held, what was refused (each alone,
    the others still applied), and what was already applied or superseded."""

    applied: list[ApplyResult]
    held: list[ProposalSummary]
    refused: list[ApplyResult | ProposalRefusal]
    skipped: list[ProposalSummary]
    commit: NotRequired[str]


class SupersededView(TypedDict):
    """What superseded a hypothesis, and when: from the journal, from git, or not known."""

    id: str
    at: str | None
    by: str | None
    source: Literal["journal", "git"] | None
    proposal_id: str | None
    commit: str | None


class MarkView(TypedDict):
    """A retire or re-check mark on a lesson: what it says, and when it was applied here."""

    kind: Literal["retire", "recheck"]
    why: str
    evidence: str | None
    at: str | None
    proposal_id: str | None


class HistoryEntry(TypedDict):
    """One hypothesis for the task. ``root_cause`` is its standing for the task now:
    ``superseded`` once a later entry replaced it, else as written (``written_root_cause``)."""

    id: str
    title: str
    lines: list[int]
    tasks: list[str]
    root_cause: str
    written_root_cause: str | None
    red_herring: bool
    supersedes: list[str]
    superseded_by: list[SupersededView]
    ruled_out: list[str]
    diagnostic: str | None
    marks: NotRequired[list[MarkView]]


class HistoryResult(TypedDict):
    """The chain of hypotheses recorded for a task, oldest first; ``current`` is the one standing."""

    task: str
    record: str
    entries: list[HistoryEntry]
    current: str | None


class LedgerLineView(TypedDict):
    """One line of the task ledger, as ``gotchas task`` prints it with ``--json``."""

    task: str
    state: str
    at: str
    by: str
    line: int
