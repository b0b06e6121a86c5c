"""Replacing a file so a crash leaves the old version or the new one, never a mix: a temp
file in ``.claude/gotchas/tmp/`` (or beside the file), fsync, a compare against the version
read, rename, fsync the folder. The compare-and-swap tells an edit whether someone else wrote
the file meanwhile (:class:`RecordChanged`) or in the instant of the rename (:attr:`Swap.late`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gotchas.confined import (
    BY_DESCRIPTOR,
    by_path_flags,
    file_kind,
    is_redirect,
    keep_out_of_git,
    keep_out_of_git_by_path,
    lstat_or_none,
    open_dir_beneath,
    plain_part,
    split_base,
    walk_by_path,
)
from gotchas.errors import GotchasError, RecordReadOnly, UnsafePath
from gotchas.layout import ORPHAN_AGE, TEMP_DIR, TEMP_MARK


class RecordChanged(GotchasError):
    """The record changed between the read and the rename: re-read and rebase, never overwrite."""

    code = "conflict"


Signature = tuple[int, int, int, int, int, int]


def signature(info: os.stat_result) -> Signature:
    """What identifies one version of a file: device, inode, size, mtime, ctime, mode."""
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode)


@dataclass(frozen=True)
class Snapshot:
    """The bytes of a file and the signature they were read under (None: there was no file)."""

    data: bytes
    signature: Signature | None


@dataclass(frozen=True)
class Swap:
    """What a compare-and-swap left behind once its rename was made.

    ``written`` is the new file as renamed: our bytes and their signature (None when another
    writer changed the new file before its signature could be taken, so no later compare
    against it passes). ``late`` holds the old file's bytes when someone wrote to it between
    the compare and the rename: that write is not in the record, and the caller must bring it
    back (rebase onto these bytes and swap again, comparing against ``written``).
    """

    written: Snapshot
    late: bytes | None = None
    warnings: list[str] = field(default_factory=list)


def write_atomic(
    path: Path,
    data: bytes,
    *,
    root: Path | None = None,
    expect: Snapshot | None = None,
    record: bool = False,
) -> list[str]:
    """Replace ``path`` with ``data`` so a crash leaves the old file or the new one, never a mix.

    Every folder from ``root`` down is opened without following symlinks, and the rename is
    made relative to those descriptors, so nothing lands outside the tree. The temp file
    lives in ``.claude/gotchas/tmp/`` (ignored by git; orphans of killed processes are
    removed there) when that is on the same filesystem, else beside the file. Failures
    after the rename do not raise: they come back as warnings.
    """
    return compare_and_swap(path, data, root=root, expect=expect, record=record).warnings


def compare_and_swap(
    path: Path,
    data: bytes,
    *,
    root: Path | None = None,
    expect: Snapshot | None = None,
    record: bool = False,
) -> Swap:
    """:func:`write_atomic`, returning what was renamed and what the rename displaced.

    With ``expect``, the old file is opened read-only at the compare and that descriptor is
    kept through the rename: a write that lands in the old file after the compare (an
    append by path in that instant) is then seen in the old file itself, and its bytes come
    back as :attr:`Swap.late` rather than vanishing with the unlinked inode.
    """
    base, parts = split_base(root, path)
    if not BY_DESCRIPTOR:
        warnings = _write_atomic_by_path(base, parts, data, expect, record)
        return Swap(Snapshot(data, None), None, warnings)
    folder = open_dir_beneath(base, parts[:-1], create=True)
    leaf = parts[-1]
    shown = "/".join(parts)
    try:
        old = _old_version(folder, leaf, shown, record)
        if expect is not None and (old is None) != (expect.signature is None):
            raise RecordChanged(f"{shown} appeared or vanished while it was being edited")
        temp_dir = _temp_dir(base, parts, folder)
        try:
            written, held = _write_and_rename(temp_dir, folder, leaf, shown, data, old, expect)
        finally:
            if temp_dir != folder:
                os.close(temp_dir)
        warnings = []
        try:
            os.fsync(folder)
        except OSError as exc:
            warnings.append(
                f"{shown} was replaced, but syncing its folder failed ({exc}); a power cut may undo it"
            )
        if held is None or expect is None:
            return Swap(written, None, warnings)
        try:  # looked at last: a writer that opened the old file before the rename has had time
            return Swap(written, _displaced(held, expect), warnings)
        except OSError as exc:
            warnings.append(f"{shown} was replaced, but its old version could not be re-read ({exc})")
            return Swap(written, None, warnings)
        finally:
            os.close(held)
    finally:
        os.close(folder)


def _old_version(folder: int, leaf: str, shown: str, record: bool) -> os.stat_result | None:
    try:
        old = os.stat(leaf, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return _replaceable(old, shown, record)


def _replaceable(old: os.stat_result, shown: str, record: bool) -> os.stat_result:
    """``old`` when the file it describes may be replaced: a regular file, writable if a record."""
    if not stat.S_ISREG(old.st_mode) or is_redirect(old):
        kind = "a symlink" if is_redirect(old) else file_kind(old.st_mode)
        raise UnsafePath(f"{shown} is {kind}; only a regular file is replaced")
    if record and not old.st_mode & stat.S_IWUSR:
        raise RecordReadOnly(f"{shown} is read-only; make it writable (chmod u+w) if it should be edited")
    return old


def _temp_dir(base: Path, parts: Sequence[str], folder: int) -> int:
    """The folder for temp files: ``.claude/gotchas/tmp`` on the file's filesystem, else its own."""
    if base.joinpath(*parts).parent == base / TEMP_DIR:
        return folder
    try:
        temp = open_dir_beneath(base, TEMP_DIR, create=True)
    except (OSError, GotchasError):
        return folder
    if os.fstat(temp).st_dev != os.fstat(folder).st_dev:
        os.close(temp)
        return folder
    with contextlib.suppress(OSError):
        keep_out_of_git(temp)
        remove_orphans(temp)
    return temp


