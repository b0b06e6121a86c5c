"""Reading a workspace's record without changing it: a page of entries, one entry, its lint.

The read-only shells of ``list_gotchas``/``get_gotcha``/``verify_record`` and of ``gotchas
list``/``show``/``verify``.
They load the record and hand it to ``query``; nothing here imports the edit machinery,
so a one-shot listing starts quickly (``operations`` re-exports both for the server).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gotchas import query, surface

if TYPE_CHECKING:
    from gotchas.results import EntryDetail, ListResult, VerifyResult
    from gotchas.workspace import Workspace
else:  # a TypedDict called is a dict: the shapes are for the checker and the server's schemas
    VerifyResult = dict


def list_gotchas(
    ws: Workspace,
    *,
    task: str | None = None,
    query_text: str | None = None,
    status: str | None = None,
    root_cause: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
    record: str | None = None,
    verbose: bool = False,
    missing_ok: bool = False,
) -> ListResult:
    """One page of entries; with ``missing_ok``, a record not created yet lists as empty with a
    notice that says how to start one, rather than failing."""
    path = ws.record_path(record)
    if missing_ok and not path.exists() and not path.is_symlink():
        empty = query.listing(ws.parse(b""), ws.name(path), limit=limit)
        empty["notice"] = f"no lessons record yet at {ws.name(path)}; {surface.create_record()}"
        return empty
    parsed = ws.load(path)
    return query.listing(
        parsed,
        ws.name(path),
        task=task,
        query=query_text,
        status=status,
        root_cause=root_cause,
        limit=limit,
        cursor=cursor,
        verbose=verbose,
        home=ws.home_repo if task else None,
    )


def get_gotcha(ws: Workspace, *, entry_id: str, record: str | None = None) -> EntryDetail:
    parsed = ws.load(ws.record_path(record))
    return query.detail(parsed.get(entry_id), parsed)


def verify_record(ws: Workspace, *, record: str | None = None, history: bool = False) -> VerifyResult:
    """The record's links and fields; with ``history``, also the findings of ``gotchas check``
    (it asks git, so it is opt-in: ``gotchas lint --history``)."""
    path = ws.record_path(record)
    parsed = ws.load(path)
    from gotchas import verification  # the link check: not on the listing path

    problems = [p.to_view() for p in verification.check_record(parsed)]
    if history and record is None:
        from gotchas.check.command import run_check

        for f in run_check(ws).findings:
            problems.append(
                {
                    "code": f.code,
                    "severity": f.severity,
                    "entry": f.entry,
                    "line": f.line,
                    "message": f.message,
                }
            )
    return VerifyResult(
        ok=not any(p["severity"] == "error" for p in problems),
        record=ws.name(path),
        record_sha256=parsed.sha256,
        entries=len(parsed.entries),
        problems=problems,
    )
