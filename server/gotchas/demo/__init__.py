"""A walk-through of the #664 correction on a scratch repository, driven through the real server.

The story: task #664's hang was blamed on "a single large generate() deadlocks the
EngineCore — chunk it"; the confirmed cause was per-call tokenizer reloads in
``_render()``. The correction waits for #664 to land, marks the old lesson a red
herring for #664 only, adds the confirmed lesson, and verifies the record.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas.results import ApplyResult, HoldView, ListResult, ProposalResult, VerifyResult

TARGET = "a-single-large-llm-generate-deadlocks-the-v1"
CORRECTION: dict[str, str | list[str]] = {
    "target_id": TARGET,
    "task": "#664",
    "title": "Per-call tokenizer reloads in `_render()` starve generation — cache the tokenizer",
    "body": (
        "`_render()` called `AutoTokenizer.from_pretrained` on every call, which starved\n"
        "generation until it looked like a hang. Caching the tokenizer with\n"
        "`functools.lru_cache` fixed it (relaunch v17). It was not a vLLM deadlock."
    ),
    "diagnostic": (
        "If chunking + enforce_eager + prefix_caching=0 all fail, profile a single `_render()` "
        "call — suspect per-call tokenizer/model reloads."
    ),
    "ruled_out": [
        "chunking into 2,000-prompt calls",
        "enforce_eager=True",
        "enable_prefix_caching=False",
    ],
    "evidence": "relaunch v16 hung identically with all three applied; the v17 note names the reload",
    "hold": "predicate-664-lands",
}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=gotchas demo", "-c", "user.email=demo@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def run(interactive: bool) -> int:
    import anyio

    with tempfile.TemporaryDirectory(prefix="gotchas-demo-") as scratch:
        repo = Path(scratch)
        record = repo / ".claude" / "rules" / "gotchas.md"
        record.parent.mkdir(parents=True)
        record.write_bytes(resources.files("gotchas.demo").joinpath("record.md").read_bytes())
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", ".")
        _git(repo, "commit", "-q", "-m", "Add the team's lessons file")
        return anyio.run(_walk, repo, interactive)


async def _walk(repo: Path, interactive: bool) -> int:
    from mcp import Client, StdioServerParameters

    from gotchas.holds.sources.ledger import set_task_state

    def step(title: str) -> None:
        print(f"\n== {title}")
        if interactive:
            input("   (press Enter) ")

    before = (repo / ".claude/rules/gotchas.md").read_bytes()
    params = StdioServerParameters(command=sys.executable, args=["-m", "gotchas", "serve"], cwd=str(repo))
    async with Client(params) as client:

        async def call(name: str, args: Mapping[str, object]) -> Any:
            """The tool's structured result: the shape :mod:`gotchas.results` names for it."""
            result = await client.call_tool(name, dict(args))
            if result.is_error:
                raise SystemExit(f"demo: {name} failed: {result.content}")
            return dict(result.structured_content or {})

        print(f"Scratch project: {repo}\nServer: gotchas serve (stdio), driven as a client would.")
        step("#664 is still running; the ledger says so")
        set_task_state(repo, "#664", "running", "demo")
        hold: HoldView = await call("check_hold", {"predicate": "predicate-664-lands"})
        print(f"check_hold(predicate-664-lands) → {hold['state']}")

        step("Find the lesson recorded for #664")
        listed: ListResult = await call("list_gotchas", {"task": "#664"})
        for entry in listed["entries"]:
            print(f"  {entry['id']}  lines {entry['lines']}  {entry['tasks']}")

        step("Propose the correction (nothing is written yet)")
        proposal: ProposalResult = await call("propose_supersede", CORRECTION)
        print(proposal["diff"])
        unchanged = (repo / ".claude/rules/gotchas.md").read_bytes() == before
        print(f"record unchanged after propose: {unchanged}")

        step("Apply while #664 is held")
        refused: ApplyResult = await call("apply_supersede", {"proposal_id": proposal["proposal_id"]})
        print(f"apply → {refused['status']}: {refused['reason']}")

        step("#664 lands: a commit on main closes it")
        _git(repo, "commit", "-q", "--allow-empty", "-m", "Cache the tokenizer in _render() (fixes #664)")
        hold = await call("check_hold", {"predicate": "predicate-664-lands"})
        evidence = hold["tasks"][0]["evidence"][0] if hold["tasks"] else {}
        print(f"check_hold → {hold['state']}  evidence: {evidence}")

        step("Apply now, then apply again")
        applied: ApplyResult = await call("apply_supersede", {"proposal_id": proposal["proposal_id"]})
        print(f"apply → {applied['status']}: {applied['reason']}")
        print(f"verification: {applied['verification']}")
        again: ApplyResult = await call("apply_supersede", {"proposal_id": proposal["proposal_id"]})
        print(f"apply again → {again['status']}: {again['reason']}")

        step("Verify the record")
        verdict: VerifyResult = await call("verify_record", {})
        print(
            f"verify_record → ok={verdict['ok']}, {verdict['entries']} entries, "
            f"{counted(len(verdict['problems']), 'warning')}"
        )
        ok = (
            refused["status"] == "refused"
            and applied["status"] == "applied"
            and again["status"] == "already-applied"
            and verdict["ok"]
            and unchanged
        )
    print("\nDemo " + ("passed: the record is corrected and verified." if ok else "FAILED."))
    return 0 if ok else 1
