"""Facts in, findings out: which lessons the repository has moved away from, and why.

Pure. The rule that keeps findings true: a citation is stale only when it resolved in
the repository *as it was when its line was written* and does not resolve now. A path,
symbol or script that never existed here (a library's API, another service's file) is
never a finding, whatever the lesson says about it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from gotchas.check.citations import Citation

Severity = Literal["warning", "error"]
CODES = (
    "stale-path",
    "stale-symbol",
    "stale-command",
    "task-reverted",
    "task-abandoned",
    "superseded-reverted",
    "duplicate-lesson",
)


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    entry: str
    line: int
    column: int
    message: str
    evidence: dict[str, str] = field(default_factory=dict)

    def to_view(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "entry": self.entry,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "evidence": dict(self.evidence),
        }


class PathIndex:
    """Tracked files of one tree, answering "does this cited path resolve here?".

    A citation resolves when it is a tracked file, a directory holding one, or the tail of
    either (``gotchas/cli.py`` for ``server/gotchas/cli.py``): lessons cite paths relative
    to wherever their author stood.
    """

    def __init__(self, files: Iterable[str], *, indexed: bool = True) -> None:
        self.files = frozenset(files)
        self._tails: dict[str, str] | None = None
        if indexed:
            self._tails = self._index()

    def _index(self) -> dict[str, str]:
        tails: dict[str, str] = {}
        for name in self.files:
            parts = name.split("/")
            for start in range(len(parts)):  # the file and each tail of it
                tails.setdefault("/".join(parts[start:]), name)
            for end in range(1, len(parts)):  # each directory above it
                tails.setdefault("/".join(parts[:end]), name)
        return tails

    def resolve(self, path: str) -> str | None:
        """A tracked file the citation stands for (None: it does not resolve). An index not
        built (a tree asked about a few paths) is scanned instead."""
        if self._tails is not None:
            return self._tails.get(path)
        if path in self.files:
            return path
        tail, folder = "/" + path, path + "/"
        # the same answers as the index: the file, a tail of it, or a directory from the top
        return next((f for f in sorted(self.files) if f.endswith(tail) or f.startswith(folder)), None)


@dataclass(frozen=True)
class Declared:
    """Scripts and targets a tree declares, per runner; None where its file is absent."""

    npm: frozenset[str] | None = None
    make: frozenset[str] | None = None
    just: frozenset[str] | None = None

    def of(self, runner: str) -> frozenset[str] | None:
        return {"npm": self.npm, "make": self.make, "just": self.just}.get(runner)


_MAKE_TARGET = re.compile(rb"^([A-Za-z0-9_./\- ]+?)\s*::?(?!=)", re.MULTILINE)
_JUST_RECIPE = re.compile(rb"^@?([A-Za-z0-9_\-]+)(?:\s+[^:=\n]*)?:(?!=)", re.MULTILINE)


def declared(files: Mapping[str, bytes]) -> Declared:
    """What ``package.json``, the Makefile and the justfile at one commit declare."""
    npm: frozenset[str] | None = None
    if "package.json" in files:
        try:
            scripts = json.loads(files["package.json"].decode("utf-8")).get("scripts") or {}
            npm = frozenset(str(k) for k in scripts) if isinstance(scripts, dict) else frozenset()
        except (ValueError, AttributeError):
            npm = None  # unreadable then or now: no claim either way
    make = None
    for name in ("Makefile", "makefile", "GNUmakefile"):
        if name in files:
            targets = {
                t for m in _MAKE_TARGET.finditer(files[name]) for t in m[1].decode(errors="replace").split()
            }
            make = frozenset(targets | (make or frozenset()))
    just = None
    for name in ("justfile", "Justfile"):
        if name in files:
            just = frozenset(m[1].decode() for m in _JUST_RECIPE.finditer(files[name]))
    return Declared(npm, make, just)


@dataclass(frozen=True)
class Cited:
    """A lesson's citation with the commit its line was written in."""

    entry: str
    citation: Citation
    anchor: str


@dataclass(frozen=True)
class Removal:
    commit: str
    date: str
    subject: str
    renamed_to: str | None = None


@dataclass(frozen=True)
class Facts:
    """Everything the evidence module found, keyed by commit."""

    now: str
    now_paths: PathIndex
    anchor_paths: Mapping[str, PathIndex]
    words: Mapping[str, frozenset[str]]  # commit → cited symbols and keys found there
    scripts: Mapping[str, Declared]
    removals: Mapping[str, Removal]  # full path at the anchor → the commit that removed it


