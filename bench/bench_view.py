"""The page's speed: ``gotchas view`` on a 10k-entry record against a cold listing.

    python bench/bench_view.py [--quick]

On a record of 10,000 entries (from ../shared/bench/gen_record.py), measured in the same run
and interleaved: cold ``gotchas view --output …`` (every lesson read, its text rendered with
markdown-it, the page written) ÷ cold ``gotchas list --json`` on the same repository, both
as fresh processes, median of >= 7 — bar 3.0. A 1k record is printed for reference.

Where Chromium is installed, the 10k page is opened headless and filtered: the time from
typing into a filter to the frame that shows the result ÷ the time to hide the same cards
from a list made ahead (what any filter must pay the browser), median of 5 — bar 1.5.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import common
from common import Report

BAR = 3.0
BAR_FILTER = 1.5
FILTERS = (("#f-task", "#664"), ("#f-text", "tokenizer"), ("#f-text", "deadlock cache"))


def bench(report: Report, root: Path, scratch: Path, size: str, runs: int, barred: bool) -> None:
    env = common.clean_env()
    page = scratch / f"view-{size}.html"
    view_cmd = [*common.gotchas_cmd(), "view", "--output", str(page)]
    list_cmd = [*common.gotchas_cmd(), "list", "--json"]
    viewed, listed = common.paired(runs, root, (view_cmd, env), (list_cmd, env))
    report.ratio(
        f"view {size} / cold list --json",
        common.median(viewed),
        common.median(listed),
        BAR if barred else None,
    )
    report.absolute(f"gotchas view ({size})", viewed)
    report.absolute(f"cold gotchas list --json ({size})", listed)
    report.note(f"page for {size}: {page.stat().st_size / 1e6:.1f} MB")


def bench_filter(report: Report, page: Path, runs: int) -> None:
    """Filtering the 10k page, timed inside the page from the keystroke to the next painted
    frame, against the least any filter must do: the same cards hidden from a list made ahead."""
    sys.path.insert(0, str(common.REPO / "tests"))
    from support.browser import CHROMIUM, chromium

    if CHROMIUM is None:
        report.note("no chromium: the filter timing is left out")
        return
    script = """(async () => {
      const cards = [...document.querySelectorAll("article.card")];
      const field = document.querySelector(SELECTOR);
      const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
      const type = async (value) => {
        field.value = value; field.dispatchEvent(new Event("input", {bubbles: true})); await frame();
      };
      await type("");
      let start = performance.now();
      await type(VALUE);
      const ours = performance.now() - start;
      const keep = cards.map(c => !c.hidden);
      const shown = document.getElementById("f-count").value;
      await type("");
      start = performance.now();
      for (let i = 0; i < cards.length; i++) if (!keep[i]) cards[i].hidden = true;
      await frame();
      const least = performance.now() - start;
      for (const c of cards) c.hidden = false;
      await frame();
      return [ours, least, shown];
    })()"""
    with chromium() as browser:
        browser.open(page.as_uri(), 1280)
        for selector, value in FILTERS:
            code = script.replace("SELECTOR", repr(selector)).replace("VALUE", repr(value))
            found = [browser.evaluate(code) for _ in range(runs)]
            ours = [f[0] / 1000 for f in found]
            least = [f[1] / 1000 for f in found]
            label = f"filter 10k page by {selector[3:]} {value!r}"
            report.ratio(f"{label} / hiding alone", common.median(ours), common.median(least), BAR_FILTER)
            report.absolute(f"{label} ({found[0][2]})", ours)


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
        bench_filter(report, scratch / "view-10k.html", 5)
    return report.finish("view", started)


if __name__ == "__main__":
    raise SystemExit(main())
