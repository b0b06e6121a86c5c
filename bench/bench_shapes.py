"""Reading time against record size for the shapes that were once quadratic.

    python bench/bench_shapes.py [--small 5000] [--large 20000]

Generates records of lessons separated by ``---`` rules, by HTML comments, and plain
bullets for reference, at two sizes, parses each (``record.parse``: scan and reading) and
prints the time ratio large/small. Linear reading gives about large/small (4 for 5k and
20k entries); a quadratic step shows as about its square (16).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from gotchas import record

SHAPES = {
    "--- blocks": lambda n: [f"**Lesson {n}.** Keep the cache warm before the run.", "", "---", ""],
    "bullets + ---": lambda n: [f"- **Lesson {n}** — keep the cache warm.", "", "---", ""],
    "bullets + comments": lambda n: [f"- **Lesson {n}** — keep the cache warm.", "", "<!-- entry -->", ""],
    "plain bullets": lambda n: [f"- **Lesson {n}** — keep the cache warm.", ""],
}


def make(shape: str, entries: int) -> bytes:
    lines = ["# Lessons", ""]
    for n in range(entries):
        lines += SHAPES[shape](n)
    return "\n".join(lines).encode()


def seconds(data: bytes, runs: int) -> tuple[float, int]:
    times = []
    count = 0
    for _ in range(runs):
        began = time.perf_counter()
        count = len(record.parse(data).entries)
        times.append(time.perf_counter() - began)
    return statistics.median(times), count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=5000)
    parser.add_argument("--large", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    expected = args.large / args.small
    print(f"{'shape':<20} {'small s':>8} {'large s':>8} {'ratio':>6}  (linear: {expected:.0f})")
    worst = 0.0
    for shape in SHAPES:
        small, found_small = seconds(make(shape, args.small), args.runs)
        large, found_large = seconds(make(shape, args.large), args.runs)
        ratio = large / small
        worst = max(worst, ratio)
        flag = "" if (found_small, found_large) == (args.small, args.large) else "  (entries differ!)"
        print(f"{shape:<20} {small:8.3f} {large:8.3f} {ratio:6.1f}{flag}")
    print(f"worst ratio {worst:.1f} (linear {expected:.0f}, quadratic {expected * expected:.0f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
