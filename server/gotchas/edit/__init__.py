"""Computing an edit of the record: bytes in, bytes out, as line insertions only.

A supersede annotates the target (a ``red-herring-for:`` field line after its metadata
lines, and a visible caveat as a block of its own) and inserts the confirmed lesson
directly after it, looking like a sibling: same form, and a free number or id in the
file's scheme. A capture inserts a plain lesson the same way. No existing line is changed
or removed; the only byte we may add to an existing line is a missing final line ending
when we append after it. New lines use the target's line ending.

The package, dependencies pointing up this list:

- ``lesson`` -- the lesson to write, checked; ``lines`` -- the record's lines as an edit
  reads them; ``splice`` -- insertions merged, written into the bytes, shown as a diff;
- ``caveat`` -- the red-herring mark and caveat, and where they go inside a target;
  ``titles`` -- numbers and ids in titles; ``successor`` -- the successor's lines;
- ``form`` -- what a lesson form says: how a successor looks (``successor``), where the mark
  and caveat go (``annotate``) and where the successor goes (``place``);
- one module a lesson form: ``heading``, ``item`` (bulleted and numbered), ``paragraph``,
  ``callout``, ``block`` (between ``---`` rules, field bullets among them), ``row``,
  ``document``;
- ``registry`` -- the forms as data, one row an entry kind; ``plan`` -- the plans.

Adding a lesson form: write one module with a ``Form`` subclass and its instance (the
existing forms are the pattern), and add one row to ``registry.FORMS`` naming the entry kind
the reading gives. Nothing else changes: a kind without a row is refused before anything
is planned.
"""

from __future__ import annotations

from gotchas.edit.caveat import METADATA_KEYS
from gotchas.edit.form import Form
from gotchas.edit.lesson import MAX_BODY, MAX_FIELD, MAX_RULED_OUT, MAX_TITLE, Lesson, RootCause, lesson
from gotchas.edit.plan import NEW_RECORD_TITLE, Plan, plan_annotate, plan_capture, plan_supersede
from gotchas.edit.registry import FORMS, form_of
from gotchas.edit.splice import Insertion, apply_insertions, unified_diff
from gotchas.edit.titles import (
    Label,
    TitleParts,
    carries_title,
    next_label,
    number_alone_carries,
    split_title,
    title_label,
)

__all__ = [
    "FORMS",
    "MAX_BODY",
    "MAX_FIELD",
    "MAX_RULED_OUT",
    "MAX_TITLE",
    "METADATA_KEYS",
    "NEW_RECORD_TITLE",
    "Form",
    "Insertion",
    "Label",
    "Lesson",
    "Plan",
    "RootCause",
    "TitleParts",
    "apply_insertions",
    "carries_title",
    "form_of",
    "lesson",
    "next_label",
    "number_alone_carries",
    "plan_annotate",
    "plan_capture",
    "plan_supersede",
    "split_title",
    "title_label",
    "unified_diff",
]
