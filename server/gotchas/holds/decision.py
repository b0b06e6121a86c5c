"""The pure half of a hold: observations in, an answer out. No I/O, no clock.

Two rules keep a hold from releasing too early:

* When sources disagree, the strongest evidence wins — a landing observed in git,
  GitHub or the tracker beats any other answer; any other terminal state they observe
  beats the ledger; a terminal state beats one still in progress; between equals, the
  source listed first in ``[holds] sources`` wins. The answer says who was overruled.
  Which sources observe the system of record is their row in :mod:`gotchas.holds.registry`.
* A source that failed is evidence too: if what it might have said could change the
  outcome, the hold is ``unknown`` instead — never ``released``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gotchas.holds import registry
from gotchas.holds.predicate import Predicate, PredicateKind
from gotchas.holds.sources import TERMINAL_STATES, Evidence, Observation, TaskState

if TYPE_CHECKING:  # views are plain dicts at run time; check-hold need not load typing_extensions
    from gotchas.results import HoldView, TaskVerdictView

HoldState = Literal["held", "released", "unsatisfiable", "unknown"]

EXIT_CODES: dict[str, int] = {"released": 0, "held": 3, "unsatisfiable": 4, "unknown": 5}

_RULES = {
    3: "a landing observed in git, GitHub or the tracker outranks every other answer",
    2: "a terminal state observed in GitHub or the tracker outranks the ledger and open work",
    1: "a terminal state outranks an unfinished one: tasks only move forward",
    0: "equal evidence: the source listed first in [holds] sources wins",
}


@dataclass(frozen=True)
class TaskVerdict:
    """Where one task stands, which source said so, and everything the sources reported."""

    task: str
    state: str | None
    source: str | None
    evidence: list[Evidence]
    observed_at: str | None

    def to_view(self) -> TaskVerdictView:
        return {
            "task": self.task,
            "state": self.state,
            "source": self.source,
            "evidence": list(self.evidence),
            "observed_at": self.observed_at,
        }


@dataclass(frozen=True)
class HoldAnswer:
    predicate: str
    state: HoldState
    tasks: list[TaskVerdict]
    checked_at: str
    release: tuple[str, ...] = ()  # what would release it, per source (:mod:`gotchas.holds.release`)

    def to_view(self) -> HoldView:
        """The answer as the tools and commands return it."""
        return {
            "predicate": self.predicate,
            "state": self.state,
            "tasks": [task.to_view() for task in self.tasks],
            "checked_at": self.checked_at,
            "release": list(self.release),
        }

    @property
    def ways_out(self) -> str:
        """The ways to release it, in one clause ("" when there are none)."""
        return ("to release it: " + "; or ".join(self.release)) if self.release else ""

    @property
    def reason(self) -> str:
        """Where each task stands and who says so, in one line."""
        parts = [
            f"{task.task} is {task.state or 'unknown'} (source: {task.source or 'none'})"
            for task in self.tasks
        ]
        return "; ".join(parts) or "no source knows the task"


def evaluate(
    predicates: list[Predicate],
    observations: dict[str, list[Observation]],
    checked_at: str,
    can_report: dict[str, frozenset[TaskState]] | None = None,
) -> HoldAnswer:
    """Combine observations (per task, in source order) into the answer for ``predicates``."""
    reportable = can_report if can_report is not None else registry.can_report()
    verdicts: dict[str, TaskVerdict] = {}
    outcomes: list[HoldState] = []
    for predicate in predicates:
        seen = observations.get(predicate.task, [])
        verdict = verdicts.get(predicate.task) or decide_task(predicate.task, seen)
        outcome, caution = predicate_outcome(predicate, verdict, seen, reportable)
        if caution is not None and caution not in verdict.evidence:
            verdict = TaskVerdict(
                verdict.task,
                verdict.state,
                verdict.source,
                [*verdict.evidence, caution],
                verdict.observed_at,
            )
        verdicts[predicate.task] = verdict
        outcomes.append(outcome)
    return HoldAnswer(
        predicate="+".join(p.text for p in predicates),
        state=combine(outcomes),
        tasks=list(verdicts.values()),
        checked_at=checked_at,
    )


def combine(outcomes: list[HoldState]) -> HoldState:
    """All must hold: released only if every part is; one unsatisfiable part sinks the rest."""
    if "unsatisfiable" in outcomes:
        return "unsatisfiable"
    if "held" in outcomes:
        return "held"
    if outcomes and all(outcome == "released" for outcome in outcomes):
        return "released"
    return "unknown"


def outcome_for(kind: PredicateKind, state: str | None) -> HoldState:
    """What a task state means for one predicate, ignoring how sure we are of the state."""
    if state is None:
        return "unknown"
    if kind == "terminal":
        return "released" if state in TERMINAL_STATES else "held"
    if state == "landed":
        return "released"
    return "unsatisfiable" if state in TERMINAL_STATES else "held"


def strength(observation: Observation) -> int:
    """How much an observation's state is to be trusted against another's (see module doc)."""
    state = observation.state
    if state is None or state not in TERMINAL_STATES:
        return 0
    if registry.observes(observation.source):
        return 3 if state == "landed" else 2
    return 1


def decide_task(task: str, observations: list[Observation]) -> TaskVerdict:
    """The task's state by the strongest evidence, with every source's evidence kept."""
    knowing = [(index, o) for index, o in enumerate(observations) if o.state is not None]
    if not knowing:
        evidence = [entry for o in observations for entry in o.evidence]
        return TaskVerdict(task, None, None, evidence, None)
    _, winner = max(knowing, key=lambda pair: (strength(pair[1]), -pair[0]))
    evidence = list(winner.evidence)
    overruled = [{"source": o.source, "state": o.state} for _, o in knowing if o.state != winner.state]
    if overruled:
        tier = strength(winner)
        ties = any(strength(o) == tier for _, o in knowing if o.state != winner.state)
        evidence.append(
            {
                "source": "precedence",
                "chosen": winner.source,
                "state": winner.state,
                "overruled": overruled,
                "rule": _RULES[0] if ties else _RULES[tier],
            }
        )
    evidence.extend(entry for o in observations if o is not winner for entry in o.evidence)
    return TaskVerdict(task, winner.state, winner.source, evidence, winner.observed_at)


def predicate_outcome(
    predicate: Predicate,
    verdict: TaskVerdict,
    observations: list[Observation],
    can_report: dict[str, frozenset[TaskState]],
) -> tuple[HoldState, Evidence | None]:
    """The predicate's outcome, downgraded to unknown when a failed source could change it."""
    outcome = outcome_for(predicate.kind, verdict.state)
    if outcome == "unknown":
        return outcome, None
    order = [o.source for o in observations]
    winner_index = order.index(verdict.source) if verdict.source in order else len(order)
    winner_strength = strength(observations[winner_index]) if winner_index < len(order) else -1
    for index, failed in enumerate(observations):
        if failed.error is None:
            continue
        for possible in sorted(can_report.get(failed.source, frozenset())):
            rival = Observation(failed.source, possible, [], failed.observed_at)
            beats = (strength(rival), -index) > (winner_strength, -winner_index)
            if beats and outcome_for(predicate.kind, possible) != outcome:
                caution: Evidence = {
                    "source": "hold",
                    "predicate": predicate.text,
                    "outcome": "unknown",
                    "note": (
                        f"{failed.source} failed and could have outranked {verdict.source}'s "
                        f"'{verdict.state}' (it can report '{possible}'); "
                        "not deciding on partial evidence"
                    ),
                }
                return "unknown", caution
    return outcome, None
