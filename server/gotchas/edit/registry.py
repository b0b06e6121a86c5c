"""The lesson forms, one row each: the entry kind the reading gives, and the form that edits it.

A kind with no row is refused before anything is planned (``form_of``).
"""

from __future__ import annotations

from gotchas.edit.block import BLOCK
from gotchas.edit.document import DOCUMENT
from gotchas.edit.form import Form
from gotchas.edit.heading import HEADING
from gotchas.edit.item import ITEM
from gotchas.edit.paragraph import PARAGRAPH
from gotchas.edit.row import ROW
from gotchas.errors import UnsupportedEntry
from gotchas.record import Entry

FORMS: dict[str, Form] = {
    "heading": HEADING,
    "item": ITEM,
    "paragraph": PARAGRAPH,  # a callout read as a lesson is a paragraph: PARAGRAPH hands it to CALLOUT
    "block": BLOCK,
    "row": ROW,
    "document": DOCUMENT,
}


def form_of(entry: Entry) -> Form:
    """The form of ``entry``'s kind; refuses a kind no edit is defined for, before anything is written."""
    form = FORMS.get(entry.kind)
    if form is None:
        raise UnsupportedEntry(
            f"entry {entry.id!r} is a {entry.kind}; an edit of that kind of entry is not supported "
            f"yet (supported: {', '.join(FORMS)}); nothing was changed"
        )
    return form
