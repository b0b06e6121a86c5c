"""The #664 correction end to end: through the CLI as subprocesses and the MCP server over stdio.

Each run starts from a real git repository holding the scenario's record
(``tests/fixtures/scenario-gotchas.md``, the acceptance story's six entries), marks #664
running in the ledger, proposes the correction under ``predicate-664-lands``, is refused
while held, lands #664 with a real closing commit on main, applies, and checks the file
byte by byte. The already-recorded path starts from a record that already holds the
correction (``tests/fixtures/scenario-gotchas-corrected.md``).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gotchas import record as record_model
from support.clients import gotchas, gotchas_exe, isolated_env
from support.project import HERE, RECORD, SCENARIO, TARGET, git_init, write_record

CORRECTED = HERE / "fixtures" / "scenario-gotchas-corrected.md"
SHARED_SCENARIO = Path(__file__).resolve().parents[2] / "shared" / "scenarios" / "vllm-664"
ACTOR = "scenario-test"

CHUNK_IT = TARGET
CRASH_ORPHAN = "crashed-runs-leave-an-orphaned-vllm-enginecore"
IDS = [
    CRASH_ORPHAN,
    CHUNK_IT,
    "max-model-len-silently-drifts-from-the",
    "hf-hub-offline-1-does-not-cover-trust-remote",
    "tokenizer-loads-are-not-free",
    "shallow-clones-break-git-describe-versioning",
]
TITLE = "Per-call tokenizer reloads inside `_render()` starve generation"
NEW_ID = "per-call-tokenizer-reloads-inside-render-starve"
BODY = (
    "`_render()` called `AutoTokenizer.from_pretrained` on every call, so generation sat idle\n"
    "waiting for tokenizer loads. Caching it with `functools.lru_cache` fixed the hang;\n"
    "it was NOT a vLLM deadlock."
)
DIAGNOSTIC = (
    "if chunking + enforce_eager + prefix_caching=0 all fail, profile a single `_render()` "
    "call — suspect per-call tokenizer/model reloads"
)
RULED_OUT = ["chunking into 2,000-prompt batches", "enforce_eager=True", "prefix_caching=0"]
EVIDENCE = "#664 relaunch v17 note"
HOLD = "predicate-664-lands"
LANDING = "Fix render() tokenizer reloads (fixes #664)"


@dataclass
class Project:
    root: Path
    env: dict[str, str]
    exe: Path

    @property
    def record(self) -> Path:
        return self.root / RECORD

    def read(self) -> bytes:
        return self.record.read_bytes()

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout.strip()

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = gotchas(self.root, *args, timeout=120, GOTCHAS_ACTOR=ACTOR)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def json(self, *args: str, expect: int = 0) -> Any:
        done = self.run(*args, "--json")
        assert done.returncode == expect, (args, done.returncode, done.stdout, done.stderr)
        return json.loads(done.stdout)

    def land_664(self) -> str:
        (self.root / "render.py").write_text(
            "import functools\n\n@functools.lru_cache\ndef tokenizer(name): ...\n", "utf-8"
        )
        self.git("add", "render.py")
        self.git("commit", "-q", "-m", LANDING)
        return self.git("rev-parse", "HEAD")


def make_project(tmp_path: Path, fixture: Path = SCENARIO) -> Project:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    project = Project(root, isolated_env(home, GOTCHAS_ACTOR=ACTOR), Path(gotchas_exe()))
    git_init(root)
    write_record(root, fixture.read_bytes())
    project.git("add", RECORD)
    project.git("commit", "-q", "-m", "Add the team's lessons file")
    return project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return make_project(tmp_path)


def propose_args() -> list[str]:
    args = [
        "propose",
        "--target-id",
        CHUNK_IT,
        "--task",
        "664",
        "--title",
        TITLE,
        "--body",
        BODY,
        "--diagnostic",
        DIAGNOSTIC,
        "--evidence",
        EVIDENCE,
        "--hold",
        HOLD,
    ]
    for item in RULED_OUT:
        args += ["--ruled-out", item]
    return args


def propose_arguments() -> dict[str, Any]:
    return {
        "target_id": CHUNK_IT,
        "task": "#664",
        "title": TITLE,
        "body": BODY,
        "diagnostic": DIAGNOSTIC,
        "ruled_out": RULED_OUT,
        "evidence": EVIDENCE,
        "hold": HOLD,
    }


def entry_bytes(data: bytes, entry_id: str) -> bytes:
    entry = record_model.parse(data).get(entry_id)
    return data[entry.start : entry.end]


def assert_corrected(before: bytes, after: bytes) -> None:
    """The acceptance story's 'the file is right', checked against the bytes before."""
    old = record_model.parse(before)
    new = record_model.parse(after)
    assert [e.id for e in new.entries] == [*IDS[:2], NEW_ID, *IDS[2:]]

    target_before = old.get(CHUNK_IT)
    target_after = new.get(CHUNK_IT)
    added = new.get(NEW_ID)

    # Every byte before the target, and after the inserted entry, is unchanged.
    assert after[: target_before.start] == before[: target_before.start]
    suffix = before[target_before.end :]
    assert after.endswith(suffix)
    assert added.end <= len(after) - len(suffix)

    # The chunk-it entry keeps every original line, in order, and is marked for #664 only.
    kept = before[target_before.start : target_before.end].splitlines()
    now = after[target_after.start : target_after.end].splitlines()
    position = 0
    for line in kept:
        position = now.index(line, position) + 1
    assert target_after.red_herring_for == ("#664",)
    assert target_after.tasks == ("#664",)
    text = new.text(target_after)
    assert "red-herring-for: #664" in text
    caveat = [line for line in text.splitlines() if line.startswith(">")]
    assert caveat, "no visible caveat in the raw Markdown"
    assert "#664" in caveat[0] and "red herring" in caveat[0].lower()
    assert NEW_ID in caveat[0]

    # The new entry sits right after it, confirmed, superseding the chunk-it entry for #664.
    assert new.entries.index(added) == new.entries.index(target_after) + 1
    assert added.root_cause == "confirmed"
    assert added.level == target_after.level == 3
    assert [(link.target, link.tasks) for link in added.supersedes] == [(CHUNK_IT, ("#664",))]
    added_text = new.text(added)
    assert f"supersedes: {CHUNK_IT} (for #664)" in added_text
    assert "root-cause: confirmed" in added_text
    assert added.diagnostic == DIAGNOSTIC
    assert "functools.lru_cache" in added_text
    for item in RULED_OUT:
        assert item in added_text
    assert EVIDENCE in added_text

    # The crash-orphan lesson (#601/#653) and every other entry are byte-identical.
    assert entry_bytes(after, CRASH_ORPHAN) == entry_bytes(before, CRASH_ORPHAN)
    for entry_id in IDS:
        if entry_id != CHUNK_IT:
            assert new.get(entry_id).sha256 == old.get(entry_id).sha256, entry_id

    # Nothing changed the file's line endings or final newline.
    assert b"\r" not in after
    assert after.endswith(b"\n") and not after.endswith(b"\n\n")


