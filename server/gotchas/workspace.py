"""The workspace: the one owner of a project's state — its root, its settings and the files
we read and write inside it.

Everything that touches the disk lives here or goes through here: finding the root, the
settings (read once, then passed on), the layout of ``.claude/gotchas/`` (proposals,
journal, ledger, locks), keeping paths inside the root, reading with clear refusals, the
cross-process lock, the atomic write (temp file in the same directory, fsync, rename,
fsync the directory) and the one JSON-lines appender.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas import confine, locking, surface
from gotchas.errors import (
    ConfigError,
    GotchasError,
    PathOutsideRoot,
    RecordNotFound,
    RecordReadOnly,
    RecordUnreadable,
    UnsafePath,
)

if TYPE_CHECKING:
    from gotchas.config import Config
    from gotchas.record import Record

_PARSE_CACHE_SIZE = 4

# Where things live, relative to the project root: the settings, the record by default,
# and the project's own state.
CONFIG_PATH = ".claude/gotchas.toml"
DEFAULT_RECORD = ".claude/rules/gotchas.md"
STATE_DIR = ".claude/gotchas"
PROPOSALS_DIR = f"{STATE_DIR}/proposals"
JOURNAL_FILE = f"{STATE_DIR}/journal.jsonl"
LEDGER_FILE = f"{STATE_DIR}/tasks.jsonl"
LOCKS_DIR = f"{STATE_DIR}/locks"
TEMP_DIR = f"{STATE_DIR}/tmp"
TEMP_MARK = ".gotchas-"
"""Every temp file we make carries this in its name (and ends in ``.tmp``): how orphans are known."""
ORPHAN_AGE = 300.0
"""Seconds after which a temp file of ours, left by a killed process, is removed."""
MARKDOWN = (".md", ".markdown")


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


def find_root(explicit: str | None, environ: Mapping[str, str], cwd: Path) -> Path:
    """``--root``, then GOTCHAS_ROOT, then CLAUDE_PROJECT_DIR, then the git top level, then cwd."""
    for candidate in (explicit, environ.get("GOTCHAS_ROOT"), environ.get("CLAUDE_PROJECT_DIR")):
        if candidate:
            path = Path(candidate).expanduser()
            if not path.is_dir():
                raise PathOutsideRoot(f"the project root {candidate!r} is not a directory")
            return path.resolve()
    return git_top_level(cwd.resolve()) or cwd.resolve()


def git_top_level(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding ``.git`` (a directory, or the file a
    worktree or submodule has): what ``git rev-parse --show-toplevel`` answers, without a process."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


@dataclass
class Workspace:
    """One project: its root, its settings and every path of its state.

    ``settings`` is the parsed ``.claude/gotchas.toml``; left out, it is read on first use
    and kept, so one workspace reads its config once. Without a config file nothing is
    read, and the config module is not even imported until a setting is asked for.
    """

    root: Path
    default_record: str = DEFAULT_RECORD
    entry_style: str | None = None
    settings: Config | None = field(default=None, repr=False)
    one_shot: bool = field(default=False, repr=False)  # reads, then exits: parses keep nothing for edits
    _cache: dict[Path, tuple[tuple[int, int, int], Record]] = field(default_factory=dict, repr=False)
    _parsed: dict[str, Record] = field(default_factory=dict, repr=False)

    @classmethod
    def discover(
        cls,
        root: str | None = None,
        record: str | None = None,
        environ: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Workspace:
        env = os.environ if environ is None else environ
        top = find_root(root, env, cwd or Path.cwd())
        settings = read_settings(top) if has_config_file(top) else None
        configured = settings.record if settings is not None else DEFAULT_RECORD
        chosen = record or env.get("GOTCHAS_RECORD") or configured or DEFAULT_RECORD
        return cls(top, chosen, settings.entries if settings is not None else None, settings)

    @property
    def config(self) -> Config:
        """The project's settings, read once."""
        if self.settings is None:
            self.settings = read_settings(self.root)
        return self.settings

    @property
    def task_keys(self) -> tuple[str, ...]:
        """The tracker key prefixes the project declares (``[tasks] keys``), for reading tasks."""
        return self.config.tasks.keys if self.configured else ()

    @property
    def home_repo(self) -> str | None:
        """The repository the project declares for its issues (``[holds.github] repo``), so a
        bare ``#45`` and ``owner/name#45`` are one task; never guessed from a remote."""
        if not self.configured:
            return None
        try:
            return self.config.holds.github.repo
        except ConfigError:
            return None  # a refused [holds] table blocks holds, not listing

    @property
    def configured(self) -> bool:
        """Whether the project has settings of its own (else every default holds)."""
        return self.settings is not None or has_config_file(self.root)

    def inside(self, relative: str | os.PathLike[str]) -> Path:
        """An absolute path for ``relative`` that is guaranteed to stay inside the root."""
        text = os.fspath(relative)
        if "\x00" in text:
            raise PathOutsideRoot("a path may not contain NUL")
        resolved = (self.root / text).resolve()
        if not resolved.is_relative_to(self.root):
            raise PathOutsideRoot(
                f"{text!r} resolves outside the project root {self.root}; paths must stay inside it"
            )
        return resolved

    def record_path(self, record: str | None = None) -> Path:
        """The record to read or write; a ``record`` argument names only a lessons file."""
        path = self.inside(record or self.default_record)
        confine.check_record(self.root, record, path, self.inside(self.default_record))
        return path

    def writable_record(self, record: str | None = None) -> Path:
        """The record an edit may write: the configured one or a Markdown file under ``.claude/``.

        Either way it must be Markdown, outside ``.git/`` and outside the state folder; a
        record a stored proposal names is held to the same rule, so no file of the
        repository (config, hooks, scripts, workflows) can be made a write target.
        """
        path = self.record_path(record)
        name = self.name(path)
        parts = name.split("/")
        configured = path == self.record_path(None)
        if not name.lower().endswith(MARKDOWN) or ".git" in parts or f"{name}/".startswith(f"{STATE_DIR}/"):
            raise UnsafePath(
                f"{name!r} cannot be written: a lessons file is a Markdown file outside .git/ and "
                f"{STATE_DIR}/"
            )
        if not configured and parts[0] != ".claude":
            raise UnsafePath(
                f"{name!r} cannot be written: besides the configured record ({self.default_record}), "
                "only Markdown files under .claude/ may be edited; set `record` in .claude/gotchas.toml "
                "or pass --record to choose another"
            )
        return path

    def snapshot(self, path: Path, *, missing_ok: bool = False) -> Snapshot:
        """The record's bytes and signature, read without following a symlink or blocking on a FIFO."""
        from gotchas.record import MAX_RECORD_BYTES

        try:
            fd = open_beneath(self.root, self.name(path), os.O_RDONLY)
        except FileNotFoundError:
            if missing_ok:
                return Snapshot(b"", None)
            raise RecordNotFound(
                f"no record at {self.name(path)} under {self.root}; create it, or point to another "
                f"file with {surface.record_option()}"
            ) from None
        try:
            info = os.fstat(fd)
            if info.st_size > MAX_RECORD_BYTES:
                raise RecordUnreadable(
                    f"{self.name(path)} is {info.st_size:,} bytes; the limit is {MAX_RECORD_BYTES:,} (16 MiB)"
                )
            return Snapshot(_read_all(fd), signature(info))
        finally:
            os.close(fd)

    def name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    @property
    def state_dir(self) -> Path:
        return self.root / STATE_DIR  # reached without following symlinks, by the writers

    @property
    def proposals_dir(self) -> Path:
        return self.root / PROPOSALS_DIR  # reached without following symlinks, by the writers

    @property
    def journal_path(self) -> Path:
        return self.root / JOURNAL_FILE  # reached without following symlinks, by the writers

    @property
    def ledger_path(self) -> Path:
        return ledger_path(self.root)

    @property
    def locks_dir(self) -> Path:
        return self.root / LOCKS_DIR  # reached without following symlinks, by the writers

    def read(self, path: Path) -> bytes:
        """The bytes of a record, refusing what is missing, not a regular file, or over the size limit."""
        return self.snapshot(path).data

    def load(self, path: Path) -> Record:
        """The parsed record, re-read only when the file changed (size, mtime or inode)."""
        try:
            info = path.stat()
        except FileNotFoundError:
            self.read(path)
            raise
        signature = (info.st_mtime_ns, info.st_size, info.st_ino)
        cached = self._cache.get(path)
        if cached and cached[0] == signature:
            return cached[1]
        parsed = self.parse(self.read(path))
        self._cache[path] = (signature, parsed)
        return parsed

    def loaded(self, path: Path) -> bool:
        """Whether :meth:`load` answers from memory: the file is unchanged since it was parsed."""
        cached = self._cache.get(path)
        try:
            info = path.stat()
        except OSError:
            return False
        return cached is not None and cached[0] == (info.st_mtime_ns, info.st_size, info.st_ino)

    def parse_as_edit(self, data: bytes, near: Record | None) -> Record:
        """:meth:`parse`, with ``near`` passed by position (the merge driver's reader)."""
        return self.parse(data, near=near)

    def parse(self, data: bytes, *, near: Record | None = None) -> Record:
        """Parse ``data``, reusing an earlier parse of the very same bytes (keyed by sha256).

        Parsing is a pure function of the bytes, so a proposal's planned result, parsed and
        verified at propose time, need not be parsed again when apply reads those bytes back.
        ``near`` is the parse ``data`` was edited from: only what the edit touched is read again.
        """
        from gotchas.record import parse

        for known in reversed(self._parsed.values()):
            if known.data is data or (len(known.data) == len(data) and known.data == data):
                return known  # the same bytes: comparing them is cheaper than hashing them
        key = hashlib.sha256(data).hexdigest()
        found = self._parsed.get(key)
        if found is None:
            found = parse(
                data, self.entry_style, task_keys=self.task_keys, near=near, reuse=not self.one_shot
            )
            found.__dict__["sha256"] = key  # hashed once: the record's digest is this key
            self._parsed[key] = found
            while len(self._parsed) > _PARSE_CACHE_SIZE:
                self._parsed.pop(next(iter(self._parsed)))
        return found

    @contextlib.contextmanager
    def lock(self, path: Path) -> Iterator[None]:
        """Exclusive across processes; the kernel drops it if the holder dies, so it never sticks."""
        fd = _open_lock(self.root, hashlib.sha256(self.name(path).encode()).hexdigest()[:16])
        try:
            locking.exclusive(fd)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def write_atomic(self, path: Path, data: bytes, *, expect: Snapshot | None = None) -> list[str]:
        """Replace the record at ``path`` with ``data``: a crash leaves the old file or the new one.

        With ``expect``, the record must still be the version read (same signature) at the
        last moment before the rename, else :class:`RecordChanged` and nothing is written.
        A read-only or foreign record is refused. Returns warnings about failures after the
        rename (the new bytes are in place by then).
        """
        return self.swap(path, data, expect=expect).warnings

    def swap(self, path: Path, data: bytes, *, expect: Snapshot | None = None) -> Swap:
        """:meth:`write_atomic`, telling also what was renamed and any write the rename displaced."""
        return compare_and_swap(path, data, root=self.root, expect=expect, record=True)


