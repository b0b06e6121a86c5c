"""The workspace: the project root and the files we read and write inside it.

Everything that touches the disk for the record lives here: finding the root, keeping
paths inside it, reading with clear refusals, the cross-process lock, and the atomic
write (temp file in the same directory, fsync, rename, fsync the directory).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas.errors import PathOutsideRoot, RecordNotFound, RecordUnreadable

if TYPE_CHECKING:
    from gotchas.record import Record

DEFAULT_RECORD = ".claude/rules/gotchas.md"
_PARSE_CACHE_SIZE = 4
STATE_DIR = ".claude/gotchas"


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
    root: Path
    default_record: str = DEFAULT_RECORD
    entry_style: str | None = None
    task_keys: tuple[str, ...] = ()
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
        configured, style = _configured(top)
        return cls(top, record or env.get("GOTCHAS_RECORD") or configured, style, _task_keys(top))

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
        locks = self.state_dir / "locks"
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


def _configured(root: Path) -> tuple[str, str | None]:
    """The record path and entry style named in the project config, if there is one."""
    if not (root / ".claude" / "gotchas.toml").is_file():
        return DEFAULT_RECORD, None
    from gotchas.config import load_config

    config = load_config(root)
    return config.record or DEFAULT_RECORD, config.entries


def _task_keys(root: Path) -> tuple[str, ...]:
    """The tracker key prefixes declared in the project config's ``[tasks]`` table."""
    if not (root / ".claude" / "gotchas.toml").is_file():
        return ()
    from gotchas.config import load_config

    return load_config(root).tasks.keys
