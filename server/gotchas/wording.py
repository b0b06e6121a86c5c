"""Counts in messages that read as English: "1 entry", "2 entries", "1 hypothesis".

Every message that counts things says the number with the noun in the right form, so a
reader never meets "1 entries" or "entry(s)".
"""

from __future__ import annotations

_IRREGULAR = {"hypothesis": "hypotheses", "analysis": "analyses", "index": "indexes"}


def plural(noun: str) -> str:
    """The plural of an English ``noun`` (the last word of a phrase): entries, hypotheses, boxes."""
    head, space, last = noun.rpartition(" ")
    if last in _IRREGULAR:
        word = _IRREGULAR[last]
    elif last.endswith("y") and last[-2:-1] not in ("", *"aeiou"):
        word = last[:-1] + "ies"
    elif last.endswith("is"):
        word = last[:-2] + "es"
    elif last.endswith(("s", "x", "z", "ch", "sh")):
        word = last + "es"
    else:
        word = last + "s"
    return head + space + word


def counted(n: int, noun: str) -> str:
    """``n`` and ``noun`` in the form that agrees with it: ``counted(1, "entry") == "1 entry"``."""
    return f"{n} {noun if n == 1 else plural(noun)}"
