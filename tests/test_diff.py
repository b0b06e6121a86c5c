"""The proposal's diff: byte-identical to a whole-file line walk, for any pair of files."""

from __future__ import annotations

import difflib
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gotchas import edit


def line_walk_diff(name: str, before: bytes, after: bytes) -> str:
    """The reference: split both files into lines and walk them to the changed region."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    start = max(0, head - 3)
    old_part = [show(x) for x in old[start : len(old) - max(0, tail - 3)]]
    new_part = [show(x) for x in new[start : len(new) - max(0, tail - 3)]]
    out = [f"--- a/{name}\n", f"+++ b/{name}\n"]
    for line in difflib.unified_diff(old_part, new_part, n=3, lineterm=""):
        if line.startswith(("---", "+++")):
            continue
        shown = shift(line, start) if line.startswith("@@") else line
        out.append(shown if shown.endswith("\n") else shown + "\n")
    return "".join(out)


def show(line: bytes) -> str:
    text = line.decode("utf-8")
    return text if text.endswith(("\n", "\r")) else text + "\n\\ No newline at end of file\n"


HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")


def shift(header: str, offset: int) -> str:
    match = HUNK.match(header)
    if not match:
        return header + "\n"
    return f"@@ -{int(match[1]) + offset}{match[2] or ''} +{int(match[3]) + offset}{match[4] or ''} @@\n"


TEXTS = st.sampled_from(["a", "b", "x y", "", "#", "é"])
ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
LINES = st.lists(st.tuples(TEXTS, ENDINGS).map("".join), max_size=14)


def joined(lines: list[str], final: str) -> bytes:
    return ("".join(lines) + final).encode()


@st.composite
def edits(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A file and the file after some lines are inserted and removed anywhere, endings changed."""
    lines = draw(LINES)
    final = draw(st.sampled_from(["", "a", "tail"]))
    changed = list(lines)
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(changed)))
        what = draw(st.sampled_from(["insert", "delete", "ending"]))
        if what == "insert":
            changed[at:at] = draw(st.lists(st.tuples(TEXTS, ENDINGS).map("".join), min_size=1, max_size=4))
        elif changed and at < len(changed):
            if what == "delete":
                del changed[at]
            else:
                changed[at] = changed[at].rstrip("\r\n") + draw(ENDINGS)
    new_final = draw(st.sampled_from([final, "", "a", "b\n"]))
    return joined(lines, final), joined(changed, new_final)


@settings(max_examples=2000, deadline=None)
@given(edits())
@example((b"a\rb", b"a\r\nb"))
@example((b"a", b"a\n"))
@example((b"a\r", b"a\r\n"))
@example((b"x\na\r\nb\n", b"x\na\rb\n"))
@example((b"a\nb\n", b"a\nb\n"))
@example((b"", b"a\n"))
@example((b"a\n", b""))
@example((b"a\nb\nc\nd\ne\nf\ng\nh\n", b"a\nb\nc\nd\nX\ne\nf\ng\nh\n"))
@example((b"a\r\n\r\n", b"a\r\n\n"))
def test_diff_is_the_line_walks_diff(pair: tuple[bytes, bytes]) -> None:
    before, after = pair
    assert edit.unified_diff("g.md", before, after) == line_walk_diff("g.md", before, after)
    assert edit.unified_diff("g.md", after, before) == line_walk_diff("g.md", after, before)


BYTES = st.lists(st.sampled_from([b"a", b"b", b"\r", b"\n"]), max_size=30).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(BYTES, BYTES)
def test_diff_of_any_bytes_is_the_line_walks_diff(before: bytes, after: bytes) -> None:
    assert edit.unified_diff("g.md", before, after) == line_walk_diff("g.md", before, after)
