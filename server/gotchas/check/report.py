"""One check of the record: read it, ask git in batches, judge, report. Writes nothing.

Bad input is a notice, never an error: no git, a shallow clone (blame would anchor every
line at the clone's boundary), a record git does not track, a binary or oversized file
each give a report with one notice and no finding, so a hook or CI step never breaks on
them and nothing false is claimed.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gotchas.check import anchors, citations, findings
from gotchas.check.evidence import SCRIPT_FILES, Repository
from gotchas.check.findings import Cited, Declared, Facts, Finding, PathIndex, Removal, TaskFacts
from gotchas.errors import GotchasError
from gotchas.holds.sources import SourceFailed
from gotchas.holds.sources.git import Git, landings, merges_to_expand
from gotchas.record import MAX_RECORD_BYTES, Entry, Record, parse

CONFIG_PATH = ".claude/gotchas.toml"
RETIRED = "retired"
RECHECKED = "rechecked"
_WILL_NOT_LAND = ("abandoned", "cancelled", "failed")


@dataclass
class Report:
    record: str
    commit: str | None = None
    lessons: int = 0
    findings: list[Finding] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    git_calls: dict[str, int] = field(default_factory=dict)

    def to_view(self) -> dict[str, object]:
        return {
            "record": self.record,
            "commit": self.commit,
            "lessons": self.lessons,
            "findings": [f.to_view() for f in self.findings],
            "notices": list(self.notices),
            "git_calls": dict(self.git_calls),
        }


def error_codes(root: Path) -> frozenset[str]:
    """``[check] errors = [...]`` in the config: finding codes that fail like errors."""
    try:
        data = tomllib.loads((root / CONFIG_PATH).read_text("utf-8"))
    except (OSError, ValueError):
        return frozenset()
    table = data.get("check")
    listed = table.get("errors") if isinstance(table, dict) else None
    if not isinstance(listed, list):
        return frozenset()
    return frozenset(str(code) for code in listed if code in findings.CODES)


def check(
    root: Path,
    record: str,
    data: bytes | None = None,
    *,
    rev: str | None = None,
    ask_sources: bool = True,
    errors: frozenset[str] = frozenset(),
    timeout: float = 60.0,
) -> Report:
    """Findings for the record at ``record`` (relative to ``root``, the top of the repository).

    ``data`` is the record's bytes in the working tree, checked against HEAD; with ``rev``
    the record is read at that commit and checked against it (``data`` is then ignored).
    """
    report = Report(record=record)
    repo = Repository(Git(root, timeout=timeout))
    try:
        _run(report, repo, record, data, rev, ask_sources, errors)
    except SourceFailed as exc:
        report.findings.clear()
        report.notices.append(_why(exc.message))
    report.git_calls = dict(repo.asked.calls)
    return report


def _why(message: str) -> str:
    if "not a git repository" in message:
        return "not a git repository: the check needs the record's history; nothing checked"
    if "no such path" in message or "no such ref" in message:
        return f"the record is not in git history ({message}); nothing checked"
    return f"git could not answer ({message}); nothing checked"


def _run(
    report: Report,
    repo: Repository,
    record: str,
    data: bytes | None,
    rev: str | None,
    ask_sources: bool,
    errors: frozenset[str],
) -> None:
    try:
        shallow, now = repo.state(rev or "HEAD")
    except ValueError as exc:
        report.notices.append(f"{exc}; nothing checked")
        return
    report.commit = now
    if shallow:
        report.notices.append(
            "shallow clone: blame would date every old line at the clone's edge; "
            "fetch full history (git fetch --unshallow) to check; nothing checked"
        )
        return
    if rev is not None:
        data = repo.files([(now, record)]).get((now, record))
        if data is None:
            report.notices.append(f"{record} is not in git at {now[:12]}; nothing checked")
            return
    if data is None or len(data) > MAX_RECORD_BYTES:
        report.notices.append(
            f"{record} is missing or larger than {MAX_RECORD_BYTES >> 20} MB; nothing checked"
        )
        return
    try:
        parsed = parse(data, name=record)
        entries = parsed.entries
    except GotchasError as exc:
        report.notices.append(f"{record} cannot be read as a lessons file ({exc.message}); nothing checked")
        return
    report.lessons = len(entries)
    porcelain = repo.blame(record, now if rev is not None else None)
    blame = anchors.parse_blame(porcelain)
    live = [e for e in entries if not _field(e, RETIRED)]
    cited = _cited(parsed, live, blame)
    facts = _facts(repo, cited, now, record, anchors.commit_times(porcelain))
    found = findings.stale(cited, facts)
    found += findings.tasks(
        [(e.id, e.start_line, e.tasks, e.red_herring_for) for e in live],
        _task_facts(repo, live, now, ask_sources),
    )
    active = [e for e in live if not e.superseded_by and e.status != "superseded"]
    # a same title counts within one section: rows titled `id` in two tables are two claims
    titled = [(e.id, e.start_line, f"{e.section or ''} / {e.title}", parsed.text(e)) for e in active]
    found += findings.duplicates(titled)
    report.findings = sorted((_severity(f, errors) for f in found), key=lambda f: (f.line, f.column, f.code))


def _severity(finding: Finding, errors: frozenset[str]) -> Finding:
    if finding.code not in errors:
        return finding
    return dataclasses.replace(finding, severity="error")


def _field(entry: Entry, key: str) -> str | None:
    return next((f.value for f in entry.fields if f.key == key), None)


def _cited(parsed: Record, live: Sequence[Entry], blame: dict[int, str]) -> list[Cited]:
    out: list[Cited] = []
    for entry in live:
        rechecked = (_field(entry, RECHECKED) or "").split()
        override = rechecked[0] if rechecked and len(rechecked[0]) in (40, 64) else None
        for citation in citations.cite(parsed.text(entry), entry.start_line):
            anchor = anchors.anchor_of(blame, citation.line, override)
            if anchor is not None:
                out.append(Cited(entry.id, citation, anchor))
    return out


def _anchor_trees(repo: Repository, pairs: set[tuple[str, str]]) -> dict[str, PathIndex]:
    """What each anchor holds of the paths asked of it: an anchor where every path is a file
    exactly as cited needs no listing (one ``cat-file --batch-check`` tells); one where some
    path is a directory, a tail of a path, or missing gets its tracked files listed."""
    kinds = repo.kinds(pairs)
    trees: dict[str, PathIndex] = {}
    for anchor in sorted({a for a, _ in pairs}):
        asked = {v for a, v in pairs if a == anchor}
        if all(kinds.get((anchor, v)) == "blob" for v in asked):
            trees[anchor] = PathIndex(asked, indexed=False)
        else:
            trees[anchor] = PathIndex(repo.tree(anchor), indexed=False)
    return trees


def _split_anchors(
    missing: Sequence[Cited], times: Mapping[str, int]
) -> tuple[dict[str, str], dict[str, set[str]]]:
    """For each missing value, the newest anchor it is cited at, and its other anchors.

    A value is looked up at its newest anchor first, and at its older ones only when it was
    there: a library name or another service's path cited by a hundred lessons costs one
    tree, not a hundred. (A value already gone at its newest anchor is taken as never
    ours: that lesson was written without it, and older ones are not looked at.)"""
    by_value: dict[str, set[str]] = {}
    for c in missing:
        by_value.setdefault(c.citation.value, set()).add(c.anchor)
    newest = {v: max(a, key=lambda x: (times.get(x, 0), x)) for v, a in by_value.items()}
    return newest, {v: a - {newest[v]} for v, a in by_value.items()}


def _facts(
    repo: Repository, cited: Sequence[Cited], now: str, record: str, times: Mapping[str, int]
) -> Facts:
    now_paths = PathIndex(repo.tree(now))
    pathish = [c for c in cited if c.citation.kind == "path" or c.citation.runner == "script"]
    missing = [c for c in pathish if now_paths.resolve(c.citation.value) is None]
    newest, older = _split_anchors(missing, times)
    anchor_paths = _anchor_trees(repo, {(a, v) for v, a in newest.items()})
    again = {(a, v) for v, a_set in older.items() if anchor_paths[newest[v]].resolve(v) for a in a_set}
    anchor_paths |= _anchor_trees(repo, again)
    was = {
        p
        for c in missing
        if c.anchor in anchor_paths and (p := anchor_paths[c.anchor].resolve(c.citation.value)) is not None
    }
    oldest = min((c.anchor for c in missing), key=lambda a: (times.get(a, 0), a), default=None)
    removed = repo.removals(was, now, oldest)
    moved = repo.renames(c.sha for c in removed.values() if c.parents)
    removals = {
        path: Removal(c.sha, c.date, c.subject, moved.get(c.sha, {}).get(path)) for path, c in removed.items()
    }
    words = [c for c in cited if c.citation.kind in ("symbol", "key")]
    found_now = repo.grep({c.citation.value for c in words}, [now], record)[now]
    gone = [c for c in words if c.citation.value not in found_now]
    newest, older = _split_anchors(gone, times)
    values = {c.citation.value for c in gone}
    ours = repo.defined(values, sorted(set(newest.values())), record)
    later = {a for v, a_set in older.items() if v in ours[newest[v]] for a in a_set} - set(ours)
    ours |= repo.defined(values, sorted(later), record) if later else {}
    found = {commit: frozenset(names) for commit, names in ours.items()}
    found[now] = frozenset(found_now)
    scripts = _scripts(repo, cited, now)
    return Facts(now, now_paths, anchor_paths, found, scripts, removals)


def _scripts(repo: Repository, cited: Sequence[Cited], now: str) -> dict[str, Declared]:
    commands = [c for c in cited if c.citation.kind == "command" and c.citation.runner != "script"]
    if not commands:
        return {}
    present = repo.files((now, name) for name in SCRIPT_FILES)
    at_now = findings.declared({path: body for (_, path), body in present.items()})
    gone = {c.anchor for c in commands if c.citation.value not in (at_now.of(c.citation.runner or "") or ())}
    earlier = repo.files((anchor, name) for anchor in gone for name in SCRIPT_FILES)
    scripts = {now: at_now}
    for anchor in gone:
        scripts[anchor] = findings.declared({p: b for (c, p), b in earlier.items() if c == anchor})
    return scripts


def _task_facts(repo: Repository, live: Sequence[Entry], now: str, ask_sources: bool) -> dict[str, TaskFacts]:
    named = sorted({t for e in live for t in (*e.tasks, *e.red_herring_for)})
    if not named:
        return {}
    this_repo = repo.git.origin_slug()
    numbers: dict[str, int] = {}
    for task in named:
        number = _number(task, this_repo)
        if number is not None:
            numbers[task] = number
    commits = repo.task_history(list(numbers.values()), now)
    reverted: dict[str, tuple[str, str]] = {}
    wanted = [ref for task, n in numbers.items() for ref in merges_to_expand(commits, n, this_repo)]
    expansions = repo.git.brought_in(list(dict.fromkeys(wanted))) if wanted else {}
    for task, number in numbers.items():
        effective, undone = landings(commits, number, this_repo, expansions)
        if not effective and undone and undone[0].reverted_by:
            reverted[task] = (undone[0].commit.sha, undone[0].reverted_by)
    own = sorted({t for e in live for t in e.tasks})
    abandoned = _abandoned(repo.git.root, own) if ask_sources else {}
    return {
        task: TaskFacts(reverted.get(task), abandoned.get(task))
        for task in named
        if task in reverted or task in abandoned
    }


def _number(task: str, this_repo: str | None) -> int | None:
    """The issue number of ``#N`` or this repository's ``owner/name#N``; None for other trackers."""
    head, sep, tail = task.rpartition("#")
    if not sep or not tail.isdigit():
        return None
    if head and (this_repo is None or head.lower() != this_repo.lower()):
        return None
    return int(tail)


def _abandoned(root: Path, tasks: Sequence[str]) -> dict[str, str]:
    """What the configured task sources that stay on this machine say will not land."""
    try:
        from gotchas.config import load_config
        from gotchas.holds import registry
        from gotchas.holds.check import observe

        config = load_config(root)
        names = [n for n in config.holds.sources if n != "git" and not registry.reaches_network([n])]
        from gotchas.trust import load_trust

        trust = load_trust(root)
        sources = [registry.spec(n).build(root, config.holds, trust) for n in names]
    except GotchasError:
        return {}
    said: dict[str, str] = {}
    for task in tasks:
        states = [(s.name, observe(s, task).state) for s in sources]
        if any(state == "landed" for _, state in states):
            continue
        for name, state in states:
            if state in _WILL_NOT_LAND:
                said[task] = f"{name}: {state}"
                break
    return said
