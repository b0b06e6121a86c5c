"""When each line of the record was written: one ``git blame`` read into line → commit.

A citation is judged against the tree of the commit that wrote the line it sits on, so a
lesson edited later (a red-herring mark added, a typo fixed) keeps each of its claims
anchored where that claim was made. Blame follows the record through renames and, with
``-w``, sees past whitespace-only changes. Lines not committed yet have no anchor: a claim
nobody has committed cannot have gone stale.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^(?P<sha>[0-9a-f]{40}(?:[0-9a-f]{24})?) \d+ (?P<line>\d+)(?: \d+)?$")
_ZERO = re.compile(r"^0+$")


def parse_blame(porcelain: str) -> dict[int, str]:
    """``git blame --porcelain`` output → {final line (1-based): commit}; uncommitted lines left out.

    Only the header line of each group is read; the commit details porcelain repeats and
    the content lines (each starting with a tab) are skipped, so lesson text, whatever it
    holds, is never read as a header.
    """
    anchors: dict[int, str] = {}
    for row in porcelain.split("\n"):
        if not row or row[0] == "\t":
            continue
        match = _HEADER.match(row)
        if match is None:
            continue
        if not _ZERO.match(match["sha"]):
            anchors[int(match["line"])] = match["sha"]
    return anchors


def commit_times(porcelain: str) -> dict[str, int]:
    """Each blamed commit's committer time, from the ``committer-time`` lines porcelain gives
    once per commit (content lines start with a tab and are never read)."""
    times: dict[str, int] = {}
    current = None
    for row in porcelain.split("\n"):
        if not row or row[0] == "\t":
            continue
        match = _HEADER.match(row)
        if match is not None:
            current = match["sha"]
        elif current is not None and row.startswith("committer-time "):
            value = row.removeprefix("committer-time ").strip()
            if value.isdigit():
                times[current] = int(value)
    return times


def anchor_of(anchors: dict[int, str], line: int, override: str | None = None) -> str | None:
    """The commit a claim on ``line`` is checked at: a re-check's commit when the lesson has one."""
    return override or anchors.get(line)
