"""The supersede link has one home: what it writes reads back as the same link, both sides are
checked, and a chain of corrections is walked in the order the links give, not the file's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gotchas import journal, link, operations, record, verification
from gotchas.workspace import Workspace
from support.hypotheses import correct
from support.project import SCENARIO, TARGET, write_record


def test_the_lines_it_writes_parse_back_as_the_same_link() -> None:
    written = link.supersedes_line("old-id", "#664")
    key, _, value = written.partition(": ")
    assert key == "supersedes"
    assert link.parse_links(value) == [link.Link("old-id", ("#664",))]
    marks = link.marks_line("#664", "new-id")
    assert marks.startswith("red-herring-for: #664")
    assert link.parse_links(marks.split("superseded-by: ", 1)[1]) == [link.Link("new-id", ("#664",))]


def test_a_one_sided_link_is_reported_for_the_side_that_says_it() -> None:
    text = (
        "# Gotchas\n\n## Old advice\n\ntasks: #7\n\nDo the old thing.\n\n"
        "## New advice\n\ntasks: #7 · root-cause: confirmed · supersedes: old-advice (for #7)\n"
        "diagnostic: look\n\nDo the new thing.\n"
    )
    parsed = record.parse(text.encode())
    by_id = {e.id: e for e in parsed.entries}
    found = link.check(parsed.get("new-advice"), by_id)
    assert [p.code for p in found] == ["one-sided-supersedes"]
    assert link.check(parsed.get("old-advice"), by_id) == []
    assert {p.code for p in verification.check_record(parsed)} >= {"one-sided-supersedes"}


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    write_record(tmp_path, SCENARIO.read_bytes())
    return Workspace(tmp_path)


def test_every_journal_event_says_what_and_who(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOTCHAS_ACTOR", "ci-runner 7")
    proposed = correct(ws, TARGET, 0)
    operations.apply(ws, proposal_id=proposed["proposal_id"])
    operations.apply(ws, proposal_id=proposed["proposal_id"])  # already applied: journalled too
    events = journal.read(ws.journal_path)
    assert [e["status"] for e in events] == ["applied", "already-applied"]
    for event in events:
        assert event["kind"] == "supersede"
        assert event["task"] == "#664"
        assert event["target_id"] == TARGET
        assert event["new_id"] == proposed["new_id"]
        assert event["actor"] == "ci-runner 7"
    assert (
        json.loads(ws.journal_path.read_text("utf-8").splitlines()[0])["proposal_id"]
        == proposed["proposal_id"]
    )


def test_the_actor_defaults_to_the_login_name_and_is_one_short_line() -> None:
    assert journal.actor({"USER": "ana"}) == "ana"
    assert journal.actor({}) == journal.DEFAULT_ACTOR
    assert journal.actor({"GOTCHAS_ACTOR": "bot\nrm -rf /", "USER": "ana"}) == "bot rm -rf /"
    assert len(journal.actor({"GOTCHAS_ACTOR": "x" * 5000})) == journal.MAX_ACTOR


def test_a_chain_is_walked_by_its_links_not_by_file_order() -> None:
    text = (
        "# Gotchas\n\n"
        "## Third\n\ntasks: #9 · root-cause: confirmed · supersedes: second (for #9)\ndiagnostic: c\n\nC.\n\n"
        "## First\n\ntasks: #9\nred-herring-for: #9 · superseded-by: second (for #9)\n\nA.\n\n"
        "## Unrelated\n\ntasks: #1\n\nU.\n\n"
        "## Second\n\ntasks: #9 · root-cause: confirmed · supersedes: first (for #9)\ndiagnostic: b\n"
        "red-herring-for: #9 · superseded-by: third (for #9)\n\nB.\n"
    )
    parsed = record.parse(text.encode())
    assert [e.id for e in link.chain(parsed, "#9")] == ["first", "second", "third"]
    assert not [p for p in verification.check_record(parsed) if p.severity == "error"]


def test_successive_corrections_form_one_chain(ws: Workspace) -> None:
    target = TARGET
    made = []
    for n in range(3):
        proposed = correct(ws, target, n)
        assert operations.apply(ws, proposal_id=proposed["proposal_id"])["status"] == "applied"
        made.append(proposed["new_id"])
        target = proposed["new_id"]
    parsed = ws.load(ws.record_path())
    assert [e.id for e in link.chain(parsed, "#664")] == [TARGET, *made]
    assert [e.id for e in link.chain(parsed, "#601")] == [e.id for e in parsed.entries if "#601" in e.tasks]
