"""The #664 root cause as it evolved: four successive confirmed accounts, each replacing the last.

Written for these tests (prefix caching, then CUDA graphs, then the V1 engine, then the
tokenizer reload), in the order the team believed them.
"""

from __future__ import annotations

from typing import Any

from gotchas import operations
from gotchas.workspace import Workspace

HYPOTHESES: list[dict[str, Any]] = [
    {
        "title": "Prefix caching thrashes on 40k distinct prompts",
        "body": "With prefix caching on, the block manager evicted and refilled on every step.",
        "diagnostic": "watch the prefix-cache hit rate; near zero with steady evictions points here",
        "ruled_out": ["chunking generate() into 2,000-prompt batches"],
    },
    {
        "title": "CUDA graph capture stalls with many batch shapes",
        "body": "Graph capture for each new batch shape blocked the engine loop.",
        "diagnostic": "time the first step per batch shape; capture shows as a long first step",
        "ruled_out": ["enable_prefix_caching=False"],
    },
    {
        "title": "The V1 engine's scheduler starves a single huge request list",
        "body": "The V1 scheduler never yielded while one call queued every prompt at once.",
        "diagnostic": "compare the V0 engine on the same prompts; V0 finishing points here",
        "ruled_out": ["enforce_eager=True"],
    },
    {
        "title": "Per-call tokenizer reloads in the renderer starved generation",
        "body": "`_render()` loaded the tokenizer on every call; caching it fixed the hang.",
        "diagnostic": "profile one `_render()` call and look for from_pretrained in it",
        "ruled_out": ["VLLM_USE_V1=0"],
    },
]


def correct(ws: Workspace, target: str, n: int, *, hold: str | None = None) -> Any:
    """Propose the ``n``-th account (0-based) as the correction of ``target`` for #664."""
    spec = HYPOTHESES[n]
    return operations.propose_supersede(
        ws,
        target_id=target,
        task="#664",
        title=spec["title"],
        body=spec["body"],
        diagnostic=spec["diagnostic"],
        ruled_out=spec["ruled_out"],
        hold=hold,
        no_hold=hold is None,
    )
