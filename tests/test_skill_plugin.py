"""The skill, the plugin and the project configuration, checked as Claude Code sees them."""

from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from support.builds import local_builds
from support.clients import REPO, git, gotchas_exe, node_bin, requires_npm

SKILL_DIR = REPO / "plugin" / "skills" / "correcting-gotchas"
PROJECT_SKILL = REPO / ".claude" / "skills" / "correcting-gotchas"

READ_ONLY_TOOLS = {
    "list_gotchas",
    "get_gotcha",
    "check_hold",
    "propose_supersede",
    "propose_lesson",
    "verify_record",
    "list_proposals",
}
WRITE_TOOLS = {"apply_supersede"}

# Keys every skill host accepts (claude.ai uploads and the Skills API reject others).
PORTABLE_KEYS = {"name", "description", "license", "compatibility", "metadata"}


def frontmatter(text: str) -> tuple[dict[str, str], str]:
    """Parse the small YAML subset a portable SKILL.md uses: `key: value`, and
    folded (`>-`) or literal (`|`) block scalars. Anything else fails the test."""
    if not text.startswith("---\n"):
        pytest.fail("SKILL.md does not start with a --- frontmatter block")
    head, _, body = text[4:].partition("\n---\n")
    fields: dict[str, str] = {}
    key: str | None = None
    style = ""
    for line in head.splitlines():
        if line.startswith((" ", "\t")) and key is not None and style:
            joiner = (" " if style == ">" else "\n") if fields[key] else ""
            fields[key] += joiner + line.strip()
            continue
        match = re.fullmatch(r"([A-Za-z][\w-]*):\s*(.*)", line)
        if match is None:
            pytest.fail(f"frontmatter line is not `key: value`: {line!r}")
        key, value = match.group(1), match.group(2).strip()
        if key in fields:
            pytest.fail(f"duplicate frontmatter key {key}")
        if value in {">", ">-", "|", "|-"}:
            style, fields[key] = value[0], ""
        else:
            style, fields[key] = "", value.strip("\"'")
    return fields, body


def test_skill_frontmatter_is_within_limits_and_portable() -> None:
    fields, body = frontmatter((SKILL_DIR / "SKILL.md").read_text(encoding="utf-8"))
    assert set(fields) <= PORTABLE_KEYS, f"non-portable keys: {set(fields) - PORTABLE_KEYS}"
    assert "allowed-tools" not in fields  # a headless run would deny the skill silently
    name = fields["name"]
    assert name == SKILL_DIR.name
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", name) and len(name) <= 64
    assert "claude" not in name and "anthropic" not in name
    description = fields["description"]
    assert 1 <= len(description) <= 1024
    assert not re.search(r"<[^>]+>", description), "no XML tags in the description"
    for phrase in [
        "gotcha",
        "lesson",
        "wrong root cause",
        "red herring",
        "supersede",
        "task landed",
        "correct the record",
        "confirmed root cause",
    ]:
        assert phrase in description, phrase
    # No dynamic context: a failing `!` command aborts the skill silently.
    assert "!`" not in body and "```!" not in body
    assert len(body.splitlines()) < 100, "the body costs context in every session using it"


def test_skill_body_encodes_the_workflow_in_order() -> None:
    _, body = frontmatter((SKILL_DIR / "SKILL.md").read_text(encoding="utf-8"))
    steps = re.split(r"\n(?=\d+\. )", body.partition("## Correct a lesson")[2])[1:]
    order = ["check_hold", "list_gotchas", "propose_supersede", "apply_supersede", "verify_record"]
    at = -1
    for tool in order:  # each tool has its own step, after the previous tool's
        at = next((i for i in range(at + 1, len(steps)) if f"`{tool}" in steps[i]), -1)
        assert at >= 0, f"no step for {tool} after the previous one"
    assert "`check_hold`" in steps[0], "the hold is checked first"
    assert "already-recorded" in body
    assert "propose_lesson" in body and "diagnostic" in body
    assert "never" in body.lower() and "Edit" in body and "Write" in body
    # Short names only: the prefix differs between a project server and the plugin.
    assert "mcp__gotchas__check_hold" in body and "mcp__plugin_gotchas_gotchas__" in body


def test_project_skill_is_the_plugin_skill() -> None:
    assert (PROJECT_SKILL / "SKILL.md").is_file()
    if PROJECT_SKILL.is_symlink():
        target = os.readlink(PROJECT_SKILL)
        assert not os.path.isabs(target), "a relative link survives clones and moves"
        assert PROJECT_SKILL.resolve() == SKILL_DIR.resolve()
    else:
        comparison = filecmp.dircmp(PROJECT_SKILL, SKILL_DIR)
        assert not (comparison.diff_files or comparison.left_only or comparison.right_only)


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_plugin_and_marketplace_manifests() -> None:
    plugin = load(REPO / "plugin" / ".claude-plugin" / "plugin.json")
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert plugin["name"] == "gotchas"
    assert plugin["version"] == project["version"]
    assert plugin["license"] == "MIT"
    assert plugin["description"] and plugin["author"]["name"] and plugin["repository"]
    server = plugin["mcpServers"]["gotchas"]
    # Claude Code installs no Python dependencies for a plugin: uvx installs the server
    # released with this plugin, every dependency pinned.
    assert server["command"] == "uvx"
    assert server["args"] == ["--from", f"gotchas-mcp[pinned]=={project['version']}", "gotchas-mcp"]

    market = load(REPO / ".claude-plugin" / "marketplace.json")
    assert market["owner"]["name"]
    (entry,) = market["plugins"]
    assert entry["name"] == plugin["name"] and entry["source"] == "./plugin"
    assert entry.get("version", plugin["version"]) == plugin["version"]


