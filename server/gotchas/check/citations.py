"""What a lesson cites: paths, code symbols, commands and config keys, read from its text.

Pure: text in, citations out. Nothing here decides whether a citation is stale; it only
says what the lesson names and where (line and column in the record), so the evidence
can be fetched in batches and judged against the repository as it was and as it is.

What counts is deliberately narrow: a path must look like one (a ``/`` or a file
extension), a symbol must be in backticks and look like code (``snake_case``,
``camelCase``, ``Dotted.name``, ``call()``), a command must start with a runner we can
check (``npm run``, ``pnpm``, ``yarn``, ``make``, ``just``, ``./script``, ``uv run
path``). Plain words, URLs and anything with spaces outside a command are left alone:
a citation we cannot check is better missed than wrongly flagged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["path", "symbol", "command", "key"]
Runner = Literal["npm", "make", "just", "script"]


@dataclass(frozen=True)
class Citation:
    """One thing a lesson names. ``value`` is what is looked up; ``text`` is as written."""

    kind: Kind
    value: str
    text: str
    line: int  # 1-based, in the record
    column: int  # 1-based
    runner: Runner | None = None  # commands: where the script or target is declared


# a span opens with a whole run of backticks, as in Markdown: not from inside a run, so a long
# run is read once
_TICKS = re.compile(r"(?<!`)(`+)([^`\n]{1,300}?)\1")
# a scheme starts where no scheme character stands before it: a long run of them is then read
# once, not from each of its characters
_URL = re.compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
# A path: segments of path characters with a slash, or a name with a known extension.
_PATH_CHARS = r"[A-Za-z0-9_.@+\-]"
_PLAIN_PATH = re.compile(
    rf"(?<![\w/.@~$-])(?:\./)?(?:{_PATH_CHARS}+/)+{_PATH_CHARS}*[A-Za-z0-9_](?::\d+(?:[-:]\d+)?)?(?![\w/])"
)
_EXTENSIONS = frozenset(
    "py pyi ts tsx js jsx mjs cjs go rs rb java kt kts swift c h cc cpp hpp cs php sh bash zsh "
    "toml yaml yml json jsonc md mdx sql proto graphql css scss html vue svelte lock cfg ini "
    "env txt gradle tf nix dockerfile makefile mk".split()
)
_LINE_SUFFIX = re.compile(r":\d+(?:[-:]\d+)?$")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SYMBOL = re.compile(rf"^(?:{_IDENT}(?:\.|::|#))*{_IDENT}(?:\(\))?$")
_ENV_KEY = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_NPM = re.compile(r"^(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?(?P<name>[A-Za-z0-9_:.\-]+)")
_NPM_BUILTIN = frozenset(
    "install i ci add remove rm uninstall update up exec x dlx create init publish pack link "
    "audit outdated ls list why config login logout version view info help set run-script".split()
)
_MAKE = re.compile(r"^(?:make|gmake)\s+(?P<name>[A-Za-z0-9_.\-/]+)(?:\s|$)")
_JUST = re.compile(r"^just\s+(?P<name>[A-Za-z0-9_\-]+)(?:\s|$)")
_SCRIPT = re.compile(r"^(?:(?:bash|sh|zsh|python3?|node|uv\s+run|poetry\s+run)\s+)?(?P<path>\.{0,2}/?\S+)")
_BUILTIN_WORDS = frozenset(
    "true false null none self this args kwargs return import from async await yield const let var "
    "print len str int dict list set tuple bool float bytes object type main test tests".split()
)


def cite(text: str, first_line: int) -> list[Citation]:
    """Every citation in ``text`` (a lesson's bytes decoded), its first line being ``first_line``.

    Spans in backticks are read first (a path, a command, a key or a symbol); plain text
    outside them is searched for paths only. One value is cited once per lesson.
    """
    found: list[Citation] = []
    seen: set[tuple[str, str]] = set()

    def add(citation: Citation | None) -> None:
        if citation is not None and (citation.kind, citation.value) not in seen:
            seen.add((citation.kind, citation.value))
            found.append(citation)

    for number, line in enumerate(text.splitlines(), start=first_line):
        covered: list[tuple[int, int]] = []
        for match in _TICKS.finditer(line):
            covered.append(match.span())
            for citation in _in_ticks(match[2].strip(), number, match.start(2) + 1):
                add(citation)
        for match in _URL.finditer(line):
            covered.append(match.span())
        for match in _PLAIN_PATH.finditer(line):
            if any(a <= match.start() < b for a, b in covered):
                continue
            add(_path(match[0], number, match.start() + 1, ticked=False))
    return sorted(found, key=lambda c: (c.line, c.column))


def _in_ticks(code: str, line: int, column: int) -> list[Citation]:
    """What one backticked span cites: a command (and the script path it runs), a path, a key
    or a symbol; nothing for prose, flags or expressions."""
    if not code or _URL.match(code):
        return []
    command = _command(code, line, column)
    if command:
        return command
    if " " in code:
        return []
    path = _path(code, line, column)
    if path is not None:
        return [path]
    if _ENV_KEY.match(code):
        return [Citation("key", code, code, line, column)]
    symbol = _symbol(code)
    if symbol is not None:
        return [Citation("symbol", symbol, code, line, column)]
    return []


def _command(code: str, line: int, column: int) -> list[Citation]:
    words = code.split()
    if (
        (match := _NPM.match(code))
        and match["name"] not in _NPM_BUILTIN
        and not match["name"].startswith("-")
    ):
        return [Citation("command", match["name"], code, line, column, "npm")]
    if (match := _MAKE.match(code)) and not match["name"].startswith("-") and "=" not in match["name"]:
        return [Citation("command", match["name"], code, line, column, "make")]
    if (match := _JUST.match(code)) and not match["name"].startswith("-"):
        return [Citation("command", match["name"], code, line, column, "just")]
    runs_script = code.startswith(("./", "../")) or (
        len(words) > 1 and words[0] in ("bash", "sh", "zsh", "python", "python3", "node", "uv", "poetry")
    )
    if runs_script and (match := _SCRIPT.match(code)):
        path = _path(match["path"], line, column)
        if path is not None and ("/" in path.value or code.startswith("./")):
            return [Citation("command", path.value, code, line, column, "script")]
    return []


def _path(raw: str, line: int, column: int, *, ticked: bool = True) -> Citation | None:
    """A path citation, its ``:line`` dropped; None unless it looks like a path in a repository."""
    text = raw.rstrip(".,;:)]}>'\"")
    value = _LINE_SUFFIX.sub("", text)
    if value.startswith("./"):
        value = value[2:]
    if not value or value.startswith(("/", "~", "$", "-", "@", "..")) or "//" in value:
        return None  # absolute, home, variables, scoped packages, parents: not this tree's
    if any(part in ("", ".") for part in value.rstrip("/").split("/")):
        return None
    if not re.fullmatch(r"[A-Za-z0-9_.@+\-/]+", value):
        return None
    leaf = value.rstrip("/").rsplit("/", 1)[-1]
    extension = leaf.rsplit(".", 1)[-1].lower() if "." in leaf.strip(".") else ""
    if "/" not in value.rstrip("/"):
        if extension not in _EXTENSIONS and leaf.lower() not in ("makefile", "dockerfile", "justfile"):
            return None
    elif not extension and not value.endswith("/") and not _looks_like_dir(value, ticked):
        return None
    return Citation("path", value.rstrip("/"), raw, line, column)


def _looks_like_dir(value: str, ticked: bool) -> bool:
    """```src/api``` or ``src/api/v2`` is a path; ``and/or``, ``TCP/IP``, ``input/output`` in
    prose are words: outside backticks a folder needs three parts."""
    parts = value.split("/")
    lower = all(p and (p[0].islower() or p[0] in "._") for p in parts)
    return lower and len(parts) >= (2 if ticked else 3)


def _symbol(code: str) -> str | None:
    """The name a symbol citation is looked up by: its last part, when it reads as code."""
    if not _SYMBOL.match(code):
        return None
    name = re.split(r"\.|::|#", code.removesuffix("()"))[-1]
    if len(name) < 4 or name.lower() in _BUILTIN_WORDS:
        return None
    codelike = "_" in name or code.endswith("()") or any(c.isupper() for c in name[1:]) or "." in code
    if not codelike or name.isupper():
        return None
    return name
