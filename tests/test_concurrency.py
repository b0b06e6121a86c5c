"""Many processes applying to one record at once: every write lands, none is lost.

Two shapes of race: sixteen ``gotchas apply`` subprocesses started together (captures placed
after sixteen different entries), and sixteen worker processes released by a barrier that call
``operations.apply`` on supersedes of sixteen different targets. Then two proposals on the
same target: one applies, the other is refused as a conflict.
"""

from __future__ import annotations

import json
import multiprocessing
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gotchas import journal, operations
from gotchas import record as record_model
from gotchas.workspace import Workspace
from support.clients import gotchas_exe, isolated_env
from support.project import RECORD, write_record

N = 16


SUBJECTS = [
    "tokenizer caches",
    "GPU memory reaping",
    "shallow git clones",
    "offline model hubs",
    "prefix caching",
    "CUDA graph capture",
    "dataset sharding",
    "checkpoint resume",
    "log rotation",
    "retry budgets",
    "lock files",
    "clock skew",
    "DNS caching",
    "socket timeouts",
    "wheel caches",
    "locale settings",
]


def lessons_file(count: int = len(SUBJECTS)) -> bytes:
    """A record in the scenario's shape: ``##`` areas holding ``###`` lessons."""
    parts = ["# Gotchas\n", "\nLessons from past tasks.\n"]
    for n in range(1, count + 1):
        if n % 4 == 1:
            parts.append(f"\n## Area {n // 4 + 1}\n")
        parts.append(
            f"\n### Surprises with {SUBJECTS[n - 1]}\n\n"
            f"tasks: #{800 + n}\n\n"
            f"What went wrong in subsystem {n}, and the first fix we tried.\n"
            f"A second line of advice for subsystem {n}.\n"
        )
    return "".join(parts).encode("utf-8")


def ids(data: bytes) -> list[str]:
    return [e.id for e in record_model.parse(data).entries]


@pytest.fixture
def root(repo: Path) -> Path:
    """The scratch repository holding ten plain lessons instead of the scenario."""
    write_record(repo, lessons_file())
    return repo


