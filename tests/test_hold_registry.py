"""The table of hold sources: every part of the package reads a source's row, and a new
source is one row away from being configured, asked and ranked."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from gotchas.config import parse_config
from gotchas.errors import ConfigError
from gotchas.holds import registry
from gotchas.holds.check import check_hold
from gotchas.holds.decision import evaluate
from gotchas.holds.predicate import parse_predicates
from gotchas.holds.registry import SourceSpec
from gotchas.holds.settings import CommandConfig, HoldsConfig
from gotchas.holds.sources import Observation, Source
from gotchas.trust import Trust

NOW = "2026-11-30T06:00:00Z"


def test_each_row_builds_a_source_of_its_own_name(tmp_path: Path) -> None:
    holds = HoldsConfig(command=CommandConfig(argv=("true", "{task}")))
    for spec in registry.SOURCES:
        assert spec.build(tmp_path, holds, Trust(tmp_path / "user.toml", tmp_path)).name == spec.name


def test_config_accepts_exactly_the_table_s_names(tmp_path: Path) -> None:
    names = ", ".join(f'"{name}"' for name in registry.NAMES)
    config = parse_config(
        f'[holds]\nsources = [{names}]\n[holds.command]\nargv = ["tool", "{{task}}"]\n', tmp_path
    )
    assert config.holds.sources == registry.NAMES
    with pytest.raises(ConfigError, match="unknown source 'gitlab'; known: ledger, git, github, command"):
        _ = parse_config('[holds]\nsources = ["gitlab"]\n', tmp_path).holds


def test_every_settings_block_belongs_to_a_row() -> None:
    blocks = {f.name for f in fields(HoldsConfig)} - {"sources"}
    assert blocks <= set(registry.NAMES)


def test_the_network_hint_follows_the_rows() -> None:
    assert not registry.reaches_network(["ledger", "git", "command"])
    assert registry.reaches_network(["ledger", "github"])


def test_an_observing_row_outranks_the_ledger_and_a_failed_one_blocks_by_what_it_can_report() -> None:
    predicates = parse_predicates("predicate-664-lands")
    ledger = Observation("ledger", "abandoned", [], NOW)
    git = Observation("git", "landed", [], NOW)
    assert evaluate(predicates, {"#664": [ledger, git]}, NOW).state == "released"
    # git can report only "landed": its failure cannot hide anything that would hold a landing back
    landed = Observation("ledger", "landed", [], NOW)
    git_failed = Observation("git", None, [], NOW, error="boom")
    assert evaluate(predicates, {"#664": [landed, git_failed]}, NOW).state == "released"
    github_failed = Observation("github", None, [], NOW, error="boom")
    assert evaluate(predicates, {"#664": [landed, github_failed]}, NOW).state == "unknown"


class _Board:
    """A source as a new file would define it: a name and observe()."""

    name = "board"

    def observe(self, task: str) -> Observation:
        return Observation("board", "abandoned", [{"source": "board", "column": "Won't do"}], NOW)


def _board(root: Path, holds: HoldsConfig, trust: Trust) -> Source:
    return _Board()


def test_one_row_is_all_a_new_source_needs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = SourceSpec("board", _board, frozenset({"abandoned"}), observes=True, reaches_network=False)
    monkeypatch.setattr(registry, "SOURCES", (*registry.SOURCES, row))
    monkeypatch.setattr(registry, "BY_NAME", {**registry.BY_NAME, "board": row})
    monkeypatch.setattr(registry, "NAMES", (*registry.NAMES, "board"))
    config = parse_config('[holds]\nsources = ["ledger", "board"]\n', tmp_path)
    answer = check_hold("predicate-664-lands", tmp_path, config)
    # observed on the board, so it outranks a ledger that never heard of the task
    assert answer.state == "unsatisfiable"
    assert answer.tasks[0].source == "board"
    assert {"source": "board", "column": "Won't do"} in answer.tasks[0].evidence