def _open_lock(root: Path, digest: str) -> int:
    """The lock file of one record, in ``.claude/gotchas/locks/`` (kept out of git)."""
    shown = f"{LOCKS_DIR}/{digest}.lock"
    if not BY_DESCRIPTOR:
        folder, _ = _walk_by_path(root, LOCKS_DIR.split("/"), create=True)
        _keep_out_of_git_by_path(folder)
        return _open_beneath_by_path(root, shown, os.O_RDWR | os.O_CREAT)
    locks = open_dir_beneath(root, LOCKS_DIR, create=True)
    try:
        _keep_out_of_git(locks)
        return _open_regular(locks, f"{digest}.lock", os.O_RDWR | os.O_CREAT, shown)
    finally:
        os.close(locks)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _split(root: Path | None, path: Path) -> tuple[Path, tuple[str, ...]]:
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


def _open_regular(dir_fd: int, name: str, flags: int, shown: str, mode: int = 0o644) -> int:
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
            raise RecordUnreadable(f"{shown} is {_kind(info.st_mode)}, not a regular file")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _kind(mode: int) -> str:
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
        return _open_beneath_by_path(root, relative, flags, mode)
    parts = relative.split("/")
    folder = open_dir_beneath(root, parts[:-1], create=bool(flags & os.O_CREAT))
    try:
        return _open_regular(folder, parts[-1], flags, relative, mode)
    finally:
        os.close(folder)


