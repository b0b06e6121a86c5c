"""A one-shot ``gotchas list`` on real lessons files, and what its floor is made of.

    python bench/bench_startup.py [--quick]

For each real lessons file of 20–70 KB in ../shared/corpus/real (copied into a scratch git
repository as the record), ``gotchas list`` — the console script, the environment of
:func:`common.clean_env` — against ``python -c pass`` of the same interpreter, interleaved;
bar 3 on the median over the files. Then, against the same ``python -c pass``, the parts
a listing cannot do without, each a fresh process: ``import re``; the standard modules the
listing path loads (``re``, ``argparse``, ``pathlib``, ``hashlib``, ``unicodedata``,
``bisect``, ``array``); those and the package's listing modules (``gotchas.cli``,
``gotchas.lookup``); and the listing itself. The gaps between them say where the time goes.
"""

from __future__ import annotations

import functools
import statistics
import time

import common
from common import Report

STDLIB = "import re, argparse, pathlib, hashlib, unicodedata, bisect, array"
LAYERS = (
    ("import re", "import re"),
    ("the standard modules a listing loads", STDLIB),
    ("those and the listing modules", f"{STDLIB}; import gotchas.cli, gotchas.lookup"),
)


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    runs = 7 if quick else 21
    report = Report("bench_startup" + (" (--quick)" if quick else ""))
    started = time.perf_counter()
    files = common.real_files()
    if not files:
        report.note(f"no real files of 20-70 KB under {common.REAL_FILES}: skipped")
        report.print()
        return 0
    env = common.clean_env()
    python = str(common.venv_python())
    nothing = functools.partial(common.time_cmd, [python, "-c", "pass"], None, env)
    ratios: list[float] = []
    with common.scratch_dir() as scratch:
        roots = common.real_repos(scratch, files)
        list_cmd = [*common.gotchas_cmd(), "list"]
        for root, path in zip(roots, files, strict=True):
            common.time_cmd(list_cmd, root, env)
            listed, bare = common.interleaved(
                runs, functools.partial(common.time_cmd, list_cmd, root, env), nothing
            )
            ours, floor = common.median(listed), common.median(bare)
            ratios.append(ours / floor)
            report.note(
                f"gotchas list, {path.stat().st_size // 1000} KB: {ours * 1000:.0f} ms; "
                f"python -c pass {floor * 1000:.0f} ms ({ours / floor:.2f}x)"
            )
        report.ratio(
            f"gotchas list, real 20-70 KB (median of {len(files)}) / pass", statistics.median(ratios), 1, 3
        )
        layers = [
            functools.partial(common.time_cmd, [python, "-c", code], roots[0], env) for _, code in LAYERS
        ]
        timed = common.interleaved(
            runs, nothing, *layers, functools.partial(common.time_cmd, list_cmd, roots[0], env)
        )
        floor = common.median(timed[0])
        report.absolute("python -c pass", timed[0])
        for (label, _), seconds in zip(LAYERS, timed[1:-1], strict=True):
            report.ratio(f"{label} / pass", common.median(seconds), floor, None)
        report.ratio(
            f"gotchas list, {files[0].stat().st_size // 1000} KB / pass",
            common.median(timed[-1]),
            floor,
            None,
        )
    return report.finish("startup", started)


if __name__ == "__main__":
    raise SystemExit(main())