def cli(root: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [gotchas_exe(), "--root", str(root), *args],
        cwd=root,
        env=isolated_env(root.parent / "home"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, Any, str]:
    out, err = process.communicate(timeout=120)
    assert "Traceback" not in err, err
    return process.returncode, json.loads(out) if out.strip() else None, err


def assert_record_sound(root: Path, expect_entries: int) -> record_model.Record:
    data = (root / RECORD).read_bytes()
    parsed = record_model.parse(data)
    assert len(parsed.entries) == expect_entries
    verified = operations.verify_record(Workspace(root))
    assert verified["ok"], verified["problems"]
    assert not list((root / ".claude" / "rules").glob(".gotchas.md.*.tmp"))
    return parsed


def test_eight_cli_applies_of_independent_captures_all_land(root: Path) -> None:
    before = (root / RECORD).read_bytes()
    anchors = ids(before)[:N]
    proposals = []
    for n, anchor in enumerate(anchors, start=1):
        code, result, err = finish(
            cli(
                root,
                "propose",
                "--no-hold",
                "--title",
                f"Captured note on {SUBJECTS[n - 1]}",
                "--body",
                f"What task #{900 + n} taught us.",
                "--tasks",
                f"#{900 + n}",
                "--root-cause",
                "suspected",
                "--after",
                anchor,
                "--json",
            )
        )
        assert code == 0, err
        assert result["status"] == "proposed"
        proposals.append(result)
    assert (root / RECORD).read_bytes() == before

    running = [cli(root, "apply", p["proposal_id"], "--json") for p in proposals]
    outcomes = [finish(p) for p in running]
    assert [code for code, _, _ in outcomes] == [0] * N, [err for _, _, err in outcomes]
    assert [r["status"] for _, r, _ in outcomes] == ["applied"] * N
    assert all(r["verification"]["ok"] for _, r, _ in outcomes)

    parsed = assert_record_sound(root, len(SUBJECTS) + N)
    after = parsed.data
    for n, (anchor, proposal) in enumerate(zip(anchors, proposals, strict=True), start=1):
        new = parsed.get(proposal["new_id"])
        assert new.tasks == (f"#{900 + n}",)
        assert new.root_cause == "suspected"
        # each capture sits right after the entry it was placed after
        order = [e.id for e in parsed.entries]
        assert order.index(new.id) == order.index(anchor) + 1
    # the original entries are all byte-identical
    old = record_model.parse(before)
    for entry in old.entries:
        assert parsed.get(entry.id).sha256 == entry.sha256
        assert before[entry.start : entry.end] in after

    events = journal.read(root / ".claude" / "gotchas" / "journal.jsonl")
    assert sorted(str(e["status"]) for e in events) == ["applied"] * N
    # applying all of them again writes nothing
    again = [finish(cli(root, "apply", p["proposal_id"], "--json")) for p in proposals[:2]]
    assert [r["status"] for _, r, _ in again] == ["already-applied"] * 2
    assert (root / RECORD).read_bytes() == after


def _apply_after_barrier(root: str, proposal_id: str, barrier: Any, queue: Any) -> None:
    barrier.wait()
    try:
        result = operations.apply(Workspace(Path(root)), proposal_id=proposal_id)
        queue.put((proposal_id, result["status"], result.get("code"), result["rebased"]))
    except Exception as exc:  # reported to the parent, which fails the test
        queue.put((proposal_id, "error", f"{type(exc).__name__}: {exc}", False))


def run_together(root: Path, proposal_ids: list[str]) -> dict[str, tuple[str, Any, bool]]:
    """Start one process per proposal, release them at once, collect their answers."""
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(len(proposal_ids))
    queue = context.Queue()
    workers = [
        context.Process(target=_apply_after_barrier, args=(str(root), pid, barrier, queue))
        for pid in proposal_ids
    ]
    for worker in workers:
        worker.start()
    answers = {}
    for _ in workers:
        pid, status, code, rebased = queue.get(timeout=120)
        answers[pid] = (status, code, rebased)
    for worker in workers:
        worker.join(timeout=120)
        assert worker.exitcode == 0
    return answers


def supersede(ws: Workspace, target: str, n: int, title: str | None = None) -> Any:
    # Titles differ in words, not only in digits: the outline guesses the entry level from
    # title variety, and that is not what these tests are about (see test_corpus_supersede).
    return operations.propose_supersede(
        ws,
        no_hold=True,
        target_id=target,
        task=f"#{900 + n}",
        title=title or f"What really broke {SUBJECTS[n - 1]}",
        body=f"Task #{900 + n} was not what lesson {target} said; this is what fixed it.",
        diagnostic=f"look for symptom {n} before trying the old advice",
        ruled_out=[f"the advice of {target}"],
        evidence=f"run log of #{900 + n}",
    )


def test_eight_processes_superseding_eight_targets_at_once_lose_nothing(root: Path) -> None:
    ws = Workspace(root)
    before = (root / RECORD).read_bytes()
    targets = ids(before)[:N]
    proposals = [supersede(ws, target, n) for n, target in enumerate(targets, start=1)]
    assert {p["status"] for p in proposals} == {"proposed"}
    assert (root / RECORD).read_bytes() == before

    answers = run_together(root, [p["proposal_id"] for p in proposals])
    assert {status for status, _, _ in answers.values()} == {"applied"}, answers
    # all but the first to take the lock had to rebase on the others' writes
    assert sum(1 for _, _, rebased in answers.values() if rebased) == N - 1

    parsed = assert_record_sound(root, len(SUBJECTS) + N)
    for n, (target, proposal) in enumerate(zip(targets, proposals, strict=True), start=1):
        new = parsed.get(proposal["new_id"])
        assert [(link.target, link.tasks) for link in new.supersedes] == [(target, (f"#{900 + n}",))]
        assert parsed.get(target).red_herring_for == (f"#{900 + n}",)
        order = [e.id for e in parsed.entries]
        assert order.index(new.id) == order.index(target) + 1
    old = record_model.parse(before)
    for entry in old.entries[N:]:
        assert parsed.get(entry.id).sha256 == entry.sha256


def test_two_proposals_on_the_same_target_one_applies_one_conflicts(root: Path) -> None:
    ws = Workspace(root)
    before = (root / RECORD).read_bytes()
    target = ids(before)[2]
    first = supersede(ws, target, 1, "First account of the real cause")
    second = supersede(ws, target, 2, "Second account of the real cause")
    assert first["proposal_id"] != second["proposal_id"]

    answers = run_together(root, [first["proposal_id"], second["proposal_id"]])
    statuses = sorted((status, code) for status, code, _ in answers.values())
    assert statuses == [("applied", None), ("refused", "conflict")], answers

    parsed = assert_record_sound(root, len(SUBJECTS) + 1)
    present = [p["new_id"] for p in (first, second) if p["new_id"] in {e.id for e in parsed.entries}]
    assert len(present) == 1
    winner = first if present == [first["new_id"]] else second
    assert answers[winner["proposal_id"]][0] == "applied"

    # the loser stays refused: retrying it is still a conflict, and writes nothing
    loser = second if winner is first else first
    after = (root / RECORD).read_bytes()
    retry = operations.apply(ws, proposal_id=loser["proposal_id"])
    assert (retry["status"], retry.get("code")) == ("refused", "conflict")
    assert "propose again" in retry["reason"]
    assert (root / RECORD).read_bytes() == after


def test_two_cli_applies_on_the_same_target_one_exits_3(root: Path) -> None:
    ws = Workspace(root)
    target = ids((root / RECORD).read_bytes())[5]
    one = supersede(ws, target, 3, "One account")
    two = supersede(ws, target, 4, "Another account")
    running = [cli(root, "apply", p["proposal_id"], "--json") for p in (one, two)]
    outcomes = sorted(
        (code, result["status"], result.get("code")) for code, result, _ in map(finish, running)
    )
    assert outcomes == [(0, "applied", None), (3, "refused", "conflict")]
    parsed = assert_record_sound(root, len(SUBJECTS) + 1)
    assert sum(1 for p in (one, two) if p["new_id"] in {e.id for e in parsed.entries}) == 1
