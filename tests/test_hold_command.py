"""The command source: a tracker program run with ``{task}`` as one argument, never a shell."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gotchas.holds.check import check_hold
from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.command import CommandSource, command_argv, parse_command_output
from gotchas.workspace import CONFIG_PATH
from support.project import allow

TRACKER = """
import json, sys, time
task = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "ok"
states = {"ABC-123": "landed", "ABC-124": "running", "ABC-125": "cancelled", "#664": "abandoned"}
if mode == "argv":
    print(json.dumps({"state": "open", "detail": json.dumps(sys.argv[1:])}))
elif mode == "fail":
    print("looking up", task)
    print("error: tracker token expired", file=sys.stderr)
    sys.exit(3)
elif mode == "garbage":
    print("Task is DONE")
elif mode == "weird":
    print(json.dumps({"state": "shipped"}))
elif mode == "nostate":
    print(json.dumps({"status": "landed"}))
elif mode == "slow":
    time.sleep(10)
else:
    state = states.get(task)
    print(json.dumps({"state": state, "url": f"https://tracker.example/{task}", "detail": "from test"}))
"""


@pytest.fixture
def tracker(tmp_path: Path) -> Path:
    script = tmp_path / "tracker.py"
    script.write_text(TRACKER, encoding="utf-8")
    return script


def run(tmp_path: Path, tracker: Path, task: str, *extra: str, timeout: float = 20.0) -> CommandSource:
    return CommandSource(tmp_path, [sys.executable, str(tracker), "{task}", *extra], timeout=timeout)


@pytest.mark.parametrize(
    ("task", "state"),
    [("ABC-123", "landed"), ("ABC-124", "running"), ("ABC-125", "cancelled"), ("#664", "abandoned")],
)
def test_the_printed_state_is_the_task_state(tmp_path: Path, tracker: Path, task: str, state: str) -> None:
    observed = run(tmp_path, tracker, task).observe(task)
    assert observed.state == state
    evidence = observed.evidence[0]
    assert evidence["source"] == "command"
    assert evidence["url"] == f"https://tracker.example/{task}"
    assert evidence["detail"] == "from test"
    assert evidence["argv"] == [sys.executable, str(tracker), task]


def test_a_null_state_means_the_tracker_does_not_know_the_task(tmp_path: Path, tracker: Path) -> None:
    observed = run(tmp_path, tracker, "ZZZ-1").observe("ZZZ-1")
    assert observed.state is None
    assert observed.error is None


def test_the_task_reaches_the_program_as_one_argument(tmp_path: Path, tracker: Path) -> None:
    observed = run(tmp_path, tracker, "x", "argv").observe("octo/proj#7")
    assert json.loads(str(observed.evidence[0]["detail"])) == ["octo/proj#7", "argv"]


def test_the_template_is_filled_inside_arguments_and_never_split() -> None:
    hostile = "a b; rm -rf / $(whoami)"
    assert command_argv(["tool", "--id={task}", "{task}"], hostile) == [
        "tool",
        f"--id={hostile}",
        hostile,
    ]


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("fail", "exited with status 3: error: tracker token expired"),
        ("garbage", "printed 'Task is DONE', not JSON"),
        ("weird", "unknown state 'shipped'"),
        ("nostate", 'without a "state" field'),
    ],
)
def test_a_misbehaving_program_is_a_clear_error(
    tmp_path: Path, tracker: Path, mode: str, message: str
) -> None:
    with pytest.raises(SourceFailed) as caught:
        run(tmp_path, tracker, "x", mode).observe("ABC-123")
    assert message in caught.value.message


def test_a_program_that_hangs_is_stopped_at_the_timeout(tmp_path: Path, tracker: Path) -> None:
    with pytest.raises(SourceFailed, match=r"timed out after 0\.5s"):
        run(tmp_path, tracker, "x", "slow", timeout=0.5).observe("ABC-123")


def test_a_missing_program_is_named(tmp_path: Path) -> None:
    source = CommandSource(tmp_path, ["no-such-tracker-cli-xyz", "{task}"])
    with pytest.raises(SourceFailed, match="not found: no-such-tracker-cli-xyz"):
        source.observe("ABC-1")


def test_state_names_are_case_insensitive() -> None:
    assert parse_command_output(b'{"state": "Landed"}')[0] == "landed"
    assert parse_command_output(b'{"state": "unknown"}')[0] is None


def configure(root: Path, tracker: Path, *extra: str) -> None:
    """The repository asks for the command source; the user's trust file names the program."""
    path = root / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[holds]\nsources = ["ledger", "command"]\n')
    user_config = Path(os.environ["GOTCHAS_USER_CONFIG"])
    allow(user_config, root, command=[sys.executable, str(tracker), "{task}", *extra])


def test_through_check_hold_a_tracker_landing_releases(tmp_path: Path, tracker: Path) -> None:
    configure(tmp_path, tracker)
    answer = check_hold("predicate-ABC-123-lands+predicate-ABC-125-terminal", tmp_path)
    assert answer.state == "released"
    assert [t.source for t in answer.tasks] == ["command", "command"]


def test_through_check_hold_a_broken_tracker_releases_nothing(tmp_path: Path, tracker: Path) -> None:
    configure(tmp_path, tracker, "fail")
    answer = check_hold("predicate-ABC-123-terminal", tmp_path)
    assert answer.state == "unknown"
    error = answer.tasks[0].evidence[0]
    assert error["source"] == "command"
    assert "exited with status 3" in str(error["error"])
    assert error["exit_status"] == 3
