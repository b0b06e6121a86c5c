"""Hold decisions: states per predicate, precedence between sources, failures, config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gotchas.config import Config, load_config, parse_config
from gotchas.errors import ConfigError, PredicateError
from gotchas.holds import registry
from gotchas.holds.check import check_hold
from gotchas.holds.decision import EXIT_CODES, HoldState, combine, evaluate, outcome_for
from gotchas.holds.predicate import Predicate, parse_predicates
from gotchas.holds.sources import TASK_STATES, Observation, TaskState, parse_state
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import CONFIG_PATH

NOW = "2026-11-30T06:00:00Z"


def seen(source: str, state: TaskState | None, **evidence: object) -> Observation:
    return Observation(source, state, [{"source": source, **evidence}], NOW)


def failed(source: str, message: str = "boom") -> Observation:
    return Observation(source, None, [{"source": source, "error": message}], NOW, error=message)


def decide(predicate: str, *observations: Observation) -> tuple[HoldState, list[dict[str, object]]]:
    predicates = parse_predicates(predicate)
    answer = evaluate(predicates, {predicates[0].task: list(observations)}, NOW)
    return answer.state, answer.tasks[0].evidence


def write_config(root: Path, text: str) -> None:
    path = root / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- what a task state means for a predicate -----------------------------------------------


@pytest.mark.parametrize(
    ("state", "lands", "terminal"),
    [
        ("open", "held", "held"),
        ("running", "held", "held"),
        ("landed", "released", "released"),
        ("abandoned", "unsatisfiable", "released"),
        ("cancelled", "unsatisfiable", "released"),
        ("failed", "unsatisfiable", "released"),
        (None, "unknown", "unknown"),
    ],
)
def test_each_task_state_decides_each_predicate_kind(
    state: str | None, lands: HoldState, terminal: HoldState
) -> None:
    assert outcome_for("lands", state) == lands
    assert outcome_for("terminal", state) == terminal


@pytest.mark.parametrize(
    ("outcomes", "combined"),
    [
        (["released", "released"], "released"),
        (["released", "held"], "held"),
        (["held", "unsatisfiable"], "unsatisfiable"),
        (["released", "unknown"], "unknown"),
        (["unknown", "held"], "held"),
        ([], "unknown"),
    ],
)
def test_joined_predicates_release_only_together(outcomes: list[HoldState], combined: HoldState) -> None:
    assert combine(outcomes) == combined


def test_exit_codes_let_a_script_branch_on_the_answer() -> None:
    assert EXIT_CODES == {"released": 0, "held": 3, "unsatisfiable": 4, "unknown": 5}


# --- when sources disagree ----------------------------------------------------------------


def test_a_landing_seen_in_git_outranks_a_stale_ledger_line_and_says_so() -> None:
    state, evidence = decide(
        "predicate-664-lands",
        seen("ledger", "running", line=3),
        seen("git", "landed", commit="abc"),
    )
    assert state == "released"
    assert evidence[0] == {"source": "git", "commit": "abc"}
    assert evidence[1] == {
        "source": "precedence",
        "chosen": "git",
        "state": "landed",
        "overruled": [{"source": "ledger", "state": "running"}],
        "rule": "a landing observed in git, GitHub or the tracker outranks every other answer",
    }
    assert evidence[2] == {"source": "ledger", "line": 3}


def test_not_planned_on_github_outranks_a_ledger_landing() -> None:
    state, evidence = decide("predicate-664-lands", seen("ledger", "landed"), seen("github", "abandoned"))
    assert state == "unsatisfiable"
    assert evidence[0]["source"] == "github"


def test_a_terminal_ledger_line_outranks_an_issue_left_open() -> None:
    state, evidence = decide("predicate-664-lands", seen("github", "running"), seen("ledger", "landed"))
    assert state == "released"
    assert evidence[1]["rule"] == "a terminal state outranks an unfinished one: tasks only move forward"


def test_between_equal_evidence_the_first_listed_source_wins() -> None:
    state, evidence = decide("predicate-664-terminal", seen("command", "failed"), seen("github", "abandoned"))
    assert state == "released"
    assert evidence[0]["source"] == "command"
    assert "listed first" in str(evidence[1]["rule"])
    state, evidence = decide("predicate-664-lands", seen("ledger", "open"), seen("github", "running"))
    assert state == "held"
    assert evidence[0]["source"] == "ledger"


def test_agreeing_sources_need_no_precedence_note() -> None:
    state, evidence = decide("predicate-664-lands", seen("ledger", "landed"), seen("git", "landed"))
    assert state == "released"
    assert all(e["source"] != "precedence" for e in evidence)


def test_no_source_knowing_the_task_is_unknown_with_their_notes() -> None:
    state, evidence = decide("predicate-664-lands", seen("git", None, note="no commit"))
    assert state == "unknown"
    assert evidence == [{"source": "git", "note": "no commit"}]


# --- failures ------------------------------------------------------------------------------


def test_a_failed_source_that_could_outrank_the_winner_blocks_the_release() -> None:
    state, evidence = decide(
        "predicate-664-lands", seen("ledger", "landed"), failed("github", "rate limited; retry after X")
    )
    assert state == "unknown"
    assert {"source": "github", "error": "rate limited; retry after X"} in evidence
    caution = next(e for e in evidence if e["source"] == "hold")
    assert "github failed" in str(caution["note"])


def test_a_failed_source_that_could_only_agree_does_not_block() -> None:
    state, evidence = decide("predicate-664-lands", seen("ledger", "landed"), failed("git"))
    assert state == "released"
    assert {"source": "git", "error": "boom"} in evidence


def test_every_source_failing_is_unknown_with_every_error() -> None:
    state, evidence = decide("predicate-664-lands", failed("ledger", "a"), failed("git", "b"))
    assert state == "unknown"
    assert [e["error"] for e in evidence] == ["a", "b"]


SOURCES = ("ledger", "git", "github", "command")
FAIL = "fail"


def answers_to_state(kind: str, answers: list[str | None]) -> HoldState:
    """The hold for one task whose sources (in SOURCES order) answered ``answers``."""
    observations = [
        failed(name) if answer == FAIL else seen(name, parse_state(answer))
        for name, answer in zip(SOURCES, answers, strict=True)
    ]
    predicate = [Predicate("#1", "lands" if kind == "lands" else "terminal")]
    return evaluate(predicate, {"#1": observations}, NOW).state


@given(
    kind=st.sampled_from(["lands", "terminal"]),
    answers=st.lists(st.sampled_from([None, FAIL, *TASK_STATES]), min_size=4, max_size=4),
)
def test_a_failure_never_releases_what_a_real_answer_would_not(kind: str, answers: list[str | None]) -> None:
    """Released despite failures means released whatever the failed sources could have said."""
    if FAIL not in answers or answers_to_state(kind, answers) != "released":
        return
    broken = [index for index, answer in enumerate(answers) if answer == FAIL]
    for index in broken:
        for possible in [None, *sorted(registry.BY_NAME[SOURCES[index]].can_report)]:
            filled = [None if i in broken else answer for i, answer in enumerate(answers)]
            filled[index] = possible
            assert answers_to_state(kind, filled) == "released", (index, possible, answers)


# --- the answer ----------------------------------------------------------------------------


def test_one_verdict_per_task_even_when_two_predicates_name_it() -> None:
    predicates = parse_predicates("predicate-664-lands+predicate-664-terminal")
    answer = evaluate(predicates, {"#664": [seen("ledger", "abandoned")]}, NOW)
    assert answer.state == "unsatisfiable"
    assert len(answer.tasks) == 1
    assert answer.predicate == "predicate-664-lands+predicate-664-terminal"


def test_the_answer_is_json_ready(tmp_path: Path) -> None:
    set_task_state(tmp_path, "664", "running", "ana")
    write_config(tmp_path, '[holds]\nsources = ["ledger"]\n')
    answer = check_hold("predicate-664-lands", tmp_path)
    data = json.loads(json.dumps(answer.to_view()))
    assert set(data) == {"predicate", "state", "tasks", "checked_at", "release"}
    assert data["state"] == "held"
    (task,) = data["tasks"]
    assert set(task) == {"task", "state", "source", "evidence", "observed_at"}
    assert task["evidence"][0]["by"] == "ana"
    assert data["checked_at"].endswith("Z")


def test_a_malformed_predicate_raises_before_any_source_is_asked(tmp_path: Path) -> None:
    write_config(tmp_path, "this is not toml")
    with pytest.raises(PredicateError):
        check_hold("predicate-abc-lands;rm -rf /", tmp_path)


def test_the_scenario_story_through_the_ledger_alone(tmp_path: Path) -> None:
    write_config(tmp_path, '[holds]\nsources = ["ledger"]\n')
    assert check_hold("predicate-664-lands", tmp_path).state == "unknown"
    set_task_state(tmp_path, "664", "running", "session")
    assert check_hold("predicate-664-lands", tmp_path).state == "held"
    set_task_state(tmp_path, "664", "landed", "session")
    answer = check_hold("predicate-664-lands", tmp_path)
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["line"] == 2


# --- config --------------------------------------------------------------------------------


def test_zero_config_uses_the_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == Config(root=tmp_path)
    assert config.record == ".claude/rules/gotchas.md"
    assert config.record_path == tmp_path / ".claude/rules/gotchas.md"
    assert config.holds.sources == ("ledger", "git")
    assert config.holds.git.branch is None
    assert config.holds.github.base_url == "https://api.github.com"
    assert config.holds.github.token_env == "GITHUB_TOKEN"
    assert config.holds.command.argv == ()


def test_a_full_config_file_is_read(tmp_path: Path) -> None:
    write_config(
        tmp_path,
        """
