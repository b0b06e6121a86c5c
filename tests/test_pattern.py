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
    """In a fresh process: a record with no CJK text and no table compiles neither pattern."""
    code = (
        "from gotchas import record, table\n"
        "from gotchas.reading import text\n"
        "parsed = record.parse(b'# Lessons\\n\\n- **Cache** - clear it\\n- **Lock** - wait\\n')\n"
        "assert len(parsed.entries) == 2, parsed.entries\n"
        "print(sorted(name for name, p in (('cjk', text._CJK), ('delimiter', table.DELIMITER))"
        " if 'compiled' in vars(p)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    # the same process, once a CJK title's words are counted, has compiled it
    used = code + (
        "assert text.words('缓存 清除') == 1\n"  # four CJK characters count as one word
        "print('cjk' if 'compiled' in vars(text._CJK) else '')\n"
    )
    again = subprocess.run([sys.executable, "-c", used], capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["[]", "cjk"]
