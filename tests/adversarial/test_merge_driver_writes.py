"""The merge driver replaces git's ``%A`` as a whole and writes in the record's own line ending.

Before, ``%A`` was truncated and then written (a kill in between left it empty), and a record
whose lines end in a lone CR got LF line endings in what the merge added.
"""

from __future__ import annotations

import os
from pathlib import Path

from gotchas import merge

BASE = b"# Gotchas\r\r## Alpha\r\rtasks: #1\r\rBody A.\r"
OURS = BASE + b"\r## Beta\r\rtasks: #2\r\rBody B."  # no final line ending
THEIRS = BASE + b"\r## Gamma\r\rtasks: #3\r\rBody C.\r"


def three(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[Path, Path, Path]:
    paths = tuple(tmp_path / name for name in (".merge_file_base", ".merge_file_ours", ".merge_file_theirs"))
    for path, data in zip(paths, (base, ours, theirs), strict=True):
        path.write_bytes(data)
    return paths  # type: ignore[return-value]


def test_ours_is_replaced_by_a_rename_never_rewritten_in_place(tmp_path: Path) -> None:
    base, ours, theirs = three(tmp_path, b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n")
    os.chmod(ours, 0o640)
    reader = tmp_path / "held-open-by-a-reader"
    os.link(ours, reader)  # the old inode, as a process that has it open still sees it

    status, _ = merge.run(base, ours, theirs, "file")

    assert status == 0 and ours.read_bytes() == b"A\nb\nC\n"
    assert reader.read_bytes() == b"A\nb\nc\n", "the old file was never truncated or rewritten"
    assert os.stat(ours).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".merge_file_base", ".merge_file_ours", ".merge_file_theirs", reader.name]
    ), "no temp file is left"


def test_a_lone_cr_record_keeps_lone_cr_line_endings(tmp_path: Path) -> None:
    base, ours, theirs = three(tmp_path, BASE, OURS, THEIRS)

    status, line = merge.run(base, ours, theirs, ".claude/rules/gotchas.md")

    merged = ours.read_bytes()
    assert status == 0, line
    assert b"\n" not in merged, merged
    assert b"Body B.\r\r## Gamma" in merged, "the blank line between the entries survives"
    assert merge.line_ending(BASE) == b"\r"
    assert [ln.strip() for ln in merged.split(b"\r") if ln.startswith(b"## ")] == [
        b"## Alpha",
        b"## Beta",
        b"## Gamma",
    ]
