"""Task references: what a person types, and what prose mentions.

The tables hold our own examples of every shape: references that must be found, and
look-alikes (colours, versions, model and hardware names, ordinals, ids of other kinds)
that must not. The last test scores the labelled corpus beside the repository.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gotchas import query, record, taskref
from gotchas.config import parse_config
from gotchas.errors import ConfigError, TaskRefError
from support import taskscore
from support.clients import gotchas_exe, isolated_env

NORMALIZE = [
    ("#664", "#664"),
    ("664", "#664"),
    (" #0664 ", "#664"),
    ("acme/app#12", "acme/app#12"),
    ("Acme/App#12", "acme/app#12"),
    ("https://github.com/Acme/App/issues/12", "acme/app#12"),
    ("https://github.com/acme/app/issues/12", "acme/app#12"),
    ("https://github.com/acme/app/pull/7/", "acme/app#7"),
    ("abc-123", "ABC-123"),
    ("PM-2026-008", "PM-2026-008"),
    ("step-01", "STEP-01"),
]


@pytest.mark.parametrize(("raw", "expected"), NORMALIZE)
def test_normalize_accepts_every_reported_form(raw: str, expected: str) -> None:
    assert taskref.normalize(raw) == expected


@pytest.mark.parametrize("raw", ["", "#", "issue", "#12a", "a b", "ABC-", "12-", "https://example.com/x"])
def test_normalize_refuses_with_the_accepted_forms(raw: str) -> None:
    with pytest.raises(TaskRefError, match="PM-2026-008"):
        taskref.normalize(raw)


MENTIONED = [
    ("Fixed in #664.", ["#664"]),
    ("epochs (#372–#374) landed", ["#372", "#373", "#374"]),
    ("epochs #372-374 landed", ["#372", "#373", "#374"]),
    ("epochs #372 – #374 landed", ["#372", "#373", "#374"]),
    ("the adapter recipe (#404/#458) works", ["#404", "#458"]),
    ("three in a row: #10/#11/#12", ["#10", "#11", "#12"]),
    ("Bug: https://github.com/acme/app/issues/75501", ["acme/app#75501"]),
    ("see https://github.com/acme/app/pull/9#discussion_r1", ["acme/app#9"]),
    ("upstream acme/app#12 broke it", ["acme/app#12"]),
    ("cited in PM-2026-008 and INC-2025-14", ["PM-2026-008", "INC-2025-14"]),
    ("### 2026-02-01 — STEP-03 — Cache", ["STEP-03"]),
    ("tracked as TASK-88 and BUG-9", ["TASK-88", "BUG-9"]),
    ("the Jira ticket WEB-412 says so", ["WEB-412"]),
    ("https://acme.atlassian.net/browse/WEB-77", ["WEB-77"]),
    ("verified on the pod build-issue-162", ["#162"]),
    ("reverted in PR 45", ["#45"]),
    ("---\nrelated_issues: [12, 15]\n---\nbody", ["#12", "#15"]),
    ("---\nrelated_issues: ['#31', '#40']\n---", ["#31", "#40"]),
    ("---\ntickets:\n  - 7\n  - '#9'\ntitle: x\n---", ["#7", "#9"]),
    ("- **Issues:** 20, 21", ["#20", "#21"]),
    ("5 done (#5 and #6)", ["#5", "#6"]),
    ("#3 landed yesterday", ["#3"]),
    ("Large issue #123456 in a big tracker", ["#123456"]),
]


@pytest.mark.parametrize(("text", "expected"), MENTIONED)
def test_mentions_find_every_reference_shape(text: str, expected: list[str]) -> None:
    assert taskref.mentions(text) == expected


NOT_TASKS = [
    "the banner uses `#005840` on dark",
    "background: #141414;",
    "text colour #333 on white",
    "--surface: #1a1a2e",
    "border #fff and fill #ffffff",
    "a grey #202020 band",
    "the CUDA-12.8 toolchain",
    "CUDA-12 toolchain",
    "the GLM-4 tool format; GPT-4 and A100-80 too",
    "Llama-3 and H100-80 nodes",
    "UTF-8, SHA-256, ISO-8601 and RFC-2119",
    "violates INV-041 and ADR-12; see AD-029",
    "placeholder #NNNN and STEP-XX and TASK-N",
    "the #1 agent bug",
    "our #2 cause of outages",
    "see pitfall #34 above",
    "as in lesson #7 and item #12",
    "error E-1234 and ERR-42 in logs",
    "commit abc1234 and #deadbeef",
    "C#1 and F#2",
    "https://example.com/page#L20",
    "&#123; escaped",
    "a date 2026-05-24 and v1.2-3",
    "ABC-1-2 is a version",
    "Issue: the cache fails at 12 workers",
    "took 5 - 10 minutes",
]


@pytest.mark.parametrize("text", NOT_TASKS)
def test_mentions_skip_look_alikes(text: str) -> None:
    assert taskref.mentions(text) == []


def test_declared_keys_count_anywhere() -> None:
    text = "blocked on ABC-123 and PLAT-7; GLM-4 stays a model"
    assert taskref.mentions(text) == []
    assert taskref.mentions(text, taskref.declared_keys(["abc", "PLAT"])) == ["ABC-123", "PLAT-7"]


def test_ranges_are_short_and_increasing() -> None:
    assert taskref.mentions("#10–#9") == ["#10", "#9"]
    assert taskref.mentions("#10-#900 wide") == ["#10", "#900"]
    assert taskref.mentions("after #5 - 10 retries") == ["#5"]


PARSE_LIST = [
    ("#601, #653", ["#601", "#653"]),
    ("601 and 653", ["#601", "#653"]),
    ("[12, 15]", ["#12", "#15"]),
    ("#372–#374", ["#372", "#373", "#374"]),
    ("372-374", ["#372", "#373", "#374"]),
    ("#404/#458", ["#404", "#458"]),
    ("#601 (landed 2026-01-02)", ["#601"]),
    ("ABC-7 blocked by 3 services", ["ABC-7"]),
    ("https://github.com/acme/app/issues/4, PM-2026-008", ["acme/app#4", "PM-2026-008"]),
    ("the cache fails at 12 workers", []),
]


@pytest.mark.parametrize(("value", "expected"), PARSE_LIST)
def test_parse_list(value: str, expected: list[str]) -> None:
    assert taskref.parse_list(value) == expected


def test_every_labelled_task_is_found_on_its_entry() -> None:
    """Score the labelled corpus: no labelled reference missed, few extras (printed)."""
    if not taskscore.LABELS.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{taskscore.LABELS} is missing; the corpus must be beside the repository in CI")
        pytest.skip(f"{taskscore.LABELS} is absent (the shared corpus beside the repository)")
    scores = taskscore.score()
    print(taskscore.report(scores))
    assert [(s.file, s.line, s.missed) for s in scores if s.missed] == []
    # Extras are references the labels leave to another entry or outside every entry;
    # the span rule gives the last entry of a file the rest of it, so a few are expected.
    assert sum(len(s.extra) for s in scores) <= 2


RECORD = """# Lessons

