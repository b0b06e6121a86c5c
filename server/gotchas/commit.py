"""Committing a correction: exactly the record, the journal and the proposals, nothing else.

Whatever the person has staged stays staged and out of this commit: the commit is built
in a temporary index (``GIT_INDEX_FILE``) started from ``HEAD``, holding only our files'
current bytes, hashed without filters. The branch moves by compare-and-swap
(``update-ref NEW OLD``), so a commit made meanwhile is never lost; then the real index
learns the new versions of just those paths, so ``git status`` stays clean for them. Git
runs with the settings of :mod:`gotchas.holds.sources.git` that keep a repository's own
config from running a program (no hooks, no signing program); paths come after ``--``.

Before anything is written, the record must be as committed (work tree, index and ``HEAD``
hold the same bytes): otherwise the commit would carry someone's unreviewed edits.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas import confine
from gotchas.errors import CommitFailed, GotchasError, RecordUncommitted
from gotchas.workspace import Workspace

if TYPE_CHECKING:
    from gotchas.holds.sources.git import Git
    from gotchas.proposal import Proposal

_NULL = "0" * 40


@dataclass(frozen=True)
class Correction:
    """One applied proposal, for the commit message: which task, which entries."""

    proposal_id: str
    task: str | None
    target_id: str | None
    new_id: str
    title: str


def message(corrections: Sequence[Correction]) -> str:
    """A subject naming the task(s), a line per correction, and one trailer block."""
    tasks = list(dict.fromkeys(c.task for c in corrections if c.task))
    named = ", ".join(tasks) if tasks else "the lessons file"
    if len(corrections) == 1:
        only = corrections[0]
        verb = "Correct the lesson" if only.target_id else "Record a lesson"
        subject = f"{verb} for {named}: {only.title}"
    else:
        subject = f"Apply {len(corrections)} released corrections for {named}"
    body = [
        f"- {c.new_id}" + (f" supersedes {c.target_id} for {c.task}" if c.target_id else "")
        for c in corrections
    ]
    trailers = [f"Gotchas-Proposal: {c.proposal_id}" for c in corrections]
    trailers += [f"Supersedes: {c.target_id} (for {c.task})" for c in corrections if c.target_id and c.task]
    return (
        "\n".join([_one_line(subject)[:200], "", *map(_one_line, body), "", *map(_one_line, trailers)]) + "\n"
    )


def _one_line(text: str) -> str:
    return " ".join(text.split())


def preflight(ws: Workspace, proposal_ids: Sequence[str] | None = ()) -> Git:
    """Git for the project, refusing before anything is written when a commit cannot be made,
    would carry changes of the proposals' records that are not ours, or would stage any file
    that is not a regular file reached without a symlink (``None``: every stored proposal)."""
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.git import Git

    records = records_of(ws, proposal_ids) if proposal_ids != () else []
    for path in staged_paths(ws, proposal_ids) if proposal_ids != () else []:
        refuse_link(ws, path)

    git = Git(ws.root)
    try:
        top = git.run("rev-parse", "--show-toplevel").stdout.strip()
    except SourceFailed as exc:
        raise CommitFailed(
            f"cannot commit: {ws.root} is not a git work tree ({exc}); nothing was written"
        ) from None
    if Path(top).resolve() != ws.root.resolve():
        raise CommitFailed(
            f"cannot commit: the project root {ws.root} is not the top of its git work tree; "
            "nothing was written"
        )
    resumed = {ws.writable_record(p.record) for p in unfinished(ws, proposal_ids, git=git)}
    for path in dict.fromkeys(records):
        change = _uncommitted(git, ws, path)
        if change and path not in resumed:
            raise RecordUncommitted(
                f"cannot commit: {ws.name(path)} {change}; the commit would carry edits no one "
                "reviewed. Commit or stash them first, or apply without --commit; nothing was written"
            )
    return git


def unfinished(
    ws: Workspace, proposal_ids: Sequence[str] | None, *, git: Git | None = None
) -> list[Proposal]:
    """The proposals (``None``: every stored one) whose result is written but not committed: an
    ``apply --commit`` stopped between the write and the commit (a kill, a full disk, a
    locked index). Their record differs from ``HEAD`` by exactly that proposal: ``HEAD``
    holds its base, the work tree its result, the index one of the two. The next
    ``--commit`` finishes them instead of refusing the record as carrying others' edits."""
    from gotchas import proposal
    from gotchas.holds.sources.git import Git

    if proposal_ids == ():
        return []
    runner = git or Git(ws.root)
    try:
        found = (
            proposal.stored(ws.proposals_dir)
            if proposal_ids is None
            else [proposal.load(ws.proposals_dir, pid) for pid in proposal_ids]
        )
    except GotchasError:
        return []
    out = []
    for p in found:
        try:
            path = ws.writable_record(p.record)
            if _result_uncommitted(runner, ws, path, p):
                out.append(p)
        except GotchasError:
            continue
    return out


