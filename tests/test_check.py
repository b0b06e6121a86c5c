"""``gotchas check`` in real git repositories: one scenario per finding kind, no false
positives for what never was this repository's, bounded git calls, and bad input that
gets a notice instead of an error, with nothing written."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gotchas.check.report import Report, check
from support.clients import gotchas
from support.gitrepo import Repo

RECORD = ".claude/rules/gotchas.md"


class Project:
    """A git repository whose files and record a test writes and commits."""

    def __init__(self, root: Path) -> None:
        self.repo = Repo(root)
        self.root = root

    def write(self, files: dict[str, str | None]) -> None:
        for name, text in files.items():
            path = self.root / name
            if text is None:
                path.unlink()
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def commit(self, message: str, files: dict[str, str | None] | None = None) -> str:
        self.write(files or {})
        self.repo.git("add", "-A")
        self.repo.git("commit", "-q", "--allow-empty", "-m", message)
        return self.repo.git("rev-parse", "HEAD")

    def check(self, rev: str | None = None) -> Report:
        data = None if rev else (self.root / RECORD).read_bytes()
        return check(self.root, RECORD, data, rev=rev)


def lesson(title: str, body: str, tasks: str = "#1") -> str:
    return f"## {title}\n\ntasks: {tasks}\n\n{body}\n\n"


def record(*lessons: str) -> str:
    return "# Gotchas\n\n" + "".join(lessons)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "repo")


def codes(report: Report) -> list[tuple[str, str]]:
    return [(f.code, f.entry) for f in report.findings]


def test_a_renamed_path_is_stale_with_its_new_name(project: Project) -> None:
    body = "def load_settings():\n    return read_all_the_settings_from_disk()\n" * 3
    project.commit("settings", {"src/config/loader.py": body})
    written = project.commit(
        "lessons", {RECORD: record(lesson("Settings load lazily", "See src/config/loader.py:12 first."))}
    )
    assert project.check().findings == []
    project.repo.git("mv", "src/config/loader.py", "src/config/settings.py")
    moved = project.commit("Move the loader")
    report = project.check()
    assert codes(report) == [("stale-path", "settings-load-lazily")]
    evidence = report.findings[0].evidence
    assert evidence["anchor"] == written and evidence["removed_by"] == moved
    assert evidence["renamed_to"] == "src/config/settings.py"
    assert "renamed to src/config/settings.py" in report.findings[0].message
    assert project.check(rev=written).findings == []  # nothing at the writing commit itself


def test_a_deleted_path_and_a_removed_symbol(project: Project) -> None:
    project.commit(
        "code", {"lib/cache.py": "def warm_cache_entries():\n    pass\n", "lib/keep.py": "x = 1\n"}
    )
    project.commit(
        "lessons",
        {
            RECORD: record(
                lesson("Warm the cache", "Call `warm_cache_entries()` from `lib/cache.py` on start."),
                lesson("Keep this", "`lib/keep.py` stays."),
            )
        },
    )
    gone = project.commit("Drop the cache", {"lib/cache.py": None})
    report = project.check()
    assert sorted(codes(report)) == [("stale-path", "warm-the-cache"), ("stale-symbol", "warm-the-cache")]
    path = next(f for f in report.findings if f.code == "stale-path")
    assert path.evidence["removed_by"] == gone and "renamed_to" not in path.evidence
    assert path.line == 7 and path.column > 1


def test_removed_scripts_targets_and_script_files_are_stale_commands(project: Project) -> None:
    project.commit(
        "tooling",
        {
            "package.json": json.dumps({"scripts": {"lint": "eslint .", "test": "jest"}}),
            "Makefile": "deploy:\n\t./scripts/deploy.sh\nbuild:\n\techo\n",
            "scripts/deploy.sh": "#!/bin/sh\n",
        },
    )
    project.commit(
        "lessons",
        {
            RECORD: record(
                lesson("Ship it", "Run `npm run lint`, `npm test`, `make deploy` and `./scripts/deploy.sh`.")
            )
        },
    )
    project.commit(
        "Trim tooling",
        {
            "package.json": json.dumps({"scripts": {"test": "jest"}}),
            "Makefile": "build:\n\techo\n",
            "scripts/deploy.sh": None,
        },
    )
    report = project.check()
    cited = sorted(f.evidence["cited"] for f in report.findings)
    assert {f.code for f in report.findings} == {"stale-command"}
    assert cited == ["./scripts/deploy.sh", "make deploy", "npm run lint"]


def test_a_reverted_task_and_a_lesson_superseded_for_it(project: Project) -> None:
    fix = project.commit("Fix the pool leak (closes #7)", {"pool.py": "size = 4\n"})
    project.commit(
        "lessons",
        {
            RECORD: record(
                lesson("Pool leaks under load", "Fixed by a bounded pool.", tasks="#7"),
                "## Old guess\n\ntasks: #3\n"
                "red-herring-for: #7 · superseded-by: pool-leaks-under-load (for #7)\n\n"
                "It was thought to be the cache.\n\n",
            )
        },
    )
    assert project.check().findings == []
    project.repo.git("revert", "--no-edit", fix)
    report = project.check()
    assert sorted(codes(report)) == [
        ("superseded-reverted", "old-guess"),
        ("task-reverted", "pool-leaks-under-load"),
    ]
    assert all(f.evidence["landed"] == fix for f in report.findings)


def test_an_abandoned_task_from_the_ledger(project: Project) -> None:
    project.commit("lessons", {RECORD: record(lesson("Migrate the queue", "Halfway done.", tasks="#9"))})
    assert gotchas(project.root, "task", "set", "9", "abandoned").returncode == 0
    report = project.check()
    assert codes(report) == [("task-abandoned", "migrate-the-queue")]
    assert "ledger: abandoned" in report.findings[0].message
    assert check(project.root, RECORD, (project.root / RECORD).read_bytes(), ask_sources=False).findings == []


def test_duplicate_lessons_by_title_and_by_text(project: Project) -> None:
    words = "the retry loop hides timeouts from the caller so log every attempt with its delay"
    project.commit(
        "lessons",
        {
            RECORD: record(
                lesson("Retries hide timeouts", words),
                lesson("Retries Hide Timeouts!", "The retry loop hides timeouts from the caller: log it."),
                lesson("Unrelated", "Same title as the last one, but a claim of its own entirely."),
                lesson("Log each retry", words + " please"),
                lesson("Unrelated", "Nothing in common with the others at all, really nothing here."),
            )
        },
    )
    found = project.check().findings
    assert [(f.entry, f.evidence["same_as"], f.evidence["by"]) for f in found] == [
        ("retries-hide-timeouts-2", "retries-hide-timeouts", "title"),
        ("log-each-retry", "retries-hide-timeouts", "text"),
    ]


def test_library_symbols_and_other_repositories_paths_are_never_flagged(project: Project) -> None:
    project.commit(
        "code",
        {
            "app/main.py": "import requests\nrequests.get('x')\n",
            "pnpm-lock.yaml": "  expr-eval: 2.0.2\n  left_pad_util: 1.0\n",
            "app/cfg.js": "module.exports = { rules: { 'no-eval': 'error' } }\n",
        },
    )
    text = (
        "Never call `eval()` or `left_pad_util()`; "
        "Use `requests.get` with a timeout, `useEffect()` cleanup, `numpy/core/multiarray.py`, "
        "other-service/api/handler.go:40, `json_normalize()`, `npm run storybook`, `make release`, "
        "`DATABASE_URL`, https://example.com/src/a.py and `./bin/not-here.sh`."
    )
    written = project.commit("lessons", {RECORD: record(lesson("Libraries", text))})
    assert project.check(rev=written).findings == []
    project.commit(
        "Unrelated work",
        {"app/other.py": "y = 2\n", "app/main.py": "x = 1\n", "pnpm-lock.yaml": None, "app/cfg.js": None},
    )
    assert project.check().findings == []  # requests.get left app/main.py, but was never ours


def test_a_lesson_retired_or_rechecked_is_judged_accordingly(project: Project) -> None:
    project.commit("code", {"a/b.py": "x\n"})
    project.commit(
        "lessons",
        {RECORD: record(lesson("One", "See a/b.py."), lesson("Two", "See a/b.py too."))},
    )
    head = project.commit("drop", {"a/b.py": None})
    assert len(project.check().findings) == 2
    text = (project.root / RECORD).read_text()
    text = text.replace("tasks: #1\n\nSee a/b.py.", "tasks: #1\nretired: a/b.py is gone\n\nSee a/b.py.")
    text = text.replace("tasks: #1\n\nSee a/b.py too.", f"tasks: #1\nrechecked: {head}\n\nSee a/b.py too.")
    project.commit("marks", {RECORD: text})
    assert project.check().findings == []


def test_git_calls_are_batched_not_per_lesson(project: Project) -> None:
    files: dict[str, str | None] = {
        f"src/mod{i}.py": f"def helper_number_{i}():\n    pass\n" for i in range(40)
    }
    project.commit("code", files)
    lessons = [
        lesson(f"Lesson {i}", f"`helper_number_{i}()` in src/mod{i}.py, `make t{i}`.") for i in range(40)
    ]
    project.commit("lessons", {RECORD: record(*lessons)})
    project.commit("drop", {f"src/mod{i}.py": None for i in range(0, 40, 2)})
    report = project.check()
    assert len([f for f in report.findings if f.code == "stale-path"]) == 20
    assert len([f for f in report.findings if f.code == "stale-symbol"]) == 20
    calls = report.git_calls
    assert calls["blame"] == 1 and calls["ls-tree"] == 1  # now: the anchor's files were asked by name
    assert calls["cat-file"] == 3  # the anchor's files, the script files now and at the anchor
    assert calls["grep"] == 2  # now, and definitions at the anchor of what is gone
    assert calls["diff-tree"] == 1 and calls["log"] == 2  # removals, and the tasks' history


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git/" not in str(p.relative_to(root)) + "/"
    }


def _quiet(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stderr
    assert "0 findings" in result.stdout
    return result.stderr


def test_bad_input_gets_a_notice_and_no_finding(tmp_path: Path, project: Project) -> None:
    plain = tmp_path / "plain"
    (plain / ".claude" / "rules").mkdir(parents=True)
    (plain / RECORD).write_text(record(lesson("A", "See src/a.py.")))
    before = _snapshot(plain)
    assert "not a git repository" in _quiet(gotchas(plain, "--root", str(plain), "check"))
    assert _snapshot(plain) == before

    project.commit("code", {"src/a.py": "x\n"})
    project.commit("lessons", {RECORD: record(lesson("A", "See src/a.py."))})
    project.commit("drop", {"src/a.py": None})
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{project.root}", str(shallow)],
        check=True,
        env=project.repo.env,
    )
    assert "shallow clone" in _quiet(gotchas(shallow, "check"))

    untracked = tmp_path / "untracked"
    Repo(untracked)
    (untracked / ".claude" / "rules").mkdir(parents=True)
    (untracked / RECORD).write_text(record(lesson("A", "See src/a.py.")))
    assert "not in git" in _quiet(gotchas(untracked, "check"))

    (project.root / RECORD).write_bytes(b"\x00\x01binary\xff" * 10)
    project.commit("binary")
    assert "cannot be read" in _quiet(gotchas(project.root, "check"))

    big = project.root / RECORD
    with big.open("wb") as handle:
        handle.write(b"## Big\n\n" + b"x" * (50 * 1024 * 1024))
    before = _snapshot(project.root)
    assert "nothing checked" in _quiet(gotchas(project.root, "check"))
    assert _snapshot(project.root) == before


def test_cli_formats_and_exit_codes(project: Project) -> None:
    project.commit("code", {"src/a.py": "x\n"})
    project.commit("lessons", {RECORD: record(lesson("A", "See src/a.py."))})
    project.commit("drop", {"src/a.py": None})
    human = gotchas(project.root, "check")
    assert human.returncode == 0 and "stale-path  a  (line 7)" in human.stdout
    text = gotchas(project.root, "check", "--format", "text")
    assert text.stdout.startswith(f"{RECORD}:7:5: warning stale-path a: path src/a.py existed at ")
    github = gotchas(project.root, "check", "--format", "github")
    assert github.stdout.startswith(
        f"::warning file={RECORD.replace(':', '%3A')},line=7,col=5,title=stale-path::"
    )
    as_json = json.loads(gotchas(project.root, "check", "--json").stdout)
    assert [f["code"] for f in as_json["findings"]] == ["stale-path"]
    assert gotchas(project.root, "check", "--strict").returncode == 1
    (project.root / ".claude" / "gotchas.toml").write_text('[check]\nerrors = ["stale-path"]\n')
    failed = gotchas(project.root, "check", "--format", "text")
    assert failed.returncode == 1 and " error stale-path " in failed.stdout
    lint = gotchas(project.root, "lint", "--history")
    assert lint.returncode == 1 and "error stale-path a:" in lint.stdout
    assert "stale-path" not in gotchas(project.root, "lint").stdout  # history is opt-in
    hook = json.loads(gotchas(project.root, "session-start").stdout)
    assert "1 lesson may no longer be true" in hook["hookSpecificOutput"]["additionalContext"]


def test_hostile_names_stay_data(project: Project) -> None:
    """A cited path or symbol shaped like a git option or pathspec magic is matched literally."""
    project.commit("code", {"src/x.py": "def keep_me():\n    pass\n"})
    text = "`--output=/tmp/pwned`, `:(glob)**`, `-e`, src/--upload-pack=x.py, `keep_me()`."
    project.commit("lessons", {RECORD: record(lesson("Hostile", text))})
    report = project.check()
    assert report.findings == [] and report.notices == []
