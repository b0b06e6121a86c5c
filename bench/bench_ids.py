"""Id assignment scales linearly: records whose titles collide, at 5k and 20k entries.

    python bench/bench_ids.py [--quick]

Entries without an ``id:`` field get their title's slug, then ``-2``, ``-3``… for repeats.
Three shapes that make slugs collide, each at 5,000 and 20,000 entries:

- ``same-title``: every entry is ``### h``;
- ``same-prefix``: ``### h``, ``### h 2``, ``### h 2 2``… so slugs equal earlier suffixed ids;
- ``numbered``: half the entries are ``### h``, half ``### h 7`` style titles whose slugs are
  the suffixes the repeats would take (``h-7``), interleaved.

Each record is parsed in this process (``record.parse`` and its entries) and listed by the
CLI (``gotchas list --json``, a fresh process each time), best of three each. The figure is
the time ratio 20k / 5k: about 4 for linear work, 16 for quadratic. Bar: 6.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

import common
from gotchas import record

BAR = 6.0
SIZES = (5_000, 20_000)


def same_title(n: int) -> str:
    return "".join("### h\n\nbody\n\n" for _ in range(n))


def same_prefix(n: int) -> str:
    return "".join(f"### h{' 2' * (i % 50)}\n\nbody\n\n" for i in range(n))


def numbered(n: int) -> str:
    return "".join(("### h\n\nbody\n\n" if i % 2 else f"### h {n - i}\n\nbody\n\n") for i in range(n))


SHAPES: dict[str, Callable[[int], str]] = {
    "same-title": same_title,
    "same-prefix": same_prefix,
    "numbered": numbered,
}


def parse_time(data: bytes, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        began = time.perf_counter()
        len(record.parse(data).entries)
        best = min(best, time.perf_counter() - began)
    return best


def list_time(data: bytes, rounds: int) -> float:
    """The fastest of ``rounds`` one-shot listings (a fresh process each)."""
    return min(_listed_once(data) for _ in range(rounds))


def _listed_once(data: bytes) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        target = root / common.RECORD_REL
        target.parent.mkdir(parents=True)
        target.write_bytes(data)
        began = time.perf_counter()
        done = subprocess.run(
            [*common.gotchas_cmd(), "list", "--json", "--limit", "1"],
            cwd=root,
            env=common.clean_env(),
            capture_output=True,
            check=False,
        )
        spent = time.perf_counter() - began
        if done.returncode != 0:
            sys.exit(f"bench: gotchas list failed: {done.stderr.decode()[:300]}")
        return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one parse a size, no CLI listing")
    args = parser.parse_args()
    rounds = 1 if args.quick else 3
    worst = 0.0
    print(f"{'shape':<12} {'what':<6} {'5k s':>8} {'20k s':>8} {'20k/5k':>7}")
    for name, make in SHAPES.items():
        records = [make(n).encode() for n in SIZES]
        timings = {"parse": [parse_time(data, rounds) for data in records]}
        if not args.quick:
            timings["list"] = [list_time(data, rounds) for data in records]
        for what, (small, large) in timings.items():
            ratio = large / small
            worst = max(worst, ratio)
            print(f"{name:<12} {what:<6} {small:8.3f} {large:8.3f} {ratio:7.1f}")
    print(f"worst ratio {worst:.1f} (linear ~4, quadratic ~16; bar {BAR})")
    return 0 if worst <= BAR else 1


if __name__ == "__main__":
    sys.exit(main())
