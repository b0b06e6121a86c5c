"""Merge-driver speed: ``gotchas merge-record`` against ``git merge-file`` on the same inputs.

    python bench/bench_merge.py [--quick]

On records of 2k and 10k entries (from ../shared/bench/gen_record.py), each side of the
merge applies one real correction (a supersede made by propose + apply, at a third and at
two thirds of the record), so the driver takes its structural path: both sides' insertions
kept, then parsed and verified. Measured in the same run, interleaved:

1. the driver as git runs it (a fresh ``gotchas merge-record %O %A %B %P`` process) ÷
   ``git merge-file -p`` on the same three files — printed per size;
2. the merge itself, in process (:func:`gotchas.merge.merge`), and its growth 2k → 10k
   beside the growth of the record's size: linear work grows like the size (about 5x).
"""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import common
from common import Report
from gotchas import merge, operations, record
from gotchas.workspace import Workspace

SIZES = (2_000, 10_000)


def corrected(base: Path, name: str, at: float) -> bytes:
    """The record of ``base`` with one supersede applied to the entry at fraction ``at``."""
    root = base.parent / name
    shutil.copytree(base, root)
    ws = Workspace.discover(root=str(root))
    parsed = record.parse((root / common.RECORD_REL).read_bytes())
    target = next(e for e in parsed.entries[int(len(parsed.entries) * at) :] if e.tasks)
    proposed = operations.propose_supersede(
        ws,
        target_id=target.id,
        task=target.tasks[0],
        title=f"What {name} learned about {target.id[:40]}",
        body=f"The cause {name} confirmed, and how it was found.",
        diagnostic=f"how {name} recognises the cause",
        no_hold=True,
    )
    applied = operations.apply(ws, proposal_id=str(proposed["proposal_id"]))
    assert applied["status"] == "applied", applied["reason"]
    return (root / common.RECORD_REL).read_bytes()


def timed(cmd: list[str], cwd: Path, ours: Path, data: bytes, ok: tuple[int, ...]) -> float:
    ours.write_bytes(data)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in ok:
        raise RuntimeError(f"{cmd[:2]} exited {done.returncode}: {done.stderr.decode()[-300:]}")
    return elapsed


def in_process(base: bytes, ours: bytes, theirs: bytes) -> float:
    start = time.perf_counter()
    merged = merge.merge(base, ours, theirs)
    elapsed = time.perf_counter() - start
    assert merged.conflicts == 0, merged.why
    return elapsed


def bench_size(report: Report, scratch: Path, n: int, runs: int) -> tuple[float, float, float, int]:
    """The figures for one size; the medians of the driver, git merge-file and the in-process
    merge, and the record's size."""
    size = f"{n // 1000}k"
    base_root = common.make_repo(scratch, f"base-{size}", n)
    base = (base_root / common.RECORD_REL).read_bytes()
    ours = corrected(base_root, f"ours-{size}", 1 / 3)
    theirs = corrected(base_root, f"theirs-{size}", 2 / 3)
    files = scratch / f"files-{size}"
    files.mkdir()
    for name, data in (("base", base), ("theirs", theirs)):
        (files / name).write_bytes(data)
    driver = [*common.gotchas_cmd(), "merge-record", "base", "ours", "theirs", "gotchas.md"]
    git = ["git", "merge-file", "-p", "ours", "base", "theirs"]
    target = files / "ours"

    def run_driver() -> float:
        return timed(driver, files, target, ours, (0,))

    def run_git() -> float:
        return timed(git, files, target, ours, (0, 1))

    run_driver(), run_git()  # one untimed run of each: caches warm for both
    drove, gitted = common.interleaved(runs, run_driver, run_git)
    report.ratio(f"merge-record {size} / git merge-file", common.median(drove), common.median(gitted), None)
    report.absolute(f"gotchas merge-record ({size})", drove)
    report.absolute(f"git merge-file ({size})", gitted)
    merged = [in_process(base, ours, theirs) for _ in range(runs)]
    report.absolute(f"merge() in process ({size})", merged)
    return common.median(drove), common.median(gitted), common.median(merged), len(base)


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    runs = 3 if quick else 7
    report = Report("merge driver: gotchas merge-record vs git merge-file")
    with common.scratch_dir() as scratch:
        small, large = (bench_size(report, scratch, n, runs) for n in SIZES)
    grew = f"{SIZES[0] // 1000}k -> {SIZES[1] // 1000}k"
    report.note(f"the record grew {large[3] / small[3]:.1f}x from {grew}; linear work grows alike")
    for index, label in enumerate(("gotchas merge-record", "git merge-file", "merge() in process")):
        report.ratio(f"growth of {label} {grew}", large[index], small[index], None)
    report.print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
