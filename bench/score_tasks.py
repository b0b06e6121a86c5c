"""Score task references (and, where labelled, statuses) on the labelled corpus beside the repository.

    python bench/score_tasks.py

Prints every labelled reference the task filter misses on its entry's text, every
reference it reports that the labels do not list, and the totals, for ``../shared/corpus``
and ``../shared/corpus-more``; then, for labels that give a status, every entry whose
normalised status differs. Exits 1 on a missed reference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from gotchas import record
from support import taskscore


def statuses(folder: Path) -> tuple[int, int, list[str]]:
    """(labelled statuses, right, misses) over the entries the reading finds at labelled lines."""
    total = right = 0
    misses = []
    for label_path in sorted((folder / "labels").glob("*.json")):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        parsed = record.parse((folder / "real" / label["file"]).read_bytes())
        by_line = {e.start_line: e for e in parsed.entries}
        for wanted in label["entries"]:
            entry = by_line.get(wanted["line"])
            if "status" not in wanted or entry is None:
                continue
            total += 1
            expected = wanted["status"] or "active"
            if entry.status == expected:
                right += 1
            else:
                misses.append(f"STATUS {label['file']}:{wanted['line']}  {entry.status} (label: {expected})")
    return total, right, misses


def main() -> int:
    if not taskscore.LABELS.is_dir():
        print(f"no labels at {taskscore.LABELS}")
        return 2
    missed = False
    for folder in ("corpus", "corpus-more"):
        base = taskscore.SHARED / folder
        if not (base / "labels").is_dir():
            continue
        print(f"== {folder}")
        scores = taskscore.score(base / "labels", base / "real")
        print(taskscore.report(scores))
        missed = missed or any(s.missed for s in scores)
        total, right, misses = statuses(base)
        if total:
            print("\n".join(misses))
            print(f"statuses: {right} of {total} labelled right")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
