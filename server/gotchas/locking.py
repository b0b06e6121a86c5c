"""Whole-file locks across processes, on any platform Python runs on.

``fcntl.flock`` where POSIX offers it; on Windows a lock on one byte far past the file's end through
``msvcrt.locking``. Either way the operating system drops the lock when the holder dies,
so a lock never sticks. The platform module is imported on first use, so a read path that
never locks never needs it. A platform with neither refuses to write (writers would race)
with a typed error, and lets readers read without the lock: a line is written in one
``O_APPEND`` write, so a reader sees it whole or not at all.
"""

from __future__ import annotations

import os
import time
from types import ModuleType

from gotchas.errors import LockUnavailable

_RETRY_SECONDS = 0.05
_SENTINEL_OFFSET = 2**31 - 2  # past any lessons file; within a 32-bit C runtime's offsets


def _posix() -> ModuleType | None:
    try:
        import fcntl
    except ImportError:
        return None
    return fcntl


def _windows() -> ModuleType | None:
    try:
        import msvcrt
    except ImportError:
        return None
    return msvcrt


def exclusive(fd: int) -> None:
    """Block until ``fd``'s file is locked for this process alone; released by closing ``fd``."""
    fcntl = _posix()
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    msvcrt = _windows()
    if msvcrt is not None:
        _lock_sentinel_byte(msvcrt, fd)
        return
    raise LockUnavailable(
        "this platform offers neither fcntl nor msvcrt file locks, so writing is refused "
        "(concurrent writers could lose each other's changes); reading still works"
    )


def shared(fd: int) -> bool:
    """Lock ``fd``'s file against writers while it is read; ``False`` when no lock exists here.

    ``msvcrt`` has no shared lock, so there a reader takes the exclusive one briefly."""
    fcntl = _posix()
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_SH)
        return True
    msvcrt = _windows()
    if msvcrt is not None:
        _lock_sentinel_byte(msvcrt, fd)
        return True
    return False


def _lock_sentinel_byte(msvcrt: ModuleType, fd: int) -> None:
    """``msvcrt.locking`` locks bytes from the current position, waiting politely.

    Windows byte locks are mandatory: a locked byte cannot be read by anyone else. The byte
    locked lies far past any record's end (locking beyond the end is allowed), so a reader
    that takes no lock still reads every byte of the file."""
    where = os.lseek(fd, 0, os.SEEK_CUR)
    os.lseek(fd, _SENTINEL_OFFSET, os.SEEK_SET)
    try:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                time.sleep(_RETRY_SECONDS)
    finally:
        os.lseek(fd, where, os.SEEK_SET)
