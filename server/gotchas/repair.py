"""The lint's safe fixes: the problems that have exactly one repair, made on the record's bytes.

Two kinds, and only where the record itself says what the repair is:

- a link whose target was renamed (``supersedes: old-id`` after the old entry's title or
  ``id:`` changed): the one entry that is the target's title slug, or the one entry that
  still points back at the linking entry, is the target now; the id in the link is
  replaced by its new one, and no other byte of the file changes;
- a missing reciprocal link (``supersedes: old (for #7)`` on a confirmed entry, but ``old``
  carries neither mark): ``old`` is marked through the edit path an apply uses
  (``edit.plan_annotate``), which inserts its mark lines and changes nothing else.

Pure functions over parsed records: ``repaired`` plans one fix at a time, parses the result
with the caller's parser, and keeps a fix only when every other entry is byte-identical and
the problem it fixes is gone without a new error; the caller writes the bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gotchas import verification
from gotchas.errors import GotchasError
from gotchas.record import Entry, Record, slugify

FIXABLE = ("dangling-supersedes", "dangling-superseded-by", "one-sided-supersedes")
"""The codes ``--fix`` can repair, where the record says how."""

MAX_FIXES = 1000
"""A bound on the rounds of one ``--fix``: each round repairs one problem and reads the result."""


@dataclass(frozen=True)
class Fix:
    """One repair made: the problem's code, the entry it was reported on, what was done."""

    code: str
    entry: str
    line: int
    done: str


def repaired(
    record: Record,
    parse: Callable[[bytes, Record], Record],
    wanted: Callable[[str], bool] = lambda code: True,
) -> tuple[Record, list[Fix]]:
    """``record`` with every safe fix made, and the fixes; each result is read back with
    ``parse`` (the bytes, and the parse they were edited from) and kept only if it proves to
    touch nothing else; only problems whose code is ``wanted`` are fixed. The renamed links
    are repaired together first (one read of the result, not one a link), then whatever is
    left one fix at a time."""
    current, made = _renames_at_once(record, parse, wanted) or (record, [])
    tried: set[tuple[str, str, str]] = set()
    for _ in range(MAX_FIXES):
        step = _next_fix(current, parse, tried, wanted)
        if step is None:
            break
        current, fix = step
        made.append(fix)
    return current, made


def _next_fix(
    record: Record,
    parse: Callable[[bytes, Record], Record],
    tried: set[tuple[str, str, str]],
    wanted: Callable[[str], bool],
) -> tuple[Record, Fix] | None:
    by_id = record.first_by_id
    for entry in _linking(record):
        for code, target, plan in _candidates(record, entry, by_id):
            key = (code, entry.id, target)
            if key in tried or not wanted(code):
                continue
            tried.add(key)
            try:
                planned = plan()
            except GotchasError:  # the form cannot be edited: no safe fix here
                continue
            if planned is None:
                continue
            data, done, touched, line = planned
            after = parse(data, record)
            if _only_touched(record, after, touched) and _better(record, after, touched, code, entry.id):
                return after, Fix(code, entry.id, line, done)
    return None


Plan = Callable[[], tuple[bytes, str, frozenset[str], int] | None]


def _candidates(record: Record, entry: Entry, by_id: dict[str, Entry]) -> list[tuple[str, str, Plan]]:
    out: list[tuple[str, str, Plan]] = [
        (code, old, _retarget(record, entry, key, old, new))
        for code, key, old, new in _renames(record, entry, by_id)
    ]
    for link in entry.supersedes:
        old_entry = by_id.get(link.target)
        if old_entry is None:
            continue
        unmarked = not any(b.target == entry.id for b in old_entry.superseded_by) and not any(
            t in old_entry.red_herring_for for t in link.tasks
        )
        if unmarked and len(link.tasks) == 1 and entry.root_cause == "confirmed":
            out.append(
                ("one-sided-supersedes", link.target, _annotate(record, old_entry, link.tasks[0], entry))
            )
    return out


