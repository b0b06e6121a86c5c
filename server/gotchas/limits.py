"""Bounded reads of the state the repository holds: journal, ledger, the record's history.

Every byte of these comes from the repository, so their size is an attacker's choice: a
120 MB journal (a few KiB packed in git) once made ``history`` take a minute and gigabytes.
Each is read only up to a limit, far beyond what real use writes; past it the answer is a
typed error (``state-too-large``) naming the file and the limit, never a slow read.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from gotchas.errors import StateTooLarge

MAX_JOURNAL_BYTES = 8 << 20
"""About 25,000 apply events: years of a busy team's corrections."""
MAX_LEDGER_BYTES = 8 << 20
MAX_HISTORY_BYTES = 32 << 20
"""What ``git log -p`` may print for the record's history."""
MAX_HISTORY_VERSIONS = 500
"""Record versions ``history`` reads (the newest ones)."""


def too_large(what: str, size: int, limit: int) -> StateTooLarge:
    return StateTooLarge(
        f"{what} is {size:,} bytes or more; the limit is {limit:,}; archive or truncate it "
        "(nothing was changed)"
    )


def check_size(fd: int, limit: int, what: str) -> None:
    """``StateTooLarge`` when the open file ``fd`` is larger than ``limit`` bytes."""
    size = os.fstat(fd).st_size
    if size > limit:
        raise too_large(what, size, limit)


def read_fd(fd: int, limit: int, what: str) -> bytes:
    """The bytes of ``fd``, refusing before reading when it holds more than ``limit`` (and
    stopping there if it grows while read)."""
    check_size(fd, limit, what)
    chunks, total = [], 0
    while chunk := os.read(fd, min(1 << 20, limit + 1 - total) or 1):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise too_large(what, total, limit)
    return b"".join(chunks)


def read_state(path: Path, limit: int, what: str) -> bytes:
    """A state file read as :func:`gotchas.confined.read_confined` reads it, bounded."""
    from gotchas.confined import open_beneath, split_base

    base, parts = split_base(None, path)
    fd = open_beneath(base, "/".join(parts), os.O_RDONLY)
    try:
        return read_fd(fd, limit, what)
    finally:
        os.close(fd)


def git_output(root: Path, args: Sequence[str], *, limit: int, what: str, timeout: float) -> str:
    """What ``git args`` prints (with the safe settings of :mod:`gotchas.holds.sources.git`),
    read as it comes and stopped past ``limit`` bytes; ``SourceFailed`` when git fails."""
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import SAFE_CONFIG, SAFE_ENV

    argv = ["git", "--no-pager", *(part for setting in SAFE_CONFIG for part in ("-c", setting)), *args]
    env = {**os.environ, **SAFE_ENV, "GIT_LITERAL_PATHSPECS": "1"}
    try:
        process = subprocess.Popen(
            argv,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:
        raise SourceFailed(f"cannot run git: {exc}") from None
    assert process.stdout is not None
    chunks, total = [], 0
    timer = threading.Timer(timeout, process.kill)  # a git that hangs is stopped, not waited on
    timer.start()
    try:
        while chunk := process.stdout.read(1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise too_large(what, total, limit)
        status = process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
    if status < 0:
        raise SourceFailed(f"git did not finish within {timeout:g}s")
    if status != 0:
        raise SourceFailed(f"git exited with status {status}")
    return b"".join(chunks).decode("utf-8", errors="replace")
