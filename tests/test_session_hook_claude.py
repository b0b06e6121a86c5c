"""The SessionStart hook through Claude Code itself: a correction proposed while #664 was
held, #664 landed since; a new `claude -p` session in the project is told by the project's
hook which proposal is ready and how to apply it (asserted in the first request the scripted
Messages API receives), and the model's apply_supersede call succeeds and verifies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_RULED_OUT,
    CORRECTION_TITLE,
    HOLD,
    land_task,
    requires_npm,
    run_gotchas,
)
from support.fake_anthropic import JSON, Block, Step, tool_use
from support.fake_anthropic import text as text_block
from test_claude_code import PREFIX, answer, run_claude, scratch_project


@requires_npm
def test_the_session_start_hook_tells_the_session_and_the_apply_succeeds(tmp_path: Path) -> None:
    root = tmp_path / "project"
    record = scratch_project(root)  # the project's settings, with its hook; #664 is running
    target = json.loads(run_gotchas(root, "list", "--task", "#664", "--json").stdout)["entries"][0]["id"]
    arguments = {
        "target_id": target,
        "task": "#664",
        "title": CORRECTION_TITLE,
        "body": CORRECTION_BODY,
        "diagnostic": CORRECTION_DIAGNOSTIC,
        "ruled_out": CORRECTION_RULED_OUT,
        "hold": HOLD,
    }
    proposed = json.loads(run_gotchas(root, "propose", "--from-json", "-", "--json", stdin=arguments).stdout)
    pid = proposed["proposal_id"]
    land_task(root, 664)
    before = record.read_bytes()
    seen: dict[str, Any] = {}

    def first(body: JSON) -> list[Block]:
        seen["first_request"] = json.dumps(body)
        return [tool_use("ToolSearch", {"query": f"select:{PREFIX}apply_supersede,{PREFIX}verify_record"})]

    def after_search(body: JSON) -> list[Block]:
        return [tool_use(PREFIX + "apply_supersede", {"proposal_id": pid})]

    def after_apply(body: JSON) -> list[Block]:
        seen["apply"] = answer(body, "apply_supersede")
        return [tool_use(PREFIX + "verify_record", {})]

    def after_verify(body: JSON) -> list[Block]:
        seen["verify"] = answer(body, "verify_record")
        return [text_block("Applied the released #664 correction; the record verifies.")]

    steps: list[Step] = [first, after_search, after_apply, after_verify]
    run_claude(root, tmp_path / "home", "Start of session.", steps)

    told = seen["first_request"]
    assert pid in told and HOLD in told and "apply_supersede" in told and "verify_record" in told
    assert seen["apply"]["status"] == "applied" and seen["apply"]["verification"]["ok"] is True
    assert seen["verify"]["ok"] is True
    assert record.read_bytes() != before and CORRECTION_TITLE in record.read_text("utf-8")
    # nothing is left for the next session or the next landing run
    assert run_gotchas(root, "session-start").stdout == ""
    assert "nothing to apply" in run_gotchas(root, "apply", "--released").stdout
