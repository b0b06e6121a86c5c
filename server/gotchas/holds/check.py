"""Checking a hold: ask every configured source about every task, then decide.

Gathering is the only impure part — sources run git, call GitHub, read the ledger or a
tracker command; :mod:`gotchas.holds.decision` decides on what they observed. A source
that fails becomes evidence carrying its error, never a silent gap.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas.errors import SourceError
from gotchas.holds import registry
from gotchas.holds.decision import HoldAnswer, evaluate
from gotchas.holds.predicate import expand_shorthand, parse_predicates
from gotchas.holds.release import hints
from gotchas.holds.sources import Evidence, Observation, Source, SourceFailed, utc_now

if TYPE_CHECKING:
    from gotchas.config import Config


def check_hold(predicate: str, root: Path, config: Config | None = None) -> HoldAnswer:
    """Ask every configured source about every task in ``predicate`` and decide the hold.

    A task alone (``8244``, ``#8244``, ``owner/repo#8244``) means "that task lands". Raises
    PredicateError for a malformed predicate; source failures become evidence. A held or
    unknown answer carries the ways to release it (``release``).
    """
    predicates = parse_predicates(expand_shorthand(predicate))
    if config is None:
        from gotchas.config import load_config

        config = load_config(root)
    sources = registry.build_sources(config.holds, root)
    tasks = list(dict.fromkeys(p.task for p in predicates))
    observations = {task: [observe(source, task) for source in sources] for task in tasks}
    can_report = registry.can_report(config.holds.sources)
    answer = evaluate(predicates, observations, checked_at=utc_now(), can_report=can_report)
    return dataclasses.replace(answer, release=hints(predicates, answer, config.holds))


def observe(source: Source, task: str) -> Observation:
    """One source's observation; a failure becomes an observation that carries the error."""
    try:
        return source.observe(task)
    except SourceError as exc:
        details = exc.details if isinstance(exc, SourceFailed) else {}
        entry: Evidence = {"source": source.name, "error": exc.message, **details}
        return Observation(source.name, None, [entry], utc_now(), error=exc.message)
    except Exception as exc:  # a bug in one source must not hide the others' evidence
        message = f"{source.name} failed unexpectedly: {type(exc).__name__}: {exc}"
        failure: Evidence = {"source": source.name, "error": message}
        return Observation(source.name, None, [failure], utc_now(), error=message)
