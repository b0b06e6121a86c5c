"""The reading scored against the human labels of ``../shared/corpus`` (bar: 38/41 exact, F1 0.97)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "score_reading.py"
MIN_EXACT = 38
MIN_F1 = 0.97


def test_labelled_corpus_meets_the_bar() -> None:
    if not (SHARED / "corpus" / "labels").is_dir():
        message = f"{SHARED / 'corpus' / 'labels'} is absent (the shared corpus beside the repository)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    spec = importlib.util.spec_from_file_location("score_reading", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["score_reading"] = module
    spec.loader.exec_module(module)
    result = module.score(SHARED)
    print(result.table())
    assert result.files >= 41
    assert result.exact >= MIN_EXACT, result.table()
    assert result.f1 >= MIN_F1, result.table()