def _result_uncommitted(git: Git, ws: Workspace, path: Path, p: Proposal) -> bool:
    name = ws.name(path)
    committed, staged = _blob_id(git, "HEAD", name), _blob_id(git, ":0", name)
    on_disk = ws.snapshot(path, missing_ok=True)
    if on_disk.signature is None or hashlib.sha256(on_disk.data).hexdigest() != p.result_sha256:
        return False
    disk = git.run("hash-object", "--no-filters", "--", name).stdout.strip()
    if disk == committed or staged not in (committed, disk):
        return False
    base = _blob_bytes(ws.root, committed) if committed else b""
    return base is not None and hashlib.sha256(base).hexdigest() == p.base_sha256


def _blob_id(git: Git, spec: str, name: str) -> str | None:
    found = git.run("rev-parse", "--verify", "--quiet", f"{spec}:{name}", check=False)
    return found.stdout.strip() if found.returncode == 0 else None


def _blob_bytes(root: Path, sha: str) -> bytes | None:
    """A blob's exact bytes (the text runner would translate line endings)."""
    from gotchas.holds.sources.git import SAFE_CONFIG, SAFE_ENV

    argv = ["git", "--no-pager", *(part for setting in SAFE_CONFIG for part in ("-c", setting))]
    done = subprocess.run(
        [*argv, "cat-file", "blob", sha],
        cwd=root,
        capture_output=True,
        env={**os.environ, **SAFE_ENV},
        check=False,
        timeout=60,
    )
    return done.stdout if done.returncode == 0 else None


def _uncommitted(git: Git, ws: Workspace, path: Path) -> str | None:
    """How the record differs from ``HEAD`` in the index or the work tree, or None.

    Bytes are compared as blobs hashed without filters, as :func:`commit` stages them, so a
    file whose index entry only lacks stat data reads as unchanged.
    """
    name = ws.name(path)

    committed, staged = _blob_id(git, "HEAD", name), _blob_id(git, ":0", name)
    exists = path.is_file() and not path.is_symlink()
    on_disk = git.run("hash-object", "--no-filters", "--", name).stdout.strip() if exists else None
    if staged != committed:
        conflicted = git.run("ls-files", "--unmerged", "--", f":(literal){name}", check=False).stdout
        return "is in conflict in the index" if conflicted.strip() else "has changes staged in the index"
    if on_disk != staged:
        return "has changes in the work tree" if staged else "is not committed (untracked)"
    return None


def records_of(ws: Workspace, proposal_ids: Sequence[str] | None) -> list[Path]:
    """The records the named proposals (None: every stored one) write; an unusable one is
    left to the apply, which refuses it."""
    from gotchas import proposal

    if proposal_ids is None:
        found = proposal.stored(ws.proposals_dir)
    else:
        found = [proposal.load(ws.proposals_dir, pid) for pid in proposal_ids]
    paths: list[Path] = []
    for p in found:
        try:
            paths.append(ws.writable_record(p.record))
        except GotchasError:
            continue
    return paths


