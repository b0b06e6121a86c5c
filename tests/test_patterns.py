"""Patterns made from the table compiled ahead of time are ``re.compile``'s, and the table is current.

A compiled pattern compares equal to another only with the same pattern, flags and engine
code, so ``==`` against ``re.compile`` checks the whole table entry by entry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gotchas import pattern_code, patterns

TABLE = Path(patterns.__file__).with_name("pattern_code.py")
ON_TABLE_INTERPRETER = tuple(pattern_code.INTERPRETER) == patterns.interpreter()


@pytest.mark.skipif(not ON_TABLE_INTERPRETER, reason="the table was written for another interpreter")
def test_every_pattern_made_from_the_table_is_the_one_re_compile_makes() -> None:
    assert len(pattern_code.CODE) > 50
    for pattern, flags in pattern_code.CODE:
        made, standard = patterns.compiled(pattern, flags), re.compile(pattern, flags)
        assert made is not standard  # made from the table, not taken from re's cache
        assert made == standard, pattern
        assert (made.flags, made.groups, dict(made.groupindex)) == (
            standard.flags,
            standard.groups,
            dict(standard.groupindex),
        ), pattern


@pytest.mark.skipif(not ON_TABLE_INTERPRETER, reason="the table was written for another interpreter")
def test_the_table_holds_every_pattern_the_package_defines_and_no_other() -> None:
    current = patterns.table_source(patterns.package_patterns())
    assert TABLE.read_text(encoding="utf-8") == current, (
        "server/gotchas/pattern_code.py is not current: run scripts/pattern-code"
    )


def test_on_another_interpreter_every_pattern_compiles_as_usual(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patterns, "interpreter", lambda: (2, 7, 0, 0, 0))
    monkeypatch.setattr(patterns, "_table", None)
    pattern, flags = next(iter(pattern_code.CODE))
    assert patterns.compiled(pattern, flags) is re.compile(pattern, flags)  # re's own, from its cache
    assert patterns._table == {}


def test_a_lazy_pattern_answers_as_the_compiled_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(patterns, "_DEFINED", [])  # a pattern of this test's, not the package's
    lazy = patterns.lazy(r"(?P<key>\w+):\s*(?P<value>.*)", re.IGNORECASE)
    standard = re.compile(r"(?P<key>\w+):\s*(?P<value>.*)", re.IGNORECASE)
    found = lazy.match("Status: fixed")
    assert found is not None and found.groupdict() == {"key": "Status", "value": "fixed"}
    assert lazy.sub("-", "a: b") == standard.sub("-", "a: b")
    assert lazy.findall("x: 1\ny: 2") == standard.findall("x: 1\ny: 2")
    assert (lazy.pattern, lazy.flags, lazy.groups) == (standard.pattern, standard.flags, standard.groups)
    assert repr(lazy) == repr(standard)
