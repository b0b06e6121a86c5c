"""The task ledger: ``.claude/gotchas/tasks.jsonl``, one JSON object per line, append-only.

Appending one line per change through :func:`gotchas.confined.append_jsonl` (an
exclusive lock, a single ``O_APPEND`` write) keeps concurrent writers from losing or
interleaving each other's lines, and a history nobody rewrites doubles as the audit
trail: the latest line for a task wins.
A damaged line is skipped and reported, so one bad line never hides all the others.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from gotchas import json_text, limits, locking
from gotchas.confined import append_jsonl, open_beneath
from gotchas.errors import GotchasError, InvalidArgument, StateTooLarge
from gotchas.holds.sources import (
    TASK_STATES,
    Evidence,
    Observation,
    SourceFailed,
    TaskState,
    parse_state,
    utc_now,
)
from gotchas.layout import LEDGER_FILE, ledger_path
from gotchas.taskref import normalize
from gotchas.wording import counted

LEDGER_PATH = LEDGER_FILE
_MAX_BY = 200


@dataclass(frozen=True)
class LedgerLine:
    """One recorded state change; ``line`` is its 1-based line number in the ledger file."""

    task: str
    state: TaskState
    at: str
    by: str
    line: int

    def to_dict(self) -> dict[str, object]:
        return {"task": self.task, "state": self.state, "at": self.at, "by": self.by}


@dataclass(frozen=True)
class LedgerContents:
    lines: list[LedgerLine]
    damaged: list[int]  # line numbers that are not a valid ledger entry


def set_task_state(root: Path, task: str, state: str, by: str) -> LedgerLine:
    """Append ``task`` → ``state`` to the ledger and return the line as written."""
    ref = normalize(task)
    parsed = parse_state(state)
    if parsed is None:
        raise InvalidArgument(f"not a task state: {state!r}; use one of {', '.join(TASK_STATES)}")
    author = " ".join(by.split())[:_MAX_BY]
    if not author:
        raise InvalidArgument("who sets the state must be named (by)")
    entry = {"task": ref, "state": parsed, "at": utc_now(), "by": author}
    path = ledger_path(root)
    start = append_jsonl(path, entry)
    line = _count_lines(root, start) + 1
    return LedgerLine(task=ref, state=parsed, at=str(entry["at"]), by=author, line=line)


def task_history(root: Path, task: str) -> list[LedgerLine]:
    """Every recorded state of ``task``, oldest first; empty when the ledger never saw it."""
    ref = normalize(task)
    return [line for line in read_ledger(root).lines if line.task == ref]


def read_ledger(root: Path) -> LedgerContents:
    """All valid lines of the ledger, read under a shared lock so no half-written line shows.

    Opened as every state file is: no symlink followed (the ledger is the repository's,
    never a file it points to) and no FIFO waited on, so a read-only check cannot hang.
    """
    try:
        fd = open_beneath(root, LEDGER_FILE, os.O_RDONLY)
    except FileNotFoundError:
        return LedgerContents(lines=[], damaged=[])
    except OSError as exc:
        raise SourceFailed(f"cannot read the task ledger {LEDGER_PATH}: {exc}") from None
    except GotchasError as exc:
        raise SourceFailed(f"cannot read the task ledger {LEDGER_PATH}: {exc.message}") from None
    try:
        locking.shared(fd)
        chunks = [limits.read_fd(fd, limits.MAX_LEDGER_BYTES, f"the task ledger {LEDGER_PATH}")]
    except StateTooLarge as exc:
        raise SourceFailed(exc.message) from None
    except OSError as exc:
        raise SourceFailed(f"cannot read the task ledger {LEDGER_PATH}: {exc}") from None
    finally:
        os.close(fd)  # closing releases the lock
    return parse_ledger(b"".join(chunks))


def parse_ledger(raw: bytes) -> LedgerContents:
    lines: list[LedgerLine] = []
    damaged: list[int] = []
    for number, text in enumerate(raw.split(b"\n"), start=1):
        if not text.strip():
            continue
        line = _parse_line(text, number)
        if line is None:
            damaged.append(number)
        else:
            lines.append(line)
    return LedgerContents(lines=lines, damaged=damaged)


def _parse_line(text: bytes, number: int) -> LedgerLine | None:
    try:
        data = json_text.loads(text)
    except ValueError:  # nesting too deep included: damaged, like any bad line
        return None
    if not isinstance(data, dict):
        return None
    state = parse_state(data.get("state"))
    task, at, by = data.get("task"), data.get("at"), data.get("by", "")
    if state is None or not isinstance(task, str) or not isinstance(at, str) or not isinstance(by, str):
        return None
    try:
        ref = normalize(task)
    except InvalidArgument:
        return None
    return LedgerLine(task=ref, state=state, at=at, by=by, line=number)


def _count_lines(root: Path, size: int) -> int:
    """Newlines in the first ``size`` bytes: lines before an append never change."""
    count, offset = 0, 0
    fd = open_beneath(root, LEDGER_FILE, os.O_RDONLY)
    try:
        while offset < size:
            chunk = os.read(fd, min(1 << 20, size - offset))
            if not chunk:
                break
            count += chunk.count(b"\n")
            offset += len(chunk)
    finally:
        os.close(fd)
    return count


class LedgerSource:
    """The embedded source: what people and sessions recorded with ``gotchas task set``."""

    name = "ledger"

    def __init__(self, root: Path) -> None:
        self.root = root

    def observe(self, task: str) -> Observation:
        contents = read_ledger(self.root)
        observed_at = utc_now()
        notes: list[Evidence] = []
        if contents.damaged:
            damaged = len(contents.damaged)
            shown = ", ".join(str(n) for n in contents.damaged[:5]) + (", …" if damaged > 5 else "")
            notes.append(
                {
                    "source": "ledger",
                    "warning": f"skipped {counted(damaged, 'damaged ledger line')} ({shown}) "
                    f"in {LEDGER_PATH}",
                }
            )
        history = [line for line in contents.lines if line.task == task]
        if not history:
            return Observation("ledger", None, notes, observed_at)
        latest = history[-1]
        evidence: Evidence = {
            "source": "ledger",
            "line": latest.line,
            "state": latest.state,
            "at": latest.at,
            "by": latest.by,
        }
        if len(history) > 1:
            evidence["previous"] = [line.state for line in history[:-1]]
        return Observation("ledger", latest.state, [evidence, *notes], observed_at)
