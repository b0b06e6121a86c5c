"""Score the reading against the labelled corpus beside the repository.

    python bench/score_reading.py [--shared PATH]
    python bench/score_reading.py --held-out [PATH]
    python bench/score_reading.py --folder PATH [--quiet]

Prints exact files, entry precision / recall / F1 and each file's misses, scored as
``../shared/corpus/labels/README.md`` says: an entry matches when it starts on the
labelled line; a file is exact when its set of start lines equals the label's.

``--held-out`` scores the repository's own labelled set (``tests/fixtures/reading/
variations``: files and one ``labels.json`` in the same format) the same way, and also
that each labelled task finds its entry through the task filter, that no entry reports a
task its label does not list, and that each entry's normalised status is the labelled one
(``active`` when the label gives none).

``--folder`` scores any folder laid out like a corpus folder (``real/`` + ``labels/``), such
as a set of files labelled before the reading was run on them.

Each file is read as the file it was in its repository, as a user's record is: the path is
``real/SOURCES.tsv``'s ``path`` column, else the file name after ``owner__repo__`` with
``__`` for ``/`` (``acme__shop__.claude__rules__gotchas.md``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from gotchas import record, taskref

SHARED = Path(__file__).resolve().parents[2] / "shared"
HELD_OUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "reading" / "variations"


@dataclass
class Score:
    files: int = 0
    exact: int = 0
    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0
    tasks: int = 0
    tasks_found: int = 0
    tasks_extra: int = 0
    statuses: int = 0
    statuses_right: int = 0
    right_unsure: int = 0  # files read right that say the reading is a guess
    wrong_unsure: int = 0  # files read wrong that say so
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.true_pos + self.false_pos
        return self.true_pos / found if found else 1.0

    @property
    def recall(self) -> float:
        wanted = self.true_pos + self.false_neg
        return self.true_pos / wanted if wanted else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def table(self) -> str:
        lines = [*self.misses]
        lines.append(
            f"exact {self.exact}/{self.files}  precision {self.precision:.3f}  "
            f"recall {self.recall:.3f}  F1 {self.f1:.3f}"
        )
        wrong = self.files - self.exact
        lines.append(
            f"unsure notice: {self.wrong_unsure}/{wrong} wrongly read files carry it, "
            f"{self.right_unsure}/{self.exact} rightly read files do"
        )
        if self.tasks or self.statuses:
            lines.append(
                f"tasks {self.tasks_found}/{self.tasks} found, {self.tasks_extra} extra  "
                f"statuses {self.statuses_right}/{self.statuses} right"
            )
        return "\n".join(lines)

    def add(self, name: str, label: dict[str, Any], got: set[int], notice: str | None = None) -> None:
        want = {1} if label["kind"] == "single-lesson" else {e["line"] for e in label["entries"]}
        self.files += 1
        self.true_pos += len(want & got)
        self.false_pos += len(got - want)
        self.false_neg += len(want - got)
        if got == want:
            self.exact += 1
            self.right_unsure += notice is not None
        else:
            self.wrong_unsure += notice is not None
            self.misses.append(
                f"miss {name}: {label['kind']}/{label['unit']} "
                f"extra {sorted(got - want)} missing {sorted(want - got)}"
            )


FOLDERS = ("corpus", "corpus-more")


def repository(name: str) -> str:
    """The repository a corpus file came from: its name up to the second ``__``."""
    return "__".join(name.split("__")[:2])


def held_out(name: str) -> bool:
    """The fixed split by repository, chosen before any rule was written against it: a third
    of the hash space (sha256 of the repository name) is held out."""
    return int(hashlib.sha256(repository(name).encode()).hexdigest(), 16) % 3 == 0


def source_paths(real: Path) -> dict[str, str]:
    """Each file's path in its repository, from ``SOURCES.tsv`` when the folder has one."""
    sources = real / "SOURCES.tsv"
    if not sources.is_file():
        return {}
    rows = (line.split("\t") for line in sources.read_text(encoding="utf-8").splitlines()[1:])
    return {row[0]: row[2] for row in rows if len(row) >= 3}


