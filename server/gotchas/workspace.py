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
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas.errors import PathOutsideRoot, RecordNotFound, RecordUnreadable

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
        return self.inside(record or self.default_record)

    def name(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    @property
    def state_dir(self) -> Path:
        return self.inside(STATE_DIR)

    @property
    def proposals_dir(self) -> Path:
        return self.inside(PROPOSALS_DIR)

    @property
    def journal_path(self) -> Path:
        return self.inside(JOURNAL_FILE)

    @property
    def ledger_path(self) -> Path:
        return ledger_path(self.root)

    @property
    def locks_dir(self) -> Path:
        return self.inside(LOCKS_DIR)

    def read(self, path: Path) -> bytes:
        """The bytes of a record, refusing what is missing, a directory, or over the size limit."""
        from gotchas.record import MAX_RECORD_BYTES

        try:
            info = path.stat()
        except FileNotFoundError:
            raise RecordNotFound(
                f"no record at {self.name(path)} under {self.root}; create it, or point to another "
                "file with --record / the `record` argument"
            ) from None
        if path.is_dir():
            raise RecordUnreadable(f"{self.name(path)} is a directory, not a lessons file")
        if info.st_size > MAX_RECORD_BYTES:
            raise RecordUnreadable(
                f"{self.name(path)} is {info.st_size:,} bytes; the limit is {MAX_RECORD_BYTES:,} (16 MiB)"
            )
        return path.read_bytes()

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

    def parse(self, data: bytes) -> Record:
        """Parse ``data``, reusing an earlier parse of the very same bytes (keyed by sha256).

        Parsing is a pure function of the bytes, so a proposal's planned result, parsed and
        verified at propose time, need not be parsed again when apply reads those bytes back.
        """
        from gotchas.record import parse

        key = hashlib.sha256(data).hexdigest()
        found = self._parsed.get(key)
        if found is None:
            found = parse(data, self.entry_style, task_keys=self.task_keys)
            self._parsed[key] = found
            while len(self._parsed) > _PARSE_CACHE_SIZE:
                self._parsed.pop(next(iter(self._parsed)))
        return found

    @contextlib.contextmanager
    def lock(self, path: Path) -> Iterator[None]:
        """Exclusive across processes; the kernel drops it if the holder dies, so it never sticks."""
        locks = self.locks_dir
        if not locks.is_dir():
            locks.mkdir(parents=True, exist_ok=True)
            # Lock files are empty and per machine: the folder keeps itself out of git.
            (locks / ".gitignore").write_text("*\n", encoding="utf-8")
        digest = hashlib.sha256(self.name(path).encode()).hexdigest()[:16]
        with open(locks / f"{digest}.lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def write_atomic(self, path: Path, data: bytes) -> None:
        """Replace ``path`` with ``data`` so a crash leaves the old file or the new one, never a mix."""
        write_atomic(path, data)


def write_atomic(path: Path, data: bytes) -> None:
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


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

    One ``O_APPEND`` write under an exclusive ``flock``, so lines from concurrent writers
    never interleave. A final line left without its newline (a hand edit) gets one first,
    so two entries are never glued together.
    """
    payload = json.dumps(value, ensure_ascii=False, sort_keys=sort_keys).encode("utf-8") + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            payload = b"\n" + payload
            size += 1
        os.write(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)  # closing releases the lock
    return size
