"""How much does ``gotchas check`` cost over one ``git blame`` of the record?

Builds a repository with 10,000 commits in a temporary directory (``git fast-import``):
2,000 source files, a record that grows to 500 lessons, one lesson added every 20 commits
(so blame finds 500 different writing commits), each lesson citing its own file, function
and make target; near the end, some cited files are deleted, some renamed and some
functions removed, so the check has real findings to prove and anchors to look at. Then
it times, interleaved and in the same run:

* ``gotchas check --json --no-sources`` — the CLI, as a subprocess, and
* ``git blame --porcelain -w -- <record>`` — the one blame the check is built on,

and prints the median of each, their ratio, the findings and the git calls per question.
The bar: the check stays interactive (under 2 s here) and within 8 blames of the record
(the blame is the cheapest question: git walks only the commits that touched the record).

    python bench/bench_check.py [--commits 10000] [--lessons 500] [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RECORD = ".claude/rules/gotchas.md"
TARGET_RATIO = 8.0
TARGET_SECONDS = 2.0
FILES = 2000
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _source(i: int, version: int, defined: bool = True) -> bytes:
    head = f"def helper_function_{i}(value):\n    return value * {i}\n" if defined else "# moved away\n"
    return (head + "".join(f"# revision {n}\n" for n in range(version % 7))).encode()


def _lesson(i: int) -> str:
    return (
        f"## Module {i} needs care\n\ntasks: #{i + 1}\n\n"
        f"Call `helper_function_{i}()` from src/pkg{i % 40}/mod{i}.py before `make target{i}`; "
        f"it also uses `requests.get` and `json_normalize()`.\n\n"
    )


def _file(path: str, data: bytes) -> bytes:
    return f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n"


def stream(commits: int, lessons: int) -> tuple[bytes, int]:
    """The fast-import stream, and how many citations it makes stale."""
    chunks: list[bytes] = []
    start = 1_700_000_000
    record = "# Gotchas\n\n"
    every = max(1, (commits * 8 // 10) // lessons)  # lessons are written in the first 80%
    written = 0
    makefile = "".join(f"target{i}:\n\techo {i}\n" for i in range(lessons))
    stale_from = commits - 60
    stale = 0
    for index in range(commits):
        body = b""
        if index == 0:
            body += b"".join(_file(f"src/pkg{i % 40}/mod{i}.py", _source(i, 0)) for i in range(FILES))
            body += _file("Makefile", makefile.encode())
        else:
            i = index % FILES
            body += _file(f"src/pkg{i % 40}/mod{i}.py", _source(i, index))
        if index and index % every == 0 and written < lessons:
            record += _lesson(written)
            written += 1
            body += _file(RECORD, record.encode())
        if index >= stale_from:
            k = (index - stale_from) * 7 % lessons
            kind = (index - stale_from) % 3
            if kind == 0:
                body += f"D src/pkg{k % 40}/mod{k}.py\n".encode()
            elif kind == 1:
                body += f"R src/pkg{k % 40}/mod{k}.py src/pkg{k % 40}/renamed{k}.py\n".encode()
            else:
                body += _file(f"src/pkg{k % 40}/mod{k}.py", _source(k, index, defined=False))
            stale += 1
        message = f"Change {index}\n".encode()
        chunks.append(
            b"commit refs/heads/main\n"
            + f"mark :{index + 1}\n".encode()
            + f"committer Bench <bench@example.com> {start + index * 60} +0000\n".encode()
            + f"data {len(message)}\n".encode()
            + message
            + (f"from :{index}\n".encode() if index else b"")
            + body
            + b"\n"
        )
    return b"".join(chunks), stale


def make_repo(root: Path, commits: int, lessons: int) -> int:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    data, stale = stream(commits, lessons)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=data, check=True, env=env)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True, env=env)
    return stale


def timed(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--lessons", type=int, default=500)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="2,000 commits, 100 lessons, 3 runs")
    args = parser.parse_args()
    if args.quick:
        args.commits, args.lessons, args.runs = 2_000, 100, 3
    env = {**os.environ, **GIT_ENV}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cli = Path(sys.executable).parent / "gotchas"
    check_argv = [str(cli), "check", "--json", "--no-sources"]
    blame_argv = ["git", "blame", "--porcelain", "-w", "--", RECORD]
    with tempfile.TemporaryDirectory(prefix="gotchas-bench-") as scratch:
        repo = Path(scratch) / "repo"
        started = time.perf_counter()
        stale = make_repo(repo, args.commits, args.lessons)
        took = time.perf_counter() - started
        print(f"generated {args.commits} commits, {args.lessons} lessons in {took:.1f}s")
        _, first = timed(check_argv, repo, env)
        if first.returncode != 0:
            sys.stderr.write(f"gotchas check exited {first.returncode}: {first.stderr.decode()[-400:]}\n")
            return 1
        report = json.loads(first.stdout)
        timed(blame_argv, repo, env)
        check_times: list[float] = []
        blame_times: list[float] = []
        for _ in range(args.runs):
            blame_times.append(timed(blame_argv, repo, env)[0])
            check_times.append(timed(check_argv, repo, env)[0])
    found: dict[str, int] = {}
    for finding in report["findings"]:
        found[finding["code"]] = found.get(finding["code"], 0) + 1
    check_median = statistics.median(check_times)
    blame_median = statistics.median(blame_times)
    ratio = check_median / blame_median
    print(f"lessons {report['lessons']}, stale citations made {stale}, findings {found}")
    print(f"git calls: {report['git_calls']}")
    print(f"gotchas check --json: median {check_median * 1000:.0f} ms over {args.runs} runs")
    print(f"git blame of the record: median {blame_median * 1000:.0f} ms over {args.runs} runs")
    mark = "" if check_median <= TARGET_SECONDS else f"  MISS (over {TARGET_SECONDS:g} s)"
    print(f"ratio {ratio:.2f} (target <= {TARGET_RATIO}){mark}")
    return 0 if ratio <= TARGET_RATIO and check_median <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main())
