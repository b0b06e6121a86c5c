"""Listing speed: cold CLI list, server start-up, warm list over stdio.

    python bench/bench_list.py [--quick]

On records of 1k and 10k entries (from ../shared/bench/gen_record.py), measured in the
same run and interleaved with their references:

1. cold ``gotchas list --json --task '#664'`` ÷ a bare markdown-it-py parse of the same
   file (block rules only, the collector on), both as fresh processes, median of >= 7 — bar
   1.5 (10k); ``bench_perf.py`` holds the tighter bar, 0.6 against the parse with the
   collector off;
2. ``gotchas serve`` from spawn to its first ``tools/list`` answer ÷ ``mcp-server-time``
   (same SDK) started the same way — bar 1.0;
3. warm ``list_gotchas task=#664`` over stdio, median of 30 calls ÷ the MCP memory server
   answering ``search_nodes`` for ``#664`` over the same lessons — bar 0.25 (10k).

Bars apply to the 10k figures; the 1k figures are printed for reference.
"""

from __future__ import annotations

import time
from pathlib import Path

import common
from common import Report, StdioServer

BAR_COLD = 1.5
BAR_SPAWN = 1.0
BAR_WARM = 0.25
TASK = "#664"


def bench_cold(report: Report, root: Path, size: str, runs: int, barred: bool) -> None:
    record = root / common.RECORD_REL
    env = common.clean_env()
    list_cmd = [*common.gotchas_cmd(), "list", "--json", "--task", TASK]
    parse_cmd = common.parse_only_cmd(record)
    listed, parsed = common.paired(runs, root, (list_cmd, env), (parse_cmd, env))
    report.ratio(
        f"cold list {size} / bare parse, collector on",
        common.median(listed),
        common.median(parsed),
        BAR_COLD if barred else None,
    )
    report.absolute(f"cold gotchas list --task {TASK} ({size})", listed)
    report.absolute(f"bare markdown-it parse ({size})", parsed)


def bench_spawn(report: Report, root: Path, scratch: Path, runs: int) -> None:
    env = common.clean_env()
    serve = [*common.gotchas_cmd(), "serve"]
    ref = common.time_server_cmd()
    log = scratch / "spawn-stderr.log"
    common.spawn_to_tools_list(serve, root, env, log)
    common.spawn_to_tools_list(ref, root, env, log)
    ours, theirs = common.interleaved(
        runs,
        lambda: common.spawn_to_tools_list(serve, root, env, log),
        lambda: common.spawn_to_tools_list(ref, root, env, log),
    )
    report.ratio(
        "serve spawn->tools/list / mcp-server-time", common.median(ours), common.median(theirs), BAR_SPAWN
    )
    report.absolute("gotchas serve spawn -> first tools/list", ours)
    report.absolute("mcp-server-time spawn -> first tools/list", theirs)


def load_memory(server: StdioServer, text: str) -> int:
    """One entity per lesson, its non-blank lines as observations."""
    lessons = common.split_lessons(text)
    batch = 1000
    for start in range(0, len(lessons), batch):
        entities = [
            {"name": title, "entityType": "lesson", "observations": lines}
            for title, lines in lessons[start : start + batch]
        ]
        server.call("create_entities", {"entities": entities}, timeout=300)
    return len(lessons)


def bench_warm(report: Report, root: Path, scratch: Path, size: str, runs: int, barred: bool) -> None:
    env = common.clean_env()
    text = (root / common.RECORD_REL).read_text("utf-8")
    log = scratch / f"warm-{size}-stderr.log"
    with StdioServer([*common.gotchas_cmd(), "serve"], root, env, log) as ours:
        ours.handshake()
        first = ours.call("list_gotchas", {"task": TASK})
        total = first["structuredContent"]["total"]
        ours.call("list_gotchas", {"task": TASK})
        gotchas_times = common.timed_calls(ours, "list_gotchas", {"task": TASK}, runs)

    memory_file = scratch / f"memory-{size}.jsonl"
    mem_env = common.clean_env(MEMORY_FILE_PATH=str(memory_file))
    with StdioServer(common.memory_server_cmd(), scratch, mem_env, log) as memory:
        memory.handshake()
        loaded = load_memory(memory, text)
        found = memory.call("search_nodes", {"query": TASK})
        hits = len(found.get("structuredContent", {}).get("entities", []))
        memory_times = common.timed_calls(memory, "search_nodes", {"query": TASK}, runs)

    report.ratio(
        f"warm list_gotchas {size} / memory search_nodes",
        common.median(gotchas_times),
        common.median(memory_times),
        BAR_WARM if barred else None,
    )
    report.absolute(f"warm list_gotchas task={TASK} ({size}, {total} hits)", gotchas_times)
    report.absolute(f"memory search_nodes {TASK} ({size}, {loaded} ents, {hits} hits)", memory_times)


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    cold_runs, spawn_runs, warm_runs = (3, 3, 10) if quick else (7, 7, 30)
    report = Report("bench_list" + (" (--quick)" if quick else ""))
    started = time.perf_counter()
    with common.scratch_dir() as scratch:
        small = common.make_repo(scratch, "r1k", 1000)
        large = common.make_repo(scratch, "r10k", 10000)
        size_mb = (large / common.RECORD_REL).stat().st_size / 1e6
        report.note(f"records: 1k and 10k entries ({size_mb:.1f} MB), from {common.GEN_RECORD.name}")
        bench_cold(report, large, "10k", cold_runs, barred=True)
        bench_cold(report, small, "1k", cold_runs, barred=False)
        bench_spawn(report, large, scratch, spawn_runs)
        report.note("start-up does not read the record (first read on the first call)")
        bench_warm(report, large, scratch, "10k", warm_runs, barred=True)
        bench_warm(report, small, scratch, "1k", warm_runs, barred=False)
    return report.finish("list", started)


if __name__ == "__main__":
    raise SystemExit(main())
