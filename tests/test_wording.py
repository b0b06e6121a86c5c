"""Counts that read as English in what the CLI prints: "1 entry" / "2 entries",
"1 hypothesis" / "2 hypotheses", "1 proposal" / "2 proposals", "1 warning" / "2 errors"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gotchas.wording import counted, plural
from support.clients import gotchas as cli
from support.project import write_record


@pytest.mark.parametrize(
    ("n", "noun", "expected"),
    [
        (1, "hypothesis", "1 hypothesis"),
        (2, "hypothesis", "2 hypotheses"),
        (1, "entry", "1 entry"),
        (3, "entry", "3 entries"),
        (0, "entry", "0 entries"),
        (1, "proposal", "1 proposal"),
        (2, "proposal", "2 proposals"),
        (2, "warning", "2 warnings"),
        (2, "damaged ledger line", "2 damaged ledger lines"),
        (2, "held correction", "2 held corrections"),
        (2, "key", "2 keys"),
        (2, "box", "2 boxes"),
    ],
)
def test_counted(n: int, noun: str, expected: str) -> None:
    assert counted(n, noun) == expected


def test_plural_changes_only_the_last_word() -> None:
    assert plural("root-cause hypothesis") == "root-cause hypotheses"


LESSON = """
### {title}

tasks: #7 · root-cause: {cause}
diagnostic: the log shows it

{body}
"""


def record(*lessons: tuple[str, str]) -> bytes:
    parts = ["# Lessons\n"]
    parts += [LESSON.format(title=t, cause="confirmed", body=b) for t, b in lessons]
    return "".join(parts).encode()


ONE = record(("Pin the wheel index", "Install from the CUDA index."))
TWO = record(("Pin the wheel index", "Install from the CUDA index."), ("Retry downloads", "Retry thrice."))


@pytest.mark.parametrize(("data", "count"), [(ONE, "1 entry"), (TWO, "2 entries")])
def test_list_and_verify_count_entries(tmp_path: Path, data: bytes, count: str) -> None:
    root = tmp_path / "project"
    write_record(root, data)
    listed = cli(root, "list", "--format", "table")
    verified = cli(root, "verify")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[-1] == count
    assert verified.stdout.splitlines()[-1].endswith(f" in {count}: ok")


def test_verify_counts_one_error_and_two_errors(tmp_path: Path) -> None:
    root = tmp_path / "project"
    one = LESSON.format(title="Alpha", cause="confirmed", body="a").replace(
        "root-cause: confirmed", "root-cause: confirmed · supersedes: no-such-one (for #7)"
    )
    two = one + one.replace("Alpha", "Beta").replace("no-such-one", "no-such-two")
    write_record(root, ("# Lessons\n" + one).encode())
    first = cli(root, "verify").stdout.splitlines()[-1]
    write_record(root, ("# Lessons\n" + two).encode())
    second = cli(root, "verify").stdout.splitlines()[-1]
    assert "1 problem (1 error, 0 warnings) in 1 entry: failed" in first
    assert "2 problems (2 errors, 0 warnings) in 2 entries: failed" in second


def propose(root: Path, title: str) -> None:
    args = ["--title", title, "--body", "Body text.", "--tasks", "#7", "--root-cause", "confirmed"]
    done = cli(root, "propose", *args, "--diagnostic", "the profile shows it")
    assert done.returncode == 0, done.stderr


def test_proposals_count_one_and_two(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_record(root, ONE)
    propose(root, "Cache the tokenizer")
    one = cli(root, "proposals").stdout.splitlines()[-1]
    propose(root, "Bound the queue")
    two = cli(root, "proposals").stdout.splitlines()[-1]
    assert (one, two) == ("1 proposal", "2 proposals")


def test_history_counts_one_and_two_hypotheses(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_record(root, ONE)
    one = cli(root, "history", "#7")
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("#7: 1 hypothesis, current: ")
    write_record(root, TWO)
    two = cli(root, "history", "#7")
    assert two.stdout.startswith("#7: 2 hypotheses, current: ")
    assert len(json.loads(cli(root, "history", "#7", "--json").stdout)["entries"]) == 2