def read_confined(path: Path, root: Path | None = None) -> bytes:
    """The bytes of a state file, read without following symlinks (FileNotFoundError if none)."""
    base, parts = _split(root, path)
    fd = open_beneath(base, "/".join(parts), os.O_RDONLY)
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def _keep_out_of_git(dir_fd: int) -> None:
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
    base, parts = _split(root, path)
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
    if not stat.S_ISREG(old.st_mode) or _redirects(old):
        kind = "a symlink" if _redirects(old) else _kind(old.st_mode)
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
        _keep_out_of_git(temp)
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


def ledger_path(root: Path) -> Path:
    """The task ledger of the project at ``root``."""
    return root / LEDGER_FILE


def has_config_file(root: Path) -> bool:
    return (root / CONFIG_PATH).is_file()


def read_settings(root: Path) -> Config:
    """The project's settings; the defaults when there is no config file."""
    from gotchas.config import Config, load_config

    return load_config(root) if has_config_file(root) else Config(root=root)


def append_jsonl(path: Path, value: Mapping[str, object], *, sort_keys: bool = False) -> int:
    """Append ``value`` as one JSON line; returns the byte offset where the line starts.

    One ``O_APPEND`` write under an exclusive lock (:mod:`gotchas.locking`), so lines from concurrent writers
    never interleave. A final line left without its newline (a hand edit) gets one first,
    so two entries are never glued together. The file and its folders are reached without
    following symlinks, and only a regular file is appended to.
    """
    import json  # writing only: not on the reading path

    payload = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).encode("utf-8") + b"\n"
    base, parts = _split(None, path)
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


