"""The pin ``gotchas outline`` prints keeps the reading: written into ``.claude/gotchas.toml``,
the file lists the same entries, on every file of the shared corpus (both folders) and of the
held-out set.

The corpus lives beside the repository (``../shared``); without it these cases skip, and in
CI (``CI=true``) they fail instead.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gotchas import outline, record
from gotchas.config import load_config
from gotchas.workspace import CONFIG_PATH

SHARED = Path(__file__).resolve().parents[2] / "shared"
FOLDERS = (SHARED / "corpus" / "real", SHARED / "corpus-more" / "real")
CORPUS = FOLDERS[0]
HELD_OUT = Path(__file__).parent / "fixtures" / "reading" / "variations"


def _corpus_files() -> list[str]:
    if not CORPUS.is_dir():
        return ["<absent>"]
    return sorted(
        f"{folder.parent.name}/{p.name}"
        for folder in FOLDERS
        if folder.is_dir()
        for p in folder.iterdir()
        if p.is_file() and p.suffix not in (".tsv", ".json")
    )


def _held_out_files() -> list[str]:
    return sorted(label["file"] for label in json.loads((HELD_OUT / "labels.json").read_text("utf-8")))


def pinned_again(project: Path, data: bytes) -> tuple[list[int], list[int], list[str]]:
    """(entry start lines unpinned, the same pinned by outline's lines in a real config file, those lines)."""
    parsed = record.parse(data)
    assert parsed.reading is not None
    lines = outline.pin_lines(parsed.reading)
    (project / CONFIG_PATH).parent.mkdir(parents=True, exist_ok=True)
    (project / CONFIG_PATH).write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    pinned = record.parse(data, load_config(project).entries)
    return [e.start_line for e in parsed.entries], [e.start_line for e in pinned.entries], lines


def check(project: Path, data: bytes) -> None:
    before, after, lines = pinned_again(project, data)
    if not lines:
        pytest.skip("a mixed reading: no single unit to pin")
    assert after == before, f"pinned by {lines}: only unpinned {sorted(set(before) - set(after))}, " + (
        f"only pinned {sorted(set(after) - set(before))}"
    )


@pytest.mark.parametrize("name", _corpus_files())
def test_the_pin_keeps_the_reading_of_every_corpus_file(tmp_path: Path, name: str) -> None:
    if not CORPUS.is_dir():
        message = f"{CORPUS} is absent (the shared corpus beside the repository)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    check(tmp_path, (SHARED / name.split("/", maxsplit=1)[0] / "real" / name.split("/")[1]).read_bytes())


@pytest.mark.parametrize("name", _held_out_files())
def test_the_pin_keeps_the_reading_of_every_held_out_file(tmp_path: Path, name: str) -> None:
    check(tmp_path, (HELD_OUT / name).read_bytes())


CHECKLIST_BESIDE_LESSONS = """# Gotchas

## Build

- **Lockfile drift**
- run the install with the frozen lockfile, never a bare install
- **Stale client bundle** regenerate it after changing the schema

## Open work

- [ ] add an example env file
- [x] pin the node version
"""


def test_a_list_pin_leaves_checkboxes_and_title_bodies_out_as_detection_does(tmp_path: Path) -> None:
    data = CHECKLIST_BESIDE_LESSONS.encode()
    before, after, lines = pinned_again(tmp_path, data)
    assert lines == ['entries = "list"', "checkboxes = false"]
    assert before == after == [5, 7]


def test_a_list_pin_without_the_checkbox_line_still_takes_checkboxes(tmp_path: Path) -> None:
    (tmp_path / CONFIG_PATH).parent.mkdir(parents=True)
    (tmp_path / CONFIG_PATH).write_text('entries = "list"\n', encoding="utf-8")
    pinned = record.parse(CHECKLIST_BESIDE_LESSONS.encode(), load_config(tmp_path).entries)
    assert [e.start_line for e in pinned.entries] == [5, 7, 11, 12]


@pytest.mark.parametrize(
    ("toml", "why"),
    [
        ('entries = "list"\ncheckboxes = "no"\n', "checkboxes must be true or false"),
        ('entries = "h3"\ncheckboxes = false\n', 'checkboxes applies only with entries = "list"'),
        ("checkboxes = false\n", 'checkboxes applies only with entries = "list"'),
    ],
)
def test_a_checkboxes_line_that_cannot_apply_is_refused(tmp_path: Path, toml: str, why: str) -> None:
    from gotchas.config import parse_config
    from gotchas.errors import ConfigError

    with pytest.raises(ConfigError, match=why):
        parse_config(toml, tmp_path)


def test_the_lines_outline_prints_pin_the_listing_in_a_real_repository(tmp_path: Path) -> None:
    from support.clients import git
    from support.clients import gotchas as cli

    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "gotchas.md").write_text(CHECKLIST_BESIDE_LESSONS, encoding="utf-8")
    shown = cli(root, "outline", "--json")
    assert shown.returncode == 0, shown.stderr
    decision = json.loads(shown.stdout)
    assert decision["pin"] == ['entries = "list"', "checkboxes = false"]
    (root / CONFIG_PATH).write_text("".join(f"{line}\n" for line in decision["pin"]), encoding="utf-8")
    again = json.loads(cli(root, "outline", "--json").stdout)
    assert again["pinned"] is True
    assert [e["line"] for e in again["entries"]] == [e["line"] for e in decision["entries"]] == [5, 7]


