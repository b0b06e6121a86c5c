"""The ``command`` hold source runs the user's program outside the repository.

Before, the program ran with the repository as its working directory, so with a ``PATH``
holding an empty entry (``/usr/bin:``, which means "the working directory") a repository
file named like the user's program ran instead of it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.command import CommandSource

PROGRAM = "linear-state"


def executable(path: Path, text: str) -> None:
    path.write_text(text, "utf-8")
    path.chmod(0o755)


@pytest.mark.parametrize("entry", ["", ".", "repo-bin"])
def test_a_repository_file_named_like_the_program_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    root = tmp_path / "repo"
    (root / "repo-bin").mkdir(parents=True)
    marker = tmp_path / "the-repository-ran-code"
    for folder in (root, root / "repo-bin"):
        executable(folder / PROGRAM, f'#!/bin/sh\ntouch {marker}\necho \'{{"state": "landed"}}\'\n')
    shown = str(root / "repo-bin") if entry == "repo-bin" else entry
    monkeypatch.setenv("PATH", os.pathsep.join(["/usr/bin", "/bin", shown]))
    monkeypatch.chdir(root)

    with pytest.raises(SourceFailed, match="not found"):
        CommandSource(root, [PROGRAM, "{task}"]).observe("ABC-1")

    assert not marker.exists()


def test_the_users_program_runs_in_a_folder_outside_the_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    tools = tmp_path / "tools"
    tools.mkdir()
    report = "import json, os; print(json.dumps({'state': 'running', 'detail': os.getcwd()}))"
    executable(tools / PROGRAM, f"#!{sys.executable}\n{report}\n")
    monkeypatch.setenv("PATH", os.pathsep.join([str(tools), "/usr/bin", "/bin", ""]))

    observed = CommandSource(root, [PROGRAM, "{task}"]).observe("ABC-1")

    assert observed.state == "running"
    ran_in = Path(str(observed.evidence[0]["detail"]))
    assert not ran_in.resolve().is_relative_to(root.resolve())
    assert json.dumps(observed.evidence[0]["argv"]) == json.dumps([PROGRAM, "ABC-1"])