def stale(cited: Sequence[Cited], facts: Facts, severity: Severity = "warning") -> list[Finding]:
    """stale-path, stale-symbol and stale-command findings, each with its evidence."""
    out: list[Finding] = []
    for item in cited:
        c = item.citation
        finding = None
        if c.kind == "path" or (c.kind == "command" and c.runner == "script"):
            finding = _stale_path(item, facts, severity)
        elif c.kind in ("symbol", "key"):
            then = facts.words.get(item.anchor, frozenset())
            if c.value in then and c.value not in facts.words.get(facts.now, frozenset()):
                what = "config key" if c.kind == "key" else "symbol"
                finding = Finding(
                    "stale-symbol",
                    severity,
                    item.entry,
                    c.line,
                    c.column,
                    f"{what} `{c.value}` was in tracked files at {item.anchor[:12]}, "
                    "when this line was written, and is in none now",
                    {"cited": c.text, "anchor": item.anchor, "now": facts.now},
                )
        elif c.kind == "command" and c.runner is not None:
            then_names = facts.scripts.get(item.anchor, Declared()).of(c.runner)
            now_names = facts.scripts.get(facts.now, Declared()).of(c.runner)
            if then_names is not None and c.value in then_names and c.value not in (now_names or ()):
                where = {"npm": "package.json scripts", "make": "the Makefile", "just": "the justfile"}[
                    c.runner
                ]
                finding = Finding(
                    "stale-command",
                    severity,
                    item.entry,
                    c.line,
                    c.column,
                    f"`{c.text}`: {c.value!r} was in {where} at {item.anchor[:12]} and is not now",
                    {"cited": c.text, "anchor": item.anchor, "now": facts.now},
                )
        if finding is not None:
            out.append(finding)
    return out


def _stale_path(item: Cited, facts: Facts, severity: Severity) -> Finding | None:
    c = item.citation
    if facts.now_paths.resolve(c.value):
        return None
    then = facts.anchor_paths.get(item.anchor)
    was = then.resolve(c.value) if then is not None else None
    if was is None:
        return None  # never this repository's: a library's, another service's, a typo
    evidence = {"cited": c.text, "anchor": item.anchor, "now": facts.now, "was": was}
    removal = facts.removals.get(was)
    detail = ""
    if removal is not None:
        evidence["removed_by"] = removal.commit
        detail = f"; removed by {removal.commit[:12]} ({removal.subject})"
        if removal.renamed_to:
            evidence["renamed_to"] = removal.renamed_to
            detail = f"; renamed to {removal.renamed_to} by {removal.commit[:12]} ({removal.subject})"
    code = "stale-command" if c.kind == "command" else "stale-path"
    what = "script" if c.kind == "command" else "path"
    return Finding(
        code,
        severity,
        item.entry,
        c.line,
        c.column,
        f"{what} {c.value} existed at {item.anchor[:12]}, when this line was written, and is gone{detail}",
        evidence,
    )


@dataclass(frozen=True)
class TaskFacts:
    """What git and the task sources say of one task."""

    reverted: tuple[str, str] | None = None  # (landing commit, the revert in effect), none landed
    abandoned: str | None = None  # the source and state that says it will not land


def tasks(
    entries: Sequence[tuple[str, int, tuple[str, ...], tuple[str, ...]]],
    facts: Mapping[str, TaskFacts],
    severity: Severity = "warning",
) -> list[Finding]:
    """task-reverted, task-abandoned and superseded-reverted, from (id, line, tasks, red-herring-for)."""
    out: list[Finding] = []
    for entry_id, line, own, red_for in entries:
        for task in own:
            known = facts.get(task)
            if known is None:
                continue
            if known.reverted:
                landed, revert = known.reverted
                out.append(
                    Finding(
                        "task-reverted",
                        severity,
                        entry_id,
                        line,
                        1,
                        f"{task} landed in {landed[:12]}, which {revert[:12]} reverted: "
                        "what this lesson says of the fix may no longer hold",
                        {"task": task, "landed": landed, "reverted_by": revert},
                    )
                )
            if known.abandoned:
                out.append(
                    Finding(
                        "task-abandoned",
                        severity,
                        entry_id,
                        line,
                        1,
                        f"{task} will not land ({known.abandoned}): "
                        "the lesson may describe work that never happened",
                        {"task": task, "said": known.abandoned},
                    )
                )
        for task in red_for:
            known = facts.get(task)
            if known is not None and known.reverted:
                landed, revert = known.reverted
                out.append(
                    Finding(
                        "superseded-reverted",
                        severity,
                        entry_id,
                        line,
                        1,
                        f"superseded for {task}, but {task}'s landing {landed[:12]} was reverted by "
                        f"{revert[:12]}: this lesson may hold again",
                        {"task": task, "landed": landed, "reverted_by": revert},
                    )
                )
    return out


