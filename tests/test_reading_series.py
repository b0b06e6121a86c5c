"""The numbered-series rule reads a heading's number from its plain form; titles that cannot
hold one are passed over without making that form, with the same answers."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gotchas import vocabulary
from gotchas.reading import series
from gotchas.reading.model import Span

# the rule's pattern as written: a number, maybe after ``#``, opening the plain title
_ORDINAL = re.compile(r"^\s*(?:#\s*)?(\d{1,3})([a-z]|(?:\.\d{1,3})*)[.):]?\s")
_TRICKY = " \t\x0b\x1c\x1f*_~`#0123456789.):aZ-٣"


def _by_pattern(title: str) -> tuple[int, bool] | None:
    found = _ORDINAL.match(vocabulary.plain(title))
    return (int(found[1]), bool(found[2])) if found else None


def _heading(title: str) -> Span:
    return Span("heading", 0, 1, 2, title, 2, "##", None, "a heading")


@given(st.text(alphabet=_TRICKY, max_size=12) | st.text(max_size=20))
def test_a_heading_number_is_the_one_its_plain_title_shows(title: str) -> None:
    assert series._number(_heading(title)) == _by_pattern(title)


def test_numbers_behind_emphasis_and_hashes_are_found() -> None:
    assert series._number(_heading("**3.** Cache")) == (3, False)
    assert series._number(_heading("# _5.1_ Lock")) == (5, True)
    assert series._number(_heading("Cache (0)")) is None
    assert series._number(_heading("9a. Partial downloads")) == (9, True)  # added after 9
