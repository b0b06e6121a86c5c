"""Merging the record: a git merge driver that keeps both sides' corrections.

Two machines often correct the record at once, each on its own branch. Corrections only
insert lines (:mod:`gotchas.edit`), so when both sides did nothing but insert, and they
did not correct the same entry, the merge is every base line with both sides' insertions
in place (ours first where both inserted at one spot) and is then verified: every entry
either side added is present, byte for byte, and the links hold. Two corrections of the
same entry, or a side that changed existing bytes where the other also changed lines,
give ordinary conflict markers and a non-zero exit, exactly as git's own merge would;
changes to different lines merge as git would merge them.

The same correction made on both sides (the same lines inserted at the same place) is kept
once. When the record is new on both sides (git gives an empty base), the sides merge only
if they are identical: two different records are one conflict, never a concatenation.

Every step is linear in the record: insertions are found by matching lines in order (no
quadratic diff), and each side is parsed as an edit of the base (only the lines around
its insertions are read again). Records are read the way the repository pins them
(``entries`` in ``.claude/gotchas.toml``), through the ``read`` function the shell passes.

Use it with ``.gitattributes``: ``.claude/rules/gotchas.md merge=gotchas`` and
``git config merge.gotchas.driver "gotchas merge-record -- %O %A %B %P"`` (``gotchas init``
writes both; ``--`` because ``%P`` is a path from the repository, which may start with ``-``).
The result replaces ``%A`` by a rename, never by rewriting it in place.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gotchas import verification
from gotchas.errors import GotchasError
from gotchas.record import Record, parse
from gotchas.wording import counted

MARKER = 7

Read = Callable[[bytes, Record | None], Record]
"""Reads a version of the record; the second argument is a parse it was edited from, or None."""


def read_guessed(data: bytes, near: Record | None, name: str | None = None) -> Record:
    """The record read with no pin: the reading is guessed from the bytes (and the file's name)."""
    return parse(data, near=near, name=name)


@dataclass(frozen=True)
class Merged:
    """The merge's bytes; ``conflicts`` counts conflict regions (0: clean), ``why`` says how."""

    data: bytes
    conflicts: int
    why: str


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def insertions(base: Sequence[bytes], side: Sequence[bytes]) -> dict[int, list[bytes]] | None:
    """Lines ``side`` inserts before each base line index, or None if it changed or removed any.

    Linear in the lines: each base line, in order, is matched at its earliest place in
    ``side`` after the previous one, and whatever is skipped is inserted. The placement
    depends only on the lines up to it, so the same correction reads as the same insertion
    on both sides of a merge, whatever else either side did. When ``base`` is not a
    subsequence of ``side``, a line was changed or removed.
    """
    found: dict[int, list[bytes]] = {}
    j, m = 0, len(side)
    for i, line in enumerate(base):
        start = j
        while j < m and side[j] != line:
            j += 1
        if j == m:
            return None
        if j > start:
            found[i] = list(side[start:j])
        j += 1
    if j < m:
        found[len(base)] = list(side[j:])
    return found


def _touched(base: Record, side: Record) -> set[str]:
    """Entries of ``base`` a side corrected: changed in place, or named by a new entry's link."""
    base_ids = {e.id: e for e in base.entries}
    out: set[str] = set()
    for entry in side.entries:
        old = base_ids.get(entry.id)
        if old is None:
            out.update(ln.target for ln in entry.supersedes if ln.target in base_ids)
        elif old.sha256 != entry.sha256:
            out.add(entry.id)
    return out


def merge(
    base: bytes, ours: bytes, theirs: bytes, *, eol: bytes = b"\n", read: Read = read_guessed
) -> Merged:
    """The three-way merge of the record (pure; see the module docstring)."""
    if theirs in (ours, base):
        return Merged(ours, 0, "one side has no changes")
    if ours == base:
        return Merged(theirs, 0, "one side has no changes")
    if not base:
        return _both_created(ours, theirs, eol)
    base_lines, our_lines, their_lines = _lines(base), _lines(ours), _lines(theirs)
    mine, other = insertions(base_lines, our_lines), insertions(base_lines, their_lines)
    if mine is None or other is None:
        return line_merge(base, ours, theirs)
    try:
        was = read(base, None)
        records = [was, read(ours, was), read(theirs, was)]
        shared = {at: lines for at, lines in mine.items() if other.get(at) == lines}
        # what both sides inserted alike is one correction made twice: the base of the rest
        common = read(_join(base_lines, shared, {}, conflict=False, eol=eol)[0], was) if shared else was
    except GotchasError:
        return line_merge(base, ours, theirs)
    same = _touched(common, records[1]) & _touched(common, records[2])
    if same:
        merged = _join(base_lines, mine, other, conflict=True, eol=eol)
        return Merged(merged[0], max(merged[1], 1), "both sides corrected " + ", ".join(sorted(same)))
    data, _ = _join(base_lines, mine, other, conflict=False, eol=eol)
    problem = _unsound(data, *records, read=read)
    if problem:
        return Merged(_join(base_lines, mine, other, conflict=True, eol=eol)[0], 1, problem)
    why = "both sides' corrections kept and verified"
    if shared:
        why += f" ({len(shared)} made on both sides, kept once)"
    return Merged(data, 0, why)


def _both_created(ours: bytes, theirs: bytes, eol: bytes) -> Merged:
    """Both sides added the record (no base): one conflict holding each side whole."""
    data = [b"<" * MARKER + b" ours" + eol, *_ended(_lines(ours), eol), b"=" * MARKER + eol]
    data += [*_ended(_lines(theirs), eol), b">" * MARKER + b" theirs" + eol]
    return Merged(b"".join(data), 1, "both sides created the record, differently")


def _join(
    base: Sequence[bytes],
    mine: dict[int, list[bytes]],
    other: dict[int, list[bytes]],
    *,
    conflict: bool,
    eol: bytes,
) -> tuple[bytes, int]:
    out: list[bytes] = []
    conflicts = 0
    for at in range(len(base) + 1):
        ours, theirs = mine.get(at, []), other.get(at, [])
        if ours and theirs and ours != theirs and conflict:
            conflicts += 1
            out += [b"<" * MARKER + b" ours" + eol, *_ended(ours, eol), b"=" * MARKER + eol]
            out += [*_ended(theirs, eol), b">" * MARKER + b" theirs" + eol]
        elif ours == theirs:
            out += ours
        else:
            out += _ended(ours, eol) if at == len(base) and theirs else ours
            out += theirs
        if at < len(base):
            out.append(base[at])
    return b"".join(out), conflicts


def _ended(lines: Sequence[bytes], eol: bytes) -> list[bytes]:
    """``lines`` with a line ending on the last one, so what follows starts a line of its own."""
    if lines and not lines[-1].endswith((b"\n", b"\r")):
        return [*lines[:-1], lines[-1] + eol]
    return list(lines)


def _unsound(data: bytes, base: Record, ours: Record, theirs: Record, *, read: Read) -> str | None:
    """Why the merged bytes are not both sides' corrections, verified; None when they are."""
    try:
        merged = read(data, ours)
    except GotchasError as exc:
        return f"the merged record does not read: {exc}"
    by_id = {e.id: e for e in merged.entries}
    was = {e.id: e.sha256 for e in base.entries}
    for side in (ours, theirs):
        for entry in side.entries:
            if was.get(entry.id) == entry.sha256:
                continue  # not this side's change
            found = by_id.get(entry.id)
            if found is None or merged.text(found).strip() != side.text(entry).strip():
                return f"the merge does not keep {entry.id!r} as a side wrote it"
    before = {
        (p.code, p.entry)
        for s in (ours, theirs)
        for p in verification.check_record(s)
        if p.severity == "error"
    }
    new = [
        p
        for p in verification.check_record(merged)
        if p.severity == "error" and (p.code, p.entry) not in before
    ]
    if new:
        return f"the merged record does not verify: {new[0].message}"
    return None


def line_merge(base: bytes, ours: bytes, theirs: bytes) -> Merged:
    """Git's own line merge (``git merge-file``): different lines merge, overlapping ones conflict."""
    with tempfile.TemporaryDirectory(prefix="gotchas-merge-") as folder:
        paths = [Path(folder, name) for name in ("ours", "base", "theirs")]
        for path, data in zip(paths, (ours, base, theirs), strict=True):
            path.write_bytes(data)
        done = _git_merge_file(paths)
    if done.returncode < 0 or done.returncode > 127:
        raise GotchasError(f"git merge-file failed: {done.stderr.decode('utf-8', 'replace').strip()}")
    conflicts = done.returncode
    why = "changes to different lines merged" if not conflicts else "both sides changed the same lines"
    return Merged(done.stdout, conflicts, why)


def _git_merge_file(paths: Sequence[Path]) -> subprocess.CompletedProcess[bytes]:
    from gotchas.holds.sources.git import SAFE_CONFIG, SAFE_ENV

    argv = ["git", "--no-pager"]
    for setting in SAFE_CONFIG:
        argv += ["-c", setting]
    argv += ["merge-file", "-p", "-L", "ours", "-L", "base", "-L", "theirs", *map(str, paths)]
    return subprocess.run(argv, capture_output=True, env={**os.environ, **SAFE_ENV}, check=False, timeout=60)


def line_ending(data: bytes) -> bytes:
    """The record's own line ending: CRLF, a lone CR (old Mac files) or LF, by majority."""
    crlf = data.count(b"\r\n")
    lone_cr, lone_lf = data.count(b"\r") - crlf, data.count(b"\n") - crlf
    best = max((crlf, b"\r\n"), (lone_cr, b"\r"), (lone_lf, b"\n"), key=lambda pair: pair[0])
    return best[1] if best[0] else b"\n"


def replace(path: Path, data: bytes) -> None:
    """Write ``data`` over ``path`` as a whole: a temp file beside it, synced, then renamed, so a
    kill leaves git's ``%A`` as it was or merged, never truncated. The mode is kept."""
    mode = os.stat(path).st_mode & 0o7777
    fd, temp = tempfile.mkstemp(prefix=f".{path.name[:64]}.", suffix=".merge.tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def run(base: Path, ours: Path, theirs: Path, name: str, read: Read = read_guessed) -> tuple[int, str]:
    """The driver: merge into ``ours`` (git's %A) and return (exit status, one line for people)."""
    data = [p.read_bytes() for p in (base, ours, theirs)]
    merged = merge(*data, eol=line_ending(data[1]), read=read)
    replace(ours, merged.data)
    if merged.conflicts:
        conflicts = counted(merged.conflicts, "conflict")
        return 1, f"{name}: {conflicts}: {merged.why}; resolve them, then gotchas verify"
    return 0, f"{name}: merged: {merged.why}"
