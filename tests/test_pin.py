"""``gotchas pin``: the pin a notice names, written with one command. The edit keeps every
other byte of ``.claude/gotchas.toml``, refuses a form it cannot edit line by line, and the
command shows the reading before and after (real processes, real repositories)."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from gotchas import pin
from gotchas.errors import ConfigError
from support.clients import git, gotchas, run_gotchas

GUESSED = """# Gotchas

## Docker

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.

## The CI runner has two cores and `-n 8` thrashes

Use `-n 2` with pytest-xdist on the shared runners.
"""

KEPT = """# the project's settings: comments, tables and spacing stay as they are
record = ".claude/rules/gotchas.md"   # where the lessons live

[tasks]
keys = ["ABC"]
"""


def test_setting_the_files_unit_adds_one_line_and_keeps_every_other_byte() -> None:
    after, said = pin.edit(KEPT, "list")
    line = "   # where the lessons live\n"
    assert after == KEPT.replace(line, line + 'entries = "list"\n')
    assert said == ['entries = "list": added']
    again, said = pin.edit(after, "h3")
    assert again == after.replace('entries = "list"', 'entries = "h3"') and said == [
        'entries = "list" → entries = "h3"'
    ]
    cleared, said = pin.edit(again, None)
    assert cleared == KEPT and said == ['entries = "h3": removed']


def test_a_section_row_goes_into_the_sections_table_or_a_new_one() -> None:
    after, _ = pin.edit(KEPT, "none", 'Architecture "decisions"')
    assert after == KEPT + '\n[sections]\n"Architecture \\"decisions\\"" = "none"\n'
    assert tomllib.loads(after)["sections"] == {'Architecture "decisions"': "none"}
    more, _ = pin.edit(after, "h3", "What went wrong")
    assert more == after + '"What went wrong" = "h3"\n'
    table_first = '[sections]\n"Old" = "list"\n\n[lint]\nignore = ["G101"]\n'
    between, _ = pin.edit(table_first, "none", "New")
    assert between == '[sections]\n"Old" = "list"\n"New" = "none"\n\n[lint]\nignore = ["G101"]\n'
    gone, said = pin.edit(between, None, "Old")
    assert gone == '[sections]\n"New" = "none"\n\n[lint]\nignore = ["G101"]\n'
    assert said == ['[sections] "Old" = "list": removed']


def test_a_replaced_line_keeps_its_indentation_and_comment() -> None:
    after, said = pin.edit('  entries = "h2"   # chosen after the outline\n[lint]\n', "h3")
    assert after == '  entries = "h3"   # chosen after the outline\n[lint]\n'
    assert said == ['entries = "h2" → entries = "h3"']
    row, said = pin.edit('[sections]\n"Notes" = "none" # a log, not lessons\n', "auto", "Notes")
    assert row == '[sections]\n"Notes" = "auto" # a log, not lessons\n'
    assert said == ['[sections] "Notes" = "none" → "Notes" = "auto"']


def test_clearing_what_is_not_pinned_changes_nothing_and_says_so() -> None:
    assert pin.edit("", None) == ("", ["entries: not pinned; nothing to clear"])
    assert pin.edit(KEPT, None, "Notes") == (KEPT, ['[sections] "Notes": not pinned; nothing to clear'])


def test_line_endings_and_a_missing_final_newline_survive() -> None:
    crlf = 'record = "x.md"\r\n\r\n[tasks]\r\nkeys = ["ABC"]\r\n'
    after, _ = pin.edit(crlf, "h2")
    assert after == 'record = "x.md"\r\nentries = "h2"\r\n\r\n[tasks]\r\nkeys = ["ABC"]\r\n'
    unterminated = 'entries = "h2"'
    assert pin.edit(unterminated, "none")[0] == 'entries = "none"'


def test_a_unit_other_than_list_drops_checkboxes_which_only_a_list_takes() -> None:
    after, said = pin.edit('entries = "list"\ncheckboxes = false\n', "h2")
    assert after == 'entries = "h2"\n' and said[-1] == "checkboxes = false: removed"


@pytest.mark.parametrize(
    "text",
    ['sections = { "Old" = "list" }\n', 'sections."Old" = "list"\n', "entries = [broken\n"],
)
def test_a_form_it_cannot_edit_line_by_line_is_refused(text: str) -> None:
    with pytest.raises(ConfigError, match="nothing was written"):
        pin.edit(text, "none", "New")


def _project(tmp_path: Path, record: str) -> Path:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "gotchas.md").write_text(record, encoding="utf-8")
    (tmp_path / "home").mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def test_the_pin_the_notice_names_written_with_one_command_chooses_the_runner_up(tmp_path: Path) -> None:
    root = _project(tmp_path, GUESSED)
    notice = gotchas(root, "list").stderr
    assert 'pin entries = "list"' in notice

    dry = run_gotchas(root, "pin", "list", "--dry-run")
    assert not (root / ".claude" / "gotchas.toml").exists(), "a dry run writes nothing"
    assert dry.stdout.splitlines() == [
        'would change .claude/gotchas.toml: entries = "list": added',
        "before: read .claude/rules/gotchas.md: 3 lessons (entries of mixed shapes) in 1 group, "
        "1 part left out",
        f"before: notice: {notice.strip().removeprefix('gotchas: ')}",
        "after: read .claude/rules/gotchas.md: 2 lessons (list items), as pinned",
    ]

    done = json.loads(run_gotchas(root, "pin", "list", "--json").stdout)
    assert done["written"]
    assert done["after"] == {"kind": "lessons", "unit": "list-item", "lessons": 2, "notice": None}
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == 'entries = "list"\n'
    listed = run_gotchas(root, "list")
    assert "guess" not in listed.stderr and "two cores" not in listed.stdout

    run_gotchas(root, "pin", "--clear")
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == ""
    assert "guess" in gotchas(root, "list").stderr


def test_with_no_unit_it_shows_what_each_pin_would_read_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path, GUESSED.replace("Docker", "Docker \x1b[31m"))
    (root / ".claude" / "gotchas.toml").write_text("# mine\n", encoding="utf-8")
    shown = run_gotchas(root, "pin").stdout.splitlines()
    assert shown[0].startswith("read .claude/rules/gotchas.md: 3 lessons (entries of mixed shapes)")
    rows = {line.split()[0]: line for line in shown if line.startswith("  ")}
    assert set(rows) == {"h1", "h2", "list", "paragraph", "hr-block"}
    assert rows["list"].split()[1:4] == ["2", "lessons", "+0"], "the notice's runner-up: the two bullets"
    assert rows["h2"].split()[1:5] == ["2", "lessons", "+1", "-2"] and "Docker \\x1b[31m" in rows["h2"]
    assert "\x1b" not in "\n".join(shown), "a title cannot drive the terminal"
    assert shown[-3] == "nothing read by: h3, h4, h5, h6, table-row"
    assert "gotchas pin --lines" in shown[-1]
    chosen = json.loads(run_gotchas(root, "pin", "--json").stdout)
    assert chosen["now"]["lessons"] == 3 and chosen["section"] is None
    by_unit = {c["unit"]: c for c in chosen["choices"]}
    assert by_unit["list"] == {"unit": "list", "lessons": 2, "added": 0, "dropped": 1, "first_added": []}
    for unit in [*by_unit, *chosen["nothing"]]:  # each the reading `gotchas pin UNIT` gives
        after = json.loads(run_gotchas(root, "pin", unit, "--dry-run", "--json").stdout)["after"]
        assert after["lessons"] == (by_unit[unit]["lessons"] if unit in by_unit else 0), unit
    section = run_gotchas(root, "pin", "--section", "The CI runner has two cores and `-n 8` thrashes")
    assert "nothing read in the section by:" in section.stdout
    assert section.stdout.endswith("none leaves the section out\n")
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == "# mine\n", "it writes nothing"


def test_a_section_pin_leaves_a_section_out(tmp_path: Path) -> None:
    root = _project(tmp_path, GUESSED)
    done = run_gotchas(root, "pin", "--section", "The CI runner has two cores and `-n 8` thrashes", "none")
    after = done.stdout.splitlines()[-1]
    assert after.startswith("after: read .claude/rules/gotchas.md: 2 lessons (list items)")
    assert "two cores" not in run_gotchas(root, "list").stdout


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["pin", "bogus"], 2),
        (["pin", "list", "--clear"], 2),
        (["pin", "--section", "Docker", "sideways"], 2),
    ],
)
def test_bad_input_is_refused_and_nothing_is_written(tmp_path: Path, argv: list[str], code: int) -> None:
    root = _project(tmp_path, GUESSED)
    (root / ".claude" / "gotchas.toml").write_text("# mine\n", encoding="utf-8")
    done = gotchas(root, *argv)
    assert done.returncode == code and done.stderr.strip()
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == "# mine\n"


def test_a_config_in_a_form_it_cannot_edit_is_left_as_it_was(tmp_path: Path) -> None:
    root = _project(tmp_path, GUESSED)
    config = root / ".claude" / "gotchas.toml"
    config.write_text('sections = { "Docker" = "list" }\n', encoding="utf-8")
    done = gotchas(root, "pin", "--section", "Other", "none")
    assert done.returncode == 1 and "edit it by hand" in done.stderr
    assert config.read_text("utf-8") == 'sections = { "Docker" = "list" }\n'


def test_a_symlinked_config_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    """The repository is hostile: a config that links elsewhere is never written through."""
    root = _project(tmp_path, GUESSED)
    outside = tmp_path / "outside.toml"
    outside.write_text("# not the project's\n", encoding="utf-8")
    os.symlink(outside, root / ".claude" / "gotchas.toml")
    done = gotchas(root, "pin", "list")
    assert done.returncode != 0 and "symlink" in done.stderr
    assert outside.read_text("utf-8") == "# not the project's\n"
    assert (root / ".claude" / "gotchas.toml").is_symlink()


TROUBLESHOOTING = """# Troubleshooting

