"""``history``: the chain of root-cause hypotheses recorded for a task."""

from __future__ import annotations

import argparse

from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit
from gotchas.wording import counted


def add_history(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument("task", help="#664, 664, owner/repo#664 or ABC-123")
    json_flag(cmd)


def run_history(args: argparse.Namespace) -> int:
    from gotchas.history import history

    result = history(workspace(args), task=args.task)
    hypotheses = counted(len(result["entries"]), "hypothesis")
    lines = [f"{result['task']}: {hypotheses}, current: {result['current'] or '-'}"]
    for n, entry in enumerate(result["entries"], start=1):
        mark = " (red herring)" if entry["red_herring"] else ""
        lines.append(
            f"{n}. {entry['id']}  {entry['root_cause']}{mark}  lines {entry['lines'][0]}-{entry['lines'][1]}"
        )
        lines.append(f"   {entry['title']}")
        for later in entry["superseded_by"]:
            when = later["at"] or "when unknown"
            how = later["proposal_id"] or (later["commit"] or "")[:12] or "-"
            lines.append(
                f"   superseded by {later['id']} at {when} ({later['source'] or 'record only'}: {how})"
            )
        if entry["ruled_out"]:
            lines.append("   ruled out: " + "; ".join(entry["ruled_out"]))
        for marked in entry.get("marks", []):
            said = marked["why"] or f"still true as of {marked['evidence']}"
            how = marked["proposal_id"] or "-"
            lines.append(f"   {marked['kind']} at {marked['at'] or 'when unknown'} ({how}): {said}")
    emit(result, args.json, "\n".join(lines))
    return 0
