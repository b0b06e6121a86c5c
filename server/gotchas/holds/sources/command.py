"""Any tracker (Linear, Jira, a board) through a configured command.

The command is an argv template: ``{task}`` is replaced inside single arguments, so a
task reference reaches the program as data, never through a shell. The program prints
one JSON object such as ``{"state": "landed", "url": "...", "detail": "..."}``.

It runs outside the repository: in an empty temporary folder, with a ``PATH`` stripped of
empty, relative and in-repository entries, so a file the repository names like the user's
program is never the one that runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from gotchas import json_text
from gotchas.holds.sources import (
    TASK_STATES,
    Evidence,
    Observation,
    SourceFailed,
    TaskState,
    parse_state,
    utc_now,
)

_MAX_OUTPUT = 1024 * 1024
_UNKNOWN_WORDS = frozenset({"unknown", "none", ""})


def outside_path(path: str, root: Path) -> str:
    """``PATH`` without the entries that could find a program in the repository: empty ones
    and ``.`` (the working directory), relative ones, and any folder inside ``root``."""
    top = root.resolve()
    kept = []
    for entry in path.split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        if Path(entry).resolve().is_relative_to(top):
            continue
        kept.append(entry)
    return os.pathsep.join(dict.fromkeys(kept))


def command_argv(template: tuple[str, ...] | list[str], task: str) -> list[str]:
    """The argv to run for ``task``: one list element per template element, never split."""
    return [part.replace("{task}", task) for part in template]


class CommandSource:
    """Task state from a tracker-specific program."""

    name = "command"

    def __init__(self, root: Path, argv: tuple[str, ...] | list[str], timeout: float = 30.0) -> None:
        if not argv:
            raise SourceFailed('no command configured: set [holds.command] argv = ["tool", "{task}"]')
        self.root = root
        self.template = tuple(argv)
        self.timeout = timeout

    def observe(self, task: str) -> Observation:
        argv = command_argv(self.template, task)
        shown = " ".join(argv)
        env = {**os.environ, "PATH": outside_path(os.environ.get("PATH", os.defpath), self.root)}
        program = shutil.which(argv[0], path=env["PATH"]) if "/" not in argv[0] else argv[0]
        try:
            with tempfile.TemporaryDirectory(prefix="gotchas-command-") as outside:
                result = subprocess.run(
                    [program or argv[0], *argv[1:]],
                    cwd=outside,
                    env=env,
                    capture_output=True,
                    timeout=self.timeout,
                    stdin=subprocess.DEVNULL,
                    check=False,
                )
        except FileNotFoundError:
            raise SourceFailed(f"tracker command not found: {argv[0]}", argv=argv) from None
        except PermissionError:
            raise SourceFailed(f"tracker command is not executable: {argv[0]}", argv=argv) from None
        except subprocess.TimeoutExpired:
            raise SourceFailed(
                f"tracker command timed out after {self.timeout:g}s: {shown}", argv=argv
            ) from None
        except OSError as exc:
            raise SourceFailed(f"cannot run tracker command {argv[0]}: {exc}", argv=argv) from None
        observed_at = utc_now()
        if result.returncode != 0:
            stderr = _last_line(result.stderr)
            raise SourceFailed(
                f"tracker command exited with status {result.returncode}: {stderr}",
                argv=argv,
                exit_status=result.returncode,
            )
        state, evidence = parse_command_output(result.stdout[:_MAX_OUTPUT])
        evidence["argv"] = argv
        return Observation("command", state, [evidence], observed_at)


def parse_command_output(raw: bytes) -> tuple[TaskState | None, Evidence]:
    """Read ``{"state": ..., "url": ..., "detail": ...}``; state null or "unknown": untracked."""
    try:
        data = json_text.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        preview = raw[:80].decode("utf-8", "replace").strip() or "nothing"
        raise SourceFailed(
            f'tracker command printed {preview!r}, not JSON like {{"state": "landed"}}'
        ) from None
    if not isinstance(data, dict) or "state" not in data:
        raise SourceFailed('tracker command printed JSON without a "state" field')
    raw_state = data["state"]
    evidence: Evidence = {"source": "command", "state": raw_state}
    for key in ("url", "detail"):
        value = data.get(key)
        if isinstance(value, str) and value:
            evidence[key] = value
    if raw_state is None or (isinstance(raw_state, str) and raw_state.strip().lower() in _UNKNOWN_WORDS):
        return None, evidence
    state = parse_state(raw_state)
    if state is None:
        raise SourceFailed(
            f"tracker command printed an unknown state {raw_state!r}; use one of {', '.join(TASK_STATES)}"
        )
    return state, evidence


def _last_line(raw: bytes) -> str:
    lines = [line.strip() for line in raw.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no message on stderr"
