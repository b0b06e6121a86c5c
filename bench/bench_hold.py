"""How much does ``gotchas check-hold`` cost over a bare ``git log --grep``?

Builds a real repository with 50k commits in a temporary directory (``git fast-import``,
a few seconds), then times, interleaved and in the same run:

* ``gotchas check-hold predicate-<N>-lands --json`` — the CLI, as a subprocess, through the
  default sources (ledger, git), and
* ``git log <branch> --grep '#<N>' -E -i`` — the bare search it is compared with,

and prints the median of each and their ratio. The target is a ratio of at most 1.5.

The CLI runs as an installed package does: with its modules byte-compiled (the warm-up
run writes the cache even when ``PYTHONDONTWRITEBYTECODE`` is set in the caller's
environment), so the ratio measures start-up and work, not compiling the sources.

    python bench/bench_hold.py [--commits 50000] [--runs 9] [--direct]

``--direct`` calls ``gotchas.holds.check.check_hold`` through ``python -c`` instead of the CLI.
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

TARGET = 1.5
TASK = 4242
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def fast_import_stream(commits: int, landing_at: int) -> bytes:
    """A linear history on main; one old commit closes #TASK, a few others only mention it."""
    chunks: list[bytes] = []
    start = 1_700_000_000
    for index in range(commits):
        if index == landing_at:
            message = f"Cache the tokenizer in _render()\n\nFixes #{TASK}\n"
        elif index % 9973 == 0:
            message = f"Investigate hang, see #{TASK}\n\nStill suspect the engine.\n"
        else:
            message = (
                f"Change {index}: tune batch {index % 97}\n\n"
                f"Refs #{index % 5000 + 10000}. Body line about prefix caching and CUDA graphs.\n"
            )
        data = message.encode()
        blob = f"file {index % 50}\n".encode()
        chunks.append(
            b"commit refs/heads/main\n"
            + f"mark :{index + 1}\n".encode()
            + f"committer Bench <bench@example.com> {start + index * 60} +0000\n".encode()
            + f"data {len(data)}\n".encode()
            + data
            + (f"from :{index}\n".encode() if index else b"")
            + f"M 100644 inline f{index % 50}.txt\n".encode()
            + f"data {len(blob)}\n".encode()
            + blob
            + b"\n"
        )
    return b"".join(chunks)


def make_repo(root: Path, commits: int) -> None:
    env = {**os.environ, **GIT_ENV}
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    stream = fast_import_stream(commits, landing_at=commits // 50)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=stream, check=True, env=env)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=root, check=True, env=env)


def timed(
    argv: list[str], cwd: Path, env: dict[str, str]
) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    started = time.perf_counter()
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True)
    return time.perf_counter() - started, result


def check_hold_argv(direct: bool) -> list[str]:
    predicate = f"predicate-{TASK}-lands"
    if direct:
        code = (
            "import json, sys; from pathlib import Path; from gotchas.holds.check import check_hold; "
            f"print(json.dumps(check_hold({predicate!r}, Path('.')).to_dict()))"
        )
        return [sys.executable, "-c", code]
    cli = Path(sys.executable).parent / "gotchas"
    return [str(cli), "check-hold", predicate, "--json"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--direct", action="store_true", help="call check_hold via python -c")
    args = parser.parse_args()

    env = {**os.environ, **GIT_ENV}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # installs are byte-compiled; so is this run's CLI
    with tempfile.TemporaryDirectory(prefix="gotchas-bench-") as scratch:
        repo = Path(scratch) / "repo"
        started = time.perf_counter()
        make_repo(repo, args.commits)
        print(f"generated {args.commits} commits in {time.perf_counter() - started:.1f}s")

        hold_argv = check_hold_argv(args.direct)
        git_argv = ["git", "log", "main", "--grep", f"#{TASK}", "-E", "-i"]

        _, first = timed(hold_argv, repo, env)
        try:
            answer = json.loads(first.stdout)
        except ValueError:
            answer = {}
        if answer.get("state") != "released":
            sys.stderr.write(
                f"{' '.join(hold_argv[:3])} did not answer 'released' "
                f"(exit {first.returncode}): {first.stderr.decode(errors='replace')[-400:]}\n"
                "is the CLI wired? try --direct\n"
            )
            return 1
        timed(git_argv, repo, env)  # warm the page cache for both

        hold_times: list[float] = []
        git_times: list[float] = []
        for _ in range(args.runs):
            elapsed, _ = timed(git_argv, repo, env)
            git_times.append(elapsed)
            elapsed, result = timed(hold_argv, repo, env)
            if result.returncode != 0:
                sys.stderr.write(f"check-hold exited {result.returncode}\n")
                return 1
            hold_times.append(elapsed)

    hold_median = statistics.median(hold_times)
    git_median = statistics.median(git_times)
    ratio = hold_median / git_median
    via = "python -c check_hold" if args.direct else "gotchas check-hold --json"
    print(f"{via}: median {hold_median * 1000:.1f} ms over {args.runs} runs")
    print(f"git log --grep: median {git_median * 1000:.1f} ms over {args.runs} runs")
    print(f"ratio {ratio:.2f} (target <= {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
