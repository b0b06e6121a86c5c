"""Where a project's files live, relative to its root: the settings, the record by default,
and the project's own state under ``.claude/gotchas/`` (proposals, journal, task ledger, locks,
temp files). Names only: nothing here touches the disk but :func:`has_config_file`."""

from __future__ import annotations

from pathlib import Path

CONFIG_PATH = ".claude/gotchas.toml"
DEFAULT_RECORD = ".claude/rules/gotchas.md"
STATE_DIR = ".claude/gotchas"
PROPOSALS_DIR = f"{STATE_DIR}/proposals"
JOURNAL_FILE = f"{STATE_DIR}/journal.jsonl"
LEDGER_FILE = f"{STATE_DIR}/tasks.jsonl"
LOCKS_DIR = f"{STATE_DIR}/locks"
TEMP_DIR = f"{STATE_DIR}/tmp"
TEMP_MARK = ".gotchas-"
"""Every temp file we make carries this in its name (and ends in ``.tmp``): how orphans are known."""
ORPHAN_AGE = 300.0
"""Seconds after which a temp file of ours, left by a killed process, is removed."""
MARKDOWN = (".md", ".markdown")


def ledger_path(root: Path) -> Path:
    """The task ledger of the project at ``root``."""
    return root / LEDGER_FILE


def has_config_file(root: Path) -> bool:
    return (root / CONFIG_PATH).is_file()
