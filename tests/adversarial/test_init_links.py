"""`gotchas init` writes the fixed paths, as written: never through a link the repository holds.

A repository may commit ``.mcp.json -> package.json`` or ``.gitattributes -> .git/config``;
init must refuse before anything is written, never rewrite the file a link points to, and
never write under ``.git/`` (``git config`` itself excepted).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from support.clients import git, gotchas


def snapshot(root: Path) -> dict[str, str]:
    """Every file and link of the tree, ``.git/`` included: its bytes' hash or the link text."""
    out = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            out[name] = "-> " + os.readlink(path)
        elif path.is_file() and not name.startswith(".git/objects/") and name != ".git/index":
            out[name] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (tmp_path / "home").mkdir()
    git(repo, "init", "-q", "-b", "main")
    return repo


@pytest.mark.parametrize(
    ("link", "target", "content"),
    [
        (".mcp.json", "package.json", b'{"name": "app", "scripts": {"test": "jest"}}\n'),
        (".gitattributes", "scripts/build.sh", b"#!/bin/sh\nmake all\n"),
        (".gitattributes", ".git/config", None),
        (".claude/settings.json", "../settings.json", b"{}\n"),
    ],
)
def test_a_link_in_place_of_a_file_init_writes_is_refused_before_anything_is_written(
    root: Path, link: str, target: str, content: bytes | None
) -> None:
    if content is not None:
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        (root / target).write_bytes(content)
    (root / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(root / target, (root / link).parent), root / link)
    before = snapshot(root)
    config = (root / ".git/config").read_bytes()

    done = gotchas(root, "init")

    assert done.returncode != 0
    assert "unsafe-path" in done.stderr or "symbolic link" in done.stderr, done.stderr
    assert f"{link} is a symbolic link" in done.stderr
    assert snapshot(root) == before, "nothing was written"
    assert (root / ".git/config").read_bytes() == config
    assert "hooksPath" not in git(root, "config", "--list", "--local")


def test_a_linked_folder_on_the_way_is_refused(root: Path) -> None:
    elsewhere = root.parent / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, root / ".claude")
    before = snapshot(root)
    done = gotchas(root, "init")
    assert done.returncode != 0 and ".claude is a symbolic link" in done.stderr, done.stderr
    assert list(elsewhere.iterdir()) == []
    assert snapshot(root) == before


def test_a_record_configured_inside_git_is_refused(root: Path) -> None:
    (root / ".claude").mkdir()
    (root / ".claude/gotchas.toml").write_text('record = ".git/info/lessons.md"\n', "utf-8")
    before = snapshot(root)
    done = gotchas(root, "init")
    assert done.returncode != 0 and ".git" in done.stderr
    assert snapshot(root) == before
