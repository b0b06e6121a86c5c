"""The git questions a check asks, each one call for every lesson at once.

One blame of the record; one listing of tracked files now, and one at each anchor commit
a missing path needs; one ``git grep`` over now and every anchor a missing symbol needs;
the declared scripts and targets read from one ``git cat-file --batch``; one pathspec-
limited ``git log`` for the commits that removed paths, and one ``git diff-tree`` per such
commit to see whether git calls it a rename; one ``git log --grep`` for every task.
Nothing walks history once per lesson.

Git runs through :class:`gotchas.holds.sources.git.Git` (no options, hooks, pager,
textconv or external diff from the repository); every name read from the record is data:
after ``--``, a ``-e`` pattern, or a line on stdin, never an option.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.git import SAFE_CONFIG, SAFE_ENV, Commit, Git, parse_log

_HEX = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
_REV = re.compile(r"^[A-Za-z0-9_./~^@{}-]{1,200}$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORD_BEFORE = re.compile(
    r"\b(?:def|class|function|func|fn|const|let|var|val|type|interface|struct|enum|trait|module|"
    r"macro|sub|object|record|protocol|typedef|alias)\s+(?:\([^)]*\)\s*)?\*?$"
)
_JOINED = frozenset("-./@$")
# Lock files and checksums name other projects' packages, never this repository's code.
_NOT_OURS = tuple(
    f":(exclude,glob){pattern}"
    for pattern in ("**/*.lock", "**/*-lock.json", "**/*-lock.yaml", "**/*.sum", "**/npm-shrinkwrap.json")
)
_ASSIGNED_AFTER = re.compile(r"""^["']?\s*(?::(?!:)|=(?!=))""")
SCRIPT_FILES = ("package.json", "Makefile", "makefile", "GNUmakefile", "justfile", "Justfile")
MAX_SCRIPT_FILE = 1 << 20


def checked_rev(rev: str) -> str:
    """A revision a person typed, refused when git could read it as an option."""
    if not _REV.match(rev) or rev.startswith("-"):
        raise ValueError(f"not a revision: {rev!r}")
    return rev


@dataclass
class Asked:
    """How many git calls each question made: tests assert these, not timings."""

    calls: dict[str, int] = field(default_factory=dict)

    def count(self, what: str) -> None:
        self.calls[what] = self.calls.get(what, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.calls.values())


