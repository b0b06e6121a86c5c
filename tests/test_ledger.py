"""The task ledger: append-only, latest line wins, safe under concurrent writers."""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import pytest

from gotchas.errors import InvalidArgument, TaskRefError
from gotchas.holds.sources.ledger import (
    LEDGER_PATH,
    LedgerSource,
    read_ledger,
    set_task_state,
    task_history,
)


def test_a_state_is_appended_as_one_json_line_with_time_and_author(tmp_path: Path) -> None:
    line = set_task_state(tmp_path, "664", "running", "ana")

    raw = (tmp_path / LEDGER_PATH).read_text(encoding="utf-8")
    assert raw.endswith("\n")
    assert raw.count("\n") == 1
    entry = json.loads(raw)
    assert entry == {"task": "#664", "state": "running", "at": line.at, "by": "ana"}
    assert line.line == 1
    assert line.at.endswith("Z")


def test_history_keeps_every_state_and_the_latest_line_wins(tmp_path: Path) -> None:
    set_task_state(tmp_path, "#664", "open", "ana")
    set_task_state(tmp_path, "665", "running", "bo")
    set_task_state(tmp_path, "664", "running", "ana")
    last = set_task_state(tmp_path, "664", "landed", "ci")

    history = task_history(tmp_path, "664")
    assert [h.state for h in history] == ["open", "running", "landed"]
    assert [h.line for h in history] == [1, 3, 4]
    assert last.line == 4

    observed = LedgerSource(tmp_path).observe("#664")
    assert observed.state == "landed"
    assert observed.evidence[0] == {
        "source": "ledger",
        "line": 4,
        "state": "landed",
        "at": last.at,
        "by": "ci",
        "previous": ["open", "running"],
    }


def test_task_references_are_normalised_so_every_spelling_meets(tmp_path: Path) -> None:
    set_task_state(tmp_path, "abc-12", "running", "ana")
    set_task_state(tmp_path, "Octo/Proj#0007", "failed", "ana")
    assert [h.task for h in task_history(tmp_path, "ABC-12")] == ["ABC-12"]
    assert [h.state for h in task_history(tmp_path, "Octo/Proj#7")] == ["failed"]


def test_an_unknown_task_has_no_history_and_the_source_does_not_know_it(tmp_path: Path) -> None:
    assert task_history(tmp_path, "664") == []
    set_task_state(tmp_path, "665", "running", "ana")
    observed = LedgerSource(tmp_path).observe("#664")
    assert observed.state is None
    assert observed.error is None


@pytest.mark.parametrize("state", ["done", "closed", "", "landed!"])
def test_only_the_ledger_states_are_accepted(tmp_path: Path, state: str) -> None:
    with pytest.raises(InvalidArgument, match="open, running, landed, abandoned, cancelled, failed"):
        set_task_state(tmp_path, "664", state, "ana")
    assert not (tmp_path / LEDGER_PATH).exists()


def test_states_are_case_insensitive_and_stored_lower_case(tmp_path: Path) -> None:
    assert set_task_state(tmp_path, "664", "Landed", "ana").state == "landed"


def test_a_bad_task_or_missing_author_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TaskRefError):
        set_task_state(tmp_path, "not a task", "running", "ana")
    with pytest.raises(InvalidArgument, match="by"):
        set_task_state(tmp_path, "664", "running", "  \n ")


def test_an_author_with_newlines_cannot_break_the_line_format(tmp_path: Path) -> None:
    set_task_state(tmp_path, "664", "running", 'ana\n{"task": "#665"}')
    raw = (tmp_path / LEDGER_PATH).read_text(encoding="utf-8")
    assert raw.count("\n") == 1
    assert task_history(tmp_path, "665") == []


def test_a_hand_edit_without_final_newline_is_not_glued_to_the_next_line(tmp_path: Path) -> None:
    path = tmp_path / LEDGER_PATH
    path.parent.mkdir(parents=True)
    path.write_text('{"task": "#1", "state": "open", "at": "2026-01-01T00:00:00Z", "by": "x"}')

    line = set_task_state(tmp_path, "664", "running", "ana")

    assert line.line == 2
    assert [h.state for h in task_history(tmp_path, "1")] == ["open"]
    assert [h.line for h in task_history(tmp_path, "664")] == [2]


def test_damaged_lines_are_skipped_and_reported_not_fatal(tmp_path: Path) -> None:
    set_task_state(tmp_path, "664", "running", "ana")
    path = tmp_path / LEDGER_PATH
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"task": "#664", "state": "landed", "at": \n')
        handle.write('{"task": "#664", "state": "teleported", "at": "x", "by": "y"}\n')
        handle.write("[1, 2]\n")
    set_task_state(tmp_path, "664", "abandoned", "bo")

    contents = read_ledger(tmp_path)
    assert contents.damaged == [2, 3, 4]
    observed = LedgerSource(tmp_path).observe("#664")
    assert observed.state == "abandoned"
    assert observed.evidence[0]["line"] == 5
    assert any("3 damaged ledger lines (2, 3, 4)" in str(e.get("warning")) for e in observed.evidence)


def _write_many(args: tuple[str, int, int]) -> int:
    root, writer, count = args
    for index in range(count):
        set_task_state(Path(root), str(1000 + writer), "running" if index % 2 else "open", f"w{writer}")
    return count


def test_concurrent_writers_lose_and_interleave_nothing(tmp_path: Path) -> None:
    writers, per_writer = 6, 40
    with ProcessPoolExecutor(max_workers=writers, mp_context=get_context("spawn")) as pool:
        written = sum(pool.map(_write_many, [(str(tmp_path), w, per_writer) for w in range(writers)]))

    contents = read_ledger(tmp_path)
    assert written == writers * per_writer
    assert contents.damaged == []
    assert len(contents.lines) == writers * per_writer
    assert [line.line for line in contents.lines] == list(range(1, writers * per_writer + 1))
    for writer in range(writers):
        history = task_history(tmp_path, str(1000 + writer))
        assert len(history) == per_writer
        assert {h.by for h in history} == {f"w{writer}"}
