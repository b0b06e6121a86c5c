"""The write path against a hostile repository: forged proposals, odd records, symlinked state,
concurrent writers, and faults at every step of a write.

Each test plays the attacker (or the unlucky disk) on a scratch project and asserts what the
server may write: only the configured record, only through a verified, recomputed edit, and
never a lost update or a wrong status.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import multiprocessing
import os
import random
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from gotchas import atomic, errors, journal, layout, operations, proposal, verification, workspace
from gotchas.edit import Insertion, apply_insertions
from gotchas.workspace import Workspace
from support.project import RECORD, TARGET, git_init

ENTRIES = [
    "crashed-runs-leave-an-orphaned-vllm-enginecore",
    TARGET,
    "max-model-len-silently-drifts-from-the",
    "hf-hub-offline-1-does-not-cover-trust-remote",
    "tokenizer-loads-are-not-free",
]


def supersede(
    root: Path, *, task: str = "#664", title: str = "Split the engine's step loop", body: str = ""
) -> Any:
    return operations.propose_supersede(
        Workspace(root),
        no_hold=True,
        target_id=TARGET,
        task=task,
        title=title,
        body=body or f"The deadlock is in the step loop; chunking only hides it ({task}).",
        diagnostic="py-spy shows the engine blocked in the step loop",
    )


def capture(root: Path, after: str, n: int) -> Any:
    return operations.propose_lesson(
        Workspace(root),
        no_hold=True,
        title=f"Captured lesson number {n}",
        body=f"What happened in run {n}, and what to do.",
        tasks=[f"#9{n:02d}"],
        root_cause="suspected",
        after=after,
    )


def stored_file(root: Path, proposal_id: str) -> Path:
    return root / ".claude" / "gotchas" / "proposals" / f"{proposal_id}.json"


def forge(root: Path, proposal_id: str, **change: Any) -> str:
    """Rewrite a stored proposal as an attacker would: a valid checksum and a matching id."""
    original = proposal.load(root / ".claude" / "gotchas" / "proposals", proposal_id)
    forged = dataclasses.replace(original, **change)
    forged = dataclasses.replace(forged, id=proposal.make_id(forged))
    proposal.save(root / ".claude" / "gotchas" / "proposals", forged)
    return forged.id


def state(root: Path) -> Path:
    return root / ".claude" / "gotchas"


# --- case 1: a stored proposal is a request, never an authority ------------------------------


def test_replayed_insertions_moved_into_another_entry_are_refused(project: Path) -> None:
    made = supersede(project)
    before = (project / RECORD).read_bytes()
    stored = proposal.load(state(project) / "proposals", made["proposal_id"])
    # same intent (so the same id), same diff; the inserted lines moved into the first entry
    moved = tuple(Insertion(3, i.lines) for i in stored.insertions)
    # ... and the result hash and entries digest recomputed to match, as anyone can
    forged_bytes = apply_insertions(before, moved, stored.eol.encode())
    forged_id = forge(
        project,
        made["proposal_id"],
        insertions=moved,
        result_sha256=workspace_sha(forged_bytes),
        entries_digest=verification.entries_digest(Workspace(project).parse(forged_bytes)),
    )
    assert forged_id == made["proposal_id"]

    result = operations.apply(Workspace(project), proposal_id=forged_id)

    after = (project / RECORD).read_bytes()
    if result["status"] == "applied":
        # only acceptable when the edit was recomputed, not replayed: the very proposed bytes
        assert after != before
        assert operations.verify_record(Workspace(project))["ok"]
        first_entry = after.split(b"### A single large")[0]
        assert b"Split the engine" not in first_entry
    else:
        assert after == before


def test_a_result_hash_that_the_intent_does_not_produce_is_refused_as_forged(project: Path) -> None:
    made = supersede(project)
    before = (project / RECORD).read_bytes()
    forged_id = forge(project, made["proposal_id"], result_sha256="0" * 64)
    result = operations.apply(Workspace(project), proposal_id=forged_id)
    assert result["status"] == "refused"
    assert result["code"] == errors.ProposalInvalid.code
    assert "forged" in result["reason"]
    assert (project / RECORD).read_bytes() == before


def test_a_forged_capture_naming_the_claude_settings_creates_nothing(project: Path) -> None:
    made = capture(project, ENTRIES[0], 1)
    forged_id = forge(
        project, made["proposal_id"], record=".claude/settings.json", base_sha256=workspace_sha(b"")
    )
    with pytest.raises(errors.UnsafePath):
        operations.apply(Workspace(project), proposal_id=forged_id)
    assert not (project / ".claude" / "settings.json").exists()


def test_a_forged_lesson_that_no_propose_call_makes_is_refused(project: Path) -> None:
    made = capture(project, ENTRIES[0], 2)
    stored = proposal.load(state(project) / "proposals", made["proposal_id"])
    bad = dataclasses.replace(stored.lesson, title="two\nlines")
    before = (project / RECORD).read_bytes()
    forged_id = forge(project, made["proposal_id"], lesson=bad)
    result = operations.apply(Workspace(project), proposal_id=forged_id)
    assert result["status"] == "refused"
    assert (project / RECORD).read_bytes() == before


def workspace_sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


# --- case 4: the record is the configured Markdown record, or Markdown under .claude/ --------


@pytest.mark.parametrize(
    "record", [".git/config", ".github/workflows/ci.yml", "scripts/release.sh", ".claude/settings.json"]
)
def test_a_record_argument_may_not_name_a_file_the_project_runs(project: Path, record: str) -> None:
    git_init(project)
    target = project / record
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_bytes(b"")
    before = target.read_bytes()
    with pytest.raises(errors.UnsafePath):
        operations.propose_lesson(
            Workspace(project),
            no_hold=True,
            title="A lesson",
            body="text",
            tasks=["#1"],
            root_cause="suspected",
            record=record,
        )
    assert target.read_bytes() == before
    assert not list((state(project) / "proposals").glob("*.json")) if state(project).exists() else True


def test_a_configured_record_inside_git_is_refused(project: Path) -> None:
    git_init(project)
    (project / ".claude" / "gotchas.toml").write_text('record = ".git/lessons.md"\n', encoding="utf-8")
    (project / ".git" / "lessons.md").write_bytes((project / RECORD).read_bytes())
    with pytest.raises(errors.UnsafePath):
        operations.propose_lesson(
            Workspace.discover(root=str(project), environ={}),
            no_hold=True,
            title="A lesson",
            body="text",
            tasks=["#1"],
            root_cause="suspected",
        )


# --- case 5: state reached through symlinks ------------------------------------------------


def test_a_symlinked_journal_is_never_appended_to(project: Path) -> None:
    made = supersede(project)
    notes = project / "notes.md"
    notes.write_bytes(b"my notes\n")
    state(project).joinpath("journal.jsonl").symlink_to(notes)
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert any("journal" in w for w in result.get("warnings", []))
    assert notes.read_bytes() == b"my notes\n"


def test_a_symlinked_proposals_folder_is_never_written(project: Path) -> None:
    elsewhere = project / "docs"
    elsewhere.mkdir()
    state(project).mkdir(parents=True)
    state(project).joinpath("proposals").symlink_to(elsewhere)
    with pytest.raises(errors.UnsafePath):
        supersede(project)
    assert list(elsewhere.iterdir()) == []


def test_a_symlinked_locks_folder_is_refused_before_any_write(project: Path) -> None:
    made = supersede(project)
    elsewhere = project / "docs"
    elsewhere.mkdir()
    locks = state(project) / "locks"
    if locks.exists():
        for child in locks.iterdir():
            child.unlink()
        locks.rmdir()
    locks.symlink_to(elsewhere)
    before = (project / RECORD).read_bytes()
    with pytest.raises(errors.UnsafePath):
        operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert list(elsewhere.iterdir()) == []
    assert (project / RECORD).read_bytes() == before


def test_a_symlinked_proposal_file_is_not_read(project: Path) -> None:
    made = supersede(project)
    path = stored_file(project, made["proposal_id"])
    real = project / "copy.json"
    real.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(real)
    with pytest.raises(errors.UnsafePath):
        operations.apply(Workspace(project), proposal_id=made["proposal_id"])


def test_a_symlinked_temp_folder_is_never_written_through(project: Path) -> None:
    made = supersede(project)
    elsewhere = project.parent / "elsewhere"
    elsewhere.mkdir()
    temp = state(project) / "tmp"
    if temp.exists():  # the proposal was written through it; now it points away
        for child in temp.iterdir():
            child.unlink()
        temp.rmdir()
    temp.symlink_to(elsewhere)
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in (project / RECORD).parent.iterdir()) == ["gotchas.md"]


LANDED_LINE = b'{"task": "#5", "state": "landed", "at": "2026-01-01T00:00:00Z", "by": "someone"}\n'


def test_a_symlinked_ledger_is_neither_read_nor_written(project: Path) -> None:
    from gotchas.holds.sources import ledger

    outside = project.parent / "someone-elses.jsonl"
    outside.write_bytes(LANDED_LINE)  # read through the link, this would release the hold
    state(project).mkdir(parents=True)
    state(project).joinpath("tasks.jsonl").symlink_to(outside)

    answer = operations.check_hold(Workspace(project), predicate="predicate-5-lands").to_view()
    assert answer["state"] != "released"
    ledger_evidence = [e for t in answer["tasks"] for e in t["evidence"] if e.get("source") == "ledger"]
    assert any("symlink" in str(e.get("error", "")) for e in ledger_evidence), ledger_evidence
    with pytest.raises(errors.GotchasError):
        ledger.task_history(project, "#5")
    with pytest.raises(errors.UnsafePath):
        ledger.set_task_state(project, "#5", "running", "me")
    assert outside.read_bytes() == LANDED_LINE


def test_a_fifo_ledger_does_not_hang_a_read_only_check(project: Path) -> None:
    from support.clients import gotchas as cli

    state(project).mkdir(parents=True)
    fifo = state(project) / "tasks.jsonl"
    os.mkfifo(fifo)
    try:
        done = cli(project, "check-hold", "predicate-5-lands", "--json", timeout=30)
    except subprocess.TimeoutExpired:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("check-hold blocked on a FIFO ledger")
    answer = json.loads(done.stdout)
    assert answer["state"] != "released"
    errors_seen = [e.get("error", "") for t in answer["tasks"] for e in t["evidence"]]
    assert any("tasks.jsonl" in e and "FIFO" in e for e in errors_seen), errors_seen


# --- case 7: compare-and-swap against a person writing at the same time -----------------------


def _append_forever(path: str, stop: Any, count: Any) -> None:
    n = 0
    while not stop.is_set():
        with open(path, "ab") as out:
            out.write(f"\nappended line {n}\n".encode())
        n += 1
        count.value = n
        time.sleep(0.002 + 0.018 * random.random())  # every 2 to 20 ms


def test_a_writer_appending_every_few_ms_loses_nothing_to_many_applies(project: Path) -> None:
    made = [capture(project, ENTRIES[i % 4], i)["proposal_id"] for i in range(4)]
    made += [supersede(project)["proposal_id"]]
    context = multiprocessing.get_context("fork")
    stop, count = context.Event(), context.Value("i", 0)
    writer = context.Process(target=_append_forever, args=(str(project / RECORD), stop, count))
    writer.start()
    statuses, reasons, landed = [], [], []
    try:
        time.sleep(0.05)
        started = time.monotonic()
        rounds = 0
        while rounds < 3 or time.monotonic() - started < 1.0:  # each round: every proposal again
            rounds += 1
            for pid in made:
                out = operations.apply(Workspace(project), proposal_id=pid)
                statuses.append(out["status"])
                reasons.append(out["reason"])
                landed += [pid] if out["status"] == "applied" else []
    finally:
        stop.set()
        writer.join(10)
    # once the writer pauses, every proposal lands or meets a true conflict (a correction
    # applied first changed the entry another was anchored to): while a record changes
    # faster than one planning round, an apply refuses as a conflict rather than overwrite
    for pid in made:
        out = operations.apply(Workspace(project), proposal_id=pid)
        assert out["status"] != "refused" or out["code"] == errors.Conflict.code, out
        reasons.append(out["reason"])
        landed += [pid] if out["status"] == "applied" else []
    final = (project / RECORD).read_bytes()
    written = count.value
    assert written > 20
    missing = [n for n in range(written) if f"appended line {n}\n".encode() not in final]
    assert missing == [], f"{len(missing)} of {written} appends were overwritten"
    # each proposal landed at most once, and its lesson is in the record once if it did
    assert len(landed) == len(set(landed)) >= 1, reasons
    lessons = [f"Captured lesson number {n}".encode() for n in range(4)] + [b"### Split the engine's"]
    assert [final.count(lesson) for lesson in lessons] == [int(pid in landed) for pid in made]
    assert all(r.startswith(("applied", "'", "conflict")) for r in reasons), reasons


def _write_after_the_compare(
    monkeypatch: pytest.MonkeyPatch, path: Path, lines: list[bytes], *, then_new: bytes = b""
) -> list[int]:
    """Append ``lines[i]`` to the record right after the i-th compare, before its rename: the
    instant an editor or a script appending by path hits the old file. With ``then_new``, the
    compare after the first one is preceded by an append to the new file (already renamed)."""
    real = atomic._unchanged
    calls: list[int] = []

    def compare_then_write(folder: int, leaf: str, shown: str, expect: workspace.Snapshot) -> int | None:
        if calls and then_new and len(calls) == 1:
            with open(path, "ab") as out:
                out.write(then_new)
        calls.append(1)
        held = real(folder, leaf, shown, expect)
        if len(calls) <= len(lines):
            with open(path, "ab") as out:
                out.write(lines[len(calls) - 1])
        return held

    monkeypatch.setattr(atomic, "_unchanged", compare_then_write)
    return calls


def test_an_append_between_the_compare_and_the_rename_survives(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = capture(project, ENTRIES[0], 5)
    path = project / RECORD
    calls = _write_after_the_compare(monkeypatch, path, [b"\nappended in the instant\n"])
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    final = path.read_bytes()
    assert final.count(b"appended in the instant") == 1
    assert final.count(b"Captured lesson number 5") == 1
    assert result["status"] == "applied", result
    assert result["rebased"]
    assert len(calls) == 2  # the rename, then one more swap against the bytes just renamed
    assert operations.verify_record(Workspace(project))["ok"]
    assert not result.get("warnings"), result
    again = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert again["status"] == "already-applied"


def test_a_supersede_keeps_appends_in_both_the_old_and_the_new_file(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = supersede(project)
    path = project / RECORD
    calls = _write_after_the_compare(
        monkeypatch, path, [b"\ninto the old file\n"], then_new=b"\ninto the new file\n"
    )
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    final = path.read_bytes()
    assert final.count(b"into the old file") == 1
    assert final.count(b"into the new file") == 1
    assert result["status"] == "applied", result
    assert len(calls) == 3  # renamed; compare failed on the new file's append; swapped again
    assert final.index(b"into the old file") < final.index(b"into the new file")
    assert final.count(b"### Split the engine's step loop") == 1
    assert operations.verify_record(Workspace(project))["ok"]


def test_a_record_written_in_every_instant_stops_at_the_bound_with_a_warning(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = capture(project, ENTRIES[1], 6)
    path = project / RECORD
    lines = [f"\nlate write {n}\n".encode() for n in range(50)]
    calls = _write_after_the_compare(monkeypatch, path, lines)
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    final = path.read_bytes()
    # every write but the one displaced by the last rename is in the record
    assert all(line in final for line in lines[: len(calls) - 1])
    assert result["status"] == "applied"  # the edit is in the record since the first rename
    assert len(calls) == operations._REBASES + 1
    assert any("could not be merged back" in w for w in result["warnings"]), result
    assert final.count(b"Captured lesson number 6") == 1


def test_a_change_between_the_read_and_the_rename_is_rebased_not_overwritten(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = capture(project, ENTRIES[0], 3)
    path = project / RECORD
    real = atomic._write_and_rename
    calls: list[int] = []

    def edit_then_write(*args: Any) -> tuple[workspace.Snapshot, int | None]:
        if not calls:  # a person saves right after the server read the file
            with open(path, "ab") as out:
                out.write(b"\nsaved by an editor\n")
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(atomic, "_write_and_rename", edit_then_write)
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert result["rebased"]
    assert len(calls) == 2
    assert b"saved by an editor" in path.read_bytes()
    assert b"Captured lesson number 3" in path.read_bytes()


# --- case 8: already-applied means this very correction --------------------------------------


def test_a_second_correction_with_the_same_title_is_not_answered_already_applied(project: Path) -> None:
    first = supersede(project, task="#664")
    second = supersede(project, task="#700", body="Another cause entirely, seen in #700: the scheduler.")
    assert first["proposal_id"] != second["proposal_id"]
    assert operations.apply(Workspace(project), proposal_id=first["proposal_id"])["status"] == "applied"
    result = operations.apply(Workspace(project), proposal_id=second["proposal_id"])
    assert result["status"] != "already-applied"
    if result["status"] == "refused":
        assert result["code"] == errors.Conflict.code
    else:
        assert b"the scheduler" in (project / RECORD).read_bytes()


# --- case 13: after the rename, the answer is applied; the journal is reconciled --------------


def test_a_directory_fsync_failure_after_the_rename_is_a_warning(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = supersede(project)
    real = os.fsync

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EIO, "I/O error")
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert any("sync" in w for w in result["warnings"])
    assert workspace_sha((project / RECORD).read_bytes()) == result["after_sha256"]


def test_a_lost_journal_event_is_applied_with_a_warning_then_reconciled(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = supersede(project)

    def full(path: Path, event: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(journal, "append", full)
        result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "applied"
    assert any("journal" in w for w in result["warnings"])
    assert journal.read(state(project) / "journal.jsonl") == []

    again = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert again["status"] == "already-applied"
    events = journal.read(state(project) / "journal.jsonl")
    assert [(e["proposal_id"], e["status"], e.get("reconciled")) for e in events] == [
        (made["proposal_id"], "applied", True)
    ]
    operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert len(journal.read(state(project) / "journal.jsonl")) == 2  # no second reconcile


# --- faults before the rename: old bytes, no temp file, lock released -------------------------


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.tmp")]


@pytest.mark.parametrize("call", ["write", "fsync", "replace", "open-temp", "fchmod"])
def test_a_fault_before_the_rename_leaves_the_old_bytes(
    project: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    made = supersede(project)
    before = (project / RECORD).read_bytes()
    real = {name: getattr(os, name) for name in ("write", "fsync", "replace", "open", "fchmod")}

    def is_temp(fd: int) -> bool:
        return os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp")

    def failing(name: str) -> Any:
        def fail(*args: Any, **kwargs: Any) -> Any:
            if name == "open" and not str(args[0]).endswith(".tmp"):
                return real[name](*args, **kwargs)
            if name in ("write", "fsync", "fchmod") and not is_temp(args[0]):
                return real[name](*args, **kwargs)
            raise OSError(errno.EIO, f"injected {name} failure")

        return fail

    name = {"open-temp": "open"}.get(call, call)
    with monkeypatch.context() as patch:
        patch.setattr(os, name, failing(name))
        with pytest.raises(OSError, match="injected"):
            operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert (project / RECORD).read_bytes() == before
    assert _temp_files(project) == []
    # the lock was released: the next apply finishes
    assert operations.apply(Workspace(project), proposal_id=made["proposal_id"])["status"] == "applied"


# --- 15: FIFO, read-only and foreign records, orphaned temp files -----------------------------


def test_a_fifo_as_record_is_refused_without_hanging(project: Path) -> None:
    fifo = project / ".claude" / "rules" / "pipe.md"
    os.mkfifo(fifo)
    outcome: list[object] = []

    def propose() -> None:
        try:
            operations.propose_lesson(
                Workspace(project),
                no_hold=True,
                title="A lesson",
                body="text",
                tasks=["#1"],
                root_cause="suspected",
                record=".claude/rules/pipe.md",
            )
        except errors.GotchasError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=propose, daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # unblock the stuck reader before failing
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO record blocked")
    assert len(outcome) == 1 and isinstance(outcome[0], errors.RecordUnreadable)
    assert "FIFO" in str(outcome[0])


def test_a_read_only_record_is_refused_not_replaced(project: Path) -> None:
    made = supersede(project)
    path = project / RECORD
    before = path.read_bytes()
    path.chmod(0o444)
    inode = path.stat().st_ino
    result = operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    assert result["status"] == "refused"
    assert result["code"] == errors.RecordReadOnly.code
    assert "read-only" in result["reason"]
    assert path.read_bytes() == before
    assert path.stat().st_ino == inode and stat.S_IMODE(path.stat().st_mode) == 0o444


def test_the_new_record_keeps_the_old_mode(project: Path) -> None:
    made = supersede(project)
    path = project / RECORD
    path.chmod(0o640)
    assert operations.apply(Workspace(project), proposal_id=made["proposal_id"])["status"] == "applied"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="making a file another user owns needs root")
def test_a_record_another_user_owns_keeps_its_owner(project: Path) -> None:
    """Replaced by a root process, the record stays its owner's (never becomes root's)."""
    made = supersede(project)
    path = project / RECORD
    os.chown(path, 4242, 4343)
    assert operations.apply(Workspace(project), proposal_id=made["proposal_id"])["status"] == "applied"
    info = path.stat()
    assert (info.st_uid, info.st_gid) == (4242, 4343)


def test_orphaned_temp_files_are_cleaned_and_ignored_by_git(project: Path) -> None:
    git_init(project)
    made = supersede(project)
    temp = state(project) / "tmp"
    temp.mkdir(parents=True, exist_ok=True)
    old = temp / f".gotchas.md{layout.TEMP_MARK}999-dead.tmp"
    fresh = temp / f".gotchas.md{layout.TEMP_MARK}998-live.tmp"
    bait = project / "keep.txt"
    bait.write_text("keep")
    link = temp / f".x{layout.TEMP_MARK}1-link.tmp"
    for path in (old, fresh):
        path.write_bytes(b"half a record")
    link.symlink_to(bait)
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    os.utime(link, (hour_ago, hour_ago), follow_symlinks=False)

    assert operations.apply(Workspace(project), proposal_id=made["proposal_id"])["status"] == "applied"

    assert not old.exists()
    assert fresh.exists()  # maybe another process's write in progress
    assert link.is_symlink() and bait.read_text() == "keep"
    ignored = subprocess.run(["git", "check-ignore", "-q", str(fresh)], cwd=project, check=False)
    assert ignored.returncode == 0


def test_the_journal_is_whole_json_lines(project: Path) -> None:
    made = supersede(project)
    operations.apply(Workspace(project), proposal_id=made["proposal_id"])
    lines = (state(project) / "journal.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line)["status"] for line in lines] == ["applied"]
