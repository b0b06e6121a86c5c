"""Score task references on the labelled corpus beside the repository.

    python bench/score_tasks.py

Prints every labelled reference the task filter misses on its entry's text, every
reference it reports that the labels do not list, and the totals. Exits 1 on a miss.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support import taskscore


def main() -> int:
    if not taskscore.LABELS.is_dir():
        print(f"no labels at {taskscore.LABELS}")
        return 2
    scores = taskscore.score()
    print(taskscore.report(scores))
    return 1 if any(s.missed for s in scores) else 0


if __name__ == "__main__":
    sys.exit(main())
