"""The official MCP conformance suite against `gotchas serve --http`.

Only the scenarios that apply to a server with its own tools run here; docs/claude-code.md
says why the others (which call the suite's reference fixtures by name) do not."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.clients import HttpServer, http_server, make_scenario_repo, node_bin, requires_npm

SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "completion-complete",
    "dns-rebinding-protection",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    root = tmp_path_factory.mktemp("conformance") / "repo"
    make_scenario_repo(root)
    with http_server(root) as running:
        yield running


def checks(output: Path) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for path in sorted(output.rglob("checks.json")):
        found.extend(json.loads(path.read_text(encoding="utf-8")))
    return found


@requires_npm
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(server: HttpServer, scenario: str, tmp_path: Path) -> None:
    command = [node_bin("conformance"), "server", "--url", server.url, "--scenario", scenario]
    done = subprocess.run(
        [*command, "--output-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    results = checks(tmp_path)
    failed = [c for c in results if c["status"] not in {"SUCCESS", "INFO"}]
    assert done.returncode == 0 and results and not failed, (
        json.dumps(failed or results, indent=1) + done.stdout[-3000:] + server.output()[-3000:]
    )
    assert any(c["status"] == "SUCCESS" for c in results)