## Connection

### "Connection refused" on start

The server binds to 127.0.0.1 only; set HOST=0.0.0.0 in containers.

### Timeouts behind the proxy

The proxy closes idle sockets after 60 s; lower keepalive to 30 s.

## Debugging

### Enable debug logs

Set LOG_LEVEL=debug before starting the server.

### Where the logs live

The server writes to `~/.app/logs`, one file a day.
"""


def _starts(root: Path) -> list[int]:
    return [e["lines"][0] for e in json.loads(run_gotchas(root, "list", "--json").stdout)["entries"]]


def test_pin_lines_finds_the_pin_that_reads_the_lessons_named_and_writes_it(tmp_path: Path) -> None:
    """A person who finds the reading wrong says where the lessons start; the command finds the
    pin that reads exactly those (here: the how-to section left out) and writes it."""
    root = _project(tmp_path, TROUBLESHOOTING)
    assert _starts(root) == [5, 9, 15, 19], "detection reads the how-tos as problems too"
    config = root / ".claude" / "gotchas.toml"
    dry = run_gotchas(root, "pin", "--lines", "5,9", "--dry-run")
    assert not config.exists(), "a dry run writes nothing"
    assert dry.stdout.splitlines()[0].endswith('[sections] "Debugging" = "none"')
    done = run_gotchas(root, "pin", "--lines", "5-7, 9")  # ranges as `gotchas list` prints them
    assert "would change" not in done.stdout and done.stdout.splitlines()[-1].startswith(
        "after: read .claude/rules/gotchas.md: 2 lessons (h3 headings)"
    )
    assert tomllib.loads(config.read_text("utf-8")) == {"sections": {"Debugging": "none"}}
    assert _starts(root) == [5, 9]


def test_pin_lines_replaces_the_pin_there_was_and_keeps_the_rest_of_the_config(tmp_path: Path) -> None:
    root = _project(tmp_path, TROUBLESHOOTING)
    config = root / ".claude" / "gotchas.toml"
    config.write_text(
        '# ours\nentries = "h2"\n\n[sections]\n"Connection" = "list"\n\n[tasks]\nkeys = ["ABC"]\n',
        encoding="utf-8",
    )
    assert _starts(root) != [5, 9, 15, 19]
    shown = json.loads(run_gotchas(root, "pin", "--lines", "5 9 15 19", "--json").stdout)
    assert shown["exact"] and shown["written"] and shown["missing"] == [] == shown["extra"]
    assert tomllib.loads(config.read_text("utf-8")) == {"sections": {}, "tasks": {"keys": ["ABC"]}}
    assert config.read_text("utf-8").startswith("# ours\n")
    assert _starts(root) == [5, 9, 15, 19]


def test_pin_lines_no_pin_reads_shows_the_closest_and_writes_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path, TROUBLESHOOTING)
    (root / ".claude" / "gotchas.toml").write_text("# mine\n", encoding="utf-8")
    done = gotchas(root, "pin", "--lines", "5,7")  # line 7 is the first lesson's body
    assert done.returncode == 1
    assert done.stdout.startswith("no pin found reads exactly those lessons")
    assert "nothing was written" in done.stdout
    shown = json.loads(gotchas(root, "pin", "--lines", "5,7", "--json").stdout)
    assert not shown["exact"] and not shown["written"] and 7 in shown["missing"]
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == "# mine\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["pin", "--lines", "0"],
        ["pin", "--lines", "5,x"],
        ["pin", "--lines", "5,400"],
        ["pin", "--lines", "-3"],
        ["pin", "list", "--lines", "5"],
        ["pin", "--section", "Debugging", "--lines", "5"],
    ],
)
def test_pin_lines_bad_input_is_refused_and_nothing_is_written(tmp_path: Path, argv: list[str]) -> None:
    root = _project(tmp_path, TROUBLESHOOTING)
    (root / ".claude" / "gotchas.toml").write_text("# mine\n", encoding="utf-8")
    done = gotchas(root, *argv)
    assert done.returncode == 2 and "invalid-argument" in done.stderr
    assert (root / ".claude" / "gotchas.toml").read_text("utf-8") == "# mine\n"


def test_pin_lines_writes_a_hostile_title_so_every_character_shows(tmp_path: Path) -> None:
    """A heading is the repository's text: written into the config as a section title, quotes,
    backslashes and characters that reorder or hide what a line shows are escaped, and the
    config still reads back to the same title."""
    title = 'Tips "quoted" \\ \u202eesrever\u200b'
    root = _project(tmp_path, TROUBLESHOOTING.replace("Debugging", title))
    run_gotchas(root, "pin", "--lines", "5,9")
    text = (root / ".claude" / "gotchas.toml").read_text("utf-8")
    assert "\u202e" not in text and "\u200b" not in text and "\\u202e" in text and "\\u200b" in text
    assert tomllib.loads(text) == {"sections": {title: "none"}}
    assert _starts(root) == [5, 9]
