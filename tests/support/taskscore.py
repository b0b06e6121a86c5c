"""Score task references against the human labels of ``../shared/corpus/labels``.

Each labelled entry's text runs from its labelled line to the line before the next
labelled entry (or the end of the file); a single-lesson file is one entry, front matter
included. Scoring on these spans keeps it independent of how entries are detected.
What the task filter finds for an entry is its ``tasks:`` field plus what it mentions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from gotchas import taskref
from gotchas.fields import parse_line

SHARED = Path(__file__).resolve().parents[3] / "shared"
LABELS = SHARED / "corpus" / "labels"
REAL = SHARED / "corpus" / "real"


@dataclass(frozen=True)
class EntryScore:
    file: str
    line: int
    labelled: tuple[str, ...]
    found: tuple[str, ...]

    @property
    def missed(self) -> tuple[str, ...]:
        return tuple(t for t in self.labelled if t not in self.found)

    @property
    def extra(self) -> tuple[str, ...]:
        return tuple(t for t in self.found if t not in self.labelled)


def found_tasks(text: str) -> tuple[str, ...]:
    """What ``--task`` finds in one entry's text: its ``tasks:`` field, then its mentions."""
    tagged: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        for field in parse_line(line, number):
            if field.key == "tasks":
                tagged.extend(taskref.parse_list(field.value))
    return tuple(dict.fromkeys([*tagged, *taskref.mentions(text)]))


def score(labels: Path = LABELS, real: Path = REAL) -> list[EntryScore]:
    scores: list[EntryScore] = []
    for label_path in sorted(labels.glob("*.json")):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        lines = (real / label["file"]).read_text(encoding="utf-8").splitlines()
        entries = label["entries"]
        for index, entry in enumerate(entries):
            start = entry["line"] - 1
            end = entries[index + 1]["line"] - 1 if index + 1 < len(entries) else len(lines)
            text = "\n".join(lines[start:end])
            scores.append(EntryScore(label["file"], entry["line"], tuple(entry["tasks"]), found_tasks(text)))
    return scores


def report(scores: list[EntryScore]) -> str:
    """Per-entry misses and extras, then totals."""
    rows = []
    for item in scores:
        if item.missed:
            rows.append(f"MISS  {item.file}:{item.line}  {', '.join(item.missed)}")
        if item.extra:
            rows.append(f"EXTRA {item.file}:{item.line}  {', '.join(item.extra)}")
    labelled = sum(len(s.labelled) for s in scores)
    missed = sum(len(s.missed) for s in scores)
    extra = sum(len(s.extra) for s in scores)
    rows.append(
        f"task references: {labelled - missed} of {labelled} labelled found; "
        f"{missed} missed; {extra} extra over {len(scores)} entries"
    )
    return "\n".join(rows)