def _redirects(info: os.stat_result) -> bool:
    return redirects(info.st_mode, getattr(info, "st_file_attributes", 0), getattr(info, "st_reparse_tag", 0))


def _identity(info: os.stat_result) -> Identity:
    return (info.st_dev, info.st_ino)


def _by_path_flags() -> int:
    """What every open by path adds: binary mode (else Windows translates line endings and stops
    reading at Ctrl-Z), and whatever of no-follow, non-blocking and close-on-exec exists here."""
    return (
        getattr(os, "O_BINARY", 0)
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )


def _plain_part(part: str, parts: Sequence[str]) -> str:
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


def _walk_by_path(root: Path, parts: Sequence[str], *, create: bool = False) -> tuple[Path, list[Identity]]:
    """The folder ``parts`` under ``root`` and the identity of each folder on the way, every
    component checked with ``lstat``: a real folder, neither a symlink nor a junction."""
    folder = root
    chain = [_identity(os.stat(root))]
    for part in parts:
        path = folder / _plain_part(part, parts)
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            if not create:
                raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o777)
            info = os.lstat(path)
        if _redirects(info) or not stat.S_ISDIR(info.st_mode):
            raise UnsafePath(_unsafe(parts, part))
        chain.append(_identity(info))
        folder = path
    return folder, chain


