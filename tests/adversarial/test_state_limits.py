"""Journal, ledger and history reads are bounded: past a limit, a typed error, not minutes.

Before, a 120 MB journal (118 KiB packed in git) made ``history`` take 58 s and 5.8 GB, a
40 MB ledger made ``check-hold`` take 120 s and 1 GB, and 160 rewrites of a 4 MB record made
``history`` read every version. Sparse files stand in for the huge ones here: the size is
refused before a byte is read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gotchas import history, limits
from gotchas.errors import StateTooLarge
from support.clients import RECORD_PATH, git, gotchas, make_scenario_repo

JOURNAL = ".claude/gotchas/journal.jsonl"
LEDGER = ".claude/gotchas/tasks.jsonl"


def sparse(path: Path, size: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        out.truncate(size)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    return repo


def test_a_huge_journal_is_a_typed_error(root: Path) -> None:
    sparse(root / JOURNAL, 120 << 20)
    done = gotchas(root, "history", "664", "--json")
    assert done.returncode != 0
    assert "state-too-large" in done.stderr and "the journal" in done.stderr, done.stderr


def test_a_huge_ledger_is_source_evidence_and_releases_nothing(root: Path) -> None:
    sparse(root / LEDGER, 40 << 20)
    done = gotchas(root, "check-hold", "predicate-664-lands", "--json")
    answer = json.loads(done.stdout)
    assert answer["state"] != "released"
    assert f"limit is {limits.MAX_LEDGER_BYTES:,}" in json.dumps(answer)


def commit_versions(root: Path, count: int) -> None:
    record = root / RECORD_PATH
    for n in range(count):
        text = (
            record.read_text("utf-8")
            + f"\n## Hypothesis {n}\n\ntasks: #664 · supersedes: h{n} (for #664)\n\nNo.\n"
        )
        record.write_text(text, "utf-8")
        git(root, "commit", "-qam", f"version {n}")


def test_history_reads_a_bounded_number_of_record_versions(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commit_versions(root, 5)
    monkeypatch.setattr(limits, "MAX_HISTORY_VERSIONS", 2)
    seen = history._git_times(root, str(RECORD_PATH))
    assert set(seen) == {("h3", "#664"), ("h4", "#664")}, "only the newest versions are read"


def test_a_huge_record_history_is_a_typed_error(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commit_versions(root, 3)
    monkeypatch.setattr(limits, "MAX_HISTORY_BYTES", 300)
    with pytest.raises(StateTooLarge, match="git history"):
        history._git_times(root, str(RECORD_PATH))


def test_a_file_that_grows_while_read_stops_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "state"
    path.write_bytes(b"x" * 100)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert limits.read_fd(fd, 100, "state") == b"x" * 100
        os.lseek(fd, 0, os.SEEK_SET)
        with pytest.raises(StateTooLarge):
            limits.read_fd(fd, 99, "state")
    finally:
        os.close(fd)
