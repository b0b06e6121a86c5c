"""The workspace: one project's root, its settings, its record and where its state lives.

Finding the root, reading the settings once, keeping paths inside the root, reading the
record with clear refusals (and parsing it once per version), the cross-process lock and
the record's atomic write. The files themselves are reached through :mod:`gotchas.confined`
and replaced through :mod:`gotchas.atomic`; their names are in :mod:`gotchas.layout`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas import confine, locking, surface
from gotchas.atomic import RecordChanged, Snapshot, Swap, compare_and_swap, signature, write_atomic
from gotchas.confined import (
    BY_DESCRIPTOR,
    append_jsonl,
    keep_out_of_git,
    keep_out_of_git_by_path,
    open_beneath,
    open_beneath_by_path,
    open_dir_beneath,
    open_regular,
    read_all,
    read_confined,
    walk_by_path,
)
from gotchas.errors import ConfigError, PathOutsideRoot, RecordNotFound, RecordUnreadable, UnsafePath
from gotchas.layout import (
    CONFIG_PATH,
    DEFAULT_RECORD,
    JOURNAL_FILE,
    LEDGER_FILE,
    LOCKS_DIR,
    MARKDOWN,
    PROPOSALS_DIR,
    STATE_DIR,
    has_config_file,
    ledger_path,
)

if TYPE_CHECKING:
    from gotchas.config import Config
    from gotchas.record import Record

__all__ = [  # what other modules import from here, by the names they have always used
    "BY_DESCRIPTOR",
    "CONFIG_PATH",
    "DEFAULT_RECORD",
    "JOURNAL_FILE",
    "LEDGER_FILE",
    "RecordChanged",
    "Snapshot",
    "Workspace",
    "append_jsonl",
    "find_root",
    "git_top_level",
    "ledger_path",
    "read_confined",
    "read_settings",
    "write_atomic",
]

_PARSE_CACHE_SIZE = 4


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
    _parsed: dict[tuple[str, str | None], Record] = field(default_factory=dict, repr=False)
    # where each ``record`` argument resolved last: a hint for :meth:`answers_from_memory` only
    _resolved: dict[str | None, Path] = field(default_factory=dict, repr=False)

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
        # ``Path.resolve`` and ``is_relative_to``, on strings: asked on every tool call
        root = os.fspath(self.root)
        resolved = os.path.realpath(os.path.join(root, text))
        if resolved != root and not resolved.startswith(root if root.endswith(os.sep) else root + os.sep):
            raise PathOutsideRoot(
                f"{text!r} resolves outside the project root {self.root}; paths must stay inside it"
            )
        return Path(resolved)

    def record_path(self, record: str | None = None) -> Path:
        """The record to read or write; a ``record`` argument names only a lessons file."""
        name = record or self.default_record
        path = self.inside(name)
        default = path if name == self.default_record else self.inside(self.default_record)
        confine.check_record(self.root, record, path, default)
        self._resolved[record] = path
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
            return Snapshot(read_all(fd), signature(info))
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
        parsed = self.parse(self.read(path), name=self.name(path))
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

    def answers_from_memory(self, record: str | None) -> bool:
        """Whether listing ``record`` would be a lookup in an indexed parse: the file it resolved
        to last is unchanged. A hint for choosing where to run the call, which resolves the
        record again; no path is trusted from it."""
        path = self._resolved.get(record)
        if path is None or not self.loaded(path):
            return False
        return self._cache[path][1].indexed

    def parse_as_edit(self, data: bytes, near: Record | None, name: str | None = None) -> Record:
        """:meth:`parse`, with ``near`` passed by position (the merge driver's reader)."""
        return self.parse(data, near=near, name=name)

    def parse(self, data: bytes, *, near: Record | None = None, name: str | None = None) -> Record:
        """Parse ``data``, the bytes of the record at ``name`` (else of ``near``'s), reusing an
        earlier parse of the very same bytes of the same file (keyed by sha256 and name).

        Parsing is a pure function of the bytes, so a proposal's planned result, parsed and
        verified at propose time, need not be parsed again when apply reads those bytes back.
        ``near`` is the parse ``data`` was edited from: only what the edit touched is read again.
        """
        from gotchas.record import parse

        if name is None and near is not None:
            name = near.name
        for known in reversed(self._parsed.values()):
            if known.name == name and (
                known.data is data or (len(known.data) == len(data) and known.data == data)
            ):
                return known  # the same bytes: comparing them is cheaper than hashing them
        digest = hashlib.sha256(data).hexdigest()
        found = self._parsed.get((digest, name))
        if found is None:
            found = parse(
                data,
                self.entry_style,
                task_keys=self.task_keys,
                near=near,
                reuse=not self.one_shot,
                name=name,
            )
            found.__dict__["sha256"] = digest  # hashed once: the record's digest is this key
            self._parsed[(digest, name)] = found
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
        folder, _ = walk_by_path(root, LOCKS_DIR.split("/"), create=True)
        keep_out_of_git_by_path(folder)
        return open_beneath_by_path(root, shown, os.O_RDWR | os.O_CREAT)
    locks = open_dir_beneath(root, LOCKS_DIR, create=True)
    try:
        keep_out_of_git(locks)
        return open_regular(locks, f"{digest}.lock", os.O_RDWR | os.O_CREAT, shown)
    finally:
        os.close(locks)


def read_settings(root: Path) -> Config:
    """The project's settings; the defaults when there is no config file."""
    from gotchas.config import Config, load_config

    return load_config(root) if has_config_file(root) else Config(root=root)