def _open_beneath_by_path(root: Path, relative: str, flags: int, mode: int = 0o644) -> int:
    """:func:`open_beneath` where a folder cannot be held open: walk, open, then check again."""
    parts = relative.split("/")
    folder, chain = _walk_by_path(root, parts[:-1], create=bool(flags & os.O_CREAT))
    fd = _open_regular_by_path(folder / _plain_part(parts[-1], parts), flags, relative, mode)
    try:
        if _walk_by_path(root, parts[:-1])[1] != chain:
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
        _must_be_regular(before, shown)
    extra = _by_path_flags() | (os.O_EXCL if before is None else 0)  # create: never through a link
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
            raise RecordUnreadable(f"{shown} is {_kind(info.st_mode)}, not a regular file")
        after = os.lstat(path)
        if _redirects(after) or not all(
            os.path.samestat(seen, info) for seen in (after, before) if seen is not None
        ):
            raise UnsafePath(f"{shown} was replaced while it was opened; nothing was used")
        if hasattr(os, "O_NONBLOCK"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _must_be_regular(info: os.stat_result, shown: str) -> None:
    if _redirects(info):
        raise UnsafePath(f"{shown} is a symlink or a special file; only a regular file is used")
    if not stat.S_ISREG(info.st_mode):
        raise RecordUnreadable(f"{shown} is {_kind(info.st_mode)}, not a regular file")


def _lstat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _keep_out_of_git_by_path(folder: Path) -> None:
    try:
        fd = os.open(folder / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | _by_path_flags(), 0o644)
    except FileExistsError:
        return
    try:
        os.write(fd, b"*\n")
    finally:
        os.close(fd)


def _write_atomic_by_path(
    base: Path, parts: Sequence[str], data: bytes, expect: Snapshot | None, record: bool
) -> list[str]:
    """:func:`write_atomic` by checked paths: the same temp file, compare-and-swap and rename."""
    folder, chain = _walk_by_path(base, parts[:-1], create=True)
    leaf = _plain_part(parts[-1], parts)
    shown = "/".join(parts)
    before = _lstat_or_none(folder / leaf)
    old = None if before is None else _replaceable(before, shown, record)
    if expect is not None and (old is None) != (expect.signature is None):
        raise RecordChanged(f"{shown} appeared or vanished while it was being edited")
    temp_dir = _temp_dir_by_path(base, parts, folder)
    import secrets  # writing only: not on the reading path

    temp = temp_dir / f".{leaf[:64]}{TEMP_MARK}{os.getpid()}-{secrets.token_hex(4)}.tmp"
    # the new file is created with the old one's permissions: where fchmod exists they are
    # then set exactly, elsewhere (Windows) the write bit, all a mode holds there, is kept
    created = stat.S_IMODE(old.st_mode) if old is not None else 0o666
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _by_path_flags(), created)
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
        if _walk_by_path(base, parts[:-1])[1] != chain:
            raise UnsafePath(f"a folder above {shown} was replaced during the edit; nothing was written")
        if expect is not None:
            now = _lstat_or_none(folder / leaf)
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
        temp, _ = _walk_by_path(base, TEMP_DIR.split("/"), create=True)
    except (OSError, GotchasError):
        return folder
    if os.lstat(temp).st_dev != os.lstat(folder).st_dev:
        return folder
    with contextlib.suppress(OSError):
        _keep_out_of_git_by_path(temp)
        _remove_orphans_by_path(temp)
    return temp


def _remove_orphans_by_path(folder: Path, *, older_than: float = ORPHAN_AGE) -> list[str]:
    """:func:`remove_orphans` by path; where users have no uid (Windows), the folder is ours."""
    removed = []
    now = time.time()
    for name in os.listdir(folder):
        if TEMP_MARK not in name or not name.endswith(".tmp"):
            continue
        info = _lstat_or_none(folder / name)
        if info is None or _redirects(info) or not stat.S_ISREG(info.st_mode):
            continue
        ours = not hasattr(os, "geteuid") or info.st_uid == os.geteuid()
        if ours and now - info.st_mtime > older_than:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(folder / name)
                removed.append(name)
    return removed
