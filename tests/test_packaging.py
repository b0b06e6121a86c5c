"""Every install route the README offers, from a local build: the wheels in a fresh venv,
`uvx gotchas-mcp`, `uvx --from gotchas-mcp gotchas`, the pinned extra, the uv route from a
checkout, and the sdist (it builds a wheel and carries the tests that run from it)."""

from __future__ import annotations

import ast
import asyncio
import email
import json
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from email.message import Message
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from support.builds import Builds, local_builds, run, uv_exe
from support.clients import REPO, SCENARIO_RECORD, make_scenario_repo

pytestmark = pytest.mark.slow

SERVER_PROJECT = REPO / "distributions" / "gotchas-mcp"
TOOLS = {"list_gotchas", "get_gotcha", "check_hold", "propose_supersede", "apply_supersede", "verify_record"}


@pytest.fixture(scope="module")
def builds() -> Builds:
    return local_builds()


def metadata(wheel: Path) -> Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def project(path: Path) -> dict[str, object]:
    loaded: dict[str, object] = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
    return loaded


def venv(root: Path, builds: Builds, *requirements: str) -> Path:
    """A fresh venv with `requirements` installed from the local builds; its bin folder."""
    env = builds.env(root / "home")
    run([uv_exe(), "venv", "--quiet", str(root / "venv")], env=env)
    python = root / "venv" / "bin" / "python"
    run([uv_exe(), "pip", "install", "--quiet", "--python", str(python), *requirements], env=env)
    return python.parent


def served_tools(command: str, args: list[str], env: dict[str, str] | None = None) -> set[str]:
    """initialize, then tools/list, over stdio with the SDK's client."""
    from mcp import Client, StdioServerParameters

    async def listed() -> set[str]:
        params = StdioServerParameters(command=command, args=args, env=env)
        async with Client(params) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    return asyncio.run(listed())


def test_both_wheels_carry_complete_metadata(builds: Builds) -> None:
    for wheel in [builds.core_wheel, builds.server_wheel]:
        meta = metadata(wheel)
        classifiers = meta.get_all("Classifier") or []
        assert any(c.startswith("Development Status :: ") for c in classifiers), wheel.name
        assert "Programming Language :: Python :: 3.11" in classifiers
        assert meta["Requires-Python"] == ">=3.11"
        assert meta["License-Expression"] == "MIT"
        urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
        assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls), urls
        assert all(url.startswith("https://") for url in urls.values())
    server = metadata(builds.server_wheel)
    version = project(REPO / "pyproject.toml")["version"]
    assert server["Version"] == version == project(SERVER_PROJECT / "pyproject.toml")["version"]
    requires = server.get_all("Requires-Dist") or []
    assert f"gotchas[mcp]=={version}" in requires, "the server pins the core it was released with"
    with zipfile.ZipFile(builds.server_wheel) as archive:
        scripts = archive.read(f"gotchas_mcp-{version}.dist-info/entry_points.txt").decode()
    assert "gotchas-mcp = gotchas.entry:main" in scripts


