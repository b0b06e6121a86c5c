"""Shared helpers for the benchmark scripts in ``bench/``.

Records come from ``../shared/bench/gen_record.py`` (relative to the repository), written
into a scratch git repository as ``.claude/rules/gotchas.md``. Servers are driven with
raw JSON-RPC over pipes (one JSON object per line), identically for every server, so the
figures measure the servers and not a client library.
"""

from __future__ import annotations

import functools
import json
import os
import re
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GEN_RECORD = REPO.parent / "shared/bench/gen_record.py"
OUT = REPO / "bench" / "out"
RECORD_REL = Path(".claude/rules/gotchas.md")
PROTOCOL_VERSION = "2025-11-25"


def venv_python() -> Path:
    """The project's interpreter (the venv that has gotchas installed), else this one."""
    candidate = REPO / ".venv" / "bin" / "python"
    return candidate if candidate.exists() else Path(sys.executable)


def gotchas_cmd() -> list[str]:
    """The ``gotchas`` console script as a user runs it."""
    script = venv_python().parent / "gotchas"
    return [str(script)] if script.exists() else [str(venv_python()), "-m", "gotchas"]


def clean_env(**extra: str) -> dict[str, str]:
    """A small, stable environment, like the one stdio MCP clients pass to servers."""
    keep = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(extra)
    return env


# ---------------------------------------------------------------------------- records


def generate(n: int, dest: Path, seed: int = 664) -> bytes:
    """Run gen_record.py for ``n`` entries and write the bytes to ``dest``."""
    if not GEN_RECORD.exists():
        sys.exit(f"bench: generator not found at {GEN_RECORD}")
    data = subprocess.run(
        [sys.executable, str(GEN_RECORD), str(n), "--seed", str(seed)],
        check=True,
        capture_output=True,
    ).stdout
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return data


def make_repo(parent: Path, name: str, n: int) -> Path:
    """A git repository under ``parent`` holding a generated record of ``n`` entries."""
    root = parent / name
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for key, value in (("user.name", "bench"), ("user.email", "bench@example.invalid")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    generate(n, root / RECORD_REL)
    return root


REAL_FILES = REPO.parent / "shared" / "corpus" / "real"
"""Real lessons files from public repositories, beside the project (not shipped with it)."""


def real_files(low: int = 20_000, high: int = 70_000) -> list[Path]:
    """The real lessons files whose size is within ``low``..``high`` bytes."""
    return sorted(p for p in REAL_FILES.glob("*") if p.is_file() and low <= p.stat().st_size <= high)


def real_repos(parent: Path, files: Sequence[Path]) -> list[Path]:
    """A git repository under ``parent`` for each file, the file as its record."""
    roots = []
    for n, path in enumerate(files):
        root = parent / f"real{n}"
        root.mkdir()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / RECORD_REL).parent.mkdir(parents=True)
        shutil.copyfile(path, root / RECORD_REL)
        roots.append(root)
    return roots


@contextmanager
def scratch_dir(prefix: str = "gotchas-bench-") -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


_HEADING = re.compile(r"^(#{1,6}) (.*)$")


def split_lessons(text: str, level: int = 3) -> list[tuple[str, list[str]]]:
    """The generated record's entries as (title, non-blank body lines), for other servers.

    The generator writes one ``###`` heading per entry; ``#`` lines inside code fences are
    not headings.
    """
    lessons: list[tuple[str, list[str]]] = []
    in_fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            if len(match.group(1)) == level:
                lessons.append((match.group(2), []))
                continue
            if len(match.group(1)) < level:
                continue
        if lessons and line.strip():
            lessons[-1][1].append(line)
    return lessons


