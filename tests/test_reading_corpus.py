"""The reading scored against the human labels of ``../shared/corpus`` and ``../shared/corpus-more``
(54 files together; bar: 50 exact, entry F1 0.98), and the unsure notice calibrated on them."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "score_reading.py"
MIN_EXACT = 52  # the bar: at least 52 of the 54 files read exactly
MIN_F1 = 0.98


def _scorer() -> ModuleType:
    if not all((SHARED / folder / "labels").is_dir() for folder in ("corpus", "corpus-more")):
        message = f"{SHARED} holds no labelled corpus (the shared corpus beside the repository)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    spec = importlib.util.spec_from_file_location("score_reading", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["score_reading"] = module
    spec.loader.exec_module(module)
    return module


def test_labelled_corpus_meets_the_bar() -> None:
    scorer = _scorer()
    result = scorer.score(SHARED, scorer.FOLDERS)
    print(result.table())
    assert result.files >= 54
    assert result.exact >= MIN_EXACT, result.table()
    assert result.f1 >= MIN_F1, result.table()


def test_the_unsure_notice_is_calibrated() -> None:
    """Most wrongly read files say the reading is a guess; few rightly read files do."""
    scorer = _scorer()
    result = scorer.score(SHARED, scorer.FOLDERS)
    wrong = result.files - result.exact
    assert result.wrong_unsure * 5 >= wrong * 4, result.table()
    assert result.right_unsure * 10 <= result.exact, result.table()


def test_the_split_is_by_repository_and_fixed() -> None:
    """Every file of a repository falls in the same part, and both parts hold files."""
    scorer = _scorer()
    names = [p.name for folder in scorer.FOLDERS for p in (SHARED / folder / "labels").glob("*.json")]
    parts: dict[str, set[bool]] = {}
    for name in names:
        parts.setdefault(scorer.repository(name), set()).add(scorer.held_out(name))
    assert all(len(found) == 1 for found in parts.values())
    assert {True, False} <= {next(iter(found)) for found in parts.values()}
