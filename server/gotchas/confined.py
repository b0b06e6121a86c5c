"""Files reached beneath the project root and never through a symlink: opening, reading and
the one JSON-lines appender.

Every folder from the root down is opened relative to its parent's descriptor without
following symlinks (POSIX ``openat``), and only a regular file is opened, never waited on
(a FIFO). Where the platform cannot (Windows), paths are walked and checked instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from gotchas import locking
from gotchas.errors import RecordUnreadable, UnsafePath


def _descriptor_relative() -> bool:
    """Whether files can be opened relative to a folder's descriptor without following a
    symlink (POSIX ``openat`` and its kin): the way that closes every race with a swapped
    path. Where it cannot (Windows), paths are walked and checked instead (see below)."""
    return (
        hasattr(os, "O_DIRECTORY")
        and hasattr(os, "O_NOFOLLOW")
        and {os.open, os.stat, os.mkdir, os.unlink, os.rename} <= os.supports_dir_fd
        and os.stat in os.supports_follow_symlinks
        and os.listdir in os.supports_fd
    )


BY_DESCRIPTOR = _descriptor_relative()
"""Chosen once, by what the platform offers rather than by its name."""


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def split_base(root: Path | None, path: Path) -> tuple[Path, tuple[str, ...]]:
    """``path`` as a base directory and the parts below it that must not be symlinks.

    Without a root, the base is the parent of the last ``.claude`` folder in the path (where
    the state lives), else the file's own directory.
    """
    if root is not None:
        return root, path.relative_to(root).parts
    parts = path.parts
    if ".claude" in parts:
        at = len(parts) - 1 - parts[::-1].index(".claude")
        return Path(*parts[:at]), parts[at:]
    return path.parent, (path.name,)


def open_dir_beneath(root: Path, relative: str | Sequence[str], *, create: bool = False) -> int:
    """A descriptor of the folder ``relative`` under ``root``, walked without following symlinks."""
    parts = relative.split("/") if isinstance(relative, str) else list(relative)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            if part in ("", ".", ".."):
                raise UnsafePath(f"{'/'.join(parts)!r} is not a plain path below the project root")
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                nxt = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o777, dir_fd=fd)
                nxt = _open_dir_part(part, flags, fd, parts)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafePath(_unsafe(parts, part)) from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_dir_part(part: str, flags: int, fd: int, parts: Sequence[str]) -> int:
    try:
        return os.open(part, flags, dir_fd=fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise UnsafePath(_unsafe(parts, part)) from None
        raise


def _unsafe(parts: Sequence[str], part: str) -> str:
    return (
        f"{part!r} in {'/'.join(parts)!r} is a symlink or not a folder; state and records are "
        "never reached through a symlink: replace it with a real folder"
    )


def open_regular(dir_fd: int, name: str, flags: int, shown: str, mode: int = 0o644) -> int:
    """Open ``name`` in ``dir_fd``: no symlink followed, no FIFO waited on, only a regular file."""
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            raise UnsafePath(f"{shown} is a symlink or a special file; only a regular file is used") from None
        if exc.errno == errno.EISDIR:
            raise RecordUnreadable(f"{shown} is a directory, not a regular file") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordUnreadable(f"{shown} is {file_kind(info.st_mode)}, not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def file_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def open_beneath(root: Path, relative: str, flags: int, mode: int = 0o644) -> int:
    """Open the regular file ``relative`` under ``root``; no component may be a symlink."""
    if not BY_DESCRIPTOR:
        return open_beneath_by_path(root, relative, flags, mode)
    parts = relative.split("/")
    folder = open_dir_beneath(root, parts[:-1], create=bool(flags & os.O_CREAT))
    try:
        return open_regular(folder, parts[-1], flags, relative, mode)
    finally:
        os.close(folder)


def read_confined(path: Path, root: Path | None = None) -> bytes:
    """The bytes of a state file, read without following symlinks (FileNotFoundError if none)."""
    base, parts = split_base(root, path)
    fd = open_beneath(base, "/".join(parts), os.O_RDONLY)
    try:
        return read_all(fd)
    finally:
        os.close(fd)


def keep_out_of_git(dir_fd: int) -> None:
    """A ``.gitignore`` of ``*`` in a folder of per-machine files (locks, temp files)."""
    try:
        fd = os.open(
            ".gitignore",
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
            0o644,
            dir_fd=dir_fd,
        )
    except FileExistsError:
        return
    try:
        os.write(fd, b"*\n")
    finally:
        os.close(fd)


def append_jsonl(path: Path, value: Mapping[str, object], *, sort_keys: bool = False) -> int:
    """Append ``value`` as one JSON line; returns the byte offset where the line starts.

    One ``O_APPEND`` write under an exclusive lock (:mod:`gotchas.locking`), so lines from concurrent writers
    never interleave. A final line left without its newline (a hand edit) gets one first,
    so two entries are never glued together. The file and its folders are reached without
    following symlinks, and only a regular file is appended to.
    """
    import json  # writing only: not on the reading path

    payload = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).encode("utf-8") + b"\n"
    base, parts = split_base(None, path)
    fd = open_beneath(base, "/".join(parts), os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        locking.exclusive(fd)
        size = os.fstat(fd).st_size
        if size and _last_byte(fd, size) != b"\n":
            payload = b"\n" + payload
            size += 1
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    return size


def _last_byte(fd: int, size: int) -> bytes:
    """The file's last byte, read through ``fd`` itself: where a byte-range lock is mandatory
    (Windows), only the descriptor holding the lock may read the locked bytes."""
    if hasattr(os, "pread"):
        return os.pread(fd, 1, size - 1)
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1)  # the append that follows goes to the end whatever the offset


# --- Without descriptor-relative calls (Windows) ------------------------------------------------
#
# A folder cannot be held open, so each path is walked from the root with ``lstat``: a
# symlink, a junction (any name-surrogate reparse point) or a non-folder in the way is refused.
# The file is then opened by its full path and its descriptor ``fstat``-ed: it must be a
# regular file and the very file (device, inode) the name showed just before and just after
# the open, and the folders above it must still be the ones walked. That refuses everything the
# repository can hold; a concurrent local process swapping a folder for a junction and back
# in the instant between the checks is narrowed, not excluded (docs/security.md).

_NAME_SURROGATE = 0x20000000
"""The reparse-tag bit of links (symlinks, junctions); a cloud-drive placeholder lacks it."""

Identity = tuple[int, int]


def redirects(mode: int, attributes: int, tag: int) -> bool:
    """Whether an ``lstat`` names a link rather than a file or folder: a symlink, or a reparse
    point that stands for another name (a junction); an untagged reparse point counts as one."""
    if stat.S_ISLNK(mode):
        return True
    return bool(attributes & stat.FILE_ATTRIBUTE_REPARSE_POINT) and (tag == 0 or bool(tag & _NAME_SURROGATE))


def is_redirect(info: os.stat_result) -> bool:
    return redirects(info.st_mode, getattr(info, "st_file_attributes", 0), getattr(info, "st_reparse_tag", 0))


def identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino)


def by_path_flags() -> int:
    """What every open by path adds: binary mode (else Windows translates line endings and stops
    reading at Ctrl-Z), and whatever of no-follow, non-blocking and close-on-exec exists here."""
    return (
        getattr(os, "O_BINARY", 0)
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )


def plain_part(part: str, parts: Sequence[str]) -> str:
    """A name that is one entry of one folder in this platform's path syntax (no separator,
    no drive, and where drives exist no ``:``, which would name an alternate data stream)."""
    drives = bool(os.path.splitdrive("c:x")[0])
    separators = [s for s in (os.sep, os.altsep) if s]
    if (
        part in ("", ".", "..")
        or any(s in part for s in separators)
        or (drives and ":" in part)
        or "\x00" in part
    ):
        raise UnsafePath(f"{'/'.join(parts)!r} is not a plain path below the project root")
    return part


def walk_by_path(root: Path, parts: Sequence[str], *, create: bool = False) -> tuple[Path, list[Identity]]:
    """The folder ``parts`` under ``root`` and the identity of each folder on the way, every
    component checked with ``lstat``: a real folder, neither a symlink nor a junction."""
    folder = root
    chain = [identity(os.stat(root))]
    for part in parts:
        path = folder / plain_part(part, parts)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o777)
            info = os.lstat(path)
        if is_redirect(info) or not stat.S_ISDIR(info.st_mode):
            raise UnsafePath(_unsafe(parts, part))
        chain.append(identity(info))
        folder = path
    return folder, chain


def open_beneath_by_path(root: Path, relative: str, flags: int, mode: int = 0o644) -> int:
    """:func:`open_beneath` where a folder cannot be held open: walk, open, then check again."""
    parts = relative.split("/")
    folder, chain = walk_by_path(root, parts[:-1], create=bool(flags & os.O_CREAT))
    fd = _open_regular_by_path(folder / plain_part(parts[-1], parts), flags, relative, mode)
    try:
        if walk_by_path(root, parts[:-1])[1] != chain:
            raise UnsafePath(f"a folder above {relative} was replaced while it was opened; nothing was used")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_regular_by_path(path: Path, flags: int, shown: str, mode: int) -> int:
    """Open the regular file at ``path``: refused if the name is a link or a special file, or
    if what was opened is not the file the name showed before and after the open."""
    try:
        before: os.stat_result | None = os.lstat(path)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
        before = None
    if before is not None:
        must_be_regular(before, shown)
    extra = by_path_flags() | (os.O_EXCL if before is None else 0)  # create: never through a link
    try:
        fd = os.open(path, flags | extra, mode)
    except FileExistsError:
        if before is None and not flags & os.O_EXCL:  # made by another process just now: use it
            return _open_regular_by_path(path, flags & ~os.O_CREAT, shown, mode)
        raise
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):
            raise UnsafePath(f"{shown} is a symlink or a special file; only a regular file is used") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RecordUnreadable(f"{shown} is {file_kind(info.st_mode)}, not a regular file")
        after = os.lstat(path)
        if is_redirect(after) or not all(
            os.path.samestat(seen, info) for seen in (after, before) if seen is not None
        ):
            raise UnsafePath(f"{shown} was replaced while it was opened; nothing was used")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def must_be_regular(info: os.stat_result, shown: str) -> None:
    if is_redirect(info):
        raise UnsafePath(f"{shown} is a symlink or a special file; only a regular file is used")
    if not stat.S_ISREG(info.st_mode):
        raise RecordUnreadable(f"{shown} is {file_kind(info.st_mode)}, not a regular file")


def lstat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def keep_out_of_git_by_path(folder: Path) -> None:
    try:
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | by_path_flags(), 0o644)
    except FileExistsError:
        return
    try:
        os.write(fd, b"*\n")
    finally:
        os.close(fd)
