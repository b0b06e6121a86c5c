"""The detection and byte-preservation tests give the same answers on both parse paths.

The suite parses records with the line scanner (markdown-it reads only the blocks the
scanner cannot be sure of) and edits from the parse they were made on; here the reading,
record, edit, workspace and corpus-supersede tests run again with markdown-it alone over
the whole text instead (``support.whole_parse``), and must all pass there too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import whole_parse

TESTS = Path(__file__).resolve().parent
SUITES = [
    "test_reading.py",
    "test_reading_corpus.py",
    "test_record.py",
    "test_edit.py",
    "test_successor.py",
    "test_workspace.py",
    "test_corpus_supersede.py",
    "adversarial/test_lesson_structure.py",
]


@pytest.mark.slow
def test_detection_and_bytes_hold_on_the_whole_text_path() -> None:
    # the same property examples on both paths (as CI draws them)
    env = {**os.environ, "GOTCHAS_TEST_WHOLE_PARSE": "1", "CI": "true"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not slow and not npm"]
        + [str(TESTS / suite) for suite in SUITES],
        cwd=TESTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert whole_parse.HEADER in done.stdout, done.stdout[-2000:]
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
