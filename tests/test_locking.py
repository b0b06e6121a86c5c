"""The lock and path code on a platform without ``fcntl`` (Windows has none): reading works,
and a write that needs a lock is refused with a typed error, leaving every file as it was.

Each case runs the real CLI in a fresh interpreter where ``import fcntl`` fails, the way
it does on Windows; nothing else about the process is changed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.clients import HOLD, RECORD_PATH, isolated_env, make_scenario_repo, run_gotchas
from support.project import LAST

WITHOUT_FCNTL = (
    "import sys; sys.modules['fcntl'] = None; "
    "from gotchas.cli import main; raise SystemExit(main(sys.argv[1:]))"
)


def without_fcntl(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_FCNTL, *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(root.parent / "home"),
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    run_gotchas(root, "task", "set", "664", "running")
    return root


def test_fcntl_is_really_unimportable_in_the_probe() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import sys; sys.modules['fcntl'] = None\nimport fcntl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode != 0 and "import of fcntl halted" in done.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("list",),
        ("list", "--json", "--task", "#664"),
        ("show", "a-single-large-llm-generate-deadlocks-the-v1"),
        ("verify",),
        ("outline",),
        ("task", "show", "664"),
        ("proposals",),
    ],
)
def test_read_paths_work_without_fcntl(repo: Path, args: tuple[str, ...]) -> None:
    done = without_fcntl(repo, *args)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr and done.stdout.strip()


def test_a_hold_is_decided_from_the_ledger_without_fcntl(repo: Path) -> None:
    done = without_fcntl(repo, "check-hold", HOLD, "--json")
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["state"] == "held"


def test_a_write_without_any_file_lock_is_a_typed_refusal_and_writes_nothing(repo: Path) -> None:
    ledger = repo / ".claude/gotchas/tasks.jsonl"
    before = ledger.read_bytes()
    done = without_fcntl(repo, "task", "set", "664", "landed", "--by", "ci")
    assert done.returncode == 1
    assert done.stderr.startswith("gotchas: lock-unavailable:"), done.stderr
    assert "reading still works" in done.stderr
    assert ledger.read_bytes() == before


def test_apply_without_any_file_lock_is_refused_and_the_record_is_untouched(repo: Path) -> None:
    proposed = run_gotchas(
        repo,
        "propose",
        "--title",
        "Pin the tokenizer revision",
        "--body",
        "Load the tokenizer once per process.",
        "--tasks",
        "#700",
        "--root-cause",
        "confirmed",
        "--diagnostic",
        "one load per run in the profile",
        "--after",
        LAST,
        "--json",
    )
    pid = json.loads(proposed.stdout)["proposal_id"]
    record = repo / RECORD_PATH
    before = record.read_bytes()
    done = without_fcntl(repo, "apply", pid)
    assert done.returncode == 1
    assert "lock-unavailable" in done.stderr
    assert record.read_bytes() == before


def test_no_module_imports_fcntl_at_import_time() -> None:
    """Every module of the package imports with fcntl unavailable, but those that import the
    MCP SDK's server, whose stdio transport imports fcntl on POSIX only (it has its own
    Windows branch, chosen by platform rather than by import)."""
    probe = (
        "import sys, pkgutil, importlib; sys.modules['fcntl'] = None\n"
        "import gotchas\n"
        "names = [m.name for m in pkgutil.walk_packages(gotchas.__path__, 'gotchas.')]\n"
        "skip = ('gotchas.__main__', 'gotchas.server', 'gotchas.demo')\n"
        "[importlib.import_module(n) for n in names if n not in skip]\n"
        "print(len(names))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 20


def test_a_windows_lock_takes_a_byte_past_the_data_and_keeps_the_read_position(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows byte locks are mandatory: the locked byte must never be one a reader reads."""
    import os
    import types

    from gotchas import locking

    calls: list[tuple[int, int]] = []
    fake = types.SimpleNamespace(
        LK_NBLCK=2,
        locking=lambda fd, mode, nbytes: calls.append((os.lseek(fd, 0, os.SEEK_CUR), nbytes)),
    )
    monkeypatch.setattr(locking, "_posix", lambda: None)
    monkeypatch.setattr(locking, "_windows", lambda: fake)
    path = tmp_path / "journal.jsonl"
    path.write_bytes(b'{"status": "applied"}\n' * 100)
    fd = os.open(path, os.O_RDWR)
    try:
        os.lseek(fd, 5, os.SEEK_SET)
        assert locking.shared(fd) is True
        locking.exclusive(fd)
        assert os.lseek(fd, 0, os.SEEK_CUR) == 5
    finally:
        os.close(fd)
    assert len(calls) == 2
    assert all(offset > path.stat().st_size and nbytes == 1 for offset, nbytes in calls)
