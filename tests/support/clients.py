"""Helpers for tests that drive real clients (Claude Code, the MCP Inspector, the
conformance suite) against the gotchas server: where the npm binaries are, a scratch
git repository holding a #664-style record, and a `gotchas serve --http` process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
NODE_DIR = REPO / "tests" / "node"
NODE_BIN = NODE_DIR / "node_modules" / ".bin"

NPM_MISSING = "tests/node/node_modules is absent; install the pinned clients: npm ci --prefix tests/node"

F = TypeVar("F", bound=Callable[..., object])


def requires_npm(test: F) -> F:
    """Mark a test that needs the npm-installed clients. It skips only when they were
    never installed (CI installs them, so there it always runs)."""
    marked: F = pytest.mark.npm(pytest.mark.skipif(not NODE_BIN.is_dir(), reason=NPM_MISSING)(test))
    return marked


RECORD_PATH = Path(".claude/rules/gotchas.md")
HOLD = "predicate-664-lands"

# A record in the shape of the #664 scenario, written for these tests: the chunk-it
# lesson that #664 later disproved, a neighbour lesson (#601/#653) that must survive
# byte for byte, and a few unrelated entries.
SCENARIO_RECORD = (REPO / "tests" / "fixtures" / "scenario-gotchas.md").read_text(encoding="utf-8")

CORRECTION_TITLE = "Per-call tokenizer reloads in `_render()` starved generation"
CORRECTION_BODY = (
    "The #664 hang was not a vLLM deadlock: `_render()` called "
    "`AutoTokenizer.from_pretrained` on every call, so prompt rendering starved "
    "generation. Caching the tokenizer with `functools.lru_cache` fixed it."
)
CORRECTION_DIAGNOSTIC = (
    "If chunking, enforce_eager and prefix_caching=0 all fail, profile a single "
    "`_render()` call and suspect per-call tokenizer or model reloads."
)
CORRECTION_RULED_OUT = [
    "chunking generate() into 2,000-prompt batches",
    "enforce_eager=True",
    "enable_prefix_caching=False",
]


def node_bin(name: str) -> str:
    """The path of an npm-installed client binary."""
    path = NODE_BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed in tests/node: {NPM_MISSING}")
    return str(path)


def gotchas_exe() -> str:
    """The `gotchas` console script of the interpreter running the tests."""
    beside = Path(sys.executable).parent / "gotchas"
    if beside.exists():
        return str(beside)
    found = shutil.which("gotchas")
    if found is None:
        pytest.fail("the gotchas console script is not installed (pip install -e .)")
    return found


def isolated_env(home: Path, **extra: str) -> dict[str, str]:
    """The caller's environment without anything that could point gotchas or git elsewhere."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GOTCHAS_", "CLAUDE", "GIT_", "GITHUB_", "GH_"))
    }
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home), GIT_CONFIG_NOSYSTEM="1", **extra)
    return env


def gotchas_cmd(root: Path) -> list[str]:
    """The gotchas command line up to the sub-command, for a scratch repository."""
    return [gotchas_exe(), "--root", str(root)]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True, env=git_env())
    return done.stdout


def git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="Test Runner",
        GIT_AUTHOR_EMAIL="runner@example.invalid",
        GIT_COMMITTER_NAME="Test Runner",
        GIT_COMMITTER_EMAIL="runner@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def make_scenario_repo(root: Path) -> Path:
    """A git repository on `main` with the scenario record committed; returns the record."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    record = root / RECORD_PATH
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text(SCENARIO_RECORD, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Record lessons so far")
    return record


def gotchas(
    root: Path, *args: str, timeout: float = 60, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """The one CLI runner: gotchas run in ``root`` as a user would run it. The root is found
    from the working directory, and nothing in the caller's environment points gotchas or
    git elsewhere (``HOME`` is a ``home`` folder beside the project; ``env`` adds variables)."""
    return subprocess.run(
        [gotchas_exe(), *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=isolated_env(root.parent / "home", **env),
        check=False,
    )


def run_gotchas(
    root: Path, *args: str, check: bool = True, stdin: object = None
) -> subprocess.CompletedProcess[str]:
    """:func:`gotchas` that fails the test on a non-zero exit; ``stdin`` is sent as JSON."""
    done = gotchas(root, *args, stdin=None if stdin is None else json.dumps(stdin))
    if check and done.returncode != 0:
        raise AssertionError(f"gotchas {' '.join(args)} exited {done.returncode}:\n{done.stderr}")
    return done


def land_task(root: Path, task: int) -> None:
    """Land a task the way a team does: a commit on main that says it fixes it."""
    marker = root / "CHANGES.txt"
    with marker.open("a", encoding="utf-8") as out:
        out.write(f"task {task} landed\n")
    git(root, "add", "CHANGES.txt")
    git(root, "commit", "-q", "-m", f"Cache the tokenizer in _render()\n\nFixes #{task}")


def entry_section(record_text: str, title: str) -> str:
    """The raw Markdown of one entry: its heading line up to the next heading."""
    lines = record_text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("#") and title in line)
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("#")),
        len(lines),
    )
    return "".join(lines[start:end])


@dataclass
class HttpServer:
    process: subprocess.Popen[str]
    host: str
    port: int
    log: IO[str]
    path: str = "/mcp"

    def output(self) -> str:
        """What the server has printed so far."""
        return read_log(self.log)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}{self.path}"


def read_log(log: IO[str]) -> str:
    log.flush()
    log.seek(0)
    text = log.read()
    log.seek(0, os.SEEK_END)
    return text


def wait_for_port(
    process: subprocess.Popen[str], host: str, port: int, log: IO[str], limit: float = 60
) -> None:
    """Wait until the process accepts connections; fail early if it exits."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"server exited with {process.returncode} before listening:\n{read_log(log)}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"server did not listen on {host}:{port}:\n{read_log(log)}")


def stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def http_server(
    root: Path,
    *extra: str,
    host: str = "127.0.0.1",
    env: Mapping[str, str] | None = None,
) -> Iterator[HttpServer]:
    """`gotchas serve --http` on a free loopback port, stopped afterwards."""
    port = free_port()
    full_env = git_env()
    full_env.update(env or {})
    with tempfile.TemporaryFile("w+") as log:
        process = subprocess.Popen(
            [*gotchas_cmd(root), "serve", "--http", "--host", host, "--port", str(port), *extra],
            cwd=root,
            env=full_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            wait_for_port(process, host, port, log)
            yield HttpServer(process, host, port, log)
        finally:
            stop(process)
