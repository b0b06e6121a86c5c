"""The plugin is its own folder, `plugin/`: what a local marketplace copies into Claude Code's
plugin cache is the manifest and the skill, never tests, bench or a venv. Installed through
the real Claude Code CLI, it starts `gotchas-mcp` with uvx (from the local builds here)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support.builds import Builds, local_builds
from support.clients import REPO, git, node_bin, requires_npm

PLUGIN = REPO / "plugin"
SKILL = PLUGIN / "skills" / "correcting-gotchas"


def files_under(root: Path) -> set[str]:
    return {
        str((Path(folder) / name).relative_to(root))
        for folder, _, names in os.walk(root, followlinks=True)
        for name in names
    }


def test_the_plugin_folder_holds_only_what_a_plugin_needs() -> None:
    assert files_under(PLUGIN) == {
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "skills/correcting-gotchas/SKILL.md",
    }
    # One canonical skill, a real file inside the plugin folder (Claude Code reads an
    # installed plugin's components without following links out of it); skills/ and the
    # project skill are links to it.
    assert not SKILL.is_symlink() and (SKILL / "SKILL.md").is_file()
    links = [REPO / "skills" / "correcting-gotchas", REPO / ".claude" / "skills" / "correcting-gotchas"]
    for link in links:
        if link.is_symlink():
            assert not os.path.isabs(os.readlink(link))
            assert link.resolve() == SKILL.resolve()
        else:  # an unpacked sdist holds copies
            assert (link / "SKILL.md").read_bytes() == (SKILL / "SKILL.md").read_bytes()
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    assert [p["source"] for p in market["plugins"]] == ["./plugin"]
    assert not (REPO / ".claude-plugin" / "plugin.json").exists(), "the root is no plugin"


def claude_env(home: Path, builds: Builds | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
    if builds is not None:
        env = builds.env(home)
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        MCP_TIMEOUT="240000",  # uvx's first start installs the server
    )
    return env


def claude(*args: str, env: dict[str, str], cwd: Path | None = None) -> str:
    done = subprocess.run(
        [node_bin("claude"), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, f"claude {args} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@requires_npm
def test_claude_validates_one_plugin_with_one_server(tmp_path: Path) -> None:
    env = claude_env(tmp_path)
    validated = claude("plugin", "validate", "--json", "--profile", "directory", str(PLUGIN), env=env)
    report = json.loads(validated)
    assert report["success"], report
    assert not [w for c in report["contents"] for w in c["warnings"]], report["contents"]
    assert "gotchas:correcting-gotchas" in report["provides"]["skills"]
    servers = report["provides"]["mcpServers"]
    assert [(s["name"], s["target"]) for s in servers] == [("gotchas", "uvx")], servers
    for manifest in [PLUGIN / ".claude-plugin" / "plugin.json", REPO / ".claude-plugin" / "marketplace.json"]:
        checked = json.loads(claude("plugin", "validate", "--strict", "--json", str(manifest), env=env))
        assert checked["manifest"]["errors"] == [] and checked["manifest"]["warnings"] == []


@requires_npm
@pytest.mark.slow
def test_a_local_marketplace_installs_the_plugin_folder_and_its_server_connects(tmp_path: Path) -> None:
    builds = local_builds()
    home = tmp_path / "home"
    env = claude_env(home, builds)
    claude("plugin", "marketplace", "add", str(REPO), env=env)
    claude("plugin", "install", "gotchas@gotchas", env=env)
    (installed,) = (home / ".claude" / "plugins" / "cache" / "gotchas" / "gotchas").iterdir()
    copied = files_under(installed)
    assert copied == {
        ".claude-plugin/plugin.json",
        "hooks/hooks.json",
        "skills/correcting-gotchas/SKILL.md",
    }, copied
    skill = installed / "skills" / "correcting-gotchas" / "SKILL.md"
    assert not skill.is_symlink() and skill.read_bytes() == (SKILL / "SKILL.md").read_bytes()
    for absent in ["tests", "bench", ".venv", "server", "pyproject.toml"]:
        assert not (installed / absent).exists(), absent

    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q", "-b", "main")
    listed = claude("mcp", "list", env=env, cwd=project)
    lines = [ln for ln in listed.splitlines() if "gotchas" in ln]
    assert len(lines) == 1, listed
    assert lines[0].startswith("plugin:gotchas:gotchas: uvx --from gotchas-mcp[pinned]==0.1.0 gotchas-mcp")
    assert "Connected" in lines[0], listed
