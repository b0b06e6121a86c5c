"""The smaller hostile inputs: each a typed error that says what to do, the record unchanged.

NUL in a lesson, megabyte ids echoed back, decomposed Unicode ids, misspelt MCP argument
names, a ledger line nested past the JSON parser's depth, ``--from-json`` with a string
where a list belongs, and operating-system failures surfacing without a message.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from gotchas import errors, operations
from gotchas.holds.check import check_hold
from gotchas.server import build
from gotchas.workspace import Workspace
from support.clients import gotchas as cli
from support.project import RECORD, TARGET, write_record

PROPOSAL: dict[str, Any] = {
    "target_id": TARGET,
    "task": "#664",
    "title": "Per-call tokenizer reloads starve generation",
    "body": "Cache the tokenizer.",
    "diagnostic": "profile one render call",
}
HUGE = "x" * 10_000_000


def text_of(result: Any) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


# --- NUL and control characters --------------------------------------------------------------


@pytest.mark.parametrize(
    "change",
    [
        {"title": "Per-call\x00reloads"},
        {"body": "Cache\x00it"},
        {"evidence": "v17\x00"},
        {"ruled_out": ["a\x1b[31m"]},
    ],
)
def test_a_control_character_is_blamed_on_the_argument_not_the_record(
    project: Path, change: dict[str, Any]
) -> None:
    before = (project / RECORD).read_bytes()
    with pytest.raises(errors.InvalidArgument) as caught:
        operations.propose_supersede(Workspace(project), **{**PROPOSAL, **change})
    assert caught.value.code == "invalid-argument"
    assert "control character" in caught.value.message
    assert "record" not in caught.value.message
    assert (project / RECORD).read_bytes() == before
    assert not (project / ".claude" / "gotchas" / "proposals").exists()


def test_the_cli_names_the_nul_in_the_title(project: Path) -> None:
    spec = project.parent / "spec.json"
    spec.write_text(json.dumps({**PROPOSAL, "title": "Per-call\u0000reloads"}), encoding="utf-8")
    done = cli(project, "propose", "--from-json", str(spec))
    assert done.returncode == 2
    assert "title holds the control character U+0000" in done.stderr
    assert "record-unreadable" not in done.stderr


# --- megabyte ids ---------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_ten_megabyte_id_is_not_echoed_back(project: Path) -> None:
    calls = [
        ("get_gotcha", {"id": HUGE}),
        ("apply_supersede", {"proposal_id": HUGE}),
        ("list_gotchas", {"task": HUGE}),
        ("check_hold", {"predicate": f"predicate-{HUGE}-lands"}),
        ("propose_supersede", {**PROPOSAL, "target_id": HUGE}),
    ]
    async with Client(build(Workspace(project))) as client:
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, tool
            assert len(text_of(result)) < 2000, (tool, len(text_of(result)))
            assert "characters)" in text_of(result) or "invalid" in text_of(result), tool


def test_the_cli_does_not_echo_a_long_id_either(project: Path) -> None:
    done = cli(project, "show", "y" * 100_000)
    assert done.returncode != 0
    assert len(done.stderr) < 1000
    assert "100000 characters" in done.stderr


# --- Unicode normalisation -------------------------------------------------------------------------


def test_an_id_is_found_whether_typed_composed_or_decomposed(tmp_path: Path) -> None:
    composed = "caf\u00e9-cache"
    decomposed = unicodedata.normalize("NFD", composed)
    root = tmp_path / "project"
    write_record(root, f"# Gotchas\n\n### Café cache\n\nid: {decomposed} · tasks: #1\n\nText.\n".encode())
    ws = Workspace(root)
    assert operations.get_gotcha(ws, entry_id=composed)["id"] == decomposed
    assert operations.get_gotcha(ws, entry_id=decomposed)["id"] == decomposed


def test_a_title_slug_is_found_from_a_decomposed_query(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_record(root, "# Gotchas\n\n### Naïve retries double-charge\n\ntasks: #1\n\nText.\n".encode())
    ws = Workspace(root)
    entry_id = operations.list_gotchas(ws)["entries"][0]["id"]
    assert operations.get_gotcha(ws, entry_id=unicodedata.normalize("NFD", entry_id))["id"] == entry_id


# --- unknown MCP arguments -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_misspelt_argument_is_refused_with_the_right_name(project: Path) -> None:
    async with Client(build(Workspace(project))) as client:
        result = await client.call_tool("list_gotchas", {"recrod": ".claude/rules/other.md"})
        assert result.is_error
        assert "invalid-argument" in text_of(result)
        assert "did you mean 'record'?" in text_of(result)
        fine = await client.call_tool("list_gotchas", {"record": RECORD})
        assert not fine.is_error


@pytest.mark.anyio
async def test_every_tool_publishes_that_it_takes_no_other_arguments(project: Path) -> None:
    async with Client(build(Workspace(project))) as client:
        tools = (await client.list_tools()).tools
    assert tools
    assert all(tool.input_schema.get("additionalProperties") is False for tool in tools)


# --- a ledger line nested past the parser's depth -------------------------------------------------


def test_one_deeply_nested_ledger_line_leaves_the_others_readable(tmp_path: Path) -> None:
    ledger = tmp_path / ".claude" / "gotchas" / "tasks.jsonl"
    ledger.parent.mkdir(parents=True)
    good = {"task": "#664", "state": "landed", "at": "2026-11-30T00:00:00Z", "by": "ci"}
    ledger.write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n" + json.dumps(good).encode() + b"\n")
    (tmp_path / ".claude" / "gotchas.toml").write_text('[holds]\nsources = ["ledger"]\n', encoding="utf-8")
    answer = check_hold("predicate-664-lands", tmp_path)
    assert answer.state == "released"


# --- --from-json types ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "complaint"),
    [
        ({"ruled_out": "abc"}, "ruled_out must be a list of strings"),
        ({"ruled_out": ["a", 3]}, "ruled_out must be a list of strings"),
        ({"tasks": "#1"}, "tasks must be a list of strings"),
        ({"title": ["a"]}, "title must be a string"),
        ({"body": 7}, "body must be a string"),
    ],
)
def test_from_json_refuses_the_wrong_types(project: Path, change: dict[str, Any], complaint: str) -> None:
    spec = project.parent / "spec.json"
    spec.write_text(json.dumps({**PROPOSAL, **change}), encoding="utf-8")
    before = (project / RECORD).read_bytes()
    done = cli(project, "propose", "--from-json", str(spec))
    assert done.returncode == 2, done.stdout
    assert complaint in done.stderr
    assert (project / RECORD).read_bytes() == before
    assert not (project / ".claude" / "gotchas" / "proposals").exists()


# --- operating-system failures ---------------------------------------------------------------------


def blocked_proposals(project: Path) -> Path:
    """A file where the proposals directory belongs: every write there fails in the OS."""
    state = project / ".claude" / "gotchas"
    state.mkdir(parents=True, exist_ok=True)
    blocker = state / "proposals"
    blocker.write_text("not a directory\n", encoding="utf-8")
    return blocker


def test_an_os_failure_in_the_cli_is_named_not_internal(project: Path) -> None:
    blocker = blocked_proposals(project)
    done = cli(project, "propose", *[f"--{k.replace('_', '-')}={v}" for k, v in PROPOSAL.items()])
    assert done.returncode == 1
    assert "internal error" not in done.stderr
    # the confined state paths refuse a non-folder before the OS would: either way a typed code
    assert done.stderr.startswith(("gotchas: os-error:", "gotchas: unsafe-path:"))
    assert str(blocker.name) in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.anyio
async def test_an_os_failure_over_mcp_carries_its_message(project: Path) -> None:
    blocked_proposals(project)
    async with Client(build(Workspace(project))) as client:
        result = await client.call_tool("propose_supersede", PROPOSAL)
    assert result.is_error
    assert "os-error" in text_of(result) or "unsafe-path" in text_of(result)
    assert "proposals" in text_of(result)
