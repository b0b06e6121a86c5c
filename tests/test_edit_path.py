"""The fast paths of an edit give the very bytes and answers of the plain ones.

An edit's bytes are spliced in at byte offsets (no split and join of the whole file),
conflict markers are looked for only on lines that open with seven marker characters, and
the lines an edit reads are cut from the record by its line starts: whatever the line
endings (LF, CRLF, CR, mixed, none at the end), each must agree with the plain way.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import edit, record, verification

line = st.sampled_from(
    [
        "",
        "# Gotchas",
        "### A lesson",
        "text",
        "<<<<<<< ours",
        "=======",
        "|||||||",
        ">>>>>>> theirs",
        "x<<<<<<<",
    ]
)
eol = st.sampled_from(["\n", "\r\n", "\r"])


def _text(lines: list[str], ends: list[str], final: bool) -> bytes:
    out = "".join(text + ends[n % len(ends)] for n, text in enumerate(lines))
    if not final and out:
        out = out.rstrip("\r\n")
    return out.encode()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(line, max_size=12),
    st.lists(eol, min_size=1, max_size=3),
    st.booleans(),
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=14), st.lists(line, min_size=1, max_size=3)), max_size=3
    ),
    eol,
)
def test_insertions_spliced_by_offset_are_the_joined_lines(
    lines: list[str], ends: list[str], final: bool, places: list[tuple[int, list[str]]], ending: str
) -> None:
    data = _text(lines, ends, final)
    parsed = record.parse(data)
    count = len(parsed.line_starts) - 1
    insertions = [edit.Insertion(min(at, count), tuple(new)) for at, new in places]
    spliced = edit.splice.apply_lines(data, edit.lines.lines_of(parsed), insertions, ending.encode())
    joined = b"".join(edit.splice.new_lines(data.splitlines(keepends=True), insertions, ending.encode()))
    assert spliced == joined


@settings(max_examples=300, deadline=None)
@given(st.lists(line, max_size=14), st.lists(eol, min_size=1, max_size=3), st.booleans())
def test_lines_cut_by_line_starts_are_the_split_lines(lines: list[str], ends: list[str], final: bool) -> None:
    data = _text(lines, ends, final)
    cut = edit.lines.lines_of(record.parse(data))
    split = data.splitlines(keepends=True)
    assert list(cut) == split
    assert len(cut) == len(split)
    if split:
        assert cut[-1] == split[-1]
        assert cut[1:3] == split[1:3]


_MARKER = re.compile(rb"(<{7}|>{7}|\|{7}|={7})(?:[ \t][^\r\n]*)?\r?\n?\Z")


def _every_line(parsed: record.Record) -> list[tuple[int, str]]:
    """The scan of every line, as it was before only candidate lines were looked at."""
    data, starts = parsed.data, parsed.line_starts
    literal = parsed.block_map.literal if parsed.block_map is not None else ()
    found: list[tuple[int, str]] = []
    inside = False
    for n in range(len(starts) - 1):
        text = data[starts[n] : starts[n + 1]]
        match = _MARKER.match(text)
        if match is None or n in literal:
            continue
        marker = match[1].decode()
        if marker[0] == "=" and match.end(1) < len(text.rstrip()):
            continue
        if marker[0] in "<>" or inside:
            found.append((n + 1, marker))
        inside = marker[0] == "<" or (inside and marker[0] != ">")
    return found


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(line, st.sampled_from(["```", "<<<<<<<<<<", "=========="])), max_size=16),
    st.lists(eol, min_size=1, max_size=3),
    st.booleans(),
)
def test_conflict_markers_found_on_candidate_lines_are_those_of_every_line(
    lines: list[str], ends: list[str], final: bool
) -> None:
    parsed = record.parse(_text(lines, ends, final))
    assert verification.conflict_marker_lines(parsed) == _every_line(parsed)
