"""The record's git merge driver, driven by real git in two real clones: insertion-only
corrections on both sides merge either way and verify; two corrections of the same entry,
or edits of the same lines, leave conflict markers; a human edit elsewhere merges."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gotchas import merge, record
from support.clients import RECORD_PATH, git, git_env, gotchas_exe, make_scenario_repo, run_gotchas
from support.project import TARGET

ATTRIBUTES = f"{RECORD_PATH} merge=gotchas\n.claude/gotchas/journal.jsonl merge=union\n"


def clone(origin: Path, name: str) -> Path:
    path = origin.parent / name
    git(origin.parent, "clone", "-q", str(origin), name)
    git(path, "config", "user.name", f"{name} keeper")
    git(path, "config", "user.email", f"{name}@example.invalid")
    git(path, "config", "merge.gotchas.driver", f"{gotchas_exe()} merge-record %O %A %B %P")
    return path


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    root = tmp_path / "origin"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    (root / ".gitattributes").write_text(ATTRIBUTES, "utf-8")
    git(root, "add", ".gitattributes")
    git(root, "commit", "-q", "-m", "Merge the record with gotchas")
    return root


def ids(root: Path) -> list[str]:
    return [e.id for e in record.parse((root / RECORD_PATH).read_bytes()).entries]


def correct(root: Path, target: str, task: str, title: str) -> str:
    args = ["propose", "--no-hold", "--json", "--target-id", target, "--task", task, "--title", title]
    args += ["--body", f"What {task} really taught.", "--diagnostic", f"how to recognise {task}'s cause"]
    proposed: dict[str, Any] = json.loads(run_gotchas(root, *args).stdout)
    run_gotchas(root, "apply", proposed["proposal_id"], "--commit")
    return str(proposed["new_id"])


def pull(into: Path, other: Path) -> subprocess.CompletedProcess[str]:
    git(into, "fetch", "-q", str(other), "main")
    return subprocess.run(
        ["git", "merge", "--no-edit", "FETCH_HEAD"], cwd=into, env=git_env(), capture_output=True, text=True
    )


@pytest.mark.parametrize("direction", ["a-merges-b", "b-merges-a"])
def test_two_clones_with_different_corrections_merge_either_way(origin: Path, direction: str) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    last = ids(origin)[-1]
    new_a = correct(a, TARGET, "#664", "Tokenizer reloads starved the #664 run")
    new_b = correct(b, last, "#700", "Shallow clones were not why #700 failed")
    into, other = (a, b) if direction == "a-merges-b" else (b, a)
    done = pull(into, other)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "<<<<<<<" not in (into / RECORD_PATH).read_text("utf-8")
    assert {new_a, new_b} <= set(ids(into))
    assert run_gotchas(into, "verify").returncode == 0
    journal = (into / ".claude/gotchas/journal.jsonl").read_text("utf-8").splitlines()
    assert sorted(json.loads(line)["new_id"] for line in journal) == sorted([new_a, new_b])
    for side in (a, b):
        kept = record.parse((side / RECORD_PATH).read_bytes())
        merged = record.parse((into / RECORD_PATH).read_bytes())
        new = new_a if side is a else new_b
        assert merged.text(merged.get(new)) == kept.text(kept.get(new))


def test_the_same_entry_corrected_on_both_sides_is_a_conflict(origin: Path) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    correct(a, TARGET, "#664", "Tokenizer reloads starved the #664 run")
    correct(b, TARGET, "#664", "Prefix caching thrashed in the #664 run")
    done = pull(a, b)
    assert done.returncode != 0
    text = (a / RECORD_PATH).read_text("utf-8")
    assert "<<<<<<< ours" in text and "=======" in text and ">>>>>>> theirs" in text
    assert str(RECORD_PATH) in git(a, "diff", "--name-only", "--diff-filter=U")


def test_a_human_edit_and_a_correction_on_different_lines_merge(origin: Path) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    path = a / RECORD_PATH
    path.write_text(
        path.read_text("utf-8").replace("fetch-depth: 0", "fetch-depth: 0 and fetch-tags: true"), "utf-8"
    )
    git(a, "commit", "-q", "-am", "Say how to fetch tags")
    new_b = correct(b, TARGET, "#664", "Tokenizer reloads starved the #664 run")
    for into, other in ((a, b), (b, a)):
        done = pull(into, other)
        assert done.returncode == 0, done.stdout + done.stderr
        text = (into / RECORD_PATH).read_text("utf-8")
        assert "fetch-tags: true" in text and new_b in ids(into) and "<<<<<<<" not in text
        assert run_gotchas(into, "verify").returncode == 0


# --- the pure merge, without git ----------------------------------------------------------

BASE = b"# Gotchas\n\n## One\n\ntasks: #1\n\nFirst.\n\n## Two\n\ntasks: #2\n\nSecond.\n"


def test_two_appends_at_the_end_are_both_kept_ours_first() -> None:
    ours = BASE + b"\n## Three\n\ntasks: #3 \xc2\xb7 root-cause: suspected\n\nThird.\n"
    theirs = BASE + b"\n## Four\n\ntasks: #4 \xc2\xb7 root-cause: suspected\n\nFourth.\n"
    merged = merge.merge(BASE, ours, theirs)
    assert merged.conflicts == 0
    assert merged.data == ours + b"\n## Four\n\ntasks: #4 \xc2\xb7 root-cause: suspected\n\nFourth.\n"


def test_edits_of_the_same_line_conflict_and_of_other_lines_merge() -> None:
    ours = BASE.replace(b"First.", b"First, really.")
    theirs = BASE.replace(b"First.", b"First, maybe.")
    clash = merge.merge(BASE, ours, theirs)
    assert clash.conflicts == 1 and b"<<<<<<< ours" in clash.data
    elsewhere = merge.merge(BASE, ours, BASE.replace(b"Second.", b"Second, too."))
    assert elsewhere.conflicts == 0
    assert elsewhere.data == BASE.replace(b"First.", b"First, really.").replace(b"Second.", b"Second, too.")


def test_a_crlf_record_keeps_its_line_endings() -> None:
    base = BASE.replace(b"\n", b"\r\n")
    ours = base + b"\r\n## Three\r\n\r\ntasks: #3\r\n\r\nThird.\r\n"
    theirs = base + b"\r\n## Four\r\n\r\ntasks: #4\r\n\r\nFourth.\r\n"
    merged = merge.merge(base, ours, theirs, eol=b"\r\n")
    assert merged.conflicts == 0 and b"\n" not in merged.data.replace(b"\r\n", b"")


def test_a_human_edit_of_the_lines_a_correction_touches_is_a_conflict(origin: Path) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    path = a / RECORD_PATH
    path.write_text(path.read_text("utf-8").replace("tasks: #664\n", "tasks: #664, #670\n"), "utf-8")
    git(a, "commit", "-q", "-am", "The chunk-it advice also came from #670")
    correct(b, TARGET, "#664", "Tokenizer reloads starved the #664 run")
    done = pull(b, a)
    assert done.returncode != 0
    text = (b / RECORD_PATH).read_text("utf-8")
    assert "<<<<<<< ours" in text and ">>>>>>> theirs" in text
    assert "both sides changed the same lines" in done.stderr


def capture(root: Path, task: str, title: str) -> str:
    args = ["propose", "--no-hold", "--json", "--title", title, "--body", f"What {task} showed."]
    args += ["--tasks", task]
    proposed: dict[str, Any] = json.loads(run_gotchas(root, *args, "--root-cause", "suspected").stdout)
    run_gotchas(root, "apply", proposed["proposal_id"], "--commit")
    return str(proposed["new_id"])


def test_two_lessons_appended_at_the_end_merge_where_git_alone_conflicts(origin: Path) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    new_a = capture(a, "#701", "Warm caches hide cold-start regressions")
    new_b = capture(b, "#702", "CI runners reuse stale wheels")
    plain = clone(origin, "plain")  # the same two branches, without the driver configured
    git(plain, "config", "--unset", "merge.gotchas.driver")
    git(plain, "fetch", "-q", str(a), "main")
    git(plain, "reset", "-q", "--hard", "FETCH_HEAD")
    assert pull(plain, b).returncode != 0, "git's own merge conflicts on two appends"
    done = pull(a, b)
    assert done.returncode == 0, done.stdout + done.stderr
    order = ids(a)
    assert order[-2:] == [new_a, new_b]
    assert run_gotchas(a, "verify").returncode == 0


def test_the_same_correction_made_on_both_sides_is_kept_once(origin: Path) -> None:
    a, b = clone(origin, "a"), clone(origin, "b")
    same = correct(a, TARGET, "#664", "Tokenizer reloads starved the #664 run")
    git(b, "fetch", "-q", str(a), "main")
    git(b, "cherry-pick", "FETCH_HEAD")  # the very correction, made again on b's branch
    other = correct(b, ids(origin)[-1], "#700", "Shallow clones were not why #700 failed")
    for into, side in ((a, b), (b, a)):
        done = pull(into, side)
        assert done.returncode == 0, done.stdout + done.stderr
        found = ids(into)
        assert found.count(same) == 1 and other in found
        text = (into / RECORD_PATH).read_text("utf-8")
        assert "<<<<<<<" not in text and text.count("### Tokenizer reloads starved the #664 run") == 1
        assert run_gotchas(into, "verify").returncode == 0


def test_the_same_insertion_on_both_sides_is_one_insertion_in_the_pure_merge() -> None:
    fix = b"\n## One, corrected\n\ntasks: #1 \xc2\xb7 root-cause: suspected\n\nFirst, again.\n"
    ours = BASE.replace(b"\n## Two", fix + b"\n## Two")
    theirs = ours + b"\n## Three\n\ntasks: #3 \xc2\xb7 root-cause: suspected\n\nThird.\n"
    merged = merge.merge(BASE, ours, theirs)
    assert (merged.conflicts, merged.data) == (0, theirs)
    assert "kept once" in merge.merge(BASE, ours + b"\n## Four\n\ntasks: #4\n\nFour.\n", theirs).why


def test_a_record_created_on_both_sides_conflicts_unless_identical(tmp_path: Path) -> None:
    a_text = b"# Gotchas\n\n## One\n\ntasks: #1\n\nFirst.\n"
    b_text = b"# Gotchas\n\n## Two\n\ntasks: #2\n\nSecond.\n"
    both = merge.merge(b"", a_text, b_text)
    assert both.conflicts == 1 and both.data.startswith(b"<<<<<<< ours\n" + a_text + b"=======\n")
    assert merge.merge(b"", a_text, a_text) == merge.Merged(a_text, 0, "one side has no changes")
    origin = tmp_path / "origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    (origin / ".gitattributes").write_text(ATTRIBUTES, "utf-8")
    git(origin, "add", ".gitattributes")
    git(origin, "-c", "user.name=K", "-c", "user.email=k@example.invalid", "commit", "-q", "-m", "Start")
    (tmp_path / "home").mkdir()
    a, b = clone(origin, "a"), clone(origin, "b")
    for side, text in ((a, a_text), (b, b_text)):
        (side / RECORD_PATH).parent.mkdir(parents=True)
        (side / RECORD_PATH).write_bytes(text)
        git(side, "add", str(RECORD_PATH))
        git(side, "commit", "-q", "-m", "Start the record")
    done = pull(a, b)
    assert done.returncode != 0
    merged = (a / RECORD_PATH).read_bytes()
    assert a_text in merged and b_text in merged and b"<<<<<<< ours" in merged


PINNED = "# Lessons\n\n## Build\n\n- **Pin it** — a.\n- **Cache it** — b.\n\n## Run\n\nProse.\n"


@pytest.mark.parametrize("pinned", [True, False])
def test_the_entries_pin_is_honoured_when_the_driver_reads_the_versions(tmp_path: Path, pinned: bool) -> None:
    origin = tmp_path / "origin"
    (origin / RECORD_PATH).parent.mkdir(parents=True)
    git(tmp_path, "init", "-q", "-b", "main", str(origin))
    (origin / RECORD_PATH).write_text(PINNED, "utf-8")
    (origin / ".gitattributes").write_text(ATTRIBUTES, "utf-8")
    if pinned:  # each `## Build` section is one lesson, not a group of bullet lessons
        (origin / ".claude/gotchas.toml").write_text('entries = "h2"\n', "utf-8")
    git(origin, "add", ".")
    git(origin, "-c", "user.name=K", "-c", "user.email=k@example.invalid", "commit", "-q", "-m", "Start")
    (tmp_path / "home").mkdir()
    a, b = clone(origin, "a"), clone(origin, "b")
    for side, old, new in (
        (a, "— a.\n", "— a.\n- **Pin harder** — c.\n"),
        (b, "— b.\n", "— b.\n- **Less** — d.\n"),
    ):
        path = side / RECORD_PATH
        path.write_text(path.read_text("utf-8").replace(old, new), "utf-8")
        git(side, "commit", "-q", "-am", "Add to the build lessons")
    done = pull(a, b)
    if pinned:  # read as the pin says, both sides changed the one lesson `Build`: a conflict
        assert done.returncode != 0 and "both sides corrected build" in done.stderr
    else:  # guessed, each side added a bullet lesson of its own: both kept
        assert done.returncode == 0, done.stdout + done.stderr
        text = (a / RECORD_PATH).read_text("utf-8")
        assert "Pin harder" in text and "Less" in text and "<<<<<<<" not in text
