"""Every shell command in the README's ``bash`` blocks either runs here, as written, offline in
this checkout, or is run by a named test (most build the packages first), or is named below
as one no test can run and why. A command added to the README without a decision fails
this test, so the README cannot drift from what is exercised. Synopses are ``text`` blocks."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from support.clients import REPO, git, gotchas_exe, isolated_env, node_bin, requires_npm

DEMO = "--record server/gotchas/demo/record.md"

# Run below in this checkout, with the venv's `gotchas` first on PATH: command → exit code.
RUN = {
    f"gotchas list {DEMO}": 0,
    f"gotchas list {DEMO} --task '#664' --json": 0,
    f"gotchas show a-single {DEMO}": 1,
    f"gotchas lint {DEMO}": 0,
    f"gotchas lint {DEMO} --format github": 0,
    "gotchas serve --help": 0,
}

PACKAGING = "tests/test_packaging.py"
UVX_ROUTES = f"{PACKAGING}::test_uvx_runs_the_server_and_the_cli_from_the_local_build"
INSPECTOR = "npx @modelcontextprotocol/inspector@2.12.0 --cli --config .mcp.json --server gotchas"
INSPECTOR_TEST = "tests/test_readme_inspector.py::test_the_readme_inspector_commands_work_in_this_repository"
# Run by another test, which names the same command or its local-build equivalent.
COVERED = {
    "uvx gotchas-mcp": UVX_ROUTES,
    "uvx gotchas list": UVX_ROUTES,
    "uvx --from 'gotchas-mcp[pinned]' gotchas-mcp": UVX_ROUTES,
    "pip install gotchas-mcp": f"{PACKAGING}::test_the_server_wheel_in_a_fresh_venv_speaks_mcp",
    "./scripts/demo": "tests/test_readme_commands.py::test_the_demo_walks_through_the_correction",
    f"{INSPECTOR} --method tools/list": INSPECTOR_TEST,
    "npx @modelcontextprotocol/inspector@2.12.0 --cli -e GOTCHAS_RECORD=server/gotchas/demo/record.md "
    "--config .mcp.json --server gotchas --method tools/call --tool-name list_gotchas "
    "--tool-arg task=#664": INSPECTOR_TEST,
    "gotchas serve --http": "tests/test_http.py::test_a_real_client_works_over_streamable_http",
    "GOTCHAS_TOKEN=$(openssl rand -hex 32) gotchas serve --http --host 0.0.0.0 --allowed-host "
    "lessons.example.com": (
        "tests/test_http.py::test_beyond_loopback_a_real_client_with_the_token_and_an_allowed_host_works"
    ),
    "claude mcp add --scope project gotchas -- uvx gotchas-mcp": (
        "tests/test_readme_commands.py::test_claude_mcp_add_writes_the_project_server"
    ),
}

# Not run by any test, on purpose.
NOT_RUN = {
    "./scripts/test": "runs this test suite itself",
    "claude": "starts an interactive Claude Code session, signed in",
}


def readme_commands() -> list[str]:
    """Each command line of every ``bash`` block: continuations joined, comments dropped."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        for line in block.replace("\\\n", " ").splitlines():
            command = " ".join(re.sub(r"\s+#\s.*$", "", line).split())
            if command:
                commands.append(command)
    return commands


def test_every_readme_command_is_run_covered_or_explicitly_not_run() -> None:
    commands = readme_commands()
    assert len(commands) >= 15
    undecided = [c for c in commands if c not in RUN and c not in COVERED and c not in NOT_RUN]
    assert not undecided, f"README commands no test decides on: {undecided}"
    stale = [c for c in [*RUN, *COVERED, *NOT_RUN] if c not in commands]
    assert not stale, f"decided on, but no longer in the README: {stale}"


@pytest.mark.parametrize("where", sorted(set(COVERED.values())))
def test_each_covering_test_exists(where: str) -> None:
    path, _, name = where.partition("::")
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    assert name in defined, f"{where} does not exist"


@pytest.mark.parametrize(("command", "code"), list(RUN.items()))
def test_readme_command_runs_as_written(command: str, code: int, tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    env["PATH"] = f"{Path(gotchas_exe()).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == code, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert done.stdout.strip() or done.stderr.strip()


def test_the_demo_walks_through_the_correction(tmp_path: Path) -> None:
    """What `./scripts/demo` runs once the venv is set up: `gotchas demo`, without a terminal."""
    done = subprocess.run(
        [gotchas_exe(), "demo"],
        cwd=tmp_path,
        env=isolated_env(tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "record unchanged after propose: True" in done.stdout
    assert "check_hold(predicate-664-lands) → held" in done.stdout


@requires_npm
def test_claude_mcp_add_writes_the_project_server(tmp_path: Path) -> None:
    """The README's `claude mcp add --scope project …`, run by Claude Code itself: it writes
    .mcp.json with `uvx gotchas-mcp`, and `claude mcp list` shows the server waiting for
    the approval the README describes (it is not started before that)."""
    from test_skill_plugin import claude_env, trust

    (command,) = [c for c in COVERED if c.startswith("claude mcp add")]
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    home = tmp_path / "home"
    trust(home, project)
    env = claude_env(home)
    claude = node_bin("claude")
    added = subprocess.run(
        [claude, *command.split()[1:]], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    assert added.returncode == 0, added.stdout + added.stderr
    config = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    server = config["mcpServers"]["gotchas"]
    assert (server["command"], server["args"]) == ("uvx", ["gotchas-mcp"])
    listed = subprocess.run(
        [claude, "mcp", "list"], cwd=project, env=env, capture_output=True, text=True, timeout=120
    )
    line = next((ln for ln in listed.stdout.splitlines() if ln.startswith("gotchas:")), "")
    assert "uvx gotchas-mcp" in line and "pending" in line.lower(), listed.stdout + listed.stderr
