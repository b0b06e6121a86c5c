"""What would release a hold: the concrete ways, per configured source, for each task it waits on.

A held or unknown answer that stops there is a dead end; each source's row in
:mod:`gotchas.holds.registry` says what makes that source report a task done (a commit
that closes it, a ledger line, a closed issue), so the answer can end with the ways out.
Pure: the answer and the settings in, sentences out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gotchas.holds import registry
from gotchas.holds.decision import HoldAnswer, outcome_for
from gotchas.holds.predicate import Predicate

if TYPE_CHECKING:
    from gotchas.holds.settings import HoldsConfig


def hints(predicates: Sequence[Predicate], answer: HoldAnswer, holds: HoldsConfig) -> tuple[str, ...]:
    """Every way to release what still holds ``answer``: for each task not yet where its
    predicate wants it, each configured source's hint, then those of sources not configured
    that could be (GitHub, for a GitHub issue). Empty when released or unsatisfiable: nothing
    releases a task that can no longer land."""
    if answer.state in ("released", "unsatisfiable"):
        return ()
    verdicts = {task.task: task for task in answer.tasks}
    found: list[str] = []
    for predicate in predicates:
        verdict = verdicts.get(predicate.task)
        state = verdict.state if verdict else None
        cautioned = verdict is not None and any(
            e.get("source") == "hold" and e.get("predicate") == predicate.text for e in verdict.evidence
        )
        if outcome_for(predicate.kind, state) == "released" and not cautioned:
            continue
        evidence = verdict.evidence if verdict else []
        for name in (*holds.sources, *(n for n in registry.NAMES if n not in holds.sources)):
            ask = registry.ReleaseAsk(
                task=predicate.task,
                kind=predicate.kind,
                holds=holds,
                configured=name in holds.sources,
                evidence=[e for e in evidence if e.get("source") == name],
            )
            hint = registry.spec(name).release(ask)
            if hint and hint not in found:
                found.append(hint)
    return tuple(found)
