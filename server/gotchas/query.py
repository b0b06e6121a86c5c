"""Listing: filter entries, page through them, and describe them compactly.

Pure functions over a parsed ``Record``. The compact form is what an agent scans, so it
carries ids, places and the metadata that decides relevance, never bodies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gotchas import status as statuses
from gotchas import taskref
from gotchas.errors import InvalidArgument
from gotchas.link import Link
from gotchas.record import Entry, Record
from gotchas.wording import counted

if TYPE_CHECKING:
    from gotchas.results import EntryDetail, EntrySummary, FieldView, LinkView, ListResult
else:  # a TypedDict called is a dict: the shapes are for the checker and the server's schemas
    EntryDetail = EntrySummary = FieldView = LinkView = ListResult = dict

DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
ROOT_CAUSES = ("confirmed", "suspected", "none")


def select(
    record: Record,
    task: str | None = None,
    query: str | None = None,
    status: str | None = None,
    root_cause: str | None = None,
    home: str | None = None,
) -> list[Entry]:
    """Entries matching every given filter, in file order.

    ``task`` matches an entry's ``tasks:`` field, or, for an entry without one, a task
    mentioned in its text; with the project's own repository ``home`` (``owner/name``),
    ``#45`` and ``owner/name#45`` match each other. ``query`` matches all its words in the id, title or text.
    ``status`` compares normalised values: ``fixed`` finds ``✅ FIXED 2026-01-08`` and
    ``Status: fixed`` alike; a word in another language is normalised the same way.
    """
    wanted_task = taskref.normalize(task) if task else None
    if root_cause is not None and root_cause not in ROOT_CAUSES:
        raise InvalidArgument(f"root_cause must be one of {', '.join(ROOT_CAUSES)}")
    wanted_status = statuses.from_field(status).value if status and status.strip() else None
    words = query.lower().split() if query else []
    candidates: Sequence[Entry]
    if wanted_task:
        candidates = record.for_tasks(taskref.aliases(wanted_task, home))
    elif wanted_status:
        candidates = record.by_status.get(wanted_status, ())
    else:
        candidates = record.entries
    chosen: list[Entry] = []
    for entry in candidates:
        if wanted_status and entry.status != wanted_status:
            continue
        if root_cause and (entry.root_cause or "none") != root_cause:
            continue
        if words:
            haystack = f"{entry.id}\n{record.text(entry)}".lower()
            if not all(word in haystack for word in words):
                continue
        chosen.append(entry)
    return chosen


def page(
    entries: Sequence[Entry], record: Record, limit: int | None, cursor: str | None
) -> tuple[Sequence[Entry], str | None]:
    """One page and the cursor of the next; a cursor is bound to the record's bytes."""
    size = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= size <= MAX_LIMIT:
        raise InvalidArgument(f"limit must be between 1 and {MAX_LIMIT}")
    offset = _decode_cursor(cursor, record) if cursor else 0
    chunk = entries[offset : offset + size]
    following = offset + size
    return chunk, (_encode_cursor(following, record) if following < len(entries) else None)


def _encode_cursor(offset: int, record: Record) -> str:
    import base64  # only a listing longer than a page has a cursor

    raw = f"{offset}:{record.sha256[:16]}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_cursor(cursor: str, record: Record) -> int:
    import base64

    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        offset_text, digest = base64.urlsafe_b64decode(padded).decode().split(":")
        offset = int(offset_text)
    except ValueError:
        raise InvalidArgument(f"not a cursor from this listing: {cursor!r}") from None
    if digest != record.sha256[:16]:
        raise InvalidArgument("the record changed since that page was listed; list again")
    return offset


def link_view(link: Link) -> LinkView:
    return LinkView(id=link.target, tasks=list(link.tasks))


def render_links(links: Sequence[LinkView]) -> str:
    """Links as the record writes them: ``id (for #664)``, joined by commas."""
    return ",".join(
        link["id"] + (f" (for {', '.join(link['tasks'])})" if link["tasks"] else "") for link in links
    )


