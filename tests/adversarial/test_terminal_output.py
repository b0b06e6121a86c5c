"""A hostile lesson cannot drive the terminal: whatever the record, a proposal, the ledger or
git hands the human CLI, control characters (ESC sequences, CR, BEL, DEL, C1) and Unicode
bidi overrides are printed as escapes, never raw. ``--json`` stays exact JSON of the same
values. Runs the real CLI on a record written here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gotchas.terminal import json_printable, printable
from support.clients import git
from support.clients import gotchas as cli
from support.project import write_record

# C0 but LF and TAB, DEL, C1, bidi embeddings/overrides/isolates (a CR only inside CRLF)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

EVIL_ID = "evil\x1b]0;owned\x07-id\u202e"
HOSTILE = (
    "# Lessons\n\n"
    "### Clear \x1b[2J the screen \x07 now \u202egnp.exe \x9b31m\n\n"
    "tasks: #664 · root-cause: confirmed\n"
    f"id: {EVIL_ID}\n"
    "diagnostic: the bell \x07 rings \x1b[31mred\x7f\n\n"
    "Body with \x1b[31mred\x1b[0m and a carriage\rreturn \u2066isolated\u2069.\n\n"
    "### Second \x1b[1A lesson\n\n"
    "tasks: #664 · root-cause: confirmed · supersedes: nothing\x1b[2J (for #664)\n"
    "diagnostic: seen \x1b[2K\n\n"
    "Text.\n"
)


def assert_inert(text: str) -> None:
    found = RAW.findall(text.replace("\r\n", "\n"))
    assert not found, f"raw control characters {found!r} in {text!r}"


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_record(root, HOSTILE.encode())
    (tmp_path / "home").mkdir()
    return root


COMMANDS = [
    ("list",),
    ("list", "--verbose"),
    ("show", EVIL_ID),
    ("show", "second-1a-lesson"),
    ("show", "evil"),  # not found: the "did you mean" quotes the id
    ("verify",),
    ("verify", "--format", "github"),
    ("history", "#664"),
    ("outline",),
    ("proposals",),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a)[:20])
def test_human_output_holds_no_raw_control_characters(hostile: Path, args: tuple[str, ...]) -> None:
    done = cli(hostile, *args)
    assert "internal error" not in done.stderr
    assert_inert(done.stdout)
    assert_inert(done.stderr)
    assert done.stdout or done.stderr


def test_the_escapes_show_what_was_there(hostile: Path) -> None:
    listed = cli(hostile, "list").stdout
    assert "Clear \\x1b[2J the screen \\x07 now \\u202egnp.exe \\x9b31m" in listed
    assert "evil\\x1b]0;owned\\x07-id\\u202e" in listed
    shown = cli(hostile, "show", EVIL_ID).stdout
    assert "carriage\nreturn" in shown  # a CR line break in the record is a line break
    assert "\\u2066isolated\\u2069" in shown


JSON_COMMANDS = [("list", "--json"), ("show", EVIL_ID, "--json"), ("history", "#664", "--json")]
TITLE = "Clear \x1b[2J the screen \x07 now \u202egnp.exe \x9b31m"


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=lambda a: " ".join(a)[:20])
def test_json_output_is_exact_json_and_inert(hostile: Path, args: tuple[str, ...]) -> None:
    """Escaped on the wire, the values themselves exact: the id and title as the record holds them."""
    done = cli(hostile, *args)
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout)
    found = strings(json.loads(done.stdout))
    assert EVIL_ID in found and TITLE in found


def test_ledger_and_git_text_are_inert(hostile: Path) -> None:
    state = hostile / ".claude" / "gotchas"
    state.mkdir(parents=True)
    line = {"task": "#664", "state": "running", "at": "2026-01-02T03:04:05Z", "by": "ci\x1b[2J\rroot\u202e"}
    (state / "tasks.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    git(hostile, "init", "-q", "-b", "main")
    git(hostile, "add", "-A")
    git(
        hostile,
        "commit",
        "-qm",
        "Tidy \x1b[2J up\n\nFixes #665 \x1b]8;;http://evil.example\x07here\x1b]8;;\x07",
    )
    for args in (
        ("task", "show", "#664"),
        ("check-hold", "predicate-665-lands"),
        ("check-hold", "predicate-665-lands", "--json"),
    ):
        done = cli(hostile, *args)
        assert "internal error" not in done.stderr
        assert_inert(done.stdout)
        assert_inert(done.stderr)
    assert "ci\\x1b[2J\\x0droot\\u202e" in cli(hostile, "task", "show", "#664").stdout


def test_printable_keeps_text_and_escapes_the_rest() -> None:
    assert printable("plain\ttext\nnext line\r\n") == "plain\ttext\nnext line\r\n"
    assert (
        printable("a\x1b[2Jb\rc\x07\x7f\x9b\u202ed\u2069") == "a\\x1b[2Jb\\x0dc\\x07\\x7f\\x9b\\u202ed\\u2069"
    )
    assert printable(printable("\x1b\u202e")) == printable("\x1b\u202e")
    dumped = json.dumps({"t": "x\x1b\x9b\u202e\x7f"}, ensure_ascii=False)
    assert json.loads(json_printable(dumped)) == {"t": "x\x1b\x9b\u202e\x7f"}
    assert_inert(json_printable(dumped))


def test_a_forged_proposal_cannot_drive_the_terminal(hostile: Path) -> None:
    """A proposal file rewritten by hand (its id and checksum recomputed, as anyone can) with
    escape sequences in its title and new id: listing and applying it print them inert."""
    import dataclasses

    from gotchas import proposal

    made = cli(
        hostile, "propose", "--title", "Plain title", "--body", "Text.", "--tasks", "#7",
        "--root-cause", "confirmed", "--diagnostic", "seen in the log", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    folder = hostile / ".claude" / "gotchas" / "proposals"
    honest = proposal.load(folder, json.loads(made.stdout)["proposal_id"])
    lesson = dataclasses.replace(honest.lesson, title="Forged \x1b[2J\x1b]0;owned\x07 \u202etitle")
    forged = dataclasses.replace(honest, lesson=lesson, new_id="forged\x1b[1A\r\x9bid")
    forged = dataclasses.replace(forged, id=proposal.make_id(forged))
    (folder / f"{honest.id}.json").unlink()
    proposal.save(folder, forged)
    for args in (("proposals",), ("apply", forged.id), ("session-start",)):
        done = cli(hostile, *args)
        assert "internal error" not in done.stderr
        assert_inert(done.stdout)
        assert_inert(done.stderr)
