"""Every line parses in linear time, whatever a hostile record puts on it.

A lazy value before ``\\s*$`` in the field pattern made one ``key: value`` line with 100k
inner spaces cost 83 s; an unclosed ``(`` run in a link list and a long run of stray
`` · `` separators were quadratic too. Each shape below is a megabyte on one line, placed
as a body line, a list item and a heading title, and read by the whole reading pipeline.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import fields, link, record, verification
from gotchas.check import citations
from support.watchdog import finishes_within

MB = 1_000_000

SHAPES: dict[str, str] = {
    "inner spaces": "key: a" + " " * MB + "b",
    "trailing spaces": "key: a" + " " * MB,
    "tabs and spaces": "key:\t" + "\t " * (MB // 2) + "z",
    "colons": "key" + ":" * MB,
    "colon pairs": "key: " + ": " * (MB // 2),
    "fullwidth colons": "key：" + "：" * MB,
    "leading bold markers": "**" * (MB // 2) + "key:** x",
    "bold markers in the value": "**key:** " + "**" * (MB // 2) + "x",
    "underscore markers": "__" * (MB // 2) + "k: v",
    "separators with values": "tasks: #1" + " · x" * (MB // 4),
    "bare separators": "a: b" + " · " * (MB // 3),
    "separators of fields": "a: b · " * (MB // 7),
    "unclosed scopes": "supersedes: a (" * (MB // 15),
    "task hashes": "#664 " * (MB // 5),
    "tracker keys": "ABC-" * (MB // 4),
    "list markers": "- " * (MB // 2) + "x: y",
    "brackets": "[" * MB + "x",
    "backticks": "`" * MB,
    "status words": "status: " + "landed " * (MB // 7),
    "link openers": "[](" * (MB // 3),
    "empty links": "[]" * (MB // 2) + "(",
    "missing targets": "supersedes: " + ", ".join(f"t{n}" for n in range(MB // 8)),
    "word run": "a" * MB,
    "underscored words": "a_" * (MB // 2),
    "hyphened words": "a-" * (MB // 2),
    "lesson before a word": "lesson of " * (MB // 10),
    "not before a long word": "not " + "a" * MB,
    "nots": "not " * (MB // 4),
    "quoted spaces": "> " + " " * MB + "x",
    "a label's spaces": "- a: " + " " * MB + "x",
    "blanks": "[a]" * (MB // 3) + "x",
    "a step's spaces": "Step" + " " * MB + "1",
    "numbered step spaces": "1. " + " " * MB + "Check",
    "words before commands": "a " * (MB // 2) + "commands",
    "rules for spaces": "rules" + " " * MB + "for",
    "open questions spaces": "open" + " " * MB + "questions",
    "unclosed bold": "**" + "a" * MB,
    "placeholder spaces": "(No" + " " * MB + "lessons yet.",
    "reported check spaces": "check" + " " * MB + "if the issue has been",
    "quick reference spaces": "quick" + " " * MB + "reference — x",
    "words before a cheat sheet": "a " * (MB // 2) + "cheat sheet",
    "relationship spaces": "relationship to" + " " * MB + "other",
    "bracketed ids": "[BUG-1.1] " * (MB // 10),
    "knowns": "known " * (MB // 6),
    "watch spaces": "watch" + " " * MB + "fo",
    "that breaks spaces": "that" + " " * MB + "often",
    "phases spaces": "4" + " " * MB + "phase",
    "phase numbers": "phase " + "1" * MB,
    "improve next spaces": "what we would" + " " * MB + "improve nex",
    "summaries": "summary: " * (MB // 9),
    "checklist spaces": "quick fix" + " " * MB + "checklis",
    "checklists for": "checklist for " * (MB // 14),
    "recovery spaces": "recovery" + " " * MB + "procedur",
    "debugging tools": "debug log trace " * (MB // 16),
    "without a comma": "without " + "a" * MB,
    "symptom spaces": "not" + " " * MB + "workin",
    "verbindet spaces": "verbindet" + " " * MB + "nich",
    "an unclosed quote": "1.1 “" + "a " * (MB // 2),
    "a blank field's spaces": "- **Pattern:** [" + " " * MB + "]",
    "example spaces": "Example" + " " * MB + "entr",
    "an aside's parentheses": "使い方" + "（" * (MB // 2) + "x）",
    "bracketed field runs": "- **a:** [b]" * (MB // 12),
    "recording spaces": "recording" + " " * MB + "rule",
    "a marker's verbs": "<!-- " + "add " * (MB // 4) + "-->",
    "a marker's spaces": "<!-- add" + " " * MB + "above this line -->",
}


@pytest.mark.parametrize("shape", SHAPES)
def test_a_megabyte_field_line_parses_in_linear_time(shape: str) -> None:
    line = SHAPES[shape]
    with finishes_within(20, f"parsing a 1 MB line of {shape}"):
        parsed = fields.parse_line(line, 1)
        fields.is_plain_field_line(line)
        for field in parsed:
            link.parse_links(field.value)


def _lessons(line: str) -> bytes:
    """The first heading is a form's blank title, its lines weighed as blanks; the next
    headings' titles are weighed as a group's or a lesson's over their bullets. The last lesson
    speaks of its subject only, so that a line speaking of lessons in every other part (``lesson
    of lesson of …``) leaves the file a lessons file, not a policy for keeping them."""
    return (
        f"# Lessons\n\n## [Lesson] <one>\n\n{line}\n\n- {line}\n\n## {line}\n\nprose\n\n"
        f"## {line}\n\n- one fact\n- another fact\n\n"
        f"## {line}\n\n- Check one\n- Verify two\n- Check three\n\n"
        "## Cache keys\n\nHash the lockfile into the key.\n"
    ).encode()


def _how_to(line: str) -> bytes:
    """Sub-headings weighed as numbered steps or commands under a how-to, and a quoted
    placeholder between rules beneath them (three copies of the line keep it under 16 MiB)."""
    return (
        f"# Lessons\n\n## How to test\n\n### {line}\n\n```sh\nmake\n```\n\n"
        f"### {line}\n\n---\n\n> {line}\n\n---\n\nx\n"
    ).encode()


RECORDS = {"lessons": _lessons, "how-to": _how_to}


@pytest.mark.parametrize("kind", RECORDS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_record_holding_a_megabyte_line_reads_in_linear_time(shape: str, kind: str) -> None:
    line = SHAPES[shape]
    data = RECORDS[kind](line)
    with finishes_within(30, f"reading and checking a {kind} record with a 1 MB line of {shape}"):
        parsed = record.parse(data)
        assert [entry.id for entry in parsed.entries]  # ids are made from titles, on first use
        verification.check_record(parsed)  # what `gotchas lint` runs: each problem placed on its line
        for entry in parsed.entries:
            parsed.mentions(entry)  # the tasks its text names, as `gotchas list` shows them
        citations.cite(data.decode("utf-8"), 1)  # the paths and commands `gotchas check` looks up


@pytest.mark.parametrize("shape", SHAPES)
def test_a_megabyte_table_cell_reads_in_linear_time(shape: str) -> None:
    """A cell is read by the table rules: a table of where things are is asked of every column
    once its first row names a file."""
    cell = SHAPES[shape].replace("|", "/")
    data = (
        "# Lessons\n\n## Where things are\n\n| Change | File |\n|---|---|\n"
        f"| Types | `src/types.ts` |\n| {cell} | `src/{cell}` |\n"
    ).encode()
    with finishes_within(30, f"reading a table with a 1 MB cell of {shape}"):
        parsed = record.parse(data)
        assert [entry.id for entry in parsed.entries]


def test_a_long_inner_space_run_keeps_the_value_whole() -> None:
    [field] = fields.parse_line("key: a" + " " * 1000 + "b   ", 3)
    assert (field.key, field.value, field.line) == ("key", "a" + " " * 1000 + "b", 3)


def test_stray_separators_stay_in_the_value_they_interrupt() -> None:
    parsed = fields.parse_line("tasks: #1 · x · y · status: open", 1)
    assert [(f.key, f.value) for f in parsed] == [("tasks", "#1 · x · y"), ("status", "open")]


def test_an_unclosed_scope_is_a_plain_target_and_a_closed_one_still_scopes() -> None:
    links = link.parse_links("a (for #1 (b), c (for #7)")
    assert [(link.target, link.tasks) for link in links][-1] == ("c", ("#7",))


ALPHABET = st.sampled_from(
    [" ", "\t", ":", "：", "**", "__", " · ", "(", ")", "#1", "-", "a", "key", "`", "\u00a0"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(ALPHABET, max_size=40), st.integers(min_value=1, max_value=3000))
def test_any_line_parses_without_error_and_without_blowing_up(pieces: list[str], repeat: int) -> None:
    """The fuzz: any mix of the characters field parsing cares about, repeated, never raises
    and never goes superlinear."""
    line = "".join(pieces) * repeat
    with finishes_within(20, "parsing a fuzzed line"):
        for field in fields.parse_line(line, 1):
            assert field.value == field.value.strip()
            link.parse_links(field.value)
        fields.is_plain_field_line(line)
