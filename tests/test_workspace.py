"""The workspace owns the project's state: its settings, read once, and the layout of
``.claude/gotchas/``; every JSON-lines file is appended the same careful way."""

from __future__ import annotations

import json
from pathlib import Path

from gotchas import journal
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import Workspace, append_jsonl


def test_the_settings_are_read_once_and_pick_the_record(tmp_path: Path) -> None:
    config = tmp_path / ".claude" / "gotchas.toml"
    config.parent.mkdir()
    config.write_text('record = "docs/lessons.md"\n[holds]\nsources = ["git"]\n', encoding="utf-8")
    ws = Workspace.discover(root=str(tmp_path), environ={})
    assert ws.default_record == "docs/lessons.md"
    assert ws.config.holds.sources == ("git",)
    config.write_text('[holds]\nsources = ["ledger"]\n', encoding="utf-8")
    assert ws.config.holds.sources == ("git",)


def test_without_a_config_file_the_defaults_hold(tmp_path: Path) -> None:
    ws = Workspace.discover(root=str(tmp_path), environ={})
    assert not ws.configured and ws.settings is None
    assert ws.default_record == ".claude/rules/gotchas.md"
    assert ws.config.holds.sources == ("ledger", "git")


def test_the_state_layout_lives_under_claude_gotchas(tmp_path: Path) -> None:
    ws = Workspace(tmp_path.resolve())
    state = tmp_path.resolve() / ".claude" / "gotchas"
    assert ws.proposals_dir == state / "proposals"
    assert ws.journal_path == state / "journal.jsonl"
    assert ws.ledger_path == state / "tasks.jsonl"
    assert ws.locks_dir == state / "locks"


def test_an_append_after_a_hand_edit_without_newline_starts_a_new_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}')
    start = append_jsonl(path, {"b": 2})
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert path.read_bytes()[start:] == b'{"b": 2}\n'


def test_the_journal_and_the_ledger_share_the_guard(tmp_path: Path) -> None:
    ws = Workspace(tmp_path.resolve())
    ws.journal_path.parent.mkdir(parents=True)
    ws.journal_path.write_bytes(b'{"status": "applied"}')
    journal.append(ws.journal_path, {"status": "refused", "at": "now"})
    assert [event["status"] for event in journal.read(ws.journal_path)] == ["applied", "refused"]
    ws.ledger_path.write_bytes(b'{"task": "#1", "state": "open", "at": "x", "by": "me"}')
    line = set_task_state(ws.root, "#1", "landed", "me")
    assert line.line == 2
    last = ws.ledger_path.read_text(encoding="utf-8").splitlines()[line.line - 1]
    assert json.loads(last)["state"] == "landed"


def test_a_record_counts_as_loaded_only_while_unchanged(project: Path) -> None:
    ws = Workspace.discover(root=str(project))
    path = ws.record_path()
    assert not ws.loaded(path)
    ws.load(path)
    assert ws.loaded(path)
    path.write_bytes(path.read_bytes() + b"\n### Another\n\nMore text.\n")
    assert not ws.loaded(path)
    ws.load(path)
    assert ws.loaded(path)
    path.unlink()
    assert not ws.loaded(path)