RETRO = """# Retro: payments outage

## Summary

Checkout failed for forty minutes.

## What went wrong

### Retries doubled charges

No idempotency key on the charge call.

### Alerts fired late

The error-rate alert averaged over an hour.

## What went right

- **Rollback was quick** — one command, two minutes.
- **Status page** — updated within five minutes.

## Changelog

- 2026-01-03: first draft
- 2026-01-04: added timeline
"""


def _config(project: Path, text: str) -> str | None:
    (project / CONFIG_PATH).parent.mkdir(parents=True, exist_ok=True)
    (project / CONFIG_PATH).write_text(text, encoding="utf-8")
    return load_config(project).entries


def _titles(data: str, pin: str | None) -> list[str]:
    return [e.title for e in record.parse(data.encode("utf-8"), pin).entries]


def test_a_unit_per_section_through_a_real_config(tmp_path: Path) -> None:
    pin = _config(tmp_path, '[sections]\n"What went wrong" = "h3"\n"What went right" = "list"\n')
    assert _titles(RETRO, pin) == [
        "Retries doubled charges",
        "Alerts fired late",
        "Rollback was quick",
        "Status page",
    ]


def test_sections_left_out_through_a_real_config(tmp_path: Path) -> None:
    unpinned = _titles(RETRO, None)
    pin = _config(tmp_path, '[sections]\n"Changelog" = "none"\n"Summary" = "none"\n')
    pinned = record.parse(RETRO.encode("utf-8"), pin)
    titles = [e.title for e in pinned.entries]
    assert not any("2026-01" in t for t in titles)
    assert set(titles) <= set(unpinned) | {"Retries doubled charges", "Alerts fired late"}
    assert pinned.reading is not None
    assert {n.title for n in pinned.reading.left_out if n.what == "pinned"} == {"Changelog", "Summary"}


def test_a_mixed_reading_through_a_real_config(tmp_path: Path) -> None:
    """The file's unit pinned (h2 lessons), one section read otherwise and one left out (the
    report's summary stays out as detection leaves it)."""
    pin = _config(
        tmp_path, 'entries = "h2"\n\n[sections]\n"What went right" = "list"\n"Changelog" = "none"\n'
    )
    assert _titles(RETRO, pin) == ["What went wrong", "Rollback was quick", "Status page"]


def test_a_section_pinned_auto_is_read_by_detection(tmp_path: Path) -> None:
    pin = _config(tmp_path, 'entries = "h2"\n\n[sections]\n"What went wrong" = "auto"\n')
    titles = _titles(RETRO, pin)
    assert "Retries doubled charges" in titles and "What went wrong" not in titles


GUIDE = """# Shopfront

## Tech stack

- Next.js 15, Postgres 16

## Commands

- `pnpm dev` starts everything

## Errors we hit

- Changing `NEXT_PUBLIC_*` variables without rebuilding the web image: they are baked in.
- Running `docker compose up -d` without `--no-deps` in production restarts the database.
"""


def test_a_section_pinned_auto_in_a_guide_is_read_by_detection(tmp_path: Path) -> None:
    """A guide reads as holding no lessons; a section pinned ``auto`` is read as its lessons
    section would be, though its title names none."""
    assert _titles(GUIDE, None) == []
    pin = _config(tmp_path, '[sections]\n"Errors we hit" = "auto"\n')
    assert _titles(GUIDE, pin) == [
        "Changing `NEXT_PUBLIC_*` variables without rebuilding the web image: they are baked in.",
        "Running `docker compose up -d` without `--no-deps` in production restarts the database.",
    ]


@pytest.mark.parametrize(
    "text",
    ['[sections]\n"What went wrong" = "h9"\n', '[sections]\n"" = "h3"\n', 'sections = "h3"\n'],
)
def test_a_bad_section_pin_is_a_config_error(tmp_path: Path, text: str) -> None:
    from gotchas.errors import ConfigError

    with pytest.raises(ConfigError):
        _config(tmp_path, text)