def staged_paths(ws: Workspace, proposal_ids: Sequence[str] | None) -> list[Path]:
    """Every path a commit of these proposals would stage, as written under the root (never
    resolved): the records they name, the journal and their proposal files."""
    from gotchas import proposal

    found = (
        proposal.stored(ws.proposals_dir)
        if proposal_ids is None
        else [proposal.load(ws.proposals_dir, pid) for pid in proposal_ids]
    )
    paths = [ws.journal_path]
    for p in found:
        paths += [ws.root / (p.record or ws.default_record), ws.proposals_dir / f"{p.id}.json"]
    return list(dict.fromkeys(paths))


def refuse_link(ws: Workspace, path: Path) -> None:
    """``UnsafePath`` unless every component of ``path`` below the root is a real folder and
    the path itself a regular file (or absent, as a journal not yet written is).

    A committed symlink in place of the journal (``journal.jsonl -> ../../.env``) would make
    ``--commit`` stage the file it points to; the path is checked as written, never resolved
    (:func:`gotchas.confine.fixed`).
    """
    name = ws.name(path) if path.is_absolute() else path.as_posix()
    confine.fixed(ws.root, name, doing="--commit stages")


def commit(ws: Workspace, paths: Sequence[Path], text: str) -> str | None:
    """Commit ``paths`` (inside the root) at their current bytes on the current branch; the
    sha, or None when they are already as committed (nothing to commit).

    The real index learns our paths' new versions *before* the branch moves: when another
    git process holds ``index.lock`` nothing is committed and the failure is reported, and a
    kill between the two steps leaves the correction staged (which the next ``--commit``
    finishes), never a branch whose index stages a revert of it.
    """
    from gotchas.holds.sources import SourceFailed

    git = preflight(ws)
    for path in paths:  # again at the last moment: a link may have appeared since the preflight
        refuse_link(ws, path)
    quiet = no_programs(git)
    names = sorted({ws.name(path) for path in paths if path.exists()})
    head = git.run("rev-parse", "--verify", "--quiet", "HEAD", check=False).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="gotchas-index-") as folder:
        index = {"GIT_INDEX_FILE": os.path.join(folder, "index")}
        try:
            if head:
                git.run(*quiet, "read-tree", head, env=index)
            entries = [_stage(git, quiet, ws.root, name, index) for name in names]
            tree = git.run(*quiet, "write-tree", env=index).stdout.strip()
            if head and tree == git.run("rev-parse", f"{head}^{{tree}}").stdout.strip():
                return None
            parents = ["-p", head] if head else []
            made = git.run(*quiet, "commit-tree", "--no-gpg-sign", tree, *parents, stdin=text).stdout.strip()
        except SourceFailed as exc:
            raise CommitFailed(
                f"the correction is written but was not committed: {exc}; "
                "commit the record, the journal and the proposal by hand"
            ) from None
    before = _index_entries(git, quiet, names)
    _update_index(git, quiet, entries, "the correction is written but was not committed")
    try:
        git.run(*quiet, "update-ref", "-m", "gotchas: commit a correction", "HEAD", made, head or _NULL)
    except SourceFailed as exc:
        _restore_index(git, quiet, names, before)
        raise CommitFailed(
            f"the correction is written but was not committed: {exc}; the index is as it was; "
            "run the same apply with --commit again to commit it"
        ) from None
    return made


