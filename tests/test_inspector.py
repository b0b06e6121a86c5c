"""A person's way in: the MCP Inspector CLI drives the server over stdio."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from support.clients import (
    HOLD,
    SCENARIO_RECORD,
    gotchas_cmd,
    make_scenario_repo,
    node_bin,
    requires_npm,
    run_gotchas,
)

TOOLS = {
    "list_gotchas",
    "get_gotcha",
    "check_hold",
    "propose_supersede",
    "propose_lesson",
    "apply_supersede",
    "verify_record",
    "list_proposals",
}


class Inspector:
    """`mcp-inspector --cli` against `gotchas serve` on a scratch repository."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "MCP_INSPECTOR_SECRET_STORE": "memory",
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [node_bin("mcp-inspector"), "--cli", *gotchas_cmd(self.root), "serve", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def result(self, *args: str) -> Any:
        done = self.run(*args)
        assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)

    def call(self, tool: str, **arguments: str) -> Any:
        args = ["--method", "tools/call", "--tool-name", tool]
        for key, value in arguments.items():
            args += ["--tool-arg", f"{key}={value}"]
        result = self.result(*args)
        assert result["isError"] is False, result
        return result["structuredContent"]


@pytest.fixture
def inspector(tmp_path: Path) -> Inspector:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    run_gotchas(root, "task", "set", "664", "running")
    return Inspector(root, tmp_path / "home")


@requires_npm
def test_inspector_lists_the_tools_with_their_contracts(inspector: Inspector) -> None:
    tools = {tool["name"]: tool for tool in inspector.result("--method", "tools/list")["tools"]}
    assert set(tools) >= TOOLS
    for name in TOOLS:
        assert tools[name].get("outputSchema"), f"{name} has no output schema"
        assert tools[name].get("description")
    assert tools["list_gotchas"]["annotations"]["readOnlyHint"] is True
    assert tools["apply_supersede"]["annotations"]["readOnlyHint"] is False


@requires_npm
def test_inspector_performs_the_scenarios_read_only_calls(inspector: Inspector) -> None:
    listed = inspector.call("list_gotchas", task="#664")
    (entry,) = listed["entries"]
    assert entry["id"] == "a-single-large-llm-generate-deadlocks-the-v1"
    assert "title" not in entry  # the compact form: the id is the title's slug
    assert listed["total"] == 1

    orphan = inspector.call("list_gotchas", task="#601", verbose="true")["entries"]
    assert [e["title"] for e in orphan] == [
        "Crashed runs leave an orphaned `VLLM::EngineCore` holding the GPU"
    ]

    hold = inspector.call("check_hold", predicate=HOLD)
    assert hold["state"] == "held"
    (task,) = hold["tasks"]
    assert task["task"] == "#664" and task["state"] == "running"
    assert task["evidence"], "a hold says where its state came from"

    shown = json.dumps(inspector.call("get_gotcha", id=entry["id"]))
    assert "chunks of 2,000" in shown

    verified = inspector.call("verify_record")
    assert verified["ok"] is True, verified
    record = inspector.root / ".claude" / "rules" / "gotchas.md"
    assert record.read_text(encoding="utf-8") == SCENARIO_RECORD, "read-only calls wrote nothing"


@requires_npm
def test_inspector_reads_the_record_resource_and_sees_tool_errors(inspector: Inspector) -> None:
    read = inspector.result("--method", "resources/read", "--uri", "gotchas://record")
    assert read["contents"][0]["text"] == SCENARIO_RECORD

    missing = inspector.run(
        "--method", "tools/call", "--tool-name", "get_gotcha", "--tool-arg", "id=no-such-entry"
    )
    assert missing.returncode == 5, missing.stdout + missing.stderr  # the tool answered isError
    answer = json.loads(missing.stdout)
    assert answer["isError"] is True
    assert "no-such-entry" in answer["content"][0]["text"]
