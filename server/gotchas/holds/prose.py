"""A hold's answer as a person reads it: one sentence per piece of evidence, no Python reprs.

Evidence is structured for programs (``--json``, the MCP answer); on a terminal each item
becomes a line that says what was seen where (``git: 1c4a07437cd0 on main "Fix the hang
(fixes #664)", 2026-12-04T14:30:46Z, closing keyword``), nested values included, and the
answer ends with what would release it. The text is still the repository's: the shell
escapes it for the terminal (:mod:`gotchas.terminal`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

_LEAD = ("source", "error", "note", "warning")


def value(item: object) -> str:
    """Any evidence value in words: lists joined with commas, mappings as ``key value``."""
    if item is None:
        return "-"
    if isinstance(item, bool):
        return "yes" if item else "no"
    if isinstance(item, Mapping):
        return " ".join(value(v) if k in ("source", "state") else f"{k} {value(v)}" for k, v in item.items())
    if isinstance(item, list | tuple):
        return ", ".join(value(v) for v in item) or "none"
    return str(item)


def evidence_line(item: Mapping[str, object]) -> str:
    """One piece of evidence as a sentence led by who said it."""
    source = str(item.get("source") or "?")
    if source == "precedence":
        overruled = item.get("overruled")
        others = overruled if isinstance(overruled, list) else []
        beaten = ", ".join(
            f"{value(o.get('source'))} ({value(o.get('state'))})" for o in others if isinstance(o, Mapping)
        )
        return (
            f"precedence: {value(item.get('chosen'))} ({value(item.get('state'))}) chosen over "
            f"{beaten or 'the others'}: {value(item.get('rule'))}"
        )
    if "error" in item:
        return f"{source} failed: {value(item['error'])}"
    if source == "ledger" and "state" in item:
        text = f"ledger: {value(item['state'])} (set by {value(item.get('by'))} at {value(item.get('at'))}"
        earlier = f"; before: {value(item['previous'])}" if item.get("previous") else ""
        return f"{text}, line {value(item.get('line'))}{earlier})"
    if source == "git" and "commit" in item:
        said = [
            f"{str(item['commit'])[:12]} on {value(item.get('branch'))}",
            f'"{value(item.get("subject"))}"',
        ]
        said += [value(item[k]) for k in ("date", "matched") if item.get(k)]
        if item.get("reverted_by"):
            said.append(f"reverted by {str(item['reverted_by'])[:12]}")
        text = f"git: {', '.join(said)}"
        return f"{text} ({value(item['note'])})" if item.get("note") else text
    rest = [f"{k} {value(v)}" for k, v in item.items() if k not in _LEAD]
    lead = [value(item[k]) for k in _LEAD[1:] if k in item]
    return f"{source}: " + "; ".join([*lead, *rest])


def answer_lines(answer: Mapping[str, object], indent: str = "") -> list[str]:
    """Each task's state and who says so, its evidence, then the ways to release the hold."""
    lines: list[str] = []
    tasks = answer.get("tasks")
    for task in tasks if isinstance(tasks, list) else []:
        lines.append(
            f"{indent}{task['task']}: {task['state'] or 'unknown'} (source: {task['source'] or 'none'})"
        )
        lines += [f"{indent}  {evidence_line(item)}" for item in task["evidence"]]
    lines += release_lines(answer.get("release"), indent)
    return lines


def release_lines(release: object, indent: str = "") -> list[str]:
    """ "To release it:" and one line per way, or nothing."""
    ways: Sequence[object] = release if isinstance(release, list | tuple) else ()
    if not ways:
        return []
    return [f"{indent}to release it, any one of:", *(f"{indent}  - {way}" for way in ways)]
