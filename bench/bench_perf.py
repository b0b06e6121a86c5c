"""Performance to the floor: every figure as a ratio against its baseline, in one run.

    python bench/bench_perf.py [--quick] [--before DIR]

On the 10k-entry record (from ../shared/bench/gen_record.py) unless said; medians; each
figure and its baseline measured in the same run, interleaved:

1. warm ``list_gotchas task=#664`` over stdio ÷ ``mcp-server-time`` ``get_current_time``
   (the SDK's own cost of a call) — bar 1.5; ÷ the MCP memory server's ``search_nodes``
   over the same lessons, for scale (no bar);
2. cold ``gotchas list --json --task '#664'`` ÷ a bare markdown-it block parse of the
   same file with the collector off, both fresh processes — bar 0.6;
3. warm ``propose_supersede`` — bar 100 ms; warm ``apply_supersede`` — bar 30 ms; cold
   ``gotchas apply`` ÷ cold ``gotchas list`` — bar 0.6;
4. one-shot ``gotchas lint`` on the real lessons files of 20–70 KB in ../shared/corpus/real ÷
   ``markdownlint-cli2`` on the same file (what people already run in the same pre-commit
   slot; installed from npm on first use) — bar 0.3 (median over the files);
5. peak memory of ``record.parse`` (tracemalloc, each size in a fresh process) ÷ the file's
   size at 1k, 10k and 50k entries — bar 10 each; growth: the 50k figure ÷ the 1k figure — bar 1.25 (linear).

With ``--before DIR`` (a checkout of an earlier revision), the cold list on the 10k
record and ``gotchas list`` on the real files also run from DIR's sources, interleaved
with this revision's (both as ``python -m gotchas``), and print this ÷ earlier.
"""

from __future__ import annotations

import statistics
import subprocess
import time
from pathlib import Path

import common
from bench_apply import Proposer, apply_checked
from bench_list import load_memory
from common import Report, StdioServer

TASK = "#664"


def bare_parse_cmd(record: Path) -> list[str]:
    """markdown-it-py alone over the file, block rules only, the cyclic collector off."""
    code = (
        "import gc, sys\n"
        "gc.disable()\n"
        "from markdown_it import MarkdownIt\n"
        "md = MarkdownIt('commonmark').disable('inline')\n"
        "with open(sys.argv[1], encoding='utf-8') as f:\n"
        "    md.parse(f.read())\n"
    )
    return [str(common.venv_python()), "-c", code, str(record)]


def warm_list(report: Report, root: Path, scratch: Path, runs: int) -> None:
    env = common.clean_env()
    log = scratch / "warm-stderr.log"
    text = (root / common.RECORD_REL).read_text("utf-8")
    mem_env = common.clean_env(MEMORY_FILE_PATH=str(scratch / "memory.jsonl"))
    with (
        StdioServer([*common.gotchas_cmd(), "serve"], root, env, log) as ours,
        StdioServer(common.time_server_cmd(), root, env, log) as floor,
        StdioServer(common.memory_server_cmd(), scratch, mem_env, log) as memory,
    ):
        for server in (ours, floor, memory):
            server.handshake()
        load_memory(memory, text)
        calls = (
            (ours, "list_gotchas", {"task": TASK}),
            (floor, "get_current_time", {"timezone": "UTC"}),
            (memory, "search_nodes", {"query": TASK}),
        )
        for server, tool, arguments in calls:  # untimed: the record is parsed and indexed
            for _ in range(3):
                server.call(tool, arguments)
        timed = [
            (lambda s=server, t=tool, a=arguments: common.timed_calls(s, t, a, 1)[0])
            for server, tool, arguments in calls
        ]
        listed, sdk, searched = common.interleaved(runs, *timed)
    warm = common.median(listed)
    report.ratio("warm list_gotchas / SDK floor (get_current_time)", warm, common.median(sdk), 1.5)
    report.ratio("warm list_gotchas / memory search_nodes", warm, common.median(searched), None)
    report.absolute(f"warm list_gotchas task={TASK}", listed)
    report.absolute("mcp-server-time get_current_time", sdk)
    report.absolute(f"memory server search_nodes {TASK}", searched)


def cold_list(report: Report, root: Path, runs: int) -> float:
    env = common.clean_env()
    record = root / common.RECORD_REL
    list_cmd = [*common.gotchas_cmd(), "list", "--json", "--task", TASK]
    parse_cmd = bare_parse_cmd(record)
    listed, parsed = common.paired(runs, root, (list_cmd, env), (parse_cmd, env))
    ratio = (common.median(listed), common.median(parsed))
    report.ratio("cold list / bare markdown-it parse, GC off", *ratio, 0.6)
    report.absolute(f"cold gotchas list --task {TASK}", listed)
    report.absolute("bare markdown-it block parse, GC off", parsed)
    return common.median(listed)