record = "docs/lessons.md"

[holds]
sources = ["github", "git", "ledger", "command"]

[holds.git]
branch = "trunk"

[holds.github]
repo = "octo/proj"
base_url = "https://ghe.example.com/api/v3/"
token_env = "GHE_TOKEN"
timeout = 5

[holds.command]
argv = ["linear-state", "--issue={task}"]
timeout = 12.5
""",
    )
    config = load_config(tmp_path)
    assert config.record == "docs/lessons.md"
    assert config.holds.sources == ("github", "git", "ledger", "command")
    assert config.holds.git.branch == "trunk"
    assert config.holds.github.repo == "octo/proj"
    assert config.holds.github.base_url == "https://ghe.example.com/api/v3"
    assert config.holds.github.token_env == "GHE_TOKEN"
    assert config.holds.github.timeout == 5.0
    assert config.holds.command.argv == ("linear-state", "--issue={task}")
    assert config.holds.command.timeout == 12.5


def test_an_unknown_top_level_table_is_refused_naming_the_known_keys(tmp_path: Path) -> None:
    """A key the file does not know is a typo or a setting that does nothing: refused."""
    from gotchas.errors import UnknownConfigKey

    known = "unknown key 'journal'; known: check, checkboxes, entries, holds"
    with pytest.raises(UnknownConfigKey, match=known):
        parse_config("[journal]\nkeep = 10\n", tmp_path)
    with pytest.raises(UnknownConfigKey, match="unknown key 'hold'; did you mean 'holds'"):
        parse_config('[hold]\nsources = ["git"]\n', tmp_path)


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        ("record = ", "not valid TOML"),
        ("record = 3", "record"),
        ('record = "../outside.md"', "inside the project"),
        ('record = "/etc/passwd"', "inside the project"),
        ("holds = 1", "[holds] must be a table"),
        ('[holds]\nsources = ["ledger", "jira"]', "unknown source 'jira'"),
        ('[holds]\nsources = "git"', "list of names"),
        ('[holds]\nsources = ["git", "git"]', "twice"),
        ("[holds]\nsources = []", "empty"),
        ('[holds]\nsorces = ["git"]', "unknown key 'sorces'"),
        ('[holds.github]\nrepo = "justaname"', "owner/name"),
        ('[holds.github]\nbase_url = "ftp://x"', "http(s) URL"),
        ("[holds.github]\ntimeout = 0", "positive number"),
        ('[holds.git]\nbranch = ""', "non-empty"),
        ('[holds.command]\nargv = "tool {task}"', "list of strings"),
    ],
)
def test_a_malformed_config_is_refused_with_the_reason(tmp_path: Path, text: str, complaint: str) -> None:
    write_config(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        _ = load_config(tmp_path).holds  # a [holds] mistake is raised where holds are used
    assert complaint in caught.value.message
    assert caught.value.message.startswith(CONFIG_PATH)