## Epochs drift

Scoped epochs (#372–#374) did not cover the verdicts.

## Adapter persistence

The recipe (#404/#458) keeps adapters.

## Upstream compiler crash

Bug: https://github.com/acme/compiler/issues/75501

## Alerts never added

Raised in PM-2026-008 and again in PM-2026-016.

## Palette

The banner colour is `#005840`; GLM-4 and CUDA-12 are not tasks.

## Platform keys

Blocked on PLAT-42 for a week.
"""


@pytest.mark.parametrize(
    ("task", "titles"),
    [
        ("#373", ["Epochs drift"]),
        ("374", ["Epochs drift"]),
        ("#458", ["Adapter persistence"]),
        ("acme/compiler#75501", ["Upstream compiler crash"]),
        ("https://github.com/acme/compiler/issues/75501", ["Upstream compiler crash"]),
        ("PM-2026-016", ["Alerts never added"]),
        ("#5840", []),
        ("GLM-4", []),
        ("CUDA-12", []),
        ("PLAT-42", []),
    ],
)
def test_task_filter_on_a_record(task: str, titles: list[str]) -> None:
    parsed = record.parse(RECORD.encode())
    assert [e.title for e in query.select(parsed, task=task)] == titles


def test_declared_keys_reach_the_task_filter() -> None:
    parsed = record.parse(RECORD.encode(), task_keys=["plat"])
    assert [e.title for e in query.select(parsed, task="PLAT-42")] == ["Platform keys"]
    assert parsed.mentions(parsed.entries[-1]) == ("PLAT-42",)


def test_tasks_config_declares_keys(tmp_path: Path) -> None:
    config = parse_config('[tasks]\nkeys = ["abc", "PM", "ABC"]\n', tmp_path)
    assert config.tasks.keys == ("ABC", "PM")
    assert parse_config("", tmp_path).tasks.keys == ()


@pytest.mark.parametrize(
    "text",
    [
        "[tasks]\nkeys = 'ABC'\n",
        '[tasks]\nkeys = ["AB-C"]\n',
        '[tasks]\nkeys = ["1AB"]\n',
        '[tasks]\nkeys = ["ABCDEFGHIJK"]\n',
        "[tasks]\nkeys = [1]\n",
        '[tasks]\nprefixes = ["ABC"]\n',
        "tasks = 3\n",
    ],
)
def test_tasks_config_refuses_bad_keys(tmp_path: Path, text: str) -> None:
    with pytest.raises(ConfigError, match="tasks"):
        parse_config(text, tmp_path)


def test_cli_lists_by_declared_key_and_incident_key(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "rules" / "gotchas.md").write_text(RECORD, encoding="utf-8")

    def listed(task: str) -> list[str]:
        done = subprocess.run(
            [gotchas_exe(), "--root", str(root), "list", "--json", "--verbose", "--task", task],
            capture_output=True,
            text=True,
            timeout=60,
            env=isolated_env(tmp_path / "home"),
        )
        assert done.returncode == 0, done.stderr
        return [str(e["title"]) for e in json.loads(done.stdout)["entries"]]

    assert listed("PM-2026-008") == ["Alerts never added"]
    assert listed("PLAT-42") == []
    (root / ".claude" / "gotchas.toml").write_text('[tasks]\nkeys = ["PLAT"]\n', encoding="utf-8")
    assert listed("PLAT-42") == ["Platform keys"]
    bad = subprocess.run(
        [gotchas_exe(), "--root", str(root), "list", "--task", "not a task"],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(tmp_path / "home"),
    )
    assert bad.returncode != 0
    assert "PM-2026-008" in bad.stderr


def test_repository_references_match_whatever_their_case() -> None:
    data = b"# Gotchas\n\n- Theme switch reloads; see Acme/API#45.\n- Other: https://github.com/ACME/Api/pull/46.\n"
    parsed = record.parse(data)
    for typed, line in (("acme/api#45", 3), ("ACME/api#45", 3), ("Acme/API#46", 4)):
        assert [e.start_line for e in parsed.for_task(taskref.normalize(typed))] == [line]


def test_aliases_join_a_bare_number_and_the_projects_own_repository() -> None:
    assert taskref.aliases("#45", None) == ("#45",)
    assert taskref.aliases("#45", "Acme/API") == ("#45", "acme/api#45")
    assert taskref.aliases("acme/api#45", "acme/api") == ("acme/api#45", "#45")
    assert taskref.aliases("tools/lint#45", "acme/api") == ("tools/lint#45",)


def test_cli_finds_the_projects_own_repository_references_by_number(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "rules" / "gotchas.md").write_text(
        "# Gotchas\n\n- Theme switch reloads, see acme/api#45.\n- Tooltips clip, fixed in #46.\n"
        "- Lint noise, tools/lint#45.\n",
        encoding="utf-8",
    )

    def listed(task: str) -> list[int]:
        done = subprocess.run(
            [gotchas_exe(), "--root", str(root), "list", "--json", "--task", task],
            capture_output=True,
            text=True,
            timeout=60,
            env=isolated_env(tmp_path / "home"),
        )
        assert done.returncode == 0, done.stderr
        return [int(e["lines"][0]) for e in json.loads(done.stdout)["entries"]]

    assert listed("#45") == []  # no declared repository: a bare number is not acme/api's
    (root / ".claude" / "gotchas.toml").write_text('[holds.github]\nrepo = "acme/api"\n', encoding="utf-8")
    assert listed("#45") == [3]
    assert listed("ACME/API#46") == [4]
    assert listed("tools/lint#45") == [5]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("## #11 Cache misses\n\nBody.", []),  # the heading's own number in the file
        ("### Issue #1: Null pointer on start", []),
        ("### Issue #664 is the real one", ["#664"]),  # three digits: a tracker's number
        ("## Fix for #12", ["#12"]),
        ("the merge rules (#838) broke the build", ["#838"]),  # an aside's reference, not `rule #838`
        ("see rule #3 above", []),
        ("see #888 for the details", ["#888"]),  # a grey only beside a colour
        ("Dark text on light: #333 on #FFF", []),
        ("color #888 for borders", []),
    ],
)
def test_heading_ordinals_asides_and_greys(text: str, found: list[str]) -> None:
    assert taskref.mentions(text) == found