def test_fixture_matches_the_scenario_structure() -> None:
    """Our fixture is the acceptance story's record (same entries, ids and sections)."""
    ours = record_model.parse(SCENARIO.read_bytes())
    assert [e.id for e in ours.entries] == IDS
    assert [e.level for e in ours.entries] == [3] * 6
    shared = SHARED_SCENARIO / "gotchas.md"
    if not shared.is_file():
        pytest.skip(f"{shared} is absent (the shared scenario folder beside the repo)")
    theirs = record_model.parse(shared.read_bytes())
    assert [(e.id, e.section) for e in theirs.entries] == [(e.id, e.section) for e in ours.entries]
    for a, b in zip(ours.entries, theirs.entries, strict=True):
        assert a.sha256 == b.sha256, a.id


def test_scenario_through_the_cli(project: Project) -> None:
    original = project.read()

    listed = project.json("list")
    assert [e["id"] for e in listed["entries"]] == IDS
    for_664 = project.json("list", "--task", "#664")
    assert [e["id"] for e in for_664["entries"]] == [CHUNK_IT]
    for_601 = project.json("list", "--task", "601")
    assert [e["id"] for e in for_601["entries"]] == [CRASH_ORPHAN]

    assert project.run("task", "set", "664", "running").returncode == 0
    held = project.json("check-hold", HOLD, expect=3)
    assert held["state"] == "held"
    (task,) = held["tasks"]
    assert (task["task"], task["state"], task["source"]) == ("#664", "running", "ledger")
    assert task["evidence"]

    proposed = project.json(*propose_args())
    assert proposed["status"] == "proposed"
    assert proposed["hold"]["state"] == "held"
    assert proposed["base_sha256"] == record_model.parse(original).sha256
    assert proposed["new_id"] == NEW_ID
    assert "+tasks: #664 · root-cause: confirmed" in proposed["diff"]
    assert project.read() == original, "propose wrote to the record"
    pid = proposed["proposal_id"]
    stored = project.root / ".claude" / "gotchas" / "proposals" / f"{pid}.json"
    assert stored.is_file()
    assert [p["proposal_id"] for p in project.json("proposals")["proposals"]] == [pid]

    refused = project.json("apply", pid, expect=3)
    assert refused["status"] == "refused"
    assert refused["code"] == "hold-not-released"
    assert "#664" in refused["reason"]
    assert refused["hold"]["state"] == "held"
    assert project.read() == original, "a refused apply wrote to the record"

    commit = project.land_664()
    released = project.json("check-hold", HOLD)
    assert released["state"] == "released"
    evidence = [e for e in released["tasks"][0]["evidence"] if e.get("source") == "git"]
    assert evidence and evidence[0]["commit"] == commit

    applied = project.json("apply", pid)
    assert applied["status"] == "applied", applied
    assert applied["hold"]["state"] == "released"
    assert applied["verification"]["ok"] is True
    assert applied["before_sha256"] == proposed["base_sha256"]
    after = project.read()
    assert applied["after_sha256"] == record_model.parse(after).sha256
    assert_corrected(original, after)
    # The diff reviewed at propose time is exactly the change written.
    diffed = subprocess.run(
        ["git", "diff", "--no-color", "-U3", "--", RECORD],
        cwd=project.root,
        env=project.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    added_lines = {ln[1:] for ln in diffed.splitlines() if ln.startswith("+") and ln[:3] != "+++"}
    proposed_added = {
        ln[1:] for ln in proposed["diff"].splitlines() if ln.startswith("+") and ln[:3] != "+++"
    }
    assert added_lines == proposed_added
    assert not [ln for ln in diffed.splitlines() if ln.startswith("-") and ln[:3] != "---"]

    again = project.json("apply", pid)
    assert again["status"] == "already-applied"
    assert project.read() == after, "the second apply wrote"

    verified = project.json("verify")
    assert verified["ok"] is True
    assert verified["entries"] == 7
    assert project.run("lint").returncode == 0

    once_more = project.json(*propose_args())
    assert once_more["status"] == "already-recorded"
    assert once_more["proposal_id"] is None
    assert once_more["new_id"] == NEW_ID
    assert once_more["checks"]["ok"] is True
    assert project.read() == after

    journal = (project.root / ".claude" / "gotchas" / "journal.jsonl").read_text("utf-8")
    statuses = [json.loads(line)["status"] for line in journal.splitlines()]
    assert statuses == ["refused", "applied", "already-applied"]


def test_already_recorded_when_the_664_session_posted_the_correction(tmp_path: Path) -> None:
    """The record already holds a confirmed entry superseding chunk-it for #664: verify, no write."""
    project = make_project(tmp_path, CORRECTED)
    original = project.read()
    posted = record_model.parse(original)
    successor = "render-reloaded-the-tokenizer-on-every-call"
    assert [link.target for link in posted.get(successor).supersedes] == [CHUNK_IT]

    project.land_664()
    answer = project.json(*propose_args())
    assert answer["status"] == "already-recorded"
    assert answer["proposal_id"] is None
    assert answer["diff"] == ""
    assert answer["new_id"] == successor
    assert answer["checks"]["ok"] is True
    assert answer["checks"]["successor"] == successor
    assert answer["checks"]["target_marked_for"] == ["#664"]
    assert "profile a single `_render()` call" in answer["checks"]["diagnostic"]
    assert "nothing to write" in answer["next_step"]
    assert project.read() == original
    assert not list((project.root / ".claude").glob("gotchas/proposals/*.json"))
    assert project.json("verify")["ok"] is True

    # A correction for another task is not "already recorded": it is a new proposal.
    other = [a if a != "664" else "700" for a in propose_args()]
    other = [a for a in other if a not in ("--hold", HOLD)]
    assert project.json(*other)["status"] == "proposed"
    assert project.read() == original


def test_a_one_sided_correction_gets_only_the_missing_mark(tmp_path: Path) -> None:
    """The successor was posted with `supersedes:` but the old entry was never marked."""
    lines = CORRECTED.read_text("utf-8").splitlines(keepends=True)
    one_sided = "".join(
        line for line in lines if not line.startswith(("red-herring-for:", "> **Red herring"))
    )
    fixture = tmp_path / "one-sided.md"
    fixture.write_text(one_sided, "utf-8")
    project = make_project(tmp_path, fixture)
    original = project.read()
    assert project.run("verify").returncode == 1  # the dangling half of the link is an error
    project.land_664()

    answer = project.json(*propose_args())
    assert answer["status"] == "proposed"
    assert "adds only that mark" in answer["next_step"]
    added = [x for x in answer["diff"].splitlines() if x.startswith("+") and not x.startswith("+++")]
    removed = [x for x in answer["diff"].splitlines() if x.startswith("-") and not x.startswith("---")]
    assert not removed
    assert any("red-herring-for: #664" in x for x in added)
    assert not any(x.startswith("+### ") for x in added)  # no second copy of the lesson
    assert project.read() == original

    applied = project.json("apply", answer["proposal_id"])
    assert applied["status"] == "applied" and applied["verification"]["ok"] is True
    after = project.read()
    for entry_id in IDS:
        if entry_id != CHUNK_IT:
            assert entry_bytes(after, entry_id) == entry_bytes(original, entry_id)
    assert project.json("verify")["ok"] is True
    assert project.json(*propose_args())["status"] == "already-recorded"
    assert project.json("apply", answer["proposal_id"])["status"] == "already-applied"
    assert project.read() == after


# --- the same story over MCP, the server a real stdio subprocess ---------------------------


def _structured(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data: dict[str, Any] = result.structured_content
        return data if set(data) != {"result"} else dict(data["result"])
    loaded: dict[str, Any] = json.loads(result.content[0].text)
    return loaded


@pytest.mark.anyio
async def test_scenario_through_the_stdio_server(project: Project) -> None:
    from mcp import Client, StdioServerParameters

    original = project.read()
    assert project.run("task", "set", "664", "running").returncode == 0
    params = StdioServerParameters(
        command=str(project.exe), args=["serve"], cwd=str(project.root), env=project.env
    )
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert {"list_gotchas", "check_hold", "propose_supersede", "apply_supersede"} <= set(tools)
        apply_hints = tools["apply_supersede"].annotations
        assert apply_hints is not None
        assert apply_hints.destructive_hint is True and apply_hints.idempotent_hint is True

        listed = _structured(await client.call_tool("list_gotchas", {"task": "#664"}))
        assert [e["id"] for e in listed["entries"]] == [CHUNK_IT]
        listed = _structured(await client.call_tool("list_gotchas", {"task": "#601"}))
        assert [e["id"] for e in listed["entries"]] == [CRASH_ORPHAN]

        held = _structured(await client.call_tool("check_hold", {"predicate": HOLD}))
        assert held["state"] == "held"
        assert held["tasks"][0]["source"] == "ledger"

        proposed = _structured(await client.call_tool("propose_supersede", propose_arguments()))
        assert proposed["status"] == "proposed"
        assert proposed["hold"]["state"] == "held"
        assert project.read() == original
        pid = proposed["proposal_id"]

        refused = _structured(await client.call_tool("apply_supersede", {"proposal_id": pid}))
        assert refused["status"] == "refused"
        assert refused["code"] == "hold-not-released"
        assert project.read() == original

        commit = project.land_664()
        released = _structured(await client.call_tool("check_hold", {"predicate": HOLD}))
        assert released["state"] == "released"
        assert any(e.get("commit") == commit for e in released["tasks"][0]["evidence"])

        applied = _structured(await client.call_tool("apply_supersede", {"proposal_id": pid}))
        assert applied["status"] == "applied", applied
        assert applied["verification"]["ok"] is True
        after = project.read()
        assert_corrected(original, after)

        again = _structured(await client.call_tool("apply_supersede", {"proposal_id": pid}))
        assert again["status"] == "already-applied"
        assert project.read() == after

        verified = _structured(await client.call_tool("verify_record", {}))
        assert verified["ok"] is True
        assert verified["entries"] == 7

        recorded = _structured(await client.call_tool("propose_supersede", propose_arguments()))
        assert recorded["status"] == "already-recorded"
        assert recorded["new_id"] == NEW_ID
        assert project.read() == after

        # The CLI and the server agree: the CLI sees what the server wrote.
        assert project.json("show", NEW_ID)["id"] == NEW_ID
