"""Planning a supersede on the 10k-entry record, in process.

    python bench/bench_plan.py [--quick]

Medians over targets spread through the file, measured in the same run, interleaved:

1. ``plan_supersede`` ÷ ``record.parse`` of the same bytes — bar 0.1: following the file's
   form (its siblings' decoration, its numbering) must stay a small part of a propose, which
   parses the record twice anyway;
2. the same on a copy whose entry titles carry an id scheme (``L-00001 · …``), where the
   successor's free id is looked for in the whole file — bar 0.1.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import common
from common import Report
from gotchas import edit, record

BAR = 0.1


def numbered(data: bytes) -> bytes:
    count = 0

    def label(_: re.Match[bytes]) -> bytes:
        nonlocal count
        count += 1
        return f"### L-{count:05d} \u00b7 ".encode()

    return re.sub(rb"(?m)^### ", label, data)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def bench(report: Report, name: str, data: bytes, runs: int) -> None:
    parsed = record.parse(data)
    lesson = edit.lesson(
        "Confirmed cause", body="It was the cache.", tasks=["#7"], root_cause="confirmed", diagnostic="look"
    )
    targets = parsed.entries[:: max(1, len(parsed.entries) // runs)][:runs]
    cycle = iter(targets * 2)
    plans, parses = common.interleaved(
        runs,
        lambda: timed(lambda: edit.plan_supersede(parsed, target=next(cycle), task="#7", new=lesson)),
        lambda: timed(lambda: record.parse(data)),
    )
    report.ratio(f"plan_supersede / parse ({name})", common.median(plans), common.median(parses), BAR)
    report.absolute(f"plan_supersede ({name})", plans)
    report.absolute(f"parse ({name})", parses)


def main() -> None:
    runs = 3 if "--quick" in sys.argv else 9
    report = Report("plan a supersede (10k entries)")
    with common.scratch_dir() as scratch:
        data = common.generate(10_000, Path(scratch) / "record.md")
        bench(report, "plain titles", data, runs)
        bench(report, "L-00001 ids", numbered(data), runs)
    report.print()


if __name__ == "__main__":
    main()
