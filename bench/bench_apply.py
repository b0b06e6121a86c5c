"""Apply speed on the 10k-entry record.

    python bench/bench_apply.py [--quick]

1. cold ``gotchas apply ID --json`` (a fresh process) ÷ cold ``gotchas list --json
   --task '#664'`` on the same record, interleaved — bar 1.3. Each run first stores a
   fresh supersede proposal (through a running server, not timed), so every apply writes.
2. warm ``apply_supersede`` through a running ``gotchas serve`` over stdio (the proposal
   made just before with ``propose_supersede``, not timed), median — bar 100 ms.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import common
from common import Report, StdioServer

BAR_COLD = 1.3
BAR_WARM_MS = 100.0
TASK = "#664"


class Proposer:
    """Stores supersede proposals on distinct targets through a running server."""

    def __init__(self, server: StdioServer) -> None:
        self.server = server
        listed = server.call("list_gotchas", {"limit": 1000})["structuredContent"]["entries"]
        # spread targets over the file; skip any entry that already names #664
        self.targets = [e["id"] for e in listed if TASK not in e.get("tasks", [])][::7]
        self.count = 0

    def propose(self) -> str:
        self.count += 1
        target = self.targets[self.count]
        result = self.server.call(
            "propose_supersede",
            {
                "target_id": target,
                "task": TASK,
                "title": f"Bench confirmed cause number {self.count}",
                "body": "The chunked prefill path reorders the batch; pin the chunk size.",
                "diagnostic": "Logs show the scheduler splitting one prompt across two steps.",
                "ruled_out": ["restarting the worker", "clearing the cache"],
                "evidence": "bench run",
                "hold": "none",  # applied at once: the bench times the edit, not the wait
            },
        )["structuredContent"]
        if result["status"] != "proposed":
            raise common.RpcError(f"propose: {result['status']}")
        return str(result["proposal_id"])


def apply_checked(root: Path, proposal_id: str, env: dict[str, str]) -> float:
    cmd = [*common.gotchas_cmd(), "apply", proposal_id, "--json"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    answer: dict[str, Any] = json.loads(proc.stdout or b"{}")
    if proc.returncode != 0 or answer.get("status") != "applied":
        raise RuntimeError(f"apply {proposal_id}: {answer or proc.stderr.decode()[-300:]}")
    return elapsed


def main() -> int:
    quick = common.add_quick_flag(__doc__ or "")
    # (min runs, max runs, seconds after which no run beyond the minimum starts)
    cold_plan, warm_plan = ((2, 2, 0.0), (3, 3, 0.0)) if quick else ((5, 7, 60.0), (5, 15, 45.0))
    report = Report("bench_apply" + (" (--quick)" if quick else ""))
    started = time.perf_counter()
    with common.scratch_dir() as scratch:
        root = common.make_repo(scratch, "r10k", 10000)
        env = common.clean_env()
        list_cmd = [*common.gotchas_cmd(), "list", "--json", "--task", TASK]
        log = scratch / "serve-stderr.log"
        with StdioServer([*common.gotchas_cmd(), "serve"], root, env, log) as server:
            server.handshake()
            proposer = Proposer(server)
            common.time_cmd(list_cmd, root, env)  # untimed: .pyc and page cache warm
            applies: list[float] = []
            lists: list[float] = []
            for _ in common.budgeted(*cold_plan):
                proposal_id = proposer.propose()
                applies.append(apply_checked(root, proposal_id, env))
                lists.append(common.time_cmd(list_cmd, root, env))

            # warm: one untimed apply loads whatever apply needs, then time apply only
            start = time.perf_counter()
            server.call("apply_supersede", {"proposal_id": proposer.propose()})
            first_warm = time.perf_counter() - start
            warm: list[float] = []
            for _ in common.budgeted(*warm_plan):
                proposal_id = proposer.propose()
                start = time.perf_counter()
                answer = server.call("apply_supersede", {"proposal_id": proposal_id})
                warm.append(time.perf_counter() - start)
                if answer["structuredContent"]["status"] != "applied":
                    raise common.RpcError(f"apply: {answer['structuredContent']}")
            verified = server.call("verify_record", {})["structuredContent"]

        report.ratio("cold apply 10k / cold list 10k", common.median(applies), common.median(lists), BAR_COLD)
        report.absolute("cold gotchas apply (10k)", applies)
        report.absolute(f"cold gotchas list --task {TASK} (10k)", lists)
        report.limit("warm apply_supersede over stdio (10k)", common.median(warm) * 1000, BAR_WARM_MS)
        report.absolute("warm apply_supersede (10k)", warm)
        report.note(f"first apply in the server (untimed warm-up, incl. propose): {first_warm * 1000:.0f} ms")
        report.note(
            f"after {proposer.count} applies: {verified['entries']} entries, verify ok={verified['ok']}"
        )
    return report.finish("apply", started)


if __name__ == "__main__":
    raise SystemExit(main())
