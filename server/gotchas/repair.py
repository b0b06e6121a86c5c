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


def repaired(record: Record, parse: Callable[[bytes], Record]) -> tuple[Record, list[Fix]]:
    """``record`` with every safe fix made, one at a time, and the fixes; each result is read
    back with ``parse`` and kept only if it proves to touch nothing else."""
    made: list[Fix] = []
    tried: set[tuple[str, str, str]] = set()
    current = record
    for _ in range(MAX_FIXES):
        step = _next_fix(current, parse, tried)
        if step is None:
            break
        current, fix = step
        made.append(fix)
    return current, made


def _next_fix(
    record: Record, parse: Callable[[bytes], Record], tried: set[tuple[str, str, str]]
) -> tuple[Record, Fix] | None:
    by_id = record.first_by_id
    before = verification.check_record(record)
    for entry in record.entries:
        for code, target, plan in _candidates(record, entry, by_id):
            key = (code, entry.id, target)
            if key in tried:
                continue
            tried.add(key)
            try:
                planned = plan()
            except GotchasError:  # the form cannot be edited: no safe fix here
                continue
            if planned is None:
                continue
            data, done, touched = planned
            after = parse(data)
            if _only_touched(record, after, touched) and _better(before, after, code, entry.id):
                line = next((p.line for p in before if p.code == code and p.entry == entry.id), None)
                return after, Fix(code, entry.id, line or entry.start_line, done)
    return None


Plan = Callable[[], tuple[bytes, str, frozenset[str]] | None]


def _candidates(record: Record, entry: Entry, by_id: dict[str, Entry]) -> list[tuple[str, str, Plan]]:
    out: list[tuple[str, str, Plan]] = []
    for link in entry.supersedes:
        target = link.target
        if target not in by_id:
            back = [e for e in record.entries if any(b.target == entry.id for b in e.superseded_by)]
            new = _renamed(record, target, back, {each.target for each in entry.supersedes})
            if new is not None:
                out.append(
                    ("dangling-supersedes", target, _retarget(record, entry, "supersedes", target, new))
                )
            continue
        old = by_id[target]
        unmarked = not any(b.target == entry.id for b in old.superseded_by) and not any(
            t in old.red_herring_for for t in link.tasks
        )
        if unmarked and len(link.tasks) == 1 and entry.root_cause == "confirmed":
            out.append(("one-sided-supersedes", target, _annotate(record, old, link.tasks[0], entry)))
    for link in entry.superseded_by:
        target = link.target
        if target not in by_id:
            back = [e for e in record.entries if any(s.target == entry.id for s in e.supersedes)]
            new = _renamed(record, target, back, {each.target for each in entry.superseded_by})
            if new is not None:
                out.append(
                    ("dangling-superseded-by", target, _retarget(record, entry, "superseded-by", target, new))
                )
    return out


def _renamed(record: Record, target: str, back: list[Entry], linked: set[str]) -> str | None:
    """The one id ``target`` became: the entry whose title's slug it is, or the one entry that
    points back and is not linked already. None when no entry, or more than one, fits."""
    fits = {e.id for e in record.entries if e.id != target and slugify(e.title) == target}
    fits |= {e.id for e in back if e.id not in linked}
    if len(fits) != 1:
        return None
    (new,) = fits
    return new if sum(e.id == new for e in record.entries) == 1 else None


def _retarget(record: Record, entry: Entry, key: str, old: str, new: str) -> Plan:
    """Replace ``old`` by ``new`` where the ``key`` field of ``entry`` names it: those bytes only."""

    def plan() -> tuple[bytes, str, frozenset[str]] | None:
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
        if record.data[at : at + len(old.encode())] != old.encode():
            return None
        data = record.data[:at] + new.encode() + record.data[at + len(old.encode()) :]
        return data, f"{key}: {old} → {new}", frozenset({entry.id})

    return plan


def _annotate(record: Record, old: Entry, task: str, successor: Entry) -> Plan:
    """Mark ``old`` a red herring for ``task``, superseded by ``successor``, as apply would."""

    def plan() -> tuple[bytes, str, frozenset[str]] | None:
        from gotchas import edit

        planned = edit.plan_annotate(record, old, task, successor)
        return (
            planned.data,
            f"marked {old.id} red-herring-for {task}, superseded-by {successor.id}",
            frozenset({old.id}),
        )

    return plan


def _only_touched(before: Record, after: Record, touched: frozenset[str]) -> bool:
    """The same entries in the same order, every one but ``touched`` byte-identical."""
    if [e.id for e in before.entries] != [e.id for e in after.entries]:
        return False
    return all(
        old.id in touched or old.sha256 == now.sha256
        for old, now in zip(before.entries, after.entries, strict=True)
    )


def _better(before: list[verification.Problem], after: Record, code: str, entry: str) -> bool:
    """The fixed problem is gone from its entry and no error is new."""
    now = verification.check_record(after)
    errors = {(p.code, p.entry) for p in before if p.severity == "error"}
    if any(p.code == code and p.entry == entry for p in now) and sum(
        p.code == code and p.entry == entry for p in now
    ) >= sum(p.code == code and p.entry == entry for p in before):
        return False
    return all((p.code, p.entry) in errors for p in now if p.severity == "error")
