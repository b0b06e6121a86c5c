"""The merge driver takes every argument as a path: a file named ``-h`` is merged, not help.

A hostile ``.gitattributes`` can route any file to the driver. Before, a top-level file named
``-h`` made the driver print its help and exit 0, so git recorded a clean merge and the other
branch's change was lost. ``init`` now writes ``merge-record -- %O %A %B %P`` and upgrades the
driver an earlier ``init`` wrote; the driver an older install left behind is safe as well.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from gotchas import initialize
from support.clients import git, run_gotchas

OLD_DRIVER = initialize.driver().replace(" -- ", " ")  # what an earlier init wrote


def branches(root: Path) -> None:
    """``-h`` changed on ``main`` (first line) and on ``other`` (last line)."""
    git(root, "init", "-q", "-b", "main")
    (root / ".gitattributes").write_text("-h merge=gotchas\n", "utf-8")
    (root / "-h").write_text("one\ntwo\nthree\nfour\nfive\n", "utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "other")
    (root / "-h").write_text("one\ntwo\nthree\nfour\nFIVE (theirs)\n", "utf-8")
    git(root, "commit", "-q", "-am", "theirs")
    git(root, "checkout", "-q", "main")
    (root / "-h").write_text("ONE (ours)\ntwo\nthree\nfour\nfive\n", "utf-8")
    git(root, "commit", "-q", "-am", "ours")


@pytest.mark.parametrize("form", ["init", "old"])
def test_a_file_named_dash_h_is_merged_not_answered_with_help(tmp_path: Path, form: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "home").mkdir()
    branches(root)
    git(root, "config", "merge.gotchas.driver", initialize.driver() if form == "init" else OLD_DRIVER)

    merged = git(root, "merge", "--no-edit", "other")

    text = (root / "-h").read_text("utf-8")
    assert "usage" not in merged.lower()
    assert text == "ONE (ours)\ntwo\nthree\nfour\nFIVE (theirs)\n", "neither side's change is lost"


def test_the_driver_called_directly_with_dash_h_as_the_path_merges(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    base, ours, theirs = (root / n for n in (".base", ".ours", ".theirs"))
    base.write_text("a\nb\nc\n", "utf-8")
    ours.write_text("A\nb\nc\n", "utf-8")
    theirs.write_text("a\nb\nC\n", "utf-8")
    for args in (["--", ".base", ".ours", ".theirs", "-h"], [".base", ".ours", ".theirs", "--help"]):
        ours.write_text("A\nb\nc\n", "utf-8")
        done = run_gotchas(root, "merge-record", *args)
        assert "usage" not in (done.stdout + done.stderr).lower()
        assert ours.read_text("utf-8") == "A\nb\nC\n"


def test_init_upgrades_the_driver_an_earlier_init_wrote(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "merge.gotchas.driver", OLD_DRIVER)
    done = run_gotchas(root, "init")
    assert "changed git config merge.gotchas.driver: upgraded" in done.stdout
    assert git(root, "config", "merge.gotchas.driver").strip() == initialize.driver()
    assert shlex.split(initialize.driver())[-5:] == ["--", "%O", "%A", "%B", "%P"]
