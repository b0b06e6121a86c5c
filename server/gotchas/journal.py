"""The journal: an append-only log of every apply outcome, one JSON object per line.

Written under the record lock through :func:`gotchas.workspace.append_jsonl`, so lines
from concurrent processes never interleave. It is evidence for people, never read back to
decide anything.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gotchas.workspace import append_jsonl, read_confined


def append(path: Path, event: Mapping[str, object]) -> None:
    append_jsonl(path, event, sort_keys=True)


def read(path: Path) -> list[dict[str, Any]]:
    try:
        text = read_confined(path).decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    events = []
    for line in text.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            continue
    return events
