"""Where a task's state comes from: the ledger, git, GitHub and any tracker through a command.

Every source answers the same question — what state is this task in, and how do you
know — as an :class:`Observation`. A source that cannot answer raises
:class:`SourceFailed`; the hold logic turns that into evidence, never into a release.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal, Protocol

from gotchas.errors import SourceError

TaskState = Literal["open", "running", "landed", "abandoned", "cancelled", "failed"]
TASK_STATES: tuple[TaskState, ...] = (
    "open",
    "running",
    "landed",
    "abandoned",
    "cancelled",
    "failed",
)
TERMINAL_STATES: frozenset[TaskState] = frozenset({"landed", "abandoned", "cancelled", "failed"})

Evidence = dict[str, object]


@dataclass(frozen=True)
class Observation:
    """What one source said about one task; ``state`` is None when it does not know the task."""

    source: str
    state: TaskState | None
    evidence: list[Evidence]
    observed_at: str
    error: str | None = None


class SourceFailed(SourceError):
    """A source could not answer; ``details`` are extra JSON fields for the evidence entry."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.details: dict[str, object] = details


class Source(Protocol):
    """One place task state comes from; its row in :mod:`gotchas.holds.registry` says the rest."""

    @property
    def name(self) -> str: ...

    def observe(self, task: str) -> Observation: ...


def utc_now() -> str:
    """ISO-8601 UTC to the second, with a ``Z``: the one timestamp format of every answer."""
    return format_utc(datetime.now(UTC))


def format_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_state(raw: object) -> TaskState | None:
    """The task state named by ``raw`` (case-insensitive), or None when it names none."""
    if not isinstance(raw, str):
        return None
    wanted = raw.strip().lower()
    for state in TASK_STATES:
        if state == wanted:
            return state
    return None
