"""JSON nested a hundred thousand levels deep, wherever JSON is read: each reader treats it
as the damaged input it is (its usual typed refusal, or a skipped and reported line), never
a ``RecursionError`` or an internal error. Runs the real CLI on files written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.clients import gotchas as cli
from support.project import RECORD

DEPTH = 100_000
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH
STATE = Path(".claude/gotchas")
GOOD_LEDGER_LINE = json.dumps({"task": "#664", "state": "landed", "at": "2026-01-02T03:04:05Z", "by": "ci"})


def no_crash(stderr: str) -> None:
    assert "internal error" not in stderr
    assert "RecursionError" not in stderr and "Traceback" not in stderr


@pytest.fixture(params=[DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def deep(request: pytest.FixtureRequest) -> str:
    text: str = request.param
    return text


def test_a_stored_proposal_nested_deep_is_an_invalid_proposal(project: Path, deep: str) -> None:
    proposals = project / STATE / "proposals"
    proposals.mkdir(parents=True)
    (proposals / "p-0123456789ab.json").write_text(deep, encoding="utf-8")
    before = (project / RECORD).read_bytes()
    applied = cli(project, "apply", "p-0123456789ab")
    listed = cli(project, "proposals")
    for done in (applied, listed):
        no_crash(done.stderr)
    assert applied.returncode == 1
    assert applied.stderr.startswith("gotchas: proposal-invalid: ")
    assert listed.returncode == 0
    assert "left out: proposal p-0123456789ab is not a readable proposal file" in listed.stderr
    assert (project / RECORD).read_bytes() == before


def test_a_ledger_line_nested_deep_is_skipped_and_the_others_still_count(project: Path, deep: str) -> None:
    (project / STATE).mkdir(parents=True)
    (project / STATE / "tasks.jsonl").write_text(f"{deep}\n{GOOD_LEDGER_LINE}\n", encoding="utf-8")
    shown = cli(project, "task", "show", "#664", "--json")
    hold = cli(project, "check-hold", "predicate-664-lands", "--json")
    for done in (shown, hold):
        no_crash(done.stderr)
    assert shown.returncode == 0, shown.stderr
    assert [h["state"] for h in json.loads(shown.stdout)["history"]] == ["landed"]
    answer = json.loads(hold.stdout)
    assert answer["state"] == "released", answer
    assert "skipped 1 damaged ledger line (1)" in hold.stdout


def test_a_journal_line_nested_deep_is_skipped(repo: Path, deep: str) -> None:
    (repo / STATE).mkdir(parents=True)
    event = json.dumps({"event": "applied", "proposal_id": "p-0123456789ab"})
    (repo / STATE / "journal.jsonl").write_text(f"{deep}\n{event}\n", encoding="utf-8")
    done = cli(repo, "history", "#664", "--json")
    no_crash(done.stderr)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["task"] == "#664"


def test_from_json_nested_deep_is_invalid_input(project: Path, deep: str) -> None:
    before = (project / RECORD).read_bytes()
    done = cli(project, "propose", "--from-json", "-", stdin=deep)
    no_crash(done.stderr)
    assert done.returncode == 2
    assert done.stderr.startswith("gotchas: invalid-argument: --from-json: not JSON")
    assert (project / RECORD).read_bytes() == before
    assert not (project / STATE / "proposals").exists()


def test_config_nested_deep_is_a_config_error(project: Path) -> None:
    (project / ".claude" / "gotchas.toml").write_text("x = " + DEEP_ARRAY + "\n", encoding="utf-8")
    done = cli(project, "list")
    no_crash(done.stderr)
    assert done.returncode == 1
    assert done.stderr.startswith("gotchas: config-error: .claude/gotchas.toml: not valid TOML")


@pytest.mark.parametrize("deep_text", [DEEP_ARRAY, DEEP_OBJECT])
def test_a_tracker_command_printing_deep_json_is_a_source_failure(deep_text: str) -> None:
    from gotchas.holds.sources import SourceFailed
    from gotchas.holds.sources.command import parse_command_output

    with pytest.raises(SourceFailed, match="not JSON"):
        parse_command_output(deep_text.encode())
