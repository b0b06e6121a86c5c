"""Capturing a new lesson (no target): creating the record, placing the entry, its fields."""

from __future__ import annotations

import json
from pathlib import Path

from gotchas import record as record_model
from support.clients import gotchas
from support.project import RECORD


def capture(root: Path, title: str, *extra: str) -> dict[str, object]:
    args = ["propose", "--no-hold", "--title", title, "--body", "What happened."]
    done = gotchas(root, *args, *extra, "--json")
    assert done.returncode == 0, done.stderr
    proposed = json.loads(done.stdout)
    applied = gotchas(root, "apply", str(proposed["proposal_id"]), "--json")
    assert applied.returncode == 0, applied.stderr
    result: dict[str, object] = json.loads(applied.stdout)
    return result


def test_the_first_lesson_creates_the_record(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    proposed = gotchas(
        root,
        "propose",
        "--no-hold",
        "--title",
        "Pin the CUDA toolkit",
        "--body",
        "13.1 broke the build.",
        "--tasks",
        "#12",
        "--root-cause",
        "confirmed",
        "--diagnostic",
        "compare nvcc --version",
    )
    assert proposed.returncode == 0, proposed.stderr
    assert not (root / RECORD).exists(), "propose must not write the record"
    stored = json.loads(gotchas(root, "proposals", "--json").stdout)["proposals"]
    assert gotchas(root, "apply", stored[0]["proposal_id"]).returncode == 0
    parsed = record_model.parse((root / RECORD).read_bytes())
    assert [(e.title, e.tasks, e.root_cause) for e in parsed.entries] == [
        ("Pin the CUDA toolkit", ("#12",), "confirmed")
    ]
    assert parsed.entries[0].diagnostic == "compare nvcc --version"


def test_captures_follow_the_records_style_and_place(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    original = b"# Lessons\r\n\r\n- **Old one** - a (#1)\r\n- **Other** - b (#2)\r\n"
    (root / RECORD).write_bytes(original)
    capture(root, "Appended last", "--tasks", "#3", "--root-cause", "suspected")
    capture(root, "Placed after the first", "--tasks", "4", "--root-cause", "suspected", "--after", "old-one")
    data = (root / RECORD).read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    parsed = record_model.parse(data)
    assert [e.title for e in parsed.entries] == [
        "Old one",
        "Placed after the first",
        "Other",
        "Appended last",
    ]
    assert [e.kind for e in parsed.entries] == ["item"] * 4
    assert parsed.get("appended-last").root_cause == "suspected"
    assert parsed.get("placed-after-the-first").tasks == ("#4",)


def test_a_confirmed_capture_without_diagnostic_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".git").mkdir()
    done = gotchas(
        root, "propose", "--title", "T", "--body", "B", "--tasks", "#1", "--root-cause", "confirmed"
    )
    assert done.returncode == 2 and "diagnostic" in done.stderr
    assert not (root / ".claude").exists()
