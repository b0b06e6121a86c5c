"""Regular expressions compiled on first use, from code compiled ahead of time.

Compiling is pure Python and costs up to milliseconds a pattern; the reading path defines
about a hundred and a one-shot ``gotchas list`` uses half of them, so compiling was a third
of its run. :func:`lazy` stands for the compiled pattern: the first attribute looked up on
it compiles it and keeps that attribute, so later look-ups cost what they cost on the
pattern itself.

Compiling turns the pattern into the regex engine's code, a list of integers that depends
on the pattern, the flags and the interpreter alone. :mod:`gotchas.pattern_code` holds that
code for every pattern defined with :func:`lazy`, written by ``scripts/pattern-code`` for
one interpreter (its version and the engine's ``MAGIC``); on that interpreter a pattern is
made from its code, on any other -- or for a pattern not in the table -- by ``re.compile``.
A pattern made from the table is equal to ``re.compile``'s (``==`` compares the code), and
``tests/test_patterns.py`` checks that for every one.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    Code = tuple[int, tuple[int, ...], int, dict[str, int], tuple[str | None, ...]]
    """A pattern's compiled form: final flags, the engine's code, groups, names both ways."""

_DEFINED: list[tuple[str, int]] = []
"""Every pattern defined with :func:`lazy`, in order: what the table is written from."""
_table: dict[tuple[str, int], Code] | None = None


class _Lazy:
    """A pattern not compiled yet: attributes are the compiled pattern's, fetched once."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        value = getattr(compiled(*self._source), name)
        setattr(self, name, value)
        return value

    def __repr__(self) -> str:
        return repr(compiled(*self._source))


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done where the pattern is first used."""
    _DEFINED.append((pattern, int(flags)))
    return _Lazy(pattern, int(flags))  # type: ignore[return-value]  # it answers as the pattern does


def compiled(pattern: str, flags: int) -> re.Pattern[str]:
    """The pattern, from its code in the table when the table is this interpreter's."""
    global _table  # noqa: PLW0603 -- loaded once, on the first pattern used
    if _table is None:
        _table = _load()
    code = _table.get((pattern, flags))
    if code is None:
        return re.compile(pattern, flags)
    import _sre  # type: ignore[import-not-found]  # the regex engine itself: no stubs

    final, program, groups, groupindex, indexgroup = code
    made: re.Pattern[str] = _sre.compile(pattern, final, list(program), groups, dict(groupindex), indexgroup)
    return made


def interpreter() -> tuple[int, int, int, int, int]:
    """What the engine's code depends on besides the pattern: Python's version, the
    engine's ``MAGIC`` and code size, and the largest code point."""
    import _sre
    import sys

    return (*sys.version_info[:2], _sre.MAGIC, _sre.CODESIZE, sys.maxunicode)


def _load() -> dict[tuple[str, int], Code]:
    try:
        from gotchas import pattern_code
    except ImportError:  # no table: every pattern compiles as usual
        return {}
    return pattern_code.CODE if tuple(pattern_code.INTERPRETER) == interpreter() else {}


def package_patterns() -> list[tuple[str, int]]:
    """Every pattern the package defines with :func:`lazy`: each of its modules imported."""
    import importlib
    import pkgutil

    import gotchas

    for module in pkgutil.walk_packages(gotchas.__path__, "gotchas."):
        if not module.name.endswith(("__main__", "pattern_code")):
            importlib.import_module(module.name)
    return sorted(set(_DEFINED))


def table_source(patterns: list[tuple[str, int]]) -> str:
    """The text of :mod:`gotchas.pattern_code` for ``patterns``, on this interpreter.

    The steps are ``re.compile``'s own (``re._compiler.compile``): parse, generate the code,
    map group names both ways.
    """
    from re import _compiler, _parser  # type: ignore[attr-defined]

    lines = [
        '"""The regex engine\'s code for every pattern defined with ``gotchas.patterns.lazy``.',
        "",
        "Written by ``scripts/pattern-code``; used only on the interpreter named here.",
        '"""',
        "",
        "# ruff: noqa: E501",
        "# fmt: off",
        "from __future__ import annotations",
        "",
        f"INTERPRETER = {interpreter()!r}",
        "TYPE_CHECKING = False",
        "if TYPE_CHECKING:",
        "    from gotchas.patterns import Code",
        "",
        "CODE: dict[tuple[str, int], Code] = {",
    ]
    for pattern, flags in patterns:
        parsed = _parser.parse(pattern, flags)
        program = _compiler._code(parsed, flags)
        groupindex = dict(parsed.state.groupdict)
        indexgroup: list[str | None] = [None] * parsed.state.groups
        for name, index in groupindex.items():
            indexgroup[index] = name
        entry = (
            int(flags | parsed.state.flags),
            tuple(int(x) for x in program),
            parsed.state.groups - 1,
            groupindex,
            tuple(indexgroup),
        )
        lines.append(f"    {(pattern, flags)!r}: {entry!r},")
    lines += ["}", ""]
    return "\n".join(lines)
