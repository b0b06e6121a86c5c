"""The whole #664 correction through Claude Code itself.

`claude -p` runs offline against a scripted Messages API on loopback
(tests/support/fake_anthropic.py). The script plays the model: it loads the
correcting-gotchas skill, loads the gotchas tools' schemas, then calls them by their
`mcp__gotchas__…` names. Each step reads the tool result Claude Code sent back and
acts on it: it takes the entry id from list_gotchas and the proposal id from
propose_supersede, and after apply_supersede is refused it lands #664 with a real
commit on main (`Fixes #664`) before checking the hold again. The assertions are on
what Claude Code sent and on the record file afterwards."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_RULED_OUT,
    CORRECTION_TITLE,
    HOLD,
    REPO,
    SCENARIO_RECORD,
    entry_section,
    git,
    gotchas_exe,
    land_task,
    make_scenario_repo,
    node_bin,
    requires_npm,
    run_gotchas,
)
from support.fake_anthropic import (
    JSON,
    Block,
    FakeAnthropic,
    Step,
    last_tool_result,
    result_text,
    tool_use,
)
from support.fake_anthropic import text as text_block

PREFIX = "mcp__gotchas__"
TOOLS = [
    "check_hold",
    "list_gotchas",
    "get_gotcha",
    "propose_supersede",
    "propose_lesson",
    "apply_supersede",
    "verify_record",
    "list_proposals",
]
CHUNK_TITLE = "A single large `llm.generate()` deadlocks the v1 EngineCore — chunk it"
ORPHAN_TITLE = "Crashed runs leave an orphaned `VLLM::EngineCore` holding the GPU"

TASK_CARD = f"""\
Correct the gotchas record for #664. HOLD — {HOLD}: do not write the correction
until #664 has landed. The chunk-it lesson was a red herring; the confirmed cause:
{CORRECTION_BODY}
"""


def answer(body: JSON, tool: str) -> dict[str, Any]:
    """The JSON answer of the tool the previous step called; fails the step otherwise."""
    result = last_tool_result(body)
    content = result_text(result)
    if result.get("is_error"):
        raise AssertionError(f"{tool} failed: {content}")
    parsed = json.loads(content)
    assert isinstance(parsed, dict), content
    return parsed


@dataclass
class Correction:
    """The scripted model, and what it saw along the way."""

    root: Path
    seen: dict[str, dict[str, Any]] = field(default_factory=dict)
    landed_between_turns: bool = False

    def call(self, tool: str, **arguments: Any) -> list[Block]:
        return [tool_use(PREFIX + tool, arguments)]

    def steps(self) -> Sequence[Callable[[JSON], Sequence[Block]]]:
        return [
            lambda body: [tool_use("Skill", {"skill": "correcting-gotchas"})],
            lambda body: [
                text_block("Loading the gotchas tools."),
                tool_use(
                    "ToolSearch",
                    {"query": "select:" + ",".join(PREFIX + t for t in TOOLS), "max_results": 8},
                ),
            ],
            lambda body: self.call("check_hold", predicate=HOLD),
            self.after_first_hold,
            self.after_list,
            self.after_propose,
            self.after_refusal,
            self.after_second_hold,
            self.after_apply,
            self.after_verify,
        ]

    def after_first_hold(self, body: JSON) -> list[Block]:
        self.seen["hold_before"] = answer(body, "check_hold")
        return self.call("list_gotchas", task="#664")

    def after_list(self, body: JSON) -> list[Block]:
        listed = answer(body, "list_gotchas")
        self.seen["list"] = listed
        (entry,) = listed["entries"]
        return self.call(
            "propose_supersede",
            target_id=entry["id"],
            task="#664",
            title=CORRECTION_TITLE,
            body=CORRECTION_BODY,
            diagnostic=CORRECTION_DIAGNOSTIC,
            ruled_out=CORRECTION_RULED_OUT,
            hold=HOLD,
        )

    def after_propose(self, body: JSON) -> list[Block]:
        proposal = answer(body, "propose_supersede")
        self.seen["proposal"] = proposal
        return [
            text_block(f"Proposed correction:\n\n```diff\n{proposal['diff']}```"),
            *self.call("apply_supersede", proposal_id=proposal["proposal_id"]),
        ]

    def after_refusal(self, body: JSON) -> list[Block]:
        self.seen["refusal"] = answer(body, "apply_supersede")
        # Between turns, the world moves on: #664 lands on main.
        land_task(self.root, 664)
        self.landed_between_turns = True
        return [
            text_block("The hold refused the correction. Checking it again."),
            *self.call("check_hold", predicate=HOLD),
        ]

    def after_second_hold(self, body: JSON) -> list[Block]:
        self.seen["hold_after"] = answer(body, "check_hold")
        return self.call("apply_supersede", proposal_id=self.seen["proposal"]["proposal_id"])

    def after_apply(self, body: JSON) -> list[Block]:
        self.seen["apply"] = answer(body, "apply_supersede")
        return self.call("verify_record")

    def after_verify(self, body: JSON) -> list[Block]:
        self.seen["verify"] = answer(body, "verify_record")
        return [text_block("The #664 correction is applied and the record verifies.")]


def scratch_project(root: Path) -> Path:
    """The scenario repository, laid out like this one: the skill under skills/ and
    linked from .claude/skills/, our settings and our .mcp.json, with a .venv whose
    gotchas is the one under test."""
    record = make_scenario_repo(root)
    shutil.copytree(REPO / "skills" / "correcting-gotchas", root / "skills" / "correcting-gotchas")
    link = REPO / ".claude" / "skills" / "correcting-gotchas"
    (root / ".claude" / "skills").mkdir(parents=True)
    if link.is_symlink():
        (root / ".claude" / "skills" / "correcting-gotchas").symlink_to(os.readlink(link))
    else:
        shutil.copytree(link, root / ".claude" / "skills" / "correcting-gotchas")
    shutil.copy(REPO / ".claude" / "settings.json", root / ".claude" / "settings.json")
    # This repository's own .mcp.json, which starts .venv/bin/gotchas when there is one.
    shutil.copy(REPO / ".mcp.json", root / ".mcp.json")
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "bin" / "gotchas").symlink_to(gotchas_exe())
    (root / ".gitignore").write_text(".venv/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add the gotchas skill and server")
    run_gotchas(root, "task", "set", "664", "running")
    return record


def claude_env(home: Path, base_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        ANTHROPIC_BASE_URL=base_url,
        ANTHROPIC_API_KEY="sk-ant-test-offline",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_TIMEOUT="120000",  # a cold Python start on a busy 2-core runner is slow
        GIT_AUTHOR_NAME="Test Runner",
        GIT_AUTHOR_EMAIL="runner@example.invalid",
        GIT_COMMITTER_NAME="Test Runner",
        GIT_COMMITTER_EMAIL="runner@example.invalid",
    )
    return env


@dataclass
class Run:
    outcome: dict[str, Any]
    requests: list[JSON]


ALLOWED = ["Skill(correcting-gotchas)", "ToolSearch", *(PREFIX + t for t in TOOLS)]


def run_claude(root: Path, home: Path, prompt: str, steps: Sequence[Step]) -> Run:
    """`claude -p` in the project with the gotchas tools allowed, the model scripted;
    fails unless Claude Code played every step and finished without a denial."""
    with FakeAnthropic(steps) as api:
        done = subprocess.run(
            [node_bin("claude"), "-p", prompt, "--output-format", "json", "--allowedTools", *ALLOWED],
            cwd=root,
            env=claude_env(home, api.base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=240,
        )
        requests = api.agent_requests
        errors = api.errors
        remaining = api.remaining_steps
    diagnostics = f"stdout:\n{done.stdout[-3000:]}\nstderr:\n{done.stderr[-3000:]}"
    assert not errors, f"a scripted step saw an unexpected tool result: {errors}\n{diagnostics}"
    assert done.returncode == 0, diagnostics
    assert remaining == 0, f"Claude Code stopped early ({remaining} steps left)\n{diagnostics}"
    outcome: dict[str, Any] = json.loads(done.stdout)
    assert outcome["is_error"] is False and outcome["permission_denials"] == [], diagnostics
    return Run(outcome, requests)


def tool_names(body: JSON) -> set[str]:
    return {str(tool.get("name")) for tool in body.get("tools", [])}


@requires_npm
def test_claude_code_applies_the_664_correction_through_the_tools(tmp_path: Path) -> None:
    root = tmp_path / "project"
    record = scratch_project(root)
    before = record.read_text(encoding="utf-8")
    assert before == SCENARIO_RECORD
    model = Correction(root)
    run = run_claude(root, tmp_path / "home", TASK_CARD, model.steps())
    outcome, requests = run.outcome, run.requests
    assert outcome["result"] == "The #664 correction is applied and the record verifies."

    # What Claude Code sent: every turn asked for a streamed answer (so the SSE path was
    # the one used), and the first request offers the skill by name and description.
    assert all(body.get("stream") is True for body in requests)
    first = json.dumps(requests[0])
    assert "correcting-gotchas" in first and "red herring" in first
    # Invoking the skill put its workflow into the conversation.
    assert "Hold first." in json.dumps(requests[1]["messages"][-1])
    # ToolSearch found every gotchas tool, and from then on their schemas are sent.
    found = last_tool_result(requests[2])["content"]
    assert {ref.get("tool_name") for ref in found} == {PREFIX + t for t in TOOLS}
    assert {PREFIX + t for t in TOOLS} <= tool_names(requests[2])
    # Every tool result came back to the model, in order, and none was an error.
    calls = [
        block
        for body in requests[-1:]
        for message in body["messages"]
        if message["role"] == "assistant"
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    assert [c["name"] for c in calls] == [
        "Skill",
        "ToolSearch",
        PREFIX + "check_hold",
        PREFIX + "list_gotchas",
        PREFIX + "propose_supersede",
        PREFIX + "apply_supersede",
        PREFIX + "check_hold",
        PREFIX + "apply_supersede",
        PREFIX + "verify_record",
    ]
    results = {
        block["tool_use_id"]: block
        for message in requests[-1]["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    }
    assert set(results) == {c["id"] for c in calls}
    assert not any(r.get("is_error") for r in results.values())
    # Claude Code hands the model the structured result: it must stay compact (no bodies).
    listed = json.loads(
        result_text(results[next(c["id"] for c in calls if c["name"] == PREFIX + "list_gotchas")])
    )
    assert [e["id"] for e in listed["entries"]] == ["a-single-large-llm-generate-deadlocks-the-v1"]
    assert "40k-prompt" not in json.dumps(listed)

    # The hold refused the correction first, then released it.
    seen = model.seen
    assert seen["hold_before"]["state"] == "held"
    assert seen["proposal"]["status"] == "proposed" and "+### " in seen["proposal"]["diff"]
    assert seen["refusal"]["status"] == "refused"
    assert "held" in seen["refusal"]["reason"]
    assert model.landed_between_turns
    assert seen["hold_after"]["state"] == "released"
    assert seen["apply"]["status"] == "applied"
    assert seen["verify"]["ok"] is True

    # The record: the chunk-it entry carries the red-herring caveat for #664 and
    # stays; the new entry supersedes it; the crash-orphan entry is byte-identical.
    after = record.read_text(encoding="utf-8")
    chunk = entry_section(after, CHUNK_TITLE)
    assert "Red herring for #664" in chunk
    assert "chunks of 2,000" in chunk, "the old advice is annotated, not deleted"
    new = entry_section(after, CORRECTION_TITLE)
    chunk_id = seen["list"]["entries"][0]["id"]
    assert f"supersedes: {chunk_id}" in new
    assert "root-cause: confirmed" in new and "functools.lru_cache" in new
    assert "diagnostic:" in new and "profile a single `_render()` call" in new
    assert entry_section(after, ORPHAN_TITLE) == entry_section(before, ORPHAN_TITLE)
    for title in ["`max_model_len` silently drifts", "Shallow clones break"]:
        assert entry_section(after, title) == entry_section(before, title)

    # The record verifies from the command line too, after Claude Code has gone.
    verify = run_gotchas(root, "verify", "--json")
    assert json.loads(verify.stdout)["ok"] is True


@requires_npm
def test_claude_code_does_not_apply_without_an_allow_rule(tmp_path: Path) -> None:
    """The project settings allow only the read-only tools: apply_supersede needs the
    user's consent in a session, and a headless run that does not allow it is denied."""
    root = tmp_path / "project"
    record = scratch_project(root)
    run_gotchas(root, "task", "set", "664", "landed")
    listed = json.loads(run_gotchas(root, "list", "--task", "#664", "--json").stdout)
    proposal = json.loads(
        run_gotchas(
            root,
            "propose",
            "--target-id",
            listed["entries"][0]["id"],
            "--task",
            "#664",
            "--title",
            CORRECTION_TITLE,
            "--body",
            CORRECTION_BODY,
            "--diagnostic",
            CORRECTION_DIAGNOSTIC,
            "--json",
        ).stdout
    )
    script = [
        [tool_use("ToolSearch", {"query": f"select:{PREFIX}apply_supersede", "max_results": 1})],
        [tool_use(PREFIX + "apply_supersede", {"proposal_id": proposal["proposal_id"]})],
        [text_block("stopped")],
    ]
    with FakeAnthropic(script) as api:
        done = subprocess.run(
            [node_bin("claude"), "-p", "apply the #664 correction", "--output-format", "json"],
            cwd=root,
            env=claude_env(tmp_path / "home", api.base_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=240,
        )
        requests = api.agent_requests
    assert done.returncode == 0, done.stdout + done.stderr
    denials = json.loads(done.stdout)["permission_denials"]
    assert [d["tool_name"] for d in denials] == [PREFIX + "apply_supersede"]
    refused = last_tool_result(requests[-1])
    assert refused.get("is_error") is True
    assert record.read_text(encoding="utf-8") == SCENARIO_RECORD


@requires_npm
def test_claude_code_verifies_instead_of_rewriting_an_already_recorded_correction(
    tmp_path: Path,
) -> None:
    """The #664 session already recorded the correction when it landed: the correction
    task proposes, is told `already-recorded`, verifies, and writes nothing."""
    root = tmp_path / "project"
    record = scratch_project(root)
    land_task(root, 664)
    chunk_id = json.loads(run_gotchas(root, "list", "--task", "#664", "--json").stdout)["entries"][0]["id"]
    arguments = {
        "target_id": chunk_id,
        "task": "#664",
        "title": CORRECTION_TITLE,
        "body": CORRECTION_BODY,
        "diagnostic": CORRECTION_DIAGNOSTIC,
        "ruled_out": CORRECTION_RULED_OUT,
        "hold": HOLD,
    }
    posted = json.loads(run_gotchas(root, "propose", "--from-json", "-", "--json", stdin=arguments).stdout)
    run_gotchas(root, "apply", posted["proposal_id"], "--json")
    recorded = record.read_bytes()
    seen: dict[str, dict[str, Any]] = {}

    def after_propose(body: JSON) -> list[Block]:
        seen["proposal"] = answer(body, "propose_supersede")
        return [tool_use(PREFIX + "verify_record", {})]

    def after_verify(body: JSON) -> list[Block]:
        seen["verify"] = answer(body, "verify_record")
        return [text_block("Already recorded by #664; the record verifies. Nothing written.")]

    steps: list[Step] = [
        [tool_use("Skill", {"skill": "correcting-gotchas"})],
        [
            tool_use(
                "ToolSearch", {"query": "select:" + ",".join(PREFIX + t for t in TOOLS), "max_results": 8}
            )
        ],
        [tool_use(PREFIX + "propose_supersede", arguments)],
        after_propose,
        after_verify,
    ]
    run_claude(root, tmp_path / "home", TASK_CARD, steps)

    assert seen["proposal"]["status"] == "already-recorded"
    assert not seen["proposal"].get("proposal_id")
    assert seen["verify"]["ok"] is True
    assert record.read_bytes() == recorded, "nothing was written a second time"