def remove_orphans(dir_fd: int, *, older_than: float = ORPHAN_AGE) -> list[str]:
    """Remove our temp files older than ``older_than`` seconds: regular files we own, by name."""
    removed = []
    now = time.time()
    for name in os.listdir(dir_fd):
        if TEMP_MARK not in name or not name.endswith(".tmp"):
            continue
        try:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid() and now - info.st_mtime > older_than:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
                removed.append(name)
    return removed


def _write_and_rename(
    temp_dir: int,
    folder: int,
    leaf: str,
    shown: str,
    data: bytes,
    old: os.stat_result | None,
    expect: Snapshot | None,
) -> tuple[Snapshot, int | None]:
    """Write ``data`` to a temp file, compare, rename: the new file as renamed, and the old
    file's descriptor (opened at the compare) for the caller to look at and close.

    The temp file's descriptor stays open through the rename, so the new file's signature is
    taken from the very inode renamed; the old file's descriptor tells whether a write landed
    in it between the compare and the rename.
    """
    import secrets  # writing only: not on the reading path

    temp = f".{leaf[:64]}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(
        temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=temp_dir
    )
    held: int | None = None
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        _same_owner_and_mode(fd, old, shown)
        ours = os.fstat(fd)
        if expect is not None:
            held = _unchanged(folder, leaf, shown, expect)
        os.replace(temp, leaf, src_dir_fd=temp_dir, dst_dir_fd=folder)
    except BaseException:
        os.close(fd)
        if held is not None:
            os.close(held)
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=temp_dir)
        raise
    try:
        renamed = os.fstat(fd)
    except BaseException:
        if held is not None:
            os.close(held)
        raise
    finally:
        os.close(fd)
    kept = (renamed.st_size, renamed.st_mtime_ns) == (ours.st_size, ours.st_mtime_ns)
    return Snapshot(data, signature(renamed) if kept else None), held


def _displaced(held: int, expect: Snapshot) -> bytes | None:
    """The old file's bytes when they are no longer the ones compared (a write landed in it
    after the compare), read through the descriptor that outlives its name; else None."""
    chunks, at = [], 0
    while chunk := os.pread(held, 1 << 20, at):
        chunks.append(chunk)
        at += len(chunk)
    now = b"".join(chunks)
    return None if now == expect.data else now