def summary(entry: Entry, record: Record | None = None, verbose: bool = False) -> EntrySummary:
    out = EntrySummary(id=entry.id, lines=[entry.start_line, entry.end_line])
    if verbose or entry.explicit_id:
        out["title"] = entry.title
    if verbose and entry.section:
        out["section"] = entry.section
    if entry.tasks:
        out["tasks"] = list(entry.tasks)
    if entry.root_cause:
        out["root_cause"] = entry.root_cause
    if entry.status != "active":
        out["status"] = entry.status
    if entry.supersedes:
        out["supersedes"] = [link_view(link) for link in entry.supersedes]
    if entry.superseded_by:
        out["superseded_by"] = [link_view(link) for link in entry.superseded_by]
    if entry.red_herring_for:
        out["red_herring_for"] = list(entry.red_herring_for)
    if not entry.tasks and record is not None:
        mentioned = record.mentions(entry)
        if mentioned:
            out["mentions"] = list(mentioned)
    return out


def detail(entry: Entry, record: Record) -> EntryDetail:
    return EntryDetail(
        id=entry.id,
        title=entry.title,
        kind=entry.kind,
        section=entry.section,
        lines=[entry.start_line, entry.end_line],
        byte_range=[entry.start, entry.end],
        sha256=entry.sha256,
        tasks=list(entry.tasks),
        mentions=list(record.mentions(entry)),
        root_cause=entry.root_cause,
        status=entry.status,
        status_text=entry.status_text,
        status_date=entry.status_date,
        supersedes=[link_view(link) for link in entry.supersedes],
        superseded_by=[link_view(link) for link in entry.superseded_by],
        red_herring_for=list(entry.red_herring_for),
        diagnostic=entry.diagnostic,
        fields=[FieldView(key=f.key, value=f.value, line=f.line) for f in entry.fields],
        text=record.text(entry),
    )


def listing(
    record: Record,
    record_name: str,
    task: str | None = None,
    query: str | None = None,
    status: str | None = None,
    root_cause: str | None = None,
    limit: int | None = None,
    cursor: str | None = None,
    verbose: bool = False,
    home: str | None = None,
) -> ListResult:
    chosen = select(record, task, query, status, root_cause, home)
    chunk, following = page(chosen, record, limit, cursor)
    result = ListResult(
        entries=[summary(e, record, verbose) for e in chunk],
        total=len(chosen),
        next_cursor=following,
        record=record_name,
        record_sha256=record.sha256,
    )
    if record.notice:
        result["notice"] = record.notice
    return result


def lines_text(lines: Sequence[int]) -> str:
    """An entry's lines as people write them: ``6`` for one line, ``6-9`` for more."""
    start, end = lines[0], lines[-1]
    return str(start) if start == end else f"{start}-{end}"


def state_words(item: EntrySummary) -> list[str]:
    """An entry's state in short words (``red herring``, ``superseded``, ``fixed``,
    ``confirmed``); nothing for a plain active lesson. Which task and which successor is
    what ``show`` tells."""
    words = []
    status = item.get("status")
    if "red_herring_for" in item or status == "red-herring":
        words.append("red herring")
    elif status:
        words.append(status.replace("-", " "))
    if "superseded_by" in item and not words:
        words.append("superseded")
    if "root_cause" in item:
        words.append(item["root_cause"])
    return words


def table(result: ListResult) -> str:
    """One line per entry, for people and for the compact text an agent reads."""
    rows = []
    for item in result["entries"]:
        meta = " ".join(item.get("tasks", [])) or "-"
        extra = []
        if "status" in item and "red_herring_for" not in item:
            extra.append(item["status"])
        if "root_cause" in item:
            extra.append(item["root_cause"])
        if "red_herring_for" in item:
            extra.append("red herring for " + ",".join(item["red_herring_for"]))
        if "supersedes" in item:
            extra.append("supersedes " + render_links(item["supersedes"]))
        tail = f" [{'; '.join(extra)}]" if extra else ""
        rows.append(f"{item['id']}  L{lines_text(item['lines'])}  {meta}{tail}")
    shown = len(result["entries"])
    footer = f"{shown} of {counted(result['total'], 'entry')}"
    if result["next_cursor"]:
        footer += f"; next cursor: {result['next_cursor']}"
    return "\n".join([*rows, footer])