def _renamed(record: Record, target: str, back: list[Entry], linked: set[str]) -> str | None:
    """The one id ``target`` became: the entry whose title's slug it is, or the one entry that
    points back and is not linked already. None when no entry, or more than one, fits."""
    fits = {i for i in _title_slugs(record).get(target, ()) if i != target}
    fits |= {e.id for e in back if e.id not in linked}
    if len(fits) != 1:
        return None
    (new,) = fits
    return new if sum(e.id == new for e in record.entries) == 1 else None


def _rename_at(record: Record, entry: Entry, key: str, old: str) -> tuple[int, int] | None:
    """(byte offset, line) of ``old`` where the ``key`` field of ``entry`` names it."""
    where = verification.field_position(record, entry, key, old)
    if where is None:
        return None
    line, column = where
    starts = record.line_starts
    raw = record.data[starts[line - 1] : starts[line]]
    bom = 3 if line == 1 and raw.startswith(b"\xef\xbb\xbf") else 0
    try:
        text = raw[bom:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    at = starts[line - 1] + bom + len(text[: column - 1].encode("utf-8"))
    return (at, line) if record.data[at : at + len(old.encode())] == old.encode() else None


def _retarget(record: Record, entry: Entry, key: str, old: str, new: str) -> Plan:
    """Replace ``old`` by ``new`` where the ``key`` field of ``entry`` names it: those bytes only."""

    def plan() -> tuple[bytes, str, frozenset[str], int] | None:
        found = _rename_at(record, entry, key, old)
        if found is None:
            return None
        at, line = found
        data = record.data[:at] + new.encode() + record.data[at + len(old.encode()) :]
        return data, f"{key}: {old} → {new}", frozenset({entry.id}), line

    return plan


def _renames_at_once(
    record: Record, parse: Callable[[bytes, Record], Record], wanted: Callable[[str], bool]
) -> tuple[Record, list[Fix]] | None:
    """Every renamed link repaired in one edit, if the result proves it: each repaired
    problem gone, no error new, nothing but the linking entries changed. None otherwise (the
    fixes are then tried one at a time)."""
    by_id = record.first_by_id
    edits: dict[int, tuple[int, str, str, Fix]] = {}
    for entry in _linking(record):
        for code, key, old, new in _renames(record, entry, by_id):
            if not wanted(code):
                continue
            found = _rename_at(record, entry, key, old)
            if found is None:
                return None
            at, line = found
            edits[at] = (
                at + len(old.encode()),
                new,
                entry.id,
                Fix(code, entry.id, line, f"{key}: {old} → {new}"),
            )
    if len(edits) < 2:
        return None  # one fix, or none: the one-at-a-time path does the same work
    data = record.data
    for at in sorted(edits, reverse=True):
        end, new, _, _ = edits[at]
        data = data[:at] + new.encode() + data[end:]
    after = parse(data, record)
    touched = frozenset(entry for _, _, entry, _ in edits.values())
    fixes = [fix for *_, fix in sorted(edits.values(), key=lambda e: e[3].line)]
    if not _only_touched(record, after, touched) or not _all_better(record, after, touched, fixes):
        return None
    return after, fixes


def _renames(record: Record, entry: Entry, by_id: dict[str, Entry]) -> list[tuple[str, str, str, str]]:
    """(code, field key, old id, new id) of each link of ``entry`` to a renamed entry."""
    out = []
    for code, key, links, back in (
        ("dangling-supersedes", "supersedes", entry.supersedes, "superseded_by"),
        ("dangling-superseded-by", "superseded-by", entry.superseded_by, "supersedes"),
    ):
        missing = [link.target for link in links if link.target not in by_id]
        if not missing:
            continue  # the common case: who points back is asked only for a dangling link
        pointing = [e for e in _linking(record) if any(x.target == entry.id for x in getattr(e, back))]
        for target in missing:
            new = _renamed(record, target, pointing, {each.target for each in links})
            if new is not None:
                out.append((code, key, target, new))
    return out


def _annotate(record: Record, old: Entry, task: str, successor: Entry) -> Plan:
    """Mark ``old`` a red herring for ``task``, superseded by ``successor``, as apply would."""

    def plan() -> tuple[bytes, str, frozenset[str], int] | None:
        from gotchas import edit

        planned = edit.plan_annotate(record, target=old, task=task, successor=successor)
        where = verification.field_position(record, successor, "supersedes", old.id)
        done = f"marked {old.id} red-herring-for {task}, superseded-by {successor.id}"
        return planned.data, done, frozenset({old.id}), where[0] if where else successor.start_line

    return plan


def _only_touched(before: Record, after: Record, touched: frozenset[str]) -> bool:
    """The same entries in the same order, every one but ``touched`` byte-identical."""
    if [e.id for e in before.entries] != [e.id for e in after.entries]:
        return False
    return all(
        old.id in touched or old.sha256 == now.sha256
        for old, now in zip(before.entries, after.entries, strict=True)
    )


def _better(before: Record, after: Record, touched: frozenset[str], code: str, entry: str) -> bool:
    """The fixed problem is gone from its entry (one fewer of its kind) and no error is new."""
    return _all_better(before, after, touched, [Fix(code, entry, 0, "")])


def _all_better(before: Record, after: Record, touched: frozenset[str], fixes: list[Fix]) -> bool:
    """Each fixed problem is gone (one fewer of its kind on its entry per fix) and no error is new.

    Every entry but ``touched`` is byte-identical and every id is unchanged, so only the links
    of the touched entries and of the entries linked with them can read differently: those
    are checked, not the whole record."""
    from collections import Counter

    near = _linked_with(before, touched) | _linked_with(after, touched)
    was = Counter((p.code, p.entry) for p in verification.link_errors(before, near))
    now = Counter((p.code, p.entry) for p in verification.link_errors(after, near))
    wanted = Counter((fix.code, fix.entry) for fix in fixes)
    if any(now[key] > was[key] - n for key, n in wanted.items()):
        return False
    # a link that now resolves may still be one-sided (the renamed entry was never marked):
    # that is the next fix, not a new fault
    follows = {(_ONE_SIDED[fix.code], fix.entry) for fix in fixes if fix.code in _ONE_SIDED}
    return all(key in was or key in follows for key in now)


_ONE_SIDED = {
    "dangling-supersedes": "one-sided-supersedes",
    "dangling-superseded-by": "one-sided-superseded-by",
}


def _linked_with(record: Record, touched: frozenset[str]) -> set[str]:
    """``touched`` and every entry a link joins to one of them, either way."""
    ids = set(touched)
    for entry in _linking(record):
        links = {link.target for link in (*entry.supersedes, *entry.superseded_by)}
        if entry.id in touched:
            ids |= links
        elif links & touched:
            ids.add(entry.id)
    return ids


def _linking(record: Record) -> list[Entry]:
    """The entries with a link of either kind: the only ones a fix starts from or reaches
    (kept with the parse, a pure function of its bytes, as the lint keeps its findings)."""
    known: list[Entry] | None = record.__dict__.get("_linking")
    if known is None:
        known = record.__dict__["_linking"] = [e for e in record.entries if e.supersedes or e.superseded_by]
    return known


def _title_slugs(record: Record) -> dict[str, list[str]]:
    """The ids of the entries by their title's slug: what an id was before an ``id:`` renamed it."""
    known: dict[str, list[str]] | None = record.__dict__.get("_title_slugs")
    if known is None:
        known = {}
        for entry in record.entries:
            known.setdefault(slugify(entry.title), []).append(entry.id)
        record.__dict__["_title_slugs"] = known
    return known
