"""Propose with any strings: a typed error, or a proposal whose checks verify; never a change
to the record, never an untyped exception. A proposal that is made applies, and the record it
leaves verifies with exactly the one new entry and the target marked."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from gotchas import operations
from gotchas.errors import GotchasError
from gotchas.workspace import Workspace
from support.project import RECORD, SCENARIO, TARGET, write_record

HOSTILE = st.sampled_from(
    [
        "\n",
        "\r",
        "\r\n",
        "## ",
        "# ",
        "===",
        "---",
        "***",
        "```",
        "~~~",
        "    ",
        " · ",
        "status: ",
        "tasks: ",
        "id: ",
        "supersedes: ",
        "**Status: fixed**",
        "#664",
        "\x00",
        "\x1b",
        "é",
        "e\u0301",
        ":",
        "[x]",
        "- ",
        "1. ",
    ]
)
TEXT = st.lists(st.one_of(HOSTILE, st.text(max_size=8)), max_size=12).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=TEXT.map("Cause ".__add__),
    body=TEXT.map("Cache it. ".__add__),
    diagnostic=TEXT.map("profile ".__add__),
    ruled_out=st.lists(TEXT, max_size=3),
    evidence=st.one_of(st.none(), TEXT),
    task=st.sampled_from(["#664", "#7", "ABC-1"]) | TEXT,
    note=st.one_of(st.none(), TEXT),
)
def test_any_proposal_is_a_typed_refusal_or_verifies(
    title: str,
    body: str,
    diagnostic: str,
    ruled_out: list[str],
    evidence: str | None,
    task: str,
    note: str | None,
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "project"
        write_record(root, SCENARIO.read_bytes())
        before = (root / RECORD).read_bytes()
        try:
            result = operations.propose_supersede(
                Workspace(root),
                no_hold=True,
                target_id=TARGET,
                task=task,
                title=title,
                body=body,
                diagnostic=diagnostic,
                ruled_out=ruled_out,
                evidence=evidence,
                red_herring_note=note,
            )
        except GotchasError as refused:
            assert refused.code and refused.message
            event(f"refused: {refused.code}")
            assert (root / RECORD).read_bytes() == before
            return
        assert result["status"] in ("proposed", "already-recorded")
        assert result["checks"]["ok"], result["checks"]
        assert (root / RECORD).read_bytes() == before
        if result["proposal_id"] is None:
            return
        event("proposed and applied")
        ws = Workspace(root)
        applied = operations.apply(ws, proposal_id=result["proposal_id"])
        assert applied["status"] == "applied", applied
        assert operations.verify_record(ws)["ok"]
        after = ws.load(root / RECORD)
        before_ids = [e.id for e in ws.parse(before).entries]
        assert [e.id for e in after.entries if e.id != result["new_id"]] == before_ids
        new, target = after.get(str(result["new_id"])), after.get(TARGET)
        assert new.status == "active" and new.root_cause == "confirmed"
        assert any(link.target == TARGET for link in new.supersedes)
        assert target.red_herring_for and target.status == "red-herring"