def source_path(name: str, known: dict[str, str]) -> str:
    """The path ``name`` had in its repository."""
    return known.get(name) or "/".join(name.split("__")[2:]) or name


def score(shared: Path, folders: Sequence[str] = ("corpus",), part: str = "all") -> Score:
    """The labelled files of ``folders``; ``part``: ``all``, ``dev`` or ``held-out``."""
    result = Score()
    for folder in folders:
        corpus = shared / folder
        if not (corpus / "labels").is_dir():
            raise SystemExit(f"no labels/ folder under {corpus}")
        known = source_paths(corpus / "real")
        for label_path in sorted((corpus / "labels").glob("*.json")):
            label = json.loads(label_path.read_text(encoding="utf-8"))
            if part != "all" and held_out(label["file"]) != (part == "held-out"):
                continue
            data = (corpus / "real" / label["file"]).read_bytes()
            parsed = record.parse(data, name=source_path(label["file"], known))
            unsure = parsed.reading.notice if parsed.reading is not None else None
            result.add(label["file"], label, {e.start_line for e in parsed.entries}, unsure)
    return result


def score_held_out(folder: Path = HELD_OUT) -> Score:
    """Entries, tasks and statuses of the repository's own labelled set."""
    result = Score()
    for label in json.loads((folder / "labels.json").read_text(encoding="utf-8")):
        parsed = record.parse((folder / label["file"]).read_bytes(), task_keys=label.get("task_keys", ()))
        by_line = {e.start_line: e for e in parsed.entries}
        result.add(label["file"], label, set(by_line))
        for wanted in label["entries"]:
            entry = by_line.get(wanted["line"])
            if entry is None:
                continue
            where = f"{label['file']}:{wanted['line']}"
            for task in wanted["tasks"]:
                result.tasks += 1
                if entry in parsed.for_task(taskref.normalize(task)):
                    result.tasks_found += 1
                else:
                    result.misses.append(f"task {where}: {task} not found by the task filter")
            reported = [*entry.tasks, *parsed.mentions(entry)]
            extra = [t for t in reported if t not in wanted["tasks"]]
            result.tasks_extra += len(extra)
            if extra:
                result.misses.append(f"task {where}: reports {', '.join(extra)} the label does not list")
            result.statuses += 1
            expected = wanted.get("status", "active")
            if entry.status == expected:
                result.statuses_right += 1
            else:
                result.misses.append(f"status {where}: {entry.status} (label: {expected})")
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument(
        "--held-out",
        type=Path,
        nargs="?",
        const=HELD_OUT,
        default=None,
        metavar="PATH",
        help="score the repository's own labelled set instead",
    )
    parser.add_argument(
        "--folder",
        type=Path,
        default=None,
        metavar="PATH",
        help="score one folder holding real/ and labels/ instead",
    )
    parser.add_argument("--quiet", action="store_true", help="with --folder: the totals only")
    args = parser.parse_args()
    if args.folder is not None:
        found = score(args.folder.parent, (args.folder.name,)).table().splitlines()
        print("\n".join(found[-2:] if args.quiet else found))
        return 0
    if args.held_out is not None:
        print(score_held_out(args.held_out).table())
        return 0
    if not (args.shared / "corpus" / "labels").is_dir():
        print(f"no labelled corpus under {args.shared}", file=sys.stderr)
        return 2
    for folder in FOLDERS:
        print(f"== {folder}")
        print(score(args.shared, (folder,)).table())
    print("== both folders")
    print(score(args.shared, FOLDERS).table().splitlines()[-2])
    print(score(args.shared, FOLDERS).table().splitlines()[-1])
    for part in ("dev", "held-out"):
        found = score(args.shared, FOLDERS, part).table().splitlines()
        print(f"== repository split, {part} part: " + found[-2] + " | " + found[-1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