def test_project_settings_allow_reads_and_leave_writes_to_the_user() -> None:
    """Read-only tools run without asking; apply_supersede is not allowed, so a session
    asks first. It is deliberately not an explicit `ask` rule: Claude Code honours a
    project's ask rules even in headless runs, where it ignores the project's allow
    rules, so an ask rule would deny apply_supersede to an `@claude` run that allows
    it (tests/test_claude_code.py shows the headless run applying with an allow)."""
    settings = load(REPO / ".claude" / "settings.json")
    permissions = settings["permissions"]
    allow = set(permissions["allow"])
    assert {f"mcp__gotchas__{tool}" for tool in READ_ONLY_TOOLS} <= allow
    assert not any("apply_supersede" in rule or rule.endswith("*") for rule in allow)
    assert not any("mcp__gotchas" in rule for rule in permissions.get("ask", []))
    assert not any("mcp__gotchas" in rule for rule in permissions.get("deny", []))
    assert "Skill(correcting-gotchas)" in allow
    assert settings["enabledMcpjsonServers"] == ["gotchas"]
    assert not (REPO / ".claude" / "settings.local.json").exists()


def workflow_allowed_tools() -> set[str]:
    text = (REPO / ".github" / "workflows" / "claude.yml").read_text(encoding="utf-8")
    return set(re.findall(r'"((?:mcp__gotchas__\w+)|(?:Skill\([\w-]+\)))"', text))


def test_mention_workflow_uses_the_action_uv_and_the_skill() -> None:
    text = (REPO / ".github" / "workflows" / "claude.yml").read_text(encoding="utf-8")
    assert "anthropics/claude-code-action@v1" in text
    assert "astral-sh/setup-uv@" in text
    assert "Skill(correcting-gotchas)" in workflow_allowed_tools()


def test_every_tool_name_in_the_configuration_is_served() -> None:
    """The names in settings.json and the workflow match what the server offers."""
    import asyncio

    from mcp import Client, StdioServerParameters

    async def served() -> set[str]:
        params = StdioServerParameters(command=gotchas_exe(), args=["--root", str(REPO), "serve"])
        async with Client(params) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    tools = asyncio.run(served())
    assert tools >= READ_ONLY_TOOLS | WRITE_TOOLS
    settings = load(REPO / ".claude" / "settings.json")["permissions"]
    for rule in settings["allow"] + sorted(workflow_allowed_tools()):
        if rule.startswith("mcp__gotchas__"):
            assert rule.removeprefix("mcp__gotchas__") in tools, rule
    assert {f"mcp__gotchas__{tool}" for tool in READ_ONLY_TOOLS | WRITE_TOOLS} <= (workflow_allowed_tools())


def claude_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_TIMEOUT="120000",  # a cold Python start on a busy 2-core runner is slow
    )
    return env


def trust(home: Path, project: Path) -> None:
    """Mark a folder trusted, as accepting the trust dialog does."""
    config = home / ".claude" / ".claude.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    data = {"projects": {str(project): {"hasTrustDialogAccepted": True}}}
    config.write_text(json.dumps(data), encoding="utf-8")
    (home / ".claude.json").write_text(json.dumps(data), encoding="utf-8")


@requires_npm
@pytest.mark.slow
def test_the_plugin_folder_starts_its_server_with_uvx(tmp_path: Path) -> None:
    """`claude --plugin-dir plugin`, as while developing the plugin: Claude Code runs the
    plugin's server (uvx installs gotchas-mcp, here from this checkout's builds) in an
    unrelated project."""
    builds = local_builds()
    claude = node_bin("claude")
    project = tmp_path / "elsewhere"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    home = tmp_path / "home"
    env = {**claude_env(home), **builds.env(home)}
    env["MCP_TIMEOUT"] = "240000"  # the first uvx start installs the dependencies
    done = subprocess.run(
        [claude, "--plugin-dir", str(REPO / "plugin"), "mcp", "list"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [ln for ln in done.stdout.splitlines() if "gotchas" in ln]
    assert len(lines) == 1, done.stdout + done.stderr
    assert lines[0].startswith("plugin:gotchas:gotchas: uvx --from gotchas-mcp[pinned]==")
    assert "Connected" in lines[0], done.stdout + done.stderr


@requires_npm
def test_claude_mcp_list_shows_the_project_server_connected(tmp_path: Path) -> None:
    """The repository's own .mcp.json, in a scratch project with this checkout's venv."""
    claude = node_bin("claude")
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    (project / ".mcp.json").write_bytes((REPO / ".mcp.json").read_bytes())
    # Our settings approve the project server once the folder is trusted.
    (project / ".claude").mkdir()
    settings = (REPO / ".claude" / "settings.json").read_bytes()
    (project / ".claude" / "settings.json").write_bytes(settings)
    venv_bin = project / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "gotchas").symlink_to(gotchas_exe())
    home = tmp_path / "home"
    trust(home, project)
    done = subprocess.run(
        [claude, "mcp", "list"],
        cwd=project,
        env=claude_env(home),
        capture_output=True,
        text=True,
        timeout=120,
    )
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("gotchas:")), "")
    assert "Connected" in line, done.stdout + done.stderr
