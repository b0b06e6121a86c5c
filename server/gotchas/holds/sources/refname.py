"""Branch and ref names that are safe to hand to git: ``git check-ref-format`` in pure Python.

A name comes from the repository (``[holds.git] branch``, ``init.defaultBranch``, the
target of ``origin/HEAD``), so it is hostile input. Only a plain ref name passes — never
an option (``--output=…``), a revision expression (``main~3``, ``a..b``, ``@{u}``), a
glob or a control character — and git is still told where its options end.
"""

from __future__ import annotations

import re

from gotchas.holds.sources import SourceFailed

MAX_LENGTH = 255
_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


class InvalidRefName(SourceFailed):
    """A name that git would read as something other than one ref."""


def ref_name_problem(name: str) -> str | None:
    """Why ``name`` is not a safe ref name, or None when it is one."""
    if not name:
        return "it is empty"
    if len(name.encode("utf-8", "surrogatepass")) > MAX_LENGTH:
        return f"it is longer than {MAX_LENGTH} bytes"
    if name.startswith("-"):
        return "it starts with '-', so git would read it as an option"
    bad = _FORBIDDEN.search(name)
    if bad is not None:
        return f"it contains {bad[0]!r} (no spaces, control characters, ~ ^ : ? * [ or backslash)"
    if name == "@" or "@{" in name:
        return "it contains '@{' or is '@', which git reads as a revision expression"
    if ".." in name:
        return "it contains '..', which git reads as a range"
    if name.startswith("/") or name.endswith("/") or "//" in name:
        return "it starts or ends with '/' or contains '//'"
    if name.endswith("."):
        return "it ends with '.'"
    for part in name.split("/"):
        if part.startswith("."):
            return "a part of it starts with '.'"
        if part.endswith(".lock"):
            return "a part of it ends with '.lock'"
    return None


def checked_ref_name(name: str, what: str) -> str:
    """``name`` unchanged, or InvalidRefName saying why ``what`` cannot be used."""
    problem = ref_name_problem(name)
    if problem is not None:
        shown = name if len(name) <= 80 else name[:80] + "…"
        raise InvalidRefName(f"{what} {shown!r} is not a branch name git accepts: {problem}")
    return name
