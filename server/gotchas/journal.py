"""The journal: an append-only log of every apply outcome, one JSON object per line.

Written under the record lock through :func:`gotchas.confined.append_jsonl`, so lines
from concurrent processes never interleave. Every event says what it was about (``kind``,
``task``, ``target_id``, ``new_id``) and who did it (``actor``), so the story of a
correction can be told later (``history``). It is evidence for people and for that story;
it never decides whether an edit is allowed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas import json_text, limits
from gotchas.confined import append_jsonl

if TYPE_CHECKING:
    from gotchas.proposal import Proposal

DEFAULT_ACTOR = "unknown"
MAX_ACTOR = 200


def actor(environ: Mapping[str, str] | None = None) -> str:
    """Who is acting: ``$GOTCHAS_ACTOR``, else the login name, else ``unknown``; one short line."""
    env = os.environ if environ is None else environ
    for key in ("GOTCHAS_ACTOR", "USER", "LOGNAME"):
        value = " ".join(env.get(key, "").split())[:MAX_ACTOR]
        if value:
            return value
    return DEFAULT_ACTOR


def about(stored: Proposal, environ: Mapping[str, str] | None = None) -> dict[str, object]:
    """The fields every event carries: what the proposal was about and who applied it."""
    return {
        "kind": stored.kind,
        "task": stored.task,
        "target_id": stored.target_id,
        "new_id": stored.new_id,
        "actor": actor(environ),
    }


def append(path: Path, event: Mapping[str, object]) -> None:
    append_jsonl(path, event, sort_keys=True)


def read(path: Path) -> list[dict[str, object]]:
    """Every readable event, in order; a line that is not a JSON object is skipped."""
    try:
        raw = limits.read_state(path, limits.MAX_JOURNAL_BYTES, "the journal")
        text = raw.decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events: list[dict[str, object]] = []
    for line in text.splitlines():
        try:
            event = json_text.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
