"""Parse every record with markdown-it over the whole text: no line scanner, no chunks, no splice.

Installed by ``tests/conftest.py`` when ``GOTCHAS_TEST_WHOLE_PARSE=1``, so the detection
and byte-preservation tests can run on the path the scanned, chunked and spliced parses must match
(``tests/test_parse_paths.py`` does).
"""

from __future__ import annotations

from collections.abc import Sequence

from gotchas import blocks, record, scanner

HEADER = "record parse path: markdown-it over the whole text"


def _whole(view: Sequence[str], bare: Sequence[str], chunk: int = 0) -> blocks.BlockMap:
    """markdown-it alone over the whole text."""
    return blocks.scan("".join(line + "\n" for line in view), bare)


def _never(*_: object) -> None:
    return None


def install() -> None:
    blocks.__dict__["scan_lines"] = _whole
    scanner.__dict__["scan_lines"] = _whole
    record.parsing.__dict__["_spliced"] = _never