class Repository:
    """The read-only git questions of a check, counted."""

    def __init__(self, git: Git) -> None:
        self.git = git
        self.asked = Asked()

    def _run(self, what: str, *args: str, stdin: str | None = None, ok: Sequence[int] = (0,)) -> str:
        self.asked.count(what)
        result = self.git.run(*args, stdin=stdin, check=False)
        if result.returncode not in ok:
            line = next((x for x in result.stderr.splitlines() if x.strip()), "no message")
            raise SourceFailed(f"git {args[0]} failed: {line.strip()}")
        return result.stdout

    def state(self, rev: str) -> tuple[bool, str]:
        """(whether the clone is shallow, the commit ``rev`` names)."""
        out = self._run("rev-parse", "rev-parse", "--is-shallow-repository", f"{checked_rev(rev)}^{{commit}}")
        lines = out.split()
        if len(lines) != 2 or not _HEX.match(lines[1]):
            raise SourceFailed(f"git rev-parse could not name {rev}")
        return lines[0] == "true", lines[1]

    def blame(self, path: str, rev: str | None) -> str:
        """``git blame --porcelain -w`` of the record at ``rev`` (None: the working tree)."""
        at = [rev] if rev else []
        return self._run("blame", "blame", "--porcelain", "-w", "--no-textconv", *at, "--", path)

    def tree(self, commit: str) -> frozenset[str]:
        """Every tracked file at ``commit``."""
        out = self._run("ls-tree", "ls-tree", "-r", "--name-only", "-z", "--full-tree", _sha(commit))
        return frozenset(name for name in out.split("\0") if name)

    def grep(self, words: Iterable[str], commits: Sequence[str], exclude: str) -> dict[str, set[str]]:
        """Which of ``words`` occur as whole words in tracked text files at each commit, the
        record itself left out (a lesson must not vouch for itself)."""
        patterns = sorted({w for w in words if _NAME.match(w)})
        if not patterns or not commits:
            return {c: set() for c in commits}
        args = ["grep", "-z", "-o", "-w", "-E", "-I", "--no-color", "--no-textconv", *_alternations(patterns)]
        args += [_sha(c) for c in commits]
        args += ["--", ".", f":(exclude,literal){exclude}", *_NOT_OURS]
        out = self._run("grep", *args, ok=(0, 1))
        found: dict[str, set[str]] = {c: set() for c in commits}
        for row in out.split("\n"):
            where, _, match = row.partition("\0")
            commit = where.split(":", 1)[0]
            if commit in found and match:
                found[commit].add(match)
        return found

    def defined(self, words: Iterable[str], commits: Sequence[str], exclude: str) -> dict[str, set[str]]:
        """Which of ``words`` some tracked file *defines* at each commit (see :func:`defines`),
        from the lines one ``git grep`` prints: a name the code only uses (a library's API)
        is not the repository's to lose."""
        patterns = sorted({w for w in words if _NAME.match(w)})
        if not patterns or not commits:
            return {c: set() for c in commits}
        args = ["grep", "-z", "-w", "-E", "-I", "--no-color", "--no-textconv", *_alternations(patterns)]
        args += [_sha(c) for c in commits]
        args += ["--", ".", f":(exclude,literal){exclude}", *_NOT_OURS]
        out = self._run("grep", *args, ok=(0, 1))
        found: dict[str, set[str]] = {c: set() for c in commits}
        lookup = set(patterns)
        for row in out.split("\n"):
            where, _, line = row.partition("\0")
            commit = where.split(":", 1)[0]
            if commit in found and line:
                found[commit].update(defines(line[:2000], lookup))
        return found

    def kinds(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """``blob`` or ``tree`` for each (commit, path) that names one, from one
        ``git cat-file --batch-check`` (paths here never hold a newline or a space)."""
        wanted = sorted({(c, p) for c, p in pairs if p and not any(ch in p for ch in "\n\r\0")})
        if not wanted:
            return {}
        out = self._run(
            "cat-file", "cat-file", "--batch-check", stdin="".join(f"{_sha(c)}:{p}\n" for c, p in wanted)
        )
        found: dict[tuple[str, str], str] = {}
        for pair, row in zip(wanted, out.splitlines(), strict=False):
            parts = row.split()
            if len(parts) == 3 and parts[1] in ("blob", "tree"):
                found[pair] = parts[1]
        return found

    def files(self, wanted: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
        """The bytes of ``path`` at ``commit`` for each pair that names a file; one call."""
        pairs = sorted(set(wanted))
        if not pairs:
            return {}
        self.asked.count("cat-file")
        stdin = "".join(f"{_sha(commit)}:{path}\n" for commit, path in pairs).encode()
        out = _run_bytes(self.git, ("cat-file", "--batch"), stdin)
        contents: dict[tuple[str, str], bytes] = {}
        at = 0
        for pair in pairs:
            end = out.find(b"\n", at)
            if end < 0:
                break
            header = out[at:end].split()
            at = end + 1
            if len(header) != 3 or header[1] != b"blob":
                continue  # "<name> missing", or a tree
            size = int(header[2])
            if size <= MAX_SCRIPT_FILE:
                contents[pair] = out[at : at + size]
            at += size + 1
        return contents

    def removals(self, paths: Iterable[str], rev: str, since: str | None = None) -> dict[str, Commit]:
        """For each path gone at ``rev``: the newest commit reachable from it that deleted it,
        looked for among the commits ``since`` (an anchor, the oldest asked about) does not reach."""
        wanted = sorted(set(paths))
        if not wanted:
            return {}
        out = self._run(
            "log",
            "log",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-renames",
            "--diff-filter=D",
            "--name-only",
            "-z",
            "--format=%x01%H%x1f%P%x1f%cI%x1f%s",
            _sha(rev),
            *([f"^{_sha(since)}"] if since else []),
            "--",
            *(f":(literal){p}" for p in wanted),
        )
        removed: dict[str, Commit] = {}
        for chunk in out.split("\x01")[1:]:
            head, _, names = chunk.partition("\0")
            parts = head.split("\x1f", 3)
            if len(parts) != 4 or not _HEX.match(parts[0]):
                continue
            commit = Commit(parts[0], parts[2].strip(), parts[3].strip(), tuple(parts[1].split()))
            for raw in names.split("\0"):
                name = raw.strip("\n")
                if name and name not in removed:
                    removed[name] = commit
        return removed

    def renames(self, commits: Iterable[str]) -> dict[str, dict[str, str]]:
        """For each commit, old path → new path for what git sees as renamed by it (against
        its first parent): one ``git diff-tree --stdin`` for all of them."""
        wanted = sorted({_sha(c) for c in commits})
        if not wanted:
            return {}
        out = self._run(
            "diff-tree",
            "diff-tree",
            "--stdin",
            "-r",
            "-M",
            "-z",
            "--name-status",
            "--no-ext-diff",
            "--no-textconv",
            stdin="".join(f"{c}\n" for c in wanted),
        )
        moved: dict[str, dict[str, str]] = {c: {} for c in wanted}
        current: dict[str, str] | None = None
        fields = out.split("\0")
        at = 0
        while at < len(fields):
            token = fields[at].strip("\n")
            if token in moved:  # where a status is due, a requested commit id starts its diff
                current, at = moved[token], at + 1
            elif token[:1] in ("R", "C") and at + 2 < len(fields):
                if token.startswith("R") and current is not None:
                    current[fields[at + 1]] = fields[at + 2]
                at += 3
            else:
                at += 2 if token else 1
        return moved

    def task_history(self, numbers: Sequence[int], rev: str) -> list[Commit]:
        """Commits reachable from ``rev`` that mention any of ``#numbers`` or revert something."""
        if not numbers:
            return []
        ordered = [str(n) for n in sorted(set(numbers))]
        # one alternation per 200 tasks: git tries each --grep in turn on every message
        greps = [f"--grep=#({'|'.join(ordered[at : at + 200])})" for at in range(0, len(ordered), 200)]
        out = self._run(
            "log",
            "log",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-notes",
            "--topo-order",
            "-z",
            "-E",
            "-i",
            *greps,
            "--grep=This reverts commit",
            "--format=%H%x1f%P%x1f%cI%x1f%B",
            _sha(rev),
            "--",
        )
        return parse_log(out)


def _alternations(names: Sequence[str], size: int = 200) -> list[str]:
    """``-e (a|b|…)`` patterns, ``size`` names each: git tries each ``-e`` on every line in
    turn, so one alternation is far faster than a pattern per name. Names are identifiers
    (checked by ``_NAME``), so nothing in them is a regular-expression operator."""
    out: list[str] = []
    for at in range(0, len(names), size):
        out += ["-e", "(" + "|".join(names[at : at + size]) + ")"]
    return out


def defines(line: str, names: set[str]) -> set[str]:
    """Which of ``names`` ``line`` defines: a keyword right before it (``def``, ``class``,
    ``function``, ``func (r *T)``, ``const``…), or ``=`` / ``:`` right after it (an
    assignment, a key in a config or object literal)."""
    out: set[str] = set()
    for match in _WORD.finditer(line):
        name = match[0]
        if name in names and name not in out:
            before, after = line[: match.start()], line[match.end() :].lstrip()
            if before[-1:] in _JOINED or line[match.end() : match.end() + 1] in _JOINED:
                continue  # part of a longer name: ``expr-eval``, ``a.eval``, ``x/eval``
            if _KEYWORD_BEFORE.search(before[-80:]) or _ASSIGNED_AFTER.match(after):
                out.add(name)
    return out


def _sha(value: str) -> str:
    if not _HEX.match(value):
        raise SourceFailed(f"not a commit id: {value!r}")
    return value


def _run_bytes(git: Git, args: Sequence[str], stdin: bytes) -> bytes:
    """``git args`` as :meth:`Git.run` runs it, with bytes in and out (blob sizes are bytes)."""
    argv = ["git", "--no-pager"]
    for setting in SAFE_CONFIG:
        argv += ["-c", setting]
    argv += list(args)
    env: Mapping[str, str] = {**os.environ, **SAFE_ENV}
    try:
        result = subprocess.run(
            argv, cwd=git.root, env=env, input=stdin, capture_output=True, timeout=git.timeout, check=False
        )
    except FileNotFoundError:
        raise SourceFailed("git is not installed or not on PATH") from None
    except subprocess.TimeoutExpired:
        raise SourceFailed(f"git {args[0]} timed out after {git.timeout:g}s") from None
    except OSError as exc:
        raise SourceFailed(f"cannot run git: {exc}") from None
    if result.returncode != 0:
        raise SourceFailed(f"git {args[0]} failed")
    return result.stdout