def no_programs(git: Git) -> list[str]:
    """``-c`` settings that keep every program the repository's config names from running:
    each configured filter's clean, smudge and process commands emptied (an empty command
    is no filter), automatic housekeeping off. Added to the safe settings of :class:`Git`."""
    listed = git.run("config", "--name-only", "--get-regexp", r"^filter\.", check=False).stdout
    filters = {name.rsplit(".", 1)[0] for name in listed.split("\n") if name.count(".") >= 2}
    settings = ["gc.auto=0", "maintenance.auto=false", "core.splitIndex=false"]
    for name in sorted(filters):
        settings += [f"{name}.clean=", f"{name}.smudge=", f"{name}.process=", f"{name}.required=false"]
    return [part for setting in settings for part in ("-c", setting)]


def _index_entries(git: Git, quiet: Sequence[str], names: Sequence[str]) -> dict[str, str]:
    """The real index's stage-0 entries for ``names``, as ``mode,sha,name`` cacheinfo."""
    if not names:
        return {}
    listed = git.run(*quiet, "ls-files", "-s", "-z", "--", *(f":(literal){n}" for n in names), check=False)
    found = {}
    for line in listed.stdout.split("\0"):
        meta, _, name = line.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[2] == "0":
            found[name] = f"{parts[0]},{parts[1]},{name}"
    return found


def _update_index(git: Git, quiet: Sequence[str], entries: Sequence[str], failed: str) -> None:
    """Every entry into the real index in one ``update-index`` (one lock, all or nothing)."""
    from gotchas.holds.sources import SourceFailed

    if not entries:
        return
    args = [part for entry in entries for part in ("--cacheinfo", entry)]
    try:
        git.run(*quiet, "update-index", "--add", *args)
    except SourceFailed as exc:
        raise CommitFailed(
            f"{failed}: the index could not be updated ({exc}); when another git process holds "
            ".git/index.lock, wait for it, then run the same apply with --commit again"
        ) from None


def _restore_index(git: Git, quiet: Sequence[str], names: Sequence[str], before: dict[str, str]) -> None:
    """Put the real index's entries for ``names`` back as they were (best effort)."""
    gone = [name for name in names if name not in before]
    if gone:
        git.run(*quiet, "update-index", "--force-remove", "--", *gone, check=False)
    if before:
        args = [part for entry in before.values() for part in ("--cacheinfo", entry)]
        git.run(*quiet, "update-index", "--add", *args, check=False)


def _stage(git: Git, quiet: Sequence[str], root: Path, name: str, index: dict[str, str]) -> str:
    """Our file's bytes as a blob (no clean filter runs) in the temporary index; its cacheinfo."""
    sha = git.run(
        *quiet, "hash-object", "-w", "--no-filters", "--", str(root / name), env=index
    ).stdout.strip()
    executable = os.lstat(root / name).st_mode & 0o111
    entry = f"{'100755' if executable else '100644'},{sha},{name}"
    git.run(*quiet, "update-index", "--add", "--cacheinfo", entry, env=index)
    return entry


def corrections_of(ws: Workspace, proposal_ids: Sequence[str]) -> tuple[list[Correction], list[Path]]:
    """The applied proposals as corrections, and every file a commit of them holds."""
    from gotchas import proposal

    found = [proposal.load(ws.proposals_dir, pid) for pid in proposal_ids]
    corrections = [Correction(p.id, p.task, p.target_id, p.new_id, p.lesson.title) for p in found]
    return corrections, staged_paths(ws, proposal_ids)


def commit_applied(ws: Workspace, proposal_ids: Sequence[str]) -> str | None:
    """Commit the applied proposals: their record, the journal and their proposal files (None:
    they are already committed)."""
    corrections, paths = corrections_of(ws, proposal_ids)
    records = sorted({ws.writable_record(c) for c in _records(ws, proposal_ids)})
    with contextlib.ExitStack() as held:
        for path in records:  # no apply may write the record between what we commit and the commit
            held.enter_context(ws.lock(path))
        return commit(ws, paths, message(corrections))


def _records(ws: Workspace, proposal_ids: Sequence[str]) -> list[str]:
    from gotchas import proposal

    return [proposal.load(ws.proposals_dir, pid).record for pid in proposal_ids]