_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
_FIELD_LINE = re.compile(r"^\s*(?:[-*+]\s+)?[\w -]{1,40}:\s", re.UNICODE)


def claim_words(text: str) -> frozenset[str]:
    """The words of a lesson's claim: its text without field lines, case-folded."""
    kept = [line for line in text.splitlines()[1:] if not _FIELD_LINE.match(line)]
    return frozenset(w.casefold() for w in _WORDS.findall(" ".join(kept)))


def duplicates(
    lessons: Sequence[tuple[str, int, str, str]], threshold: float = 0.9, severity: Severity = "warning"
) -> list[Finding]:
    """Active lessons (id, line, title, text) that make the same claim: the same title over
    texts sharing at least half their words (two table rows both titled ``id`` are not one
    claim), or near-identical texts: a Jaccard similarity of ``threshold`` or more over at
    least eight words (found by :func:`_similar_pairs`).
    """
    out: list[Finding] = []
    by_title: dict[str, list[tuple[str, frozenset[str]]]] = {}
    paired: set[tuple[str, str]] = set()
    for entry_id, line, title, text in lessons:
        key = " ".join(w.casefold() for w in _WORDS.findall(title))
        words = claim_words(text)
        first = next((e for e, w in by_title.get(key, []) if _jaccard(words, w) >= 0.5), None)
        if key:
            by_title.setdefault(key, []).append((entry_id, words))
        if first is not None:
            paired.add((first, entry_id))
            out.append(
                Finding(
                    "duplicate-lesson",
                    severity,
                    entry_id,
                    line,
                    1,
                    f"same title as {first}: keep one (retire the other)",
                    {"same_as": first, "by": "title"},
                )
            )
    claims = [
        (entry_id, line, words) for entry_id, line, _, text in lessons if len(words := claim_words(text)) >= 8
    ]
    for at, other in _similar_pairs([words for _, _, words in claims], threshold):
        entry_id, line, words = claims[at]
        other_id, _, other_words = claims[other]
        if (other_id, entry_id) in paired or (entry_id, other_id) in paired:
            continue
        same = len(words & other_words) / len(words | other_words)
        paired.add((other_id, entry_id))
        out.append(
            Finding(
                "duplicate-lesson",
                severity,
                entry_id,
                line,
                1,
                f"near-identical to {other_id} ({same:.0%} of words shared): keep one (retire the other)",
                {"same_as": other_id, "by": "text"},
            )
        )
    return out


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def _similar_pairs(sets: Sequence[frozenset[str]], threshold: float) -> list[tuple[int, int]]:
    """Pairs (later, earlier) of ``sets`` with a Jaccard similarity of ``threshold`` or more.

    Prefix filtering: with each set's words ordered rarest first, two sets that similar
    must share a word among the first ``len - ceil(threshold * len) + 1`` of each, so only
    sets sharing such a word are compared; 500 lessons cost a few hundred comparisons.
    """
    counts: dict[str, int] = {}
    for words in sets:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    index: dict[str, list[int]] = {}
    found: list[tuple[int, int]] = []
    for at, words in enumerate(sets):
        ordered = sorted(words, key=lambda w: (counts[w], w))
        prefix = ordered[: len(ordered) - math.ceil(threshold * len(ordered)) + 1]
        seen: set[int] = set()
        for word in prefix:
            for other in index.get(word, ()):
                if other in seen:
                    continue
                seen.add(other)
                small, big = sorted((len(words), len(sets[other])))
                if (
                    small >= big * threshold
                    and len(words & sets[other]) / len(words | sets[other]) >= threshold
                ):
                    found.append((at, other))
            index.setdefault(word, []).append(at)
    return found
