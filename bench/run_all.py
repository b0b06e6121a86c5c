"""Run every ``bench/bench_*.py`` and print their outputs, then a summary.

    python bench/run_all.py [--quick]

Exits 0 even when a bar is missed (this is a benchmark, not a test); a missed bar is
printed as a line starting with ``MISS``, and a script that fails as ``FAILED``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import common

BENCH = Path(__file__).resolve().parent


_TARGET = re.compile(r"ratio\s+([0-9.]+)\s+\(target <= ([0-9.]+)\)")


def _missed(line: str) -> bool:
    """A line reporting a missed bar: ours end in MISS; others say ``ratio R (target <= T)``."""
    if line.rstrip().endswith("MISS"):
        return True
    found = _TARGET.search(line)
    return bool(found and float(found[1]) > float(found[2]))


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    python = str(common.venv_python())
    summary: list[str] = []
    for script in sorted(BENCH.glob("bench_*.py")):
        print(f"\n### {script.name}", flush=True)
        started = time.perf_counter()
        # scripts written elsewhere may not take --quick: pass it only to those that do
        takes_quick = quick and "--quick" in script.read_text("utf-8")
        proc = subprocess.run(
            [python, str(script), *(["--quick"] if takes_quick else [])],
            cwd=BENCH.parent,
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - started
        sys.stdout.write(proc.stdout)
        if proc.stderr.strip():
            sys.stdout.write("stderr:\n" + proc.stderr[-2000:])
        misses = [line for line in proc.stdout.splitlines() if _missed(line)]
        if proc.returncode != 0:
            summary.append(
                f"FAILED  {script.name}: exit {proc.returncode} ({elapsed:.0f} s; "
                "a bar missed or the script failed, see its output)"
            )
        summary.extend(f"MISS    {script.name}: {' '.join(line.split())}" for line in misses)
        if proc.returncode == 0 and not misses:
            summary.append(f"ok      {script.name} ({elapsed:.0f} s)")
        sys.stdout.flush()
    print("\n### summary")
    print("\n".join(summary))
    missed = sum(not line.startswith("ok") for line in summary)
    print("all bars pass" if not missed else f"{missed} line(s) above MISS or FAILED")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