# ---------------------------------------------------------------------------- timing


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def time_cmd(
    cmd: Sequence[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    codes: Sequence[int] = (0,),
) -> float:
    """Wall time of one subprocess run, in seconds; fails loudly on an exit code not in
    ``codes`` (a linter exits 1 when it finds problems)."""
    start = time.perf_counter()
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode not in codes:
        raise RuntimeError(f"{cmd[0]} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed


def interleaved(runs: int, *funcs: Callable[[], float]) -> list[list[float]]:
    """Run each measurement ``runs`` times, alternating, so drift hits all of them alike."""
    results: list[list[float]] = [[] for _ in funcs]
    for _ in range(runs):
        for i, func in enumerate(funcs):
            results[i].append(func())
    return results


Run = tuple[Sequence[str], dict[str, str]]
"""A command and the environment it runs in."""


def paired(
    runs: int, cwd: Path, first: Run, second: Run, codes: Sequence[int] = (0,)
) -> tuple[list[float], list[float]]:
    """Two commands' wall times in ``cwd``: each run once untimed (the interpreter's ``.pyc``
    files and the page cache warm for both), then ``runs`` times each, interleaved."""
    timers = [functools.partial(time_cmd, cmd, cwd, env, codes) for cmd, env in (first, second)]
    for timer in timers:
        timer()
    a, b = interleaved(runs, *timers)
    return a, b


def budgeted(min_runs: int, max_runs: int, seconds: float) -> Iterator[int]:
    """Run indices: at least ``min_runs``, then more while the time budget lasts."""
    start = time.monotonic()
    for index in range(max_runs):
        if index >= min_runs and time.monotonic() - start > seconds:
            return
        yield index


@dataclass
class Report:
    """Collects ratio and absolute lines; prints them as a short table."""

    title: str
    lines: list[str] = field(default_factory=list)
    misses: int = 0

    def ratio(self, label: str, num: float, den: float, bar: float | None) -> float:
        """A ratio of medians against its bar; ``bar=None`` prints it for information."""
        value = num / den if den else float("inf")
        if bar is None:
            self.lines.append(f"ratio  {label:<48} {value:6.2f}  (no bar)")
            return value
        verdict = "PASS" if value <= bar else "MISS"
        self.misses += verdict == "MISS"
        self.lines.append(f"ratio  {label:<48} {value:6.2f}  (bar {bar:g})  {verdict}")
        return value

    def limit(self, label: str, value_ms: float, bar_ms: float) -> None:
        verdict = "PASS" if value_ms <= bar_ms else "MISS"
        self.misses += verdict == "MISS"
        self.lines.append(f"limit  {label:<48} {value_ms:6.1f} ms  (bar {bar_ms:g} ms)  {verdict}")

    def absolute(self, label: str, seconds: Sequence[float]) -> None:
        med = median(seconds) * 1000
        lo, hi = min(seconds) * 1000, max(seconds) * 1000
        self.lines.append(f"median {label:<48} {med:9.1f} ms  (min {lo:.1f}, max {hi:.1f}, n={len(seconds)})")

    def note(self, text: str) -> None:
        self.lines.append(f"note   {text}")

    def print(self) -> None:
        print(f"== {self.title}")
        for line in self.lines:
            print(line)
        print(f"-- {'all bars pass' if not self.misses else f'{self.misses} bar(s) MISSED'}")
        sys.stdout.flush()

    def finish(self, bench: str, started: float) -> int:
        """Print the report with the run's wall time, then the line ``run_all.py`` reads."""
        self.note(f"wall time {time.perf_counter() - started:.0f} s")
        self.print()
        print(json.dumps({"bench": bench, "misses": self.misses}))
        return 0


# ---------------------------------------------------------------------------- stdio JSON-RPC


class RpcError(RuntimeError):
    pass


class StdioServer:
    """A server subprocess spoken to with newline-delimited JSON-RPC over its pipes."""

    def __init__(
        self,
        cmd: Sequence[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        stderr_path: Path | None = None,
    ) -> None:
        self._stderr = open(stderr_path, "ab") if stderr_path else None  # noqa: SIM115
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            list(cmd),
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr or subprocess.DEVNULL,
            bufsize=0,
        )
        assert self.proc.stdout is not None and self.proc.stdin is not None
        self._out = self.proc.stdout
        self._in = self.proc.stdin
        self._buf = b""
        self._next_id = 0
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._out, selectors.EVENT_READ)

    def _send(self, message: dict[str, Any]) -> None:
        self._in.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def _read_line(self, deadline: float) -> bytes:
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._sel.select(remaining):
                raise TimeoutError("server did not answer in time")
            chunk = os.read(self._out.fileno(), 1 << 20)
            if not chunk:
                raise RpcError(f"server exited (code {self.proc.poll()})")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 120) -> Any:
        self._next_id += 1
        rid = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)
        deadline = time.monotonic() + timeout
        while True:
            line = self._read_line(deadline)
            if not line.strip():
                continue
            reply = json.loads(line)
            if reply.get("id") != rid or "method" in reply:
                continue  # a notification or a server request: not ours
            if "error" in reply:
                raise RpcError(f"{method}: {reply['error']}")
            return reply["result"]

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def handshake(self) -> dict[str, Any]:
        """The legacy initialize handshake, the same for every server."""
        result: dict[str, Any] = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "gotchas-bench", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return result

    def call(self, tool: str, arguments: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
        result: dict[str, Any] = self.request("tools/call", {"name": tool, "arguments": arguments}, timeout)
        if result.get("isError"):
            text = " ".join(c.get("text", "") for c in result.get("content", []))
            raise RpcError(f"{tool}: {text[:500]}")
        return result

    def close(self) -> None:
        with suppress(OSError):
            self._in.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._sel.close()
        self._out.close()
        if self._stderr:
            self._stderr.close()

    def __enter__(self) -> StdioServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def spawn_to_tools_list(
    cmd: Sequence[str], cwd: Path | None, env: dict[str, str], stderr_path: Path | None = None
) -> float:
    """Seconds from spawning a server to its first ``tools/list`` answer."""
    with StdioServer(cmd, cwd, env, stderr_path) as server:
        server.handshake()
        tools = server.request("tools/list", {})
        elapsed = time.perf_counter() - server.started
        if not tools.get("tools"):
            raise RpcError(f"{cmd[0]}: tools/list returned no tools")
    return elapsed


def timed_calls(server: StdioServer, tool: str, arguments: dict[str, Any], runs: int) -> list[float]:
    """Seconds per ``tools/call`` round trip, ``runs`` times on a warm server."""
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        server.call(tool, arguments)
        times.append(time.perf_counter() - start)
    return times


# ---------------------------------------------------------------------------- reference servers


def time_server_cmd() -> list[str]:
    """``mcp-server-time`` (PyPI, the same SDK), installed into bench/out/time-venv on demand."""
    venv = OUT / "time-venv"
    script = venv / "bin" / "mcp-server-time"
    if not script.exists():
        print("bench: installing mcp-server-time into bench/out/time-venv ...", file=sys.stderr)
        subprocess.run([str(venv_python()), "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "mcp-server-time"],
            check=True,
        )
    return [str(script)]


MEMORY_PACKAGE = "@modelcontextprotocol/server-memory@2026.8.31"


def memory_server_cmd() -> list[str]:
    """``@modelcontextprotocol/server-memory`` from tests/node, else bench/out/node."""
    for base in (REPO / "tests" / "node", OUT / "node"):
        script = base / "node_modules" / ".bin" / "mcp-server-memory"
        if script.exists():
            return [str(script)]
    base = OUT / "node"
    base.mkdir(parents=True, exist_ok=True)
    print(f"bench: installing {MEMORY_PACKAGE} into bench/out/node ...", file=sys.stderr)
    subprocess.run(
        ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(base), MEMORY_PACKAGE],
        check=True,
    )
    return [str(base / "node_modules" / ".bin" / "mcp-server-memory")]


MARKDOWNLINT_PACKAGE = "markdownlint-cli2@0.24.1"


def markdownlint_cmd() -> list[str]:
    """``markdownlint-cli2``, the linter people already run in the same pre-commit slot,
    installed into bench/out/markdownlint on demand (npm)."""
    base = OUT / "markdownlint"
    script = base / "node_modules" / ".bin" / "markdownlint-cli2"
    if not script.exists():
        base.mkdir(parents=True, exist_ok=True)
        print(f"bench: installing {MARKDOWNLINT_PACKAGE} into bench/out/markdownlint ...", file=sys.stderr)
        npm = ["npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(base)]
        subprocess.run([*npm, MARKDOWNLINT_PACKAGE], check=True)
    return [str(script)]


def parse_only_cmd(record: Path) -> list[str]:
    """A bare markdown-it-py parse of ``record`` (CommonMark block rules only), as its own process.

    The same parser configuration the record model uses, so the ratio is our work on top of it.
    """
    code = (
        "import sys\n"
        "from markdown_it import MarkdownIt\n"
        "md = MarkdownIt('commonmark').disable('inline')\n"
        "with open(sys.argv[1], encoding='utf-8') as f:\n"
        "    md.parse(f.read())\n"
    )
    return [str(venv_python()), "-c", code, str(record)]


def add_quick_flag(description: str) -> bool:
    return quick_and_before(description)[0]


def quick_and_before(description: str) -> tuple[bool, Path | None]:
    """``--quick``, and ``--before DIR``: a checkout of an earlier revision to compare with."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer runs, for a smoke check")
    parser.add_argument(
        "--before",
        metavar="DIR",
        type=Path,
        help="a checkout of an earlier revision: its commands run interleaved with this one's",
    )
    args = parser.parse_args()
    before = args.before.resolve() if args.before else None
    if before is not None and not (before / "server" / "gotchas" / "__init__.py").is_file():
        parser.error(f"--before {before}: no server/gotchas there")
    return bool(args.quick), before


def revision_cmd(checkout: Path, *argv: str) -> tuple[list[str], dict[str, str]]:
    """``gotchas <argv>`` run from the sources of ``checkout``, and its environment."""
    env = clean_env(PYTHONPATH=str(checkout / "server"))
    return [str(venv_python()), "-m", "gotchas", *argv], env
