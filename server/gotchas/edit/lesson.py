"""The lesson to write: its parts checked and normalised before any edit is planned."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from gotchas import taskref
from gotchas.errors import InvalidArgument
from gotchas.lesson_text import refuse_structure

MAX_TITLE = 200


MAX_BODY = 20_000


MAX_FIELD = 2_000


MAX_RULED_OUT = 30


RootCause = Literal["confirmed", "suspected"]


@dataclass(frozen=True)
class Lesson:
    """A lesson to write; ``tasks`` are normal-form references."""

    title: str
    body: str
    tasks: tuple[str, ...]
    root_cause: RootCause
    diagnostic: str | None = None
    ruled_out: tuple[str, ...] = ()
    evidence: str | None = None


def lesson(
    title: str,
    *,
    body: str,
    tasks: Sequence[str],
    root_cause: str,
    diagnostic: str | None = None,
    ruled_out: Sequence[str] = (),
    evidence: str | None = None,
) -> Lesson:
    """Validate and normalise a lesson's parts, refusing what would make a bad entry."""
    clean_title = " ".join(title.split())
    if not clean_title:
        raise InvalidArgument("title is empty; give the lesson a one-line title")
    if "\n" in title.strip() or "\r" in title.strip():
        raise InvalidArgument("title must be one line")
    if len(clean_title) > MAX_TITLE:
        raise InvalidArgument(f"title is {len(clean_title)} characters; the limit is {MAX_TITLE}")
    if not body.strip():
        raise InvalidArgument("body is empty; say what happened and what to do")
    if len(body) > MAX_BODY:
        raise InvalidArgument(f"body is {len(body)} characters; the limit is {MAX_BODY}")
    if root_cause not in ("confirmed", "suspected"):
        raise InvalidArgument("root_cause must be 'confirmed' or 'suspected'")
    clean_diag = one_line(diagnostic, "diagnostic")
    if root_cause == "confirmed" and not clean_diag:
        raise InvalidArgument(
            "a confirmed root cause needs a diagnostic: how to recognise this cause next time"
        )
    if len(ruled_out) > MAX_RULED_OUT:
        raise InvalidArgument(f"ruled_out has {len(ruled_out)} items; the limit is {MAX_RULED_OUT}")
    refs = [taskref.normalize(t) for t in tasks]
    if not refs:
        raise InvalidArgument("tasks is empty; name the task(s) that taught this lesson")
    items = tuple(i for i in (one_line(x, "ruled_out item") for x in ruled_out) if i)
    refuse_structure(title, body, clean_diag, items, evidence)
    return Lesson(
        title=clean_title,
        body=body.strip("\r\n"),
        tasks=tuple(dict.fromkeys(refs)),
        root_cause="confirmed" if root_cause == "confirmed" else "suspected",
        diagnostic=clean_diag,
        ruled_out=items,
        evidence=one_line(evidence, "evidence"),
    )


def one_line(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    text = " ".join(value.split())
    if len(text) > MAX_FIELD:
        raise InvalidArgument(f"{name} is {len(text)} characters; the limit is {MAX_FIELD}")
    return text or None
