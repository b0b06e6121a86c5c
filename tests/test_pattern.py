"""Lazy patterns: compiled on first use, once, and the same pattern ``re.compile`` gives."""

from __future__ import annotations

import re
import subprocess
import sys

from gotchas.pattern import LazyPattern


def test_a_lazy_pattern_compiles_on_first_use_and_keeps_it() -> None:
    lazy = LazyPattern(r"a(b)", re.IGNORECASE)
    assert "compiled" not in vars(lazy)
    first = lazy.compiled
    assert lazy.compiled is first
    assert first.pattern == r"a(b)" and first.flags & re.IGNORECASE
    found = lazy.compiled.match("AB")
    assert found is not None and found[1] == "B"


def test_reading_a_plain_record_leaves_the_rules_it_never_meets_uncompiled() -> None:
    """In a fresh process: a record with no CJK text and no table compiles neither the pattern of
    the CJK status words nor the table's."""
    code = (
        "from gotchas import record, status, table\n"
        "parsed = record.parse(b'# Lessons\\n\\n- **Cache** - clear it\\n- **Lock** - wait\\n')\n"
        "assert len(parsed.entries) == 2, parsed.entries\n"
        "print(sorted(name for name, p in (('cjk', status._CJK), ('delimiter', table.DELIMITER))"
        " if 'compiled' in vars(p)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    # the same process, once a status is written in CJK, has compiled it
    used = code + (
        "assert status.from_field('已修复').value == status.FIXED\n"
        "print('cjk' if 'compiled' in vars(status._CJK) else '')\n"
    )
    again = subprocess.run([sys.executable, "-c", used], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["[]", "cjk"]


def test_a_title_in_a_script_without_spaces_counts_two_characters_a_word() -> None:
    from gotchas.vocabulary import words

    assert words("缓存 清除") == 2  # four CJK characters
    assert words("キャッシュを消す") == 4  # eight kana
    assert words("한국어 cache fix") == 3  # Korean is spaced: a word, then two
    assert words("\u303f\u3040") == 2  # below the ranges a word of its own, then half a word
    assert words("**Cache** clear") == 2
