"""Retiring a lesson, or recording that it was re-checked: lines inserted, nothing removed.

A retired lesson keeps every line; it gains a ``retired:`` field line (why it is no longer
true) and a visible caveat quoting the evidence, placed where a supersede puts its
red-herring mark, through the same per-kind forms (:func:`gotchas.edit.form_of`). A
re-checked lesson gains ``rechecked: <commit>`` and a caveat saying it still held then;
``gotchas check`` then judges its citations at that commit instead of the one that
wrote them. Both are proposals like a supersede: reviewed, held, applied, journaled and
verified the same way (:mod:`gotchas.operations`).
"""

from __future__ import annotations

from typing import Literal

from gotchas import edit
from gotchas.edit.lines import eol_of, lines_of
from gotchas.edit.splice import apply_lines, separated
from gotchas.errors import InvalidArgument
from gotchas.fields import SEPARATOR
from gotchas.lesson_text import refuse_note
from gotchas.record import Entry, Record

Kind = Literal["retire", "recheck"]
KINDS: tuple[Kind, ...] = ("retire", "recheck")
RETIRED = "retired"
RECHECKED = "rechecked"
MAX_WHY = 500


def checked_why(why: str, evidence: str | None) -> tuple[str, str | None]:
    """The reason and evidence as one line each, refused when they would add structure."""
    text = " ".join(why.split()).replace(SEPARATOR.strip(), "-")
    proof = " ".join(evidence.split()).replace(SEPARATOR.strip(), "-") if evidence else None
    if not text:
        raise InvalidArgument("why is empty: say what changed, so a reader can check it")
    if len(text) > MAX_WHY or (proof and len(proof) > MAX_WHY):
        raise InvalidArgument(f"why and evidence are one line each, at most {MAX_WHY} characters")
    refuse_note(text)
    refuse_note(proof)
    return text, proof


def plan_retire(record: Record, target: Entry, kind: Kind, why: str, evidence: str | None) -> edit.Plan:
    """Mark ``target`` retired (``kind="retire"``) or re-checked at the commit ``evidence``."""
    text, proof = checked_why(why, evidence)
    if kind == "recheck" and not proof:
        raise InvalidArgument("a re-check names the commit it was checked at (evidence)")
    form = edit.form_of(target)
    lines = lines_of(record)
    eol = eol_of(record, target)
    if kind == "retire":
        marks = f"{RETIRED}: {text}"
        caveat = f"> **Retired: no longer true.** {_sentence(text)}" + (
            f" Evidence: {proof}" if proof else ""
        )
    else:
        marks = f"{RECHECKED}: {proof}"
        caveat = f"> **Re-checked: still true** as of {proof}. {_sentence(text)}"
    inside = separated(form.annotate(record, lines, target, marks, caveat), lines, form.blocks)
    data = apply_lines(record.data, lines, inside, eol)
    return edit.Plan(data, inside, eol, target.id, target.title, target.id, None)


def is_mark(plan: edit.Plan) -> bool:
    """Whether ``plan`` only marks its target (a retire or re-check): no task, no new entry."""
    return plan.task is None and plan.target_id is not None and plan.new_id == plan.target_id


def mark_problems(target: Entry) -> list[str]:
    """What is missing from a target a retire or re-check was to mark."""
    if any(f.key in (RETIRED, RECHECKED) for f in target.fields):
        return []
    return [f"the target {target.id!r} carries no {RETIRED}: or {RECHECKED}: line"]


def marked(target: Entry, kind: str, why: str, evidence: str | None) -> bool:
    """Whether ``target`` already carries this very mark (an apply of it is then done)."""
    key, value = (RETIRED, why) if kind == "retire" else (RECHECKED, evidence or "")
    return any(f.key == key and " ".join(f.value.split()) == value for f in target.fields)


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."
