"""Both distributions built from this checkout once per test session, and the environment
that makes uv and pip install those builds (their dependencies still come from the registry).

`gotchas` (the root: CLI and linter) and `gotchas-mcp` (distributions/gotchas-mcp: the core's
`mcp` extra and the `gotchas-mcp` command) are built the way a release is: an sdist, then the
wheel from that sdist."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from support.clients import REPO


def uv_exe() -> str:
    """uv from the dev dependency group, beside the interpreter running the tests."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.exists() else shutil.which("uv")
    if found is None:
        pytest.fail("uv is not installed: ./scripts/setup installs the dev group, which has it")
    return found


@dataclass(frozen=True)
class Builds:
    out: Path
    uv_cache: Path

    def one(self, pattern: str) -> Path:
        (found,) = self.out.glob(pattern)
        return found

    @property
    def core_wheel(self) -> Path:
        return self.one("gotchas-*.whl")

    @property
    def core_sdist(self) -> Path:
        return self.one("gotchas-*.tar.gz")

    @property
    def server_wheel(self) -> Path:
        return self.one("gotchas_mcp-*.whl")

    @property
    def server_sdist(self) -> Path:
        return self.one("gotchas_mcp-*.tar.gz")

    def env(self, home: Path) -> dict[str, str]:
        """uv finds the local builds first; its cache is this session's (a build of the same
        version made earlier must never be reused); uv and uvx are on PATH."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "VIRTUAL_ENV"))}
        env.update(
            HOME=str(home),
            UV_FIND_LINKS=str(self.out),
            UV_CACHE_DIR=str(self.uv_cache),
            UV_TOOL_DIR=str(home / "uv-tools"),
            UV_PYTHON=sys.executable,
            UV_PYTHON_DOWNLOADS="never",
            PATH=os.pathsep.join([str(Path(uv_exe()).parent), env.get("PATH", "")]),
        )
        return env


def run(cmd: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{cmd} exited {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@cache
def local_builds() -> Builds:
    """Build both distributions (sdist, then the wheel from it) into a session folder."""
    top = Path(tempfile.mkdtemp(prefix="gotchas-builds-"))
    atexit.register(shutil.rmtree, top, True)
    out = top / "dist"
    for project in [REPO, REPO / "distributions" / "gotchas-mcp"]:
        run([uv_exe(), "build", "--quiet", "--out-dir", str(out), str(project)])
    return Builds(out=out, uv_cache=top / "uv-cache")
