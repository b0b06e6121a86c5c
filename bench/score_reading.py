"""Score the reading against the labelled corpus beside the repository.

    python bench/score_reading.py [--shared PATH]

Prints exact files, entry precision / recall / F1 and each file's misses, scored as
``../shared/corpus/labels/README.md`` says: an entry matches when it starts on the
labelled line; a file is exact when its set of start lines equals the label's.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from gotchas import record

SHARED = Path(__file__).resolve().parents[2] / "shared"


@dataclass
class Score:
    files: int = 0
    exact: int = 0
    true_pos: int = 0
    false_pos: int = 0
    false_neg: int = 0
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
        return "\n".join(lines)


def score(shared: Path) -> Score:
    corpus = shared / "corpus"
    result = Score()
    for label_path in sorted((corpus / "labels").glob("*.json")):
        label = json.loads(label_path.read_text(encoding="utf-8"))
        data = (corpus / "real" / label["file"]).read_bytes()
        want = {1} if label["kind"] == "single-lesson" else {e["line"] for e in label["entries"]}
        got = {e.start_line for e in record.parse(data).entries}
        result.files += 1
        result.true_pos += len(want & got)
        result.false_pos += len(got - want)
        result.false_neg += len(want - got)
        if got == want:
            result.exact += 1
        else:
            result.misses.append(
                f"miss {label['file']}: {label['kind']}/{label['unit']} "
                f"extra {sorted(got - want)} missing {sorted(want - got)}"
            )
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    if not (args.shared / "corpus" / "labels").is_dir():
        print(f"no labelled corpus under {args.shared}", file=sys.stderr)
        return 2
    print(score(args.shared).table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
