"""The page's speed: ``gotchas view`` on a 10k-entry record against a cold listing.

    python bench/bench_view.py [--quick]

On a record of 10,000 entries (from ../shared/bench/gen_record.py), measured in the same run
and interleaved: cold ``gotchas view --output …`` (every lesson read, its text rendered with
markdown-it, the page written) ÷ cold ``gotchas list --json`` on the same repository, both
as fresh processes, median of >= 7 — bar 3.0. A 1k record is printed for reference.
"""

from __future__ import annotations

import time
from pathlib import Path

import common
from common import Report

BAR = 3.0


def bench(report: Report, root: Path, scratch: Path, size: str, runs: int, barred: bool) -> None:
    env = common.clean_env()
    page = scratch / f"view-{size}.html"
    view_cmd = [*common.gotchas_cmd(), "view", "--output", str(page)]
    list_cmd = [*common.gotchas_cmd(), "list", "--json"]
    # one untimed run of each: .pyc files and the page cache are warm for both
    common.time_cmd(view_cmd, root, env)
    common.time_cmd(list_cmd, root, env)
    viewed, listed = common.interleaved(
        runs,
        lambda: common.time_cmd(view_cmd, root, env),
        lambda: common.time_cmd(list_cmd, root, env),
    )
    report.ratio(
        f"view {size} / cold list --json",
        common.median(viewed),
        common.median(listed),
        BAR if barred else None,
    )
    report.absolute(f"gotchas view ({size})", viewed)
    report.absolute(f"cold gotchas list --json ({size})", listed)
    report.note(f"page for {size}: {page.stat().st_size / 1e6:.1f} MB")


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    runs = 3 if quick else 7
    report = Report("bench_view" + (" (--quick)" if quick else ""))
    started = time.perf_counter()
    with common.scratch_dir() as scratch:
        large = common.make_repo(scratch, "r10k", 10000)
        small = common.make_repo(scratch, "r1k", 1000)
        size_mb = (large / common.RECORD_REL).stat().st_size / 1e6
        report.note(f"records: 10k ({size_mb:.1f} MB) and 1k entries, from {common.GEN_RECORD.name}")
        bench(report, large, scratch, "10k", runs, barred=True)
        bench(report, small, scratch, "1k", runs, barred=False)
    return report.finish("view", started)


if __name__ == "__main__":
    raise SystemExit(main())
