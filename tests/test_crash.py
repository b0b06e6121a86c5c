"""An apply killed with SIGKILL at any point leaves the record as before or as after, never partial.

The apply runs in a child process with one hook in place: at the chosen point the hook
tells the parent (a line on stdout) and sleeps; the parent SIGKILLs it there. Then the
record must be byte-identical to the proposal's base or to its result, a stray temp file
must not be taken for the record, and the next apply must get the lock and finish.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gotchas import operations
from gotchas import record as record_model
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import Workspace
from support.clients import isolated_env
from support.project import RECORD, TARGET

CHILD = r"""
import os, sys, time
from pathlib import Path
import gotchas.journal as journal
import gotchas.operations as operations
import gotchas.workspace as workspace

root, proposal_id, point = sys.argv[1:4]
real_replace, real_fsync = os.replace, os.fsync

def stop_here():
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    time.sleep(3600)

def is_temp(fd):
    return os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp")

if point == "before-write":
    workspace.compare_and_swap = lambda *args, **kwargs: stop_here()
elif point == "temp-written":
    def fsync(fd):
        real_fsync(fd)
        if is_temp(fd):
            stop_here()
    os.fsync = fsync
elif point == "before-rename":
    os.replace = lambda *args, **kwargs: stop_here()
elif point == "after-rename":
    def replace(*args, **kwargs):
        real_replace(*args, **kwargs)
        stop_here()
    os.replace = replace
elif point == "before-journal":
    journal.append = lambda path, event: stop_here()
else:
    raise SystemExit(f"unknown point {point}")

operations.apply(workspace.Workspace(Path(root)), proposal_id=proposal_id)
sys.stdout.write("FINISHED\n")
"""

# where a kill at each point must leave the record (all but before-journal hold the lock)
POINTS = {
    "before-write": "before",
    "temp-written": "before",
    "before-rename": "before",
    "after-rename": "after",
    "before-journal": "after",
}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def landed(repo: Path) -> Path:
    """The scratch repository, with #9001 landed so the proposal's hold is released."""
    set_task_state(repo, "#9001", "landed", "crash-test")
    return repo


def propose(root: Path) -> dict[str, str]:
    result = operations.propose_supersede(
        Workspace(root),
        target_id=TARGET,
        task="#9001",
        title="Batch hangs came from a starved tokenizer thread",
        body="The batch hung because the tokenizer was reloaded per call; cache it.",
        diagnostic="profile one render call before chunking anything",
        ruled_out=["chunking", "enforce_eager=True"],
        evidence="run log of #9001",
        hold="predicate-9001-lands",
    )
    assert result["status"] == "proposed"
    stored = json.loads(
        (root / ".claude" / "gotchas" / "proposals" / f"{result['proposal_id']}.json").read_text()
    )
    return {"id": result["proposal_id"], "base": stored["base_sha256"], "result": stored["result_sha256"]}


def gotchas_cli(root: Path, *args: str) -> subprocess.Popen[str]:
    exe = Path(sys.executable).parent / "gotchas"
    if not exe.exists():
        pytest.skip(f"the gotchas console script is not installed beside {sys.executable}")
    return subprocess.Popen(
        [str(exe), "--root", str(root), *args],
        cwd=root,
        env=isolated_env(root.parent / "home"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def kill_at(root: Path, proposal_id: str, point: str) -> None:
    """Run an apply in a child, wait until it reports reaching ``point``, SIGKILL it there."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(root), proposal_id, point],
        cwd=root,
        env=isolated_env(root.parent / "home"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if line != "READY\n":
            _, err = child.communicate(timeout=60)
            pytest.fail(f"the child never reached {point}: {line!r} {err}")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        assert child.returncode == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def temp_files(root: Path) -> list[Path]:
    """Temp files of the record: kept in the state's tmp folder (ignored by git), none beside it."""
    assert not list((root / ".claude" / "rules").glob(".gotchas.md*.tmp"))
    return sorted((root / ".claude" / "gotchas" / "tmp").glob(".gotchas.md.gotchas-*.tmp"))


@pytest.mark.parametrize("point", list(POINTS))
def test_sigkill_inside_apply_leaves_before_or_after_and_the_next_apply_finishes(
    landed: Path, point: str
) -> None:
    proposal = propose(landed)
    before = (landed / RECORD).read_bytes()
    assert sha(before) == proposal["base"]
    expected_state = POINTS[point]

    kill_at(landed, proposal["id"], point)

    now = (landed / RECORD).read_bytes()
    assert sha(now) in (proposal["base"], proposal["result"]), "the record is partial"
    assert sha(now) == proposal[{"before": "base", "after": "result"}[expected_state]]
    record_model.parse(now)

    strays = temp_files(landed)
    if point in ("temp-written", "before-rename"):
        # the kill really happened with the whole new text in a temp file, not yet renamed
        assert len(strays) == 1
        assert sha(strays[0].read_bytes()) == proposal["result"]
    else:
        assert strays == []
    # a stray temp file is never read as the record
    listed = operations.list_gotchas(Workspace(landed))
    assert listed["record"] == RECORD
    assert len(listed["entries"]) == (6 if expected_state == "before" else 7)

    # the journal holds only whole lines
    journal = landed / ".claude" / "gotchas" / "journal.jsonl"
    if journal.exists():
        for line in journal.read_text("utf-8").splitlines():
            json.loads(line)

    # the next apply takes the lock (the kernel dropped the dead holder's) and finishes
    following = gotchas_cli(landed, "apply", proposal["id"], "--json")
    out, err = following.communicate(timeout=120)
    assert following.returncode == 0, err
    result = json.loads(out)
    assert result["status"] == ("applied" if expected_state == "before" else "already-applied")
    after = (landed / RECORD).read_bytes()
    assert sha(after) == proposal["result"]
    assert operations.verify_record(Workspace(landed))["ok"]


@pytest.mark.parametrize("point", ["before-write", "after-rename"])
def test_an_apply_waiting_on_the_lock_proceeds_when_the_holder_is_killed(landed: Path, point: str) -> None:
    """A second apply queued behind a holder that dies gets the lock instead of hanging."""
    proposal = propose(landed)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(landed), proposal["id"], point],
        cwd=landed,
        env=isolated_env(landed.parent / "home"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    waiter = None
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == "READY\n"
        waiter = gotchas_cli(landed, "apply", proposal["id"], "--json")
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=60)
        out, err = waiter.communicate(timeout=120)
    finally:
        for process in (child, waiter):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert waiter.returncode == 0, err
    status = json.loads(out)["status"]
    assert status == ("applied" if point == "before-write" else "already-applied")
    assert sha((landed / RECORD).read_bytes()) == proposal["result"]
    assert temp_files(landed) == []
