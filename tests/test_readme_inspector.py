"""The README's MCP Inspector commands, run as written through the real Inspector CLI: in this
repository (its .mcp.json and the demo record), and the `uvx gotchas-mcp` form elsewhere."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from support.builds import local_builds
from support.clients import REPO, node_bin, requires_npm

INSPECTOR = "npx @modelcontextprotocol/inspector@2.12.0"


def readme_section(title: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return text.partition(f"### {title}\n")[2].partition("\n### ")[0]


def inspector_commands(section: str) -> list[list[str]]:
    """The Inspector command lines of the section's bash block, continuations joined."""
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block is not None
    joined = block.group(1).replace("\\\n", " ")
    return [shlex.split(line) for line in joined.splitlines() if line.startswith(INSPECTOR)]


def run_inspector(argv: list[str], cwd: Path, env: dict[str, str]) -> dict[str, object]:
    assert argv[:2] == INSPECTOR.split(), argv
    done = subprocess.run(
        [node_bin("mcp-inspector"), *argv[2:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"{shlex.join(argv)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    answer: dict[str, object] = json.loads(done.stdout)
    return answer


@requires_npm
def test_the_readme_inspector_commands_work_in_this_repository(tmp_path: Path) -> None:
    commands = inspector_commands(readme_section("By hand in the MCP Inspector"))
    assert len(commands) == 2
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "MCP_INSPECTOR_SECRET_STORE": "memory"}
    listed = run_inspector(commands[0], REPO, env)
    assert isinstance(listed["tools"], list)
    assert "list_gotchas" in {tool["name"] for tool in listed["tools"]}
    called = run_inspector(commands[1], REPO, env)
    assert called["isError"] is False, called
    content = called["structuredContent"]
    assert isinstance(content, dict)
    assert [e["id"] for e in content["entries"]] == ["a-single-large-llm-generate-deadlocks-the-v1"]


@requires_npm
@pytest.mark.slow
def test_the_readme_inspector_command_for_uvx(tmp_path: Path) -> None:
    section = readme_section("By hand in the MCP Inspector")
    (line,) = re.findall(rf"`({re.escape(INSPECTOR)} --cli uvx gotchas-mcp[^`]*)`", section)
    home = tmp_path / "home"
    env = {**local_builds().env(home), "MCP_INSPECTOR_SECRET_STORE": "memory"}
    project = tmp_path / "project"
    project.mkdir()
    # The Inspector hands a stdio server only a few variables (PATH, HOME, …): pass uv the
    # ones that make it install the local builds, as `-e` options after `--cli`.
    argv = shlex.split(line)
    passed = ["UV_FIND_LINKS", "UV_CACHE_DIR", "UV_PYTHON", "SSL_CERT_FILE"]
    at = argv.index("--cli") + 1
    argv[at:at] = [arg for key in passed if key in env for arg in ("-e", f"{key}={env[key]}")]
    listed = run_inspector(argv, project, env)
    assert isinstance(listed["tools"], list)
    assert "apply_supersede" in {tool["name"] for tool in listed["tools"]}


def test_readme_links_work_on_the_package_index() -> None:
    """PyPI renders the README away from the repository: every link must be absolute."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", text)
    assert targets, "the README links its docs"
    assert all(t.startswith("https://") for t in targets), [
        t for t in targets if not t.startswith("https://")
    ]