def test_every_imported_third_party_module_is_declared(builds: Builds) -> None:
    """Each module the package imports is the standard library's, the package's own, or
    comes from a distribution the core or its `mcp` extra declares."""
    imported: set[str] = set()
    for path in (REPO / "server" / "gotchas").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                imported |= {alias.name.partition(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.partition(".")[0])
    third_party = imported - set(sys.stdlib_module_names) - {"gotchas", "__future__"}
    declared = {
        req.partition(";")[0].split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip().lower()
        for req in metadata(builds.core_wheel).get_all("Requires-Dist") or []
    }
    providers = packages_distributions()
    for module in sorted(third_party):
        names = {name.lower().replace("_", "-") for name in providers.get(module, [])}
        assert names & {d.replace("_", "-") for d in declared}, f"{module} ({names}) is not declared"
    assert {"mcp", "uvicorn", "typing_extensions", "markdown_it"} <= third_party


def test_the_core_wheel_alone_runs_the_cli_and_the_linter(builds: Builds, tmp_path: Path) -> None:
    """What pre-commit and a CI lint step install: no MCP stack, a working CLI."""
    bin_dir = venv(tmp_path, builds, "gotchas")
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    assert "usage: gotchas" in run([str(bin_dir / "gotchas"), "--help"])
    gotchas = [str(bin_dir / "gotchas"), "--root", str(repo)]
    listed = json.loads(run([*gotchas, "list", "--json", "--task", "#664"]))
    assert [e["id"] for e in listed["entries"]] == ["a-single-large-llm-generate-deadlocks-the-v1"]
    assert "ok" in run([str(bin_dir / "gotchas"), "--root", str(repo), "lint"])
    installed = run([uv_exe(), "pip", "list", "--python", str(bin_dir / "python"), "--format", "json"])
    names = {p["name"].lower() for p in json.loads(installed.splitlines()[0])}
    assert names == {"gotchas", "markdown-it-py", "mdurl", "typing-extensions"}, names
    assert not (bin_dir / "gotchas-mcp").exists()


def test_every_command_runs_from_the_core_wheel_alone(builds: Builds, tmp_path: Path) -> None:
    """Each registered command, run as a new user would after `pip install gotchas`: it works,
    or (serve, demo) says in one line that it needs gotchas-mcp; never a missing module."""
    from gotchas.cli.registry import COMMANDS

    bin_dir = venv(tmp_path, builds, "gotchas")
    repo = tmp_path / "repo"
    record = make_scenario_repo(repo)
    for side in ("base", "ours", "theirs"):
        (tmp_path / side).write_bytes(record.read_bytes())
    target = "a-single-large-llm-generate-deadlocks-the-v1"
    ran: set[str] = set()

    def gotchas(*argv: str, codes: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(bin_dir / "gotchas"), *argv], cwd=repo, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in codes, f"{argv} exited {done.returncode}: {done.stderr}"
        for sign in ("Traceback", "ModuleNotFoundError", "internal error"):
            assert sign not in done.stderr, (argv, done.stderr)
        ran.add(argv[0])
        return done

    assert json.loads(gotchas("list", "--json").stdout)["total"] > 1
    assert f"({target})" in gotchas("outline").stdout
    assert json.loads(gotchas("show", target, "--json").stdout)["id"] == target
    held = json.loads(gotchas("check-hold", "predicate-664-lands", "--json", codes=(0, 3, 4, 5)).stdout)
    assert held["predicate"] == "predicate-664-lands"
    gotchas("task", "set", "#664", "running", "--by", "tester")
    assert json.loads(gotchas("task", "show", "#664", "--json").stdout)["history"][0]["state"] == "running"
    proposed = json.loads(
        gotchas(
            "propose",
            *("--target-id", target, "--task", "#664", "--title", "Tokenizer reloads starve generation"),
            *("--body", "A reload per call starved generation.", "--diagnostic", "profile one call"),
            *("--no-hold", "--json"),
        ).stdout
    )
    assert proposed["status"] == "proposed", proposed
    listed = json.loads(gotchas("proposals", "--json").stdout)["proposals"]
    assert [p["proposal_id"] for p in listed] == [proposed["proposal_id"]]
    applied = json.loads(gotchas("apply", proposed["proposal_id"], "--json").stdout)
    assert applied["status"] == "applied", applied
    spare = gotchas(
        "propose",
        *("--title", "Pin the tokenizer", "--body", "Pin it.", "--tasks", "#7", "--root-cause", "suspected"),
        *("--after", target, "--json"),
    )
    withdrawn = json.loads(gotchas("withdraw", json.loads(spare.stdout)["proposal_id"], "--json").stdout)
    assert withdrawn["status"] == "withdrawn", withdrawn
    assert len(json.loads(gotchas("history", "#664", "--json").stdout)["entries"]) == 2
    assert json.loads(gotchas("view", "--json").stdout)["summary"]["superseded"] == 1
    checked = json.loads(gotchas("check", "--json").stdout)
    assert "findings" in checked, checked
    assert "ok" in gotchas("verify").stdout
    assert "ok" in gotchas("lint").stdout
    assert "would change" in gotchas("init", "--dry-run").stdout
    pinned = json.loads(gotchas("pin", "h3", "--dry-run", "--json").stdout)
    assert pinned["changes"] == ['entries = "h3": added'] and not pinned["written"], pinned
    gotchas("session-start")
    sides = [str(tmp_path / side) for side in ("base", "ours", "theirs")]
    gotchas("merge-record", *sides)
    for command in ("serve", "demo"):
        refused = gotchas(command, *(["--no-pause"] if command == "demo" else []), codes=(1,))
        assert "install gotchas-mcp" in refused.stderr, refused.stderr
        assert len(refused.stderr.splitlines()) == 1, refused.stderr
    assert ran == set(COMMANDS), set(COMMANDS) ^ ran


def test_the_server_wheel_in_a_fresh_venv_speaks_mcp(builds: Builds, tmp_path: Path) -> None:
    bin_dir = venv(tmp_path, builds, "gotchas-mcp")
    repo = tmp_path / "repo"
    record = make_scenario_repo(repo)
    assert "usage: gotchas" in run([str(bin_dir / "gotchas"), "--help"])
    listed = run([str(bin_dir / "gotchas"), "--root", str(repo), "list"])
    assert "a-single-large-llm-generate-deadlocks-the-v1" in listed
    assert "--http" in run([str(bin_dir / "gotchas-mcp"), "--help"]), "the serve options"
    assert served_tools(str(bin_dir / "gotchas-mcp"), ["--root", str(repo)]) >= TOOLS
    assert record.read_text(encoding="utf-8") == SCENARIO_RECORD


def test_the_pinned_extra_pins_everything_the_server_runs_on(builds: Builds, tmp_path: Path) -> None:
    """uvx ignores lock files; `gotchas-mcp[pinned]` is the reproducible route. Every package
    it installs is pinned, at the version installed, and they are consistent."""
    bin_dir = venv(tmp_path, builds, "gotchas-mcp[pinned]")
    python = str(bin_dir / "python")
    pinned = project(SERVER_PROJECT / "pyproject.toml")["optional-dependencies"]
    assert isinstance(pinned, dict)
    pins = {}
    for requirement in pinned["pinned"]:
        name, _, version = requirement.partition(";")[0].strip().partition("==")
        pins[name.lower().replace("_", "-")] = version
    listing = run([uv_exe(), "pip", "list", "--python", python, "--format", "json"])
    installed = json.loads(listing.splitlines()[0])
    for package in installed:
        name = package["name"].lower().replace("_", "-")
        if name in {"gotchas", "gotchas-mcp"}:
            continue
        assert pins.get(name) == package["version"], f"{name} {package['version']} is not pinned"
    run([uv_exe(), "pip", "check", "--python", python])


def test_uvx_runs_the_server_and_the_cli_from_the_local_build(builds: Builds, tmp_path: Path) -> None:
    """`uvx gotchas-mcp` (the conventional route; the local builds stand in for the registry),
    `uvx gotchas …`, `uvx --from gotchas gotchas …`, and pre-warming."""
    env = builds.env(tmp_path / "home")
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    assert "--http" in run(["uvx", "gotchas-mcp", "--help"], env=env)
    assert served_tools("uvx", ["gotchas-mcp", "--root", str(repo)], env=env) >= TOOLS
    listed = run(["uvx", "gotchas", "--root", str(repo), "list"], env=env)  # the README's route
    assert "a-single-large-llm-generate-deadlocks-the-v1" in listed
    linted = run(["uvx", "--from", "gotchas", "gotchas", "--root", str(repo), "lint"], env=env)
    assert "ok" in linted
    pinned = ["--from", "gotchas-mcp[pinned]", "gotchas-mcp", "--root", str(repo)]
    assert served_tools("uvx", pinned, env=env) >= TOOLS


def test_uvx_runs_the_server_from_a_checkout(builds: Builds, tmp_path: Path) -> None:
    """The tested local route (what .mcp.json falls back to): uv builds the core from the
    working tree through distributions/gotchas-mcp's uv source."""
    env = builds.env(tmp_path / "home")
    env.pop("UV_FIND_LINKS")
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    args = ["--from", str(SERVER_PROJECT), "gotchas-mcp", "--root", str(repo)]
    assert served_tools("uvx", args, env=env) >= TOOLS


def test_the_sdist_builds_a_wheel_and_its_tests_run(builds: Builds, tmp_path: Path) -> None:
    with tarfile.open(builds.core_sdist) as archive:
        names = {name.partition("/")[2] for name in archive.getnames()}
        archive.extractall(tmp_path, filter="data")
    for wanted in [
        "tests/test_record.py",
        "tests/fixtures/scenario-gotchas.md",
        "skills/correcting-gotchas/SKILL.md",
        "plugin/.claude-plugin/plugin.json",
        "plugin/skills/correcting-gotchas/SKILL.md",
        ".claude-plugin/marketplace.json",
        ".pre-commit-hooks.yaml",
        "docs/claude-code.md",
        "distributions/gotchas-mcp/pyproject.toml",
        "LICENSE",
    ]:
        assert wanted in names, wanted
    assert not any(n.startswith((".venv/", "tests/node/node_modules/")) for n in names)
    unpacked = next(tmp_path.glob("gotchas-*"))
    out = tmp_path / "from-sdist"
    run([uv_exe(), "build", "--wheel", "--quiet", "--out-dir", str(out), str(builds.core_sdist)])
    assert [w.name for w in out.glob("*.whl")] == [builds.core_wheel.name]
    # The unpacked sdist's tests, against the unpacked sdist's code.
    done = run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not npm and not slow",
            "tests/test_record.py",
            "tests/test_edit.py",
            "tests/test_skill_plugin.py",
        ],
        cwd=unpacked,
        env={**builds.env(tmp_path / "home"), "PYTHONPATH": str(unpacked / "server")},
    )
    assert " passed" in done and not re.search(r"\b\d+ (failed|errors?)\b", done), done