def edits(report: Report, root: Path, scratch: Path, runs: int) -> None:
    env = common.clean_env()
    list_cmd = [*common.gotchas_cmd(), "list", "--json", "--task", TASK]
    log = scratch / "edit-stderr.log"
    with StdioServer([*common.gotchas_cmd(), "serve"], root, env, log) as server:
        server.handshake()
        proposer = Proposer(server)
        server.call("apply_supersede", {"proposal_id": proposer.propose()})  # untimed warm-up
        proposes: list[float] = []
        applies: list[float] = []
        for _ in range(runs):
            start = time.perf_counter()
            proposal_id = proposer.propose()
            proposes.append(time.perf_counter() - start)
            start = time.perf_counter()
            answer = server.call("apply_supersede", {"proposal_id": proposal_id})
            applies.append(time.perf_counter() - start)
            if answer["structuredContent"]["status"] != "applied":
                raise common.RpcError(f"apply: {answer['structuredContent']}")
        report.limit("warm propose_supersede", common.median(proposes) * 1000, 100)
        report.limit("warm apply_supersede", common.median(applies) * 1000, 30)
        report.absolute("warm propose_supersede", proposes)
        report.absolute("warm apply_supersede", applies)
        cold_applies: list[float] = []
        cold_lists: list[float] = []
        common.time_cmd(list_cmd, root, env)
        for _ in range(max(3, runs // 2)):
            proposal_id = proposer.propose()
            cold_applies.append(apply_checked(root, proposal_id, env))
            cold_lists.append(common.time_cmd(list_cmd, root, env))
    report.ratio("cold apply / cold list", common.median(cold_applies), common.median(cold_lists), 0.6)
    report.absolute("cold gotchas apply", cold_applies)
    report.absolute(f"cold gotchas list --task {TASK}", cold_lists)


def real_files(report: Report, scratch: Path, runs: int) -> None:
    files = common.real_files()
    if not files:
        report.note(f"no real files of 20-70 KB under {common.REAL_FILES}: skipped")
        return
    env = common.clean_env()
    peer = common.markdownlint_cmd()
    ratios: list[float] = []
    for root, path in zip(common.real_repos(scratch, files), files, strict=True):
        name = str(common.RECORD_REL)
        ours_cmd = [*common.gotchas_cmd(), "lint", "--record", name]
        peer_cmd = [*peer, name]
        linted, peered = common.paired(runs, root, (ours_cmd, env), (peer_cmd, env), codes=(0, 1))
        ours, theirs = common.median(linted), common.median(peered)
        ratios.append(ours / theirs)
        size = path.stat().st_size // 1000
        report.note(
            f"gotchas lint, {size} KB: {ours * 1000:.0f} ms; markdownlint-cli2 {theirs * 1000:.0f} ms"
        )
    label = f"gotchas lint, real 20-70 KB (median of {len(files)}) / markdownlint-cli2"
    report.ratio(label, statistics.median(ratios), 1, 0.3)


def _now_and_then(before: Path, cwd: Path, runs: int, *argv: str) -> tuple[list[float], list[float]]:
    """``gotchas ARGV`` from this revision's sources and from ``before``'s, interleaved."""
    now_cmd, now_env = common.revision_cmd(common.REPO, *argv)
    then_cmd, then_env = common.revision_cmd(before, *argv)
    return common.paired(runs, cwd, (now_cmd, now_env), (then_cmd, then_env))


def before_and_after(report: Report, root: Path, scratch: Path, before: Path, runs: int) -> None:
    """This revision's cold list and real-file list against the earlier one's, interleaved."""
    now, then = _now_and_then(before, root, runs, "list", "--json", "--task", TASK)
    report.ratio(
        "cold list 10k, this revision / the earlier one", common.median(now), common.median(then), None
    )
    report.absolute("cold list 10k, this revision", now)
    report.absolute("cold list 10k, the earlier revision", then)
    ratios: list[float] = []
    for folder in sorted(scratch.glob("real*")):
        now, then = _now_and_then(before, folder, runs, "list")
        ratios.append(common.median(now) / common.median(then))
        report.note(
            f"{folder.name}: gotchas list {common.median(now) * 1000:.0f} ms, "
            f"the earlier revision {common.median(then) * 1000:.0f} ms"
        )
    if ratios:
        report.ratio(
            "gotchas list on real files, this revision / the earlier one (median)",
            statistics.median(ratios),
            1,
            None,
        )


MEASURE_PARSE = """
import gc, sys, tracemalloc
from gotchas import record
record.parse(b"# Gotchas\\n\\n### One\\n\\n- a\\n")  # the parser itself is made once per process
data = open(sys.argv[1], "rb").read()
gc.collect()
tracemalloc.start()
parsed = record.parse(data)
parsed.entries  # read when first asked for: counted as part of the parse
print(tracemalloc.get_traced_memory()[1])
"""


def memory(report: Report, scratch: Path) -> None:
    """Each size in a fresh process that loads only the package: what the bench itself has
    loaded (its modules, the strings they intern) does not weigh on the figure."""
    figures: dict[str, float] = {}
    for size, n in (("1k", 1_000), ("10k", 10_000), ("50k", 50_000)):
        path = scratch / f"mem-{size}.md"
        data = common.generate(n, path)
        answer = subprocess.run(
            [str(common.venv_python()), "-c", MEASURE_PARSE, str(path)],
            check=True,
            capture_output=True,
            env=common.clean_env(),
        )
        peak = int(answer.stdout)
        figures[size] = peak / len(data)
        report.ratio(f"peak parse memory / file size ({size}, {len(data) / 1e6:.1f} MB)", peak, len(data), 10)
    report.ratio("peak/size at 50k / at 1k (linear growth)", figures["50k"], figures["1k"], 1.25)


def main() -> int:
    quick, before = common.quick_and_before(__doc__ or "")
    warm_runs, cold_runs, edit_runs, real_runs = (10, 3, 4, 3) if quick else (40, 7, 9, 7)
    report = Report("bench_perf" + (" (--quick)" if quick else ""))
    started = time.perf_counter()
    with common.scratch_dir() as scratch:
        root = common.make_repo(scratch, "r10k", 10_000)
        report.note(f"record: 10k entries, {(root / common.RECORD_REL).stat().st_size / 1e6:.1f} MB")
        warm_list(report, root, scratch, warm_runs)
        cold_list(report, root, cold_runs)
        edits(report, root, scratch, edit_runs)
        real_files(report, scratch, real_runs)
        if before is not None:
            before_and_after(report, root, scratch, before, cold_runs)
        memory(report, scratch)
    return report.finish("perf", started)


if __name__ == "__main__":
    raise SystemExit(main())
