"""The git hold source against a hostile repository: options, forged refs, hostile .git/config.

Nothing the repository says — ``[holds.git] branch``, ``init.defaultBranch``, a ref or
the target of ``origin/HEAD``, any setting in ``.git/config`` — may reach git as an
option, make a read-only check write a file, or start a program.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gotchas.holds.check import check_hold
from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.git import GitSource
from gotchas.holds.sources.refname import InvalidRefName, ref_name_problem

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Mallory",
    "GIT_AUTHOR_EMAIL": "mallory@example.com",
    "GIT_COMMITTER_NAME": "Mallory",
    "GIT_COMMITTER_EMAIL": "mallory@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
REAL_GIT = shutil.which("git") or "git"


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout


def make_repo(path: Path) -> str:
    """A repository whose main branch has one commit closing #664; returns its sha."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "a.txt").write_text("a\n", encoding="utf-8")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "Cache the tokenizer", "-m", "Fixes #664")
    return git(path, "rev-parse", "HEAD").strip()


def write_config(root: Path, text: str) -> None:
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude" / "gotchas.toml").write_text(text, encoding="utf-8")


def program(path: Path, marker: Path) -> Path:
    """An executable that leaves ``marker`` behind if anything ever runs it."""
    path.write_text(f"#!/bin/sh\necho ran >> '{marker}'\nexit 1\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def add_signed_commit(root: Path) -> str:
    """A commit on main carrying a (fake) signature, so showing signatures would run gpg."""
    head = git(root, "rev-parse", "HEAD").strip()
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    text = (
        f"tree {tree}\nparent {head}\n"
        "author Mallory <mallory@example.com> 1700000000 +0000\n"
        "committer Mallory <mallory@example.com> 1700000000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n"
        "\nTune the batch size\n"
    )
    env = {**os.environ, **GIT_ENV}
    sha = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root, env=env, input=text, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    git(root, "update-ref", "refs/heads/main", sha)
    return sha


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*")}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    root = tmp_path / "project"
    make_repo(root)
    return root


# --- option injection ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    ["--output={out}", "--output={out} ", "-o{out}", "--exec={out}", "--no-walk --output={out}"],
)
def test_a_configured_branch_never_reaches_git_as_an_option(
    repo: Path, tmp_path: Path, template: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "pwned"
    write_config(repo, f'[holds.git]\nbranch = "{template.format(out=target)}"\n')
    before = files_under(repo) | files_under(outside)

    answer = check_hold("predicate-664-lands", repo)

    assert not target.exists()
    assert files_under(repo) | files_under(outside) == before  # a read-only check wrote nothing
    assert answer.state == "unknown"
    (error,) = [entry for entry in answer.tasks[0].evidence if "error" in entry]
    assert "[holds.git] branch" in str(error["error"])
    assert "not a branch name git accepts" in str(error["error"])


def test_an_init_default_branch_and_ref_named_like_an_option_are_not_used(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "pwned"
    name = f"--output={target}"
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "config", "init.defaultBranch", name)
    forged = repo / ".git" / "refs" / "heads" / name
    forged.parent.mkdir(parents=True)
    forged.write_text(sha + "\n", encoding="utf-8")
    git(repo, "branch", "-q", "-m", "main", "master")  # only the forged name and master remain

    answer = check_hold("predicate-664-lands", repo)

    assert not target.exists()
    assert answer.state == "released"
    assert answer.tasks[0].evidence[0]["branch"] == "master"


def test_an_origin_head_pointing_at_an_option_like_ref_is_not_used(repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "outside" / "pwned"
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "remote", "add", "origin", "https://github.com/octo/proj.git")
    forged = repo / ".git" / "refs" / "remotes" / f"--output={target}"
    forged.parent.mkdir(parents=True)
    forged.write_text(sha + "\n", encoding="utf-8")
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", f"refs/remotes/--output={target}")

    answer = check_hold("predicate-664-lands", repo)

    assert not target.exists()
    assert answer.state == "unknown"
    assert "cannot tell origin's default branch" in str(answer.tasks[0].evidence[0]["note"])


# --- a hostile .git/config -----------------------------------------------------------------


def test_a_partial_clone_config_cannot_run_an_upload_pack_program(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    evil = program(tmp_path / "evil-upload-pack", marker)
    for key, value in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", str(tmp_path)),
        ("remote.origin.promisor", "true"),
        ("remote.origin.uploadpack", str(evil)),
    ]:
        git(repo, "config", key, value)
    # main names a commit that is not there: git would fetch it from the promisor remote.
    (repo / ".git" / "refs" / "heads" / "main").write_text("1" * 40 + "\n", encoding="utf-8")

    answer = check_hold("predicate-664-lands", repo)

    assert not marker.exists()
    assert answer.state == "unknown"


@pytest.mark.parametrize(
    "settings_for",
    [
        lambda evil: [("core.fsmonitor", evil)],
        lambda evil: [("core.pager", evil), ("pager.log", "true")],
        lambda evil: [("diff.external", evil), ("log.showRoot", "true")],
        lambda evil: [("core.hooksPath", str(Path(evil).parent))],
        lambda evil: [("log.showSignature", "true"), ("gpg.program", evil)],
    ],
    ids=["fsmonitor", "pager", "external-diff", "hooks", "gpg"],
)
def test_settings_that_start_programs_are_neutralised(
    repo: Path, tmp_path: Path, settings_for: object
) -> None:
    """Guards: the commands the source runs today do not reach these settings, and the
    pinned values keep it so if it ever runs one that does (a diff, an index refresh)."""
    marker = tmp_path / "ran"
    evil = program(tmp_path / "evil", marker)
    for name in ("post-checkout", "post-index-change", "reference-transaction"):
        program(tmp_path / name, marker)
    assert callable(settings_for)
    add_signed_commit(repo)
    for key, value in settings_for(str(evil)):
        git(repo, "config", key, value)
    before = files_under(repo)

    answer = check_hold("predicate-664-lands", repo)

    assert not marker.exists()
    assert answer.state == "released"
    assert files_under(repo) == before


# --- property: no string becomes an option ---------------------------------------------------

SHIM = """#!/bin/sh
for arg in "$@"; do printf '%s\\037' "$arg"; done >> "$GOTCHAS_ARGV_LOG"
printf '\\036' >> "$GOTCHAS_ARGV_LOG"
exec "$GOTCHAS_REAL_GIT" "$@"
"""
# Every option the git source itself passes; anything else starting with '-' came from outside.
OWN_OPTIONS = {
    "--no-pager", "-c", "--get-regexp", "--format=%(refname)%00%(symref)", "--no-color",
    "--no-ext-diff", "--no-textconv", "--no-notes", "--topo-order", "-z", "-F", "-i",
    "--grep=#664", "--grep=This reverts commit", "--format=%H%x1f%P%x1f%cI%x1f%B",
    "--end-of-options", "--", "--no-walk", "--parents", "--ignore-missing", "--stdin",
}  # fmt: skip


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """A repository and a log of every argv git is started with, through a recording shim."""
    base = tmp_path_factory.mktemp("argv")
    root = base / "project"
    with pytest.MonkeyPatch.context() as patch:
        for key, value in GIT_ENV.items():
            patch.setenv(key, value)
        patch.setenv("HOME", str(base))
        make_repo(root)
        shim_dir = base / "bin"
        shim_dir.mkdir()
        shim = shim_dir / "git"
        shim.write_text(SHIM, encoding="utf-8")
        shim.chmod(0o755)
        log = base / "argv.log"
        patch.setenv("GOTCHAS_ARGV_LOG", str(log))
        patch.setenv("GOTCHAS_REAL_GIT", REAL_GIT)
        patch.setenv("PATH", f"{shim_dir}{os.pathsep}{os.environ['PATH']}")
        yield root, log


def invocations(log: Path) -> list[list[str]]:
    raw = log.read_bytes().decode("utf-8", "surrogateescape") if log.exists() else ""
    return [record.split("\x1f")[:-1] for record in raw.split("\x1e") if record]


BRANCH_TEXT = st.one_of(
    st.text(max_size=40),
    st.builds(lambda tail: "-" + tail, st.text(max_size=30)),
    st.sampled_from(["--output=/tmp/x", "-p", "--all", "main", "origin/main", "refs/heads/main", "HEAD"]),
    st.from_regex(r"\A[-A-Za-z0-9./_@{}^~:]{1,30}\Z"),
).filter(lambda text: "\x00" not in text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(branch=BRANCH_TEXT)
def test_no_branch_string_makes_git_receive_an_option(recorded: tuple[Path, Path], branch: str) -> None:
    root, log = recorded
    log.unlink(missing_ok=True)
    try:
        GitSource(root, branch=branch).observe("#664")
    except InvalidRefName:
        assert ref_name_problem(branch) is not None
    except SourceFailed:
        pass  # a valid name that is no branch here: git said so
    for argv in invocations(log):
        end = argv.index("--end-of-options") if "--end-of-options" in argv else len(argv)
        config_values = {argv[i + 1] for i, arg in enumerate(argv[:end]) if arg == "-c"}
        for arg in argv[:end]:
            if arg.startswith("-"):
                assert arg in OWN_OPTIONS, f"git received an option it was not meant to: {arg!r}"
            else:
                assert arg != branch or arg in config_values | {"log", "config", "for-each-ref"}
        if branch in argv[end:]:
            assert not branch.startswith("-")


@settings(max_examples=150, deadline=None)
@given(name=BRANCH_TEXT)
def test_every_name_accepted_here_is_a_name_git_accepts(name: str) -> None:
    if ref_name_problem(name) is not None:
        return
    assert not name.startswith("-")
    checked = subprocess.run(["git", "check-ref-format", "--branch", name], capture_output=True)
    full = subprocess.run(["git", "check-ref-format", "--allow-onelevel", f"refs/heads/{name}"])
    assert checked.returncode == 0 or name == "HEAD" or full.returncode == 0
