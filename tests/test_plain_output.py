"""What a person or a model reads: no Python reprs in the demo or check-hold, tool descriptions
without indentation whitespace, and the whole tool list within its budget."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from support.clients import gotchas, gotchas_exe, isolated_env, land_task, make_scenario_repo, run_gotchas

REPR = re.compile(r"\{'|\['|=\[|\[\{|': ")


def test_check_hold_prints_evidence_in_words(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    run_gotchas(root, "task", "set", "664", "running")
    land_task(root, 664)  # git outranks the ledger: the precedence evidence has nested values
    done = gotchas(root, "check-hold", "664")
    assert done.returncode == 0, done.stderr
    assert not REPR.search(done.stdout), done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == "predicate-664-lands: released"
    assert any(
        line.strip().startswith("git: ") and "on main" in line and "Fixes #664" not in line for line in lines
    )
    assert any("precedence: git (landed) chosen over ledger (running): " in line for line in lines)
    assert any(line.strip().startswith("ledger: running (set by ") for line in lines)


def test_the_demo_prints_what_a_person_reads(tmp_path: Path) -> None:
    done = subprocess.run(
        [gotchas_exe(), "demo", "--no-pause"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=isolated_env(tmp_path),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    story = [line for line in done.stdout.splitlines() if not line.startswith(("+", "-", " ", "@"))]
    assert not [line for line in story if REPR.search(line)], story
    assert "Demo passed" in done.stdout
    assert "verification: ok; 6 → 7 entries" in done.stdout
    assert "- `gotchas task set 664 landed`" in done.stdout  # the held answer says how to release it


def tool_list(root: Path) -> list[dict[str, object]]:
    """The tools as a client lists them, from a server started as a real process."""
    script = (
        "import json, anyio\n"
        "from mcp import Client, StdioServerParameters\n"
        "async def main():\n"
        f"    params = StdioServerParameters(command={gotchas_exe()!r}, args=['serve'], cwd={str(root)!r})\n"
        "    async with Client(params) as client:\n"
        "        tools = (await client.list_tools()).tools\n"
        "    print(json.dumps([t.model_dump(mode='json', by_alias=True) for t in tools]))\n"
        "anyio.run(main)\n"
    )
    import sys

    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        env=isolated_env(root.parent),
    )
    assert done.returncode == 0, done.stderr
    listed: list[dict[str, object]] = json.loads(done.stdout)
    return listed


def test_tool_descriptions_carry_no_stray_whitespace_and_fit_the_budget(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    tools = tool_list(root)
    assert {"withdraw_proposal", "list_proposals", "check_hold"} <= {t["name"] for t in tools}
    for tool in tools:
        description = str(tool["description"])
        for line in description.splitlines():
            assert "  " not in line and line == line.strip(), (tool["name"], line)
        for prop in dict(tool["inputSchema"]).get("properties", {}).values():  # type: ignore[call-overload]
            text = str(prop.get("description", ""))
            assert "  " not in text and text == text.strip(), (tool["name"], text)
    size = sum(len(json.dumps(t["inputSchema"])) + len(str(t["description"])) for t in tools)
    assert size <= 8000, size
