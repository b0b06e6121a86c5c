"""Edits spread over a record, for tests that compare a parse made near an edit with a full one."""

from __future__ import annotations

from collections.abc import Iterator

from gotchas import edit
from gotchas.record import Record

LESSON = edit.lesson(
    "The real cause",
    body="It was the cache.",
    tasks=["#7"],
    root_cause="confirmed",
    diagnostic="the log says so",
)


def supersedes(before: Record, count: int) -> Iterator[bytes]:
    """The planned bytes of a supersede of about ``count`` entries spread over ``before``; a
    target the planner refuses is left out."""
    for target in before.entries[:: max(1, len(before.entries) // count)]:
        try:
            plan = edit.plan_supersede(before, target=target, task="#7", new=LESSON)
        except Exception:  # a target the planner refuses
            continue
        yield plan.data
