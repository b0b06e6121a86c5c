"""Root-cause history: the chain of hypotheses a record holds for one task, oldest first.

A task's cause is often found in steps: each confirmed account supersedes the previous
one for the task. The record keeps every step (the links of :mod:`gotchas.link`), so the
story can be read back: which entries named the task, in the order the links give, what
each one ruled out, whether it stands or was disproved, and what superseded it when. The
*when* comes from the journal for corrections applied here, and from the record's git
history for older ones (one ``git log`` over the record's path, run the read-only way of
:class:`gotchas.holds.sources.git.Git`). Reading only; nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from gotchas import journal, limits, link, taskref
from gotchas.fields import parse_line
from gotchas.record import Entry, Record
from gotchas.results import HistoryEntry, HistoryResult, MarkView, SupersededView
from gotchas.workspace import Workspace, git_top_level

GIT_TIMEOUT = 30.0


def history(ws: Workspace, *, task: str, record: str | None = None) -> HistoryResult:
    ref = taskref.normalize(task)
    path = ws.record_path(record)
    parsed = ws.load(path)
    chain = link.chain(parsed, ref)
    events = journal.read(ws.journal_path)
    git_times = _git_times(ws.root, ws.name(path)) if _needs_git(chain, ref, events) else {}
    entries = [_entry(parsed, e, ref, events, git_times) for e in chain]
    current = [e["id"] for e in entries if e["root_cause"] == "confirmed" and not e["red_herring"]]
    return HistoryResult(
        task=ref,
        record=ws.name(path),
        entries=entries,
        current=current[-1] if current else None,
    )


def _entry(
    parsed: Record,
    entry: Entry,
    task: str,
    events: Sequence[Mapping[str, object]],
    git_times: Mapping[tuple[str, str], tuple[str, str]],
) -> HistoryEntry:
    by_id = {e.id: e for e in parsed.entries}
    red = task in entry.red_herring_for
    successors = list(link.superseded_for(entry, task, by_id)) if red else []
    superseded = [_when(entry, s, task, events, git_times) for s in successors]
    written = entry.root_cause
    state = "superseded" if red or superseded else (written or "none")
    view = HistoryEntry(
        id=entry.id,
        title=entry.title,
        lines=list(entry.lines),
        tasks=list(entry.tasks),
        root_cause=state,
        written_root_cause=written,
        red_herring=red,
        supersedes=[ln.target for ln in entry.supersedes if ln.covers(task)],
        superseded_by=superseded,
        ruled_out=_ruled_out(entry),
        diagnostic=entry.diagnostic,
    )
    marks = _marks(entry, events)
    if marks:
        view["marks"] = marks
        if marks[-1]["kind"] == "retire":
            view["root_cause"] = "retired"
    return view


def _marks(entry: Entry, events: Sequence[Mapping[str, object]]) -> list[MarkView]:
    """The lesson's ``retired:`` and ``rechecked:`` lines, each with its apply event if journaled."""
    out: list[MarkView] = []
    for f in entry.fields:
        if f.key not in ("retired", "rechecked"):
            continue
        kind: Literal["retire", "recheck"] = "retire" if f.key == "retired" else "recheck"
        event: Mapping[str, object] = next(
            (
                e
                for e in reversed(events)
                if e.get("status") == "applied" and e.get("kind") == kind and e.get("target_id") == entry.id
            ),
            {},
        )
        why = f.value if kind == "retire" else ""
        evidence = f.value if kind == "recheck" else None
        out.append(
            MarkView(
                kind=kind,
                why=why,
                evidence=evidence,
                at=str(event.get("at") or "") or None,
                proposal_id=str(event.get("proposal_id") or "") or None,
            )
        )
    return out


def _ruled_out(entry: Entry) -> list[str]:
    return [
        part.strip()
        for f in entry.fields
        if f.key == "ruled-out"
        for part in f.value.split(";")
        if part.strip()
    ]


def _applied(event: Mapping[str, object], old: str, new: str, task: str) -> bool:
    return (
        event.get("status") == "applied"
        and event.get("target_id") == old
        and event.get("new_id") == new
        and event.get("task") == task
    )


def _when(
    old: Entry,
    new: Entry,
    task: str,
    events: Sequence[Mapping[str, object]],
    git_times: Mapping[tuple[str, str], tuple[str, str]],
) -> SupersededView:
    for event in events:
        if _applied(event, old.id, new.id, task):
            return SupersededView(
                id=new.id,
                at=str(event.get("at") or "") or None,
                by=str(event.get("actor") or "") or None,
                source="journal",
                proposal_id=str(event.get("proposal_id") or "") or None,
                commit=None,
            )
    found = git_times.get((old.id, task)) or git_times.get((old.id, ""))
    if found is not None:
        commit, at = found
        return SupersededView(id=new.id, at=at, by=None, source="git", proposal_id=None, commit=commit)
    return SupersededView(id=new.id, at=None, by=None, source=None, proposal_id=None, commit=None)


def _needs_git(chain: Sequence[Entry], task: str, events: Sequence[Mapping[str, object]]) -> bool:
    """Whether some link of the chain has no journal event, so git must be asked when."""
    for entry in chain:
        for ln in entry.supersedes:
            if ln.covers(task) and not any(_applied(e, ln.target, entry.id, task) for e in events):
                return True
    return False


def _git_times(root: Path, record: str) -> dict[tuple[str, str], tuple[str, str]]:
    """When each ``supersedes:`` line first entered the record: (target, task) → (commit, date).

    One ``git log --reverse -p`` over the record's path, oldest first; the added lines are
    read as field lines. No name from the repository reaches git as an option: the path
    comes after ``--`` and pathspec magic is off; external diff and text conversion
    programs are never run. When git is missing or fails, nothing is known.
    """
    from gotchas.holds.sources import SourceFailed

    if git_top_level(root) is None:
        return {}
    try:
        output = limits.git_output(
            root,
            [
                "log",
                "--reverse",
                f"--max-count={limits.MAX_HISTORY_VERSIONS}",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "--no-renames",
                "--format=%x00%H%x1f%cI",
                "-p",
                "-U0",
                "--end-of-options",
                "HEAD",
                "--",
                record,
            ],
            limit=limits.MAX_HISTORY_BYTES,
            what=f"the git history of {record}",
            timeout=GIT_TIMEOUT,
        )
    except SourceFailed:
        return {}
    return parse_log_patch(output)


def parse_log_patch(output: str) -> dict[tuple[str, str], tuple[str, str]]:
    """``(target, task)`` → ``(commit, date)`` of the first commit adding such a link."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for chunk in output.split("\0")[1:]:
        header, _, patch = chunk.partition("\n")
        commit, _, date = header.partition("\x1f")
        for line in patch.splitlines():
            if not line.startswith("+") or line.startswith("+++"):
                continue
            for field in parse_line(line[1:], 0):
                if field.key != "supersedes":
                    continue
                for ln in link.parse_links(field.value):
                    for task in ln.tasks or ("",):
                        found.setdefault((ln.target, task), (commit.strip(), date.strip()))
    return found