def _same_owner_and_mode(fd: int, old: os.stat_result | None, shown: str) -> None:
    if old is None:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        return
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except PermissionError:
            if old.st_uid != os.geteuid():
                raise RecordReadOnly(
                    f"{shown} belongs to another user (uid {old.st_uid}); it is not replaced by a copy "
                    "owned by this one"
                ) from None
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _unchanged(folder: int, leaf: str, shown: str, expect: Snapshot) -> int | None:
    """The compare of compare-and-swap, right before the rename: the old file opened read-only
    (no symlink followed, no FIFO waited on) and its ``fstat`` compared with the signature read.

    Returns that descriptor (None when there is no old file), for the caller to keep through
    the rename: it is how a write landing in the old file after this compare is noticed.
    """
    try:
        held = os.open(leaf, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=folder)
    except FileNotFoundError:
        _same_version(None, shown, expect)
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            swapped = f"{shown} was replaced by a symlink or a special file during the edit"
            raise RecordChanged(swapped) from None
        raise
    try:
        _same_version(signature(os.fstat(held)), shown, expect)
    except BaseException:
        os.close(held)
        raise
    return held


def _same_version(now: Signature | None, shown: str, expect: Snapshot) -> None:
    if now != expect.signature:
        raise RecordChanged(f"{shown} changed while the edit was being written")


# --- Without descriptor-relative calls (Windows): see gotchas.confined ---------------------------


def _write_atomic_by_path(
    base: Path, parts: Sequence[str], data: bytes, expect: Snapshot | None, record: bool
) -> list[str]:
    """:func:`write_atomic` by checked paths: the same temp file, compare-and-swap and rename."""
    folder, chain = walk_by_path(base, parts[:-1], create=True)
    leaf = plain_part(parts[-1], parts)
    shown = "/".join(parts)
    before = lstat_or_none(folder / leaf)
    old = None if before is None else _replaceable(before, shown, record)
    if expect is not None and (old is None) != (expect.signature is None):
        raise RecordChanged(f"{shown} appeared or vanished while it was being edited")
    temp_dir = _temp_dir_by_path(base, parts, folder)
    import secrets  # writing only: not on the reading path

    temp = temp_dir / f".{leaf[:64]}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    # the new file is created with the old one's permissions: where fchmod exists they are
    # then set exactly, elsewhere (Windows) the write bit, all a mode holds there, is kept
    created = stat.S_IMODE(old.st_mode) if old is not None else 0o666
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | by_path_flags(), created)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            if all(hasattr(os, name) for name in ("fchmod", "fchown", "geteuid", "getegid")):
                _same_owner_and_mode(fd, old, shown)
        finally:
            os.close(fd)
        if walk_by_path(base, parts[:-1])[1] != chain:
            raise UnsafePath(f"a folder above {shown} was replaced during the edit; nothing was written")
        if expect is not None:
            now = lstat_or_none(folder / leaf)
            _same_version(None if now is None else signature(now), shown, expect)
        os.replace(temp, folder / leaf)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    failed = _sync_folder_by_path(folder)
    if failed is None:
        return []
    return [f"{shown} was replaced, but syncing its folder failed ({failed}); a power cut may undo it"]


def _sync_folder_by_path(folder: Path) -> OSError | None:
    """fsync a folder where one can be opened; where it cannot (Windows), the rename is as
    durable as the filesystem's own journal makes it."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        os.fsync(fd)
    except OSError as exc:
        return exc
    finally:
        os.close(fd)
    return None


def _temp_dir_by_path(base: Path, parts: Sequence[str], folder: Path) -> Path:
    """:func:`_temp_dir` by checked paths."""
    if base.joinpath(*parts).parent == base / TEMP_DIR:
        return folder
    try:
        temp, _ = walk_by_path(base, TEMP_DIR.split("/"), create=True)
    except (OSError, GotchasError):
        return folder
    if os.lstat(temp).st_dev != os.lstat(folder).st_dev:
        return folder
    with contextlib.suppress(OSError):
        keep_out_of_git_by_path(temp)
        _remove_orphans_by_path(temp)
    return temp


def _remove_orphans_by_path(folder: Path, *, older_than: float = ORPHAN_AGE) -> list[str]:
    """:func:`remove_orphans` by path; where users have no uid (Windows), the folder is ours."""
    removed = []
    now = time.time()
    for name in os.listdir(folder):
        if TEMP_MARK not in name or not name.endswith(".tmp"):
            continue
        info = lstat_or_none(folder / name)
        if info is None or is_redirect(info) or not stat.S_ISREG(info.st_mode):
            continue
        ours = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
        if ours and now - info.st_mtime > older_than:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(folder / name)
                removed.append(name)
    return removed
