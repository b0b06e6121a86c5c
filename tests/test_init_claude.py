"""`gotchas init` in a fresh repository leaves a server Claude Code starts and connects to,
once the folder is trusted: the real `claude mcp list`, no hand edits in between."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from support.clients import git, gotchas_exe, node_bin, requires_npm
from test_skill_plugin import claude_env, trust


@requires_npm
def test_init_in_a_fresh_repository_leaves_a_server_claude_connects_to(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    home = tmp_path / "home"
    home.mkdir()
    # No uvx on PATH, and no published gotchas-mcp: init must write a command that starts.
    folders = os.environ.get("PATH", "").split(os.pathsep)
    bare_path = os.pathsep.join(p for p in folders if p and not (Path(p) / "uvx").exists())
    env = {**claude_env(home), "PATH": bare_path}
    done = subprocess.run(
        [gotchas_exe(), "--root", str(project), "init", "--json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    server = json.loads((project / ".mcp.json").read_text("utf-8"))["mcpServers"]["gotchas"]
    assert Path(server["command"]).is_absolute(), server  # the running installation's

    trust(home, project)
    listed = subprocess.run(
        [node_bin("claude"), "mcp", "list"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("gotchas:")), "")
    assert "Connected" in line, listed.stdout + listed.stderr
