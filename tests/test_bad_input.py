"""Bad input: each a clear typed error, and the record byte-identical afterwards.

The same refusals through the operations (typed exception and code), the CLI (non-zero
exit, exactly one line on stderr, no traceback) and MCP in process (``is_error`` with the
code in the text).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gotchas import edit, errors, operations
from gotchas import record as record_model
from gotchas.workspace import Workspace
from support.clients import gotchas as cli
from support.project import RECORD, TARGET
from support.project import SCENARIO as FIXTURE

DUPLICATE_IDS = """# Gotchas

### Retry budgets hide outages

id: retries · tasks: #101

Cap retries.

### Retries can double-charge

id: retries · tasks: #102

Make calls idempotent.
""".encode()


def good(**change: Any) -> dict[str, Any]:
    args: dict[str, Any] = {
        "target_id": TARGET,
        "task": "#664",
        "title": "Per-call tokenizer reloads starve generation",
        "body": "Cache the tokenizer with functools.lru_cache.",
        "diagnostic": "profile a single render call",
        "ruled_out": ["chunking"],
        "evidence": "relaunch v17",
    }
    args.update(change)
    return args


def supersede(ws: Workspace, **change: Any) -> Any:
    args = good(**change)
    return operations.propose_supersede(
        ws,
        no_hold=True,
        target_id=args["target_id"],
        task=args["task"],
        title=args["title"],
        body=args["body"],
        diagnostic=args["diagnostic"],
        ruled_out=args["ruled_out"],
        evidence=args["evidence"],
        record=args.get("record"),
    )


def refuses(project: Path, error: type[errors.GotchasError], call: Callable[[], object]) -> str:
    """``call`` raises ``error`` and leaves the record (and no proposal) behind unchanged."""
    path = project / RECORD
    before = path.read_bytes() if path.is_file() else None
    proposals = sorted((project / ".claude" / "gotchas" / "proposals").glob("*.json"))
    with pytest.raises(error) as caught:
        call()
    assert caught.value.message.strip()
    assert "\n" not in caught.value.message
    if before is not None:
        assert path.read_bytes() == before
    assert sorted((project / ".claude" / "gotchas" / "proposals").glob("*.json")) == proposals
    return caught.value.code


# --- operations --------------------------------------------------------------------------


def test_unknown_target(project: Path) -> None:
    code = refuses(project, errors.EntryNotFound, lambda: supersede(Workspace(project), target_id="no-such"))
    assert code == "entry-not-found"


def test_unknown_target_suggests_close_ids(project: Path) -> None:
    with pytest.raises(errors.EntryNotFound, match="did you mean"):
        supersede(Workspace(project), target_id=TARGET[:-3])


@pytest.mark.parametrize(
    "change",
    [
        {"title": ""},
        {"title": "   "},
        {"title": "two\nlines"},
        {"title": "x" * 201},
        {"body": ""},
        {"body": "x" * 20_001},
        {"diagnostic": "x" * 2_001},
        {"diagnostic": ""},
        {"evidence": "x" * 2_001},
        {"ruled_out": ["x" * 2_001]},
        {"ruled_out": [f"item {n}" for n in range(31)]},
        {"task": "not a task"},
    ],
    ids=[
        "empty-title",
        "blank-title",
        "multiline-title",
        "title-201",
        "empty-body",
        "body-20001",
        "diagnostic-2001",
        "no-diagnostic",
        "evidence-2001",
        "ruled-out-item-2001",
        "ruled-out-31",
        "bad-task",
    ],
)
def test_invalid_lesson_fields(project: Path, change: dict[str, Any]) -> None:
    code = refuses(project, errors.InvalidArgument, lambda: supersede(Workspace(project), **change))
    assert code in ("invalid-argument", "invalid-task")


def test_limits_are_inclusive(project: Path) -> None:
    result = supersede(Workspace(project), title="t" * 200, body="b" * 20_000, diagnostic="d" * 2_000)
    assert result["status"] == "proposed"


def test_target_id_naming_two_entries(project: Path) -> None:
    (project / RECORD).write_bytes(DUPLICATE_IDS)
    code = refuses(project, errors.AmbiguousEntry, lambda: supersede(Workspace(project), target_id="retries"))
    assert code == "entry-ambiguous"
    with pytest.raises(errors.AmbiguousEntry, match="2 entries"):
        operations.get_gotcha(Workspace(project), entry_id="retries")
    verified = operations.verify_record(Workspace(project))
    assert not verified["ok"]
    assert any(p["code"].startswith("duplicate") for p in verified["problems"])


@pytest.mark.parametrize(
    "proposal_id", ["p-zzz", "../../etc/passwd", "p-000000000000", "", "p-0123456789ab/.."]
)
def test_a_proposal_id_that_is_not_one(project: Path, proposal_id: str) -> None:
    code = refuses(
        project,
        errors.ProposalNotFound,
        lambda: operations.apply(Workspace(project), proposal_id=proposal_id),
    )
    assert code == "proposal-not-found"


def stored_proposal(project: Path) -> tuple[str, Path]:
    result = supersede(Workspace(project))
    pid = result["proposal_id"]
    return pid, project / ".claude" / "gotchas" / "proposals" / f"{pid}.json"


@pytest.mark.parametrize("how", ["lesson-text", "base-hash", "not-json", "truncated", "not-utf8"])
def test_a_proposal_file_edited_by_hand(project: Path, how: str) -> None:
    pid, path = stored_proposal(project)
    body = json.loads(path.read_text("utf-8"))
    if how == "lesson-text":
        body["lesson"]["body"] = "Something the reviewer never saw."
        path.write_text(json.dumps(body, indent=2), "utf-8")
    elif how == "base-hash":
        body["base_sha256"] = "0" * 64
        path.write_text(json.dumps(body, indent=2), "utf-8")
    elif how == "not-json":
        path.write_text("{ this is not json", "utf-8")
    elif how == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    else:
        path.write_bytes(b"\xff\xfe" + path.read_bytes())
    code = refuses(
        project, errors.ProposalInvalid, lambda: operations.apply(Workspace(project), proposal_id=pid)
    )
    assert code == "proposal-invalid"


def test_a_record_that_became_invalid_utf8_between_propose_and_apply(project: Path) -> None:
    pid, _ = stored_proposal(project)
    broken = (project / RECORD).read_bytes().replace(b"Shallow clones", b"Shallow \xff clones")
    (project / RECORD).write_bytes(broken)
    code = refuses(
        project, errors.RecordEncodingError, lambda: operations.apply(Workspace(project), proposal_id=pid)
    )
    assert code == "record-encoding"
    with pytest.raises(errors.RecordEncodingError, match="offset"):
        operations.list_gotchas(Workspace(project))
    # once fixed, the same proposal still applies (the lock was released)
    (project / RECORD).write_bytes(FIXTURE.read_bytes())
    assert operations.apply(Workspace(project), proposal_id=pid)["status"] == "applied"


def test_superseding_with_a_suspected_cause_is_refused_with_an_explanation(project: Path) -> None:
    parsed = record_model.parse((project / RECORD).read_bytes())
    suspected = edit.lesson("Maybe the tokenizer", body="Perhaps.", tasks=["#664"], root_cause="suspected")
    with pytest.raises(errors.InvalidArgument, match="only a confirmed root cause") as caught:
        edit.plan_supersede(parsed, target=parsed.get(TARGET), task="#664", new=suspected)
    assert "propose_lesson" in caught.value.message
    assert (project / RECORD).read_bytes() == FIXTURE.read_bytes()


def test_a_confirmed_capture_needs_a_diagnostic(project: Path) -> None:
    code = refuses(
        project,
        errors.InvalidArgument,
        lambda: operations.propose_lesson(
            Workspace(project), title="Confirmed thing", body="Body.", tasks=["#700"], root_cause="confirmed"
        ),
    )
    assert code == "invalid-argument"
    suspected = operations.propose_lesson(
        Workspace(project), title="Suspected thing", body="Body.", tasks=["#700"], root_cause="suspected"
    )
    assert suspected["status"] == "proposed"


@pytest.mark.parametrize("record", ["../outside.md", "/etc/passwd", "link-out.md"])
def test_a_path_outside_the_root(project: Path, record: str) -> None:
    (project.parent / "outside.md").write_bytes(FIXTURE.read_bytes())
    (project / "link-out.md").symlink_to(project.parent / "outside.md")
    code = refuses(project, errors.PathOutsideRoot, lambda: supersede(Workspace(project), record=record))
    assert code == "path-outside-root"
    with pytest.raises(errors.PathOutsideRoot):
        operations.list_gotchas(Workspace(project), record=record)
    assert (project.parent / "outside.md").read_bytes() == FIXTURE.read_bytes()


def test_a_directory_as_record(project: Path) -> None:
    (project / ".claude" / "rules" / "dir.md").mkdir()
    code = refuses(
        project,
        errors.RecordUnreadable,
        lambda: supersede(Workspace(project), record=".claude/rules/dir.md"),
    )
    assert code == "record-unreadable"


def test_a_binary_file_as_record(project: Path) -> None:
    (project / RECORD).write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    code = refuses(project, errors.RecordUnreadable, lambda: supersede(Workspace(project)))
    assert code == "record-unreadable"


def test_a_missing_record(project: Path) -> None:
    (project / RECORD).unlink()
    code = refuses(project, errors.RecordNotFound, lambda: supersede(Workspace(project)))
    assert code == "record-not-found"
    assert not (project / RECORD).exists()


# --- the CLI -----------------------------------------------------------------------------


def propose_cli(**change: Any) -> list[str]:
    args = good(**change)
    out = ["propose", "--no-hold", "--json"]
    for key in ("target_id", "task", "title", "body", "diagnostic", "evidence"):
        out += [f"--{key.replace('_', '-')}", args[key]]
    for item in args["ruled_out"]:
        out += ["--ruled-out", item]
    if "record" in args:
        out += ["--record", args["record"]]
    return out


def cli_case(project: Path, name: str) -> tuple[list[str], str]:
    """Set up the case and return its command line and the error code it must print."""
    if name == "unknown-target":
        return propose_cli(target_id="no-such-entry"), "entry-not-found"
    if name == "empty-title":
        return propose_cli(title=""), "invalid-argument"
    if name == "title-201":
        return propose_cli(title="t" * 201), "invalid-argument"
    if name == "body-20001":
        return propose_cli(body="b" * 20_001), "invalid-argument"
    if name == "diagnostic-2001":
        return propose_cli(diagnostic="d" * 2_001), "invalid-argument"
    if name == "two-entries":
        (project / RECORD).write_bytes(DUPLICATE_IDS)
        return propose_cli(target_id="retries"), "entry-ambiguous"
    if name in ("p-zzz", "../../etc/passwd"):
        return ["apply", name, "--json"], "proposal-not-found"
    if name == "edited-proposal":
        pid, path = stored_proposal(project)
        path.write_text(path.read_text("utf-8").replace("lru_cache", "lru_cache()"), "utf-8")
        return ["apply", pid, "--json"], "proposal-invalid"
    if name == "invalid-utf8":
        pid, _ = stored_proposal(project)
        (project / RECORD).write_bytes((project / RECORD).read_bytes() + b"\n\xc3\x28\n")
        return ["apply", pid, "--json"], "record-encoding"
    if name == "confirmed-capture-no-diagnostic":
        args = ["propose", "--no-hold", "--title", "T", "--body", "B", "--tasks", "#7", "--root-cause"]
        return [*args, "confirmed"], "invalid-argument"
    if name == "outside-root":
        return propose_cli(record="../outside.md"), "path-outside-root"
    if name == "directory":
        (project / "dir.md").mkdir()
        return ["list", "--record", "dir.md"], "record-unreadable"
    if name == "binary":
        (project / RECORD).write_bytes(b"\x00\x01\x02binary")
        return ["list"], "record-unreadable"
    if name == "from-json-unknown-key":
        spec = project.parent / "spec.json"
        spec.write_text(json.dumps({**good(), "root_cause_typo": "x"}), "utf-8")
        return ["propose", "--no-hold", "--from-json", str(spec)], "invalid-argument"
    raise AssertionError(name)


CLI_CASES = [
    "unknown-target",
    "empty-title",
    "title-201",
    "body-20001",
    "diagnostic-2001",
    "two-entries",
    "p-zzz",
    "../../etc/passwd",
    "edited-proposal",
    "invalid-utf8",
    "confirmed-capture-no-diagnostic",
    "outside-root",
    "directory",
    "binary",
    "from-json-unknown-key",
]


@pytest.mark.parametrize("name", CLI_CASES)
def test_cli_refuses_with_one_line_and_no_traceback(project: Path, name: str) -> None:
    args, code = cli_case(project, name)
    before = (project / RECORD).read_bytes()
    done = cli(project, *args)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"gotchas: {code}: "), lines[0]
    assert "internal error" not in lines[0]
    assert (project / RECORD).read_bytes() == before


def test_cli_supersede_with_a_suspected_cause_is_refused(project: Path) -> None:
    before = (project / RECORD).read_bytes()
    done = cli(project, *propose_cli(), "--root-cause", "suspected")
    assert (project / RECORD).read_bytes() == before
    assert done.returncode == 2, done.stdout[:300]
    assert "confirmed" in done.stderr


# --- MCP, in process ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_mcp_tools_answer_is_error_with_the_code(project: Path) -> None:
    from mcp import Client

    from gotchas.server import build

    ws = Workspace(project)
    pid, path = stored_proposal(project)
    path.write_text(path.read_text("utf-8").replace("relaunch v17", "relaunch v18"), "utf-8")
    before = (project / RECORD).read_bytes()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("propose_supersede", good(target_id="no-such-entry"), "entry-not-found"),
        ("propose_supersede", good(title=" "), "invalid-argument"),
        ("propose_supersede", good(body="b" * 20_001), "invalid-argument"),
        ("propose_supersede", good(diagnostic="d" * 2_001), "invalid-argument"),
        ("propose_supersede", good(record="../outside.md"), "path-outside-root"),
        (
            "propose_lesson",
            {"title": "T", "body": "B", "tasks": ["#7"], "root_cause": "confirmed"},
            "invalid-argument",
        ),
        ("apply_supersede", {"proposal_id": "p-zzz"}, "proposal-not-found"),
        ("apply_supersede", {"proposal_id": "../../etc/passwd"}, "proposal-not-found"),
        ("apply_supersede", {"proposal_id": pid}, "proposal-invalid"),
        ("get_gotcha", {"id": "no-such-entry"}, "entry-not-found"),
        ("list_gotchas", {"record": ".claude"}, "unsafe-path"),  # a record argument names a lessons file
    ]
    async with Client(build(ws)) as client:
        for tool, arguments, code in cases:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            assert code in text, (tool, code, text)
            assert "Traceback" not in text
            assert (project / RECORD).read_bytes() == before

        (project / RECORD).write_bytes(DUPLICATE_IDS)
        result = await client.call_tool("propose_supersede", good(target_id="retries"))
        assert result.is_error
        assert "entry-ambiguous" in " ".join(getattr(c, "text", "") for c in result.content)
        assert (project / RECORD).read_bytes() == DUPLICATE_IDS
