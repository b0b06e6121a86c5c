"""Say when the reading is a guess: a mixed reading carries a one-line notice naming what was
chosen, the runner-up and the pin that chooses it; ``gotchas list`` and ``gotchas outline``
print it (real processes), the pin it names silences it, and a proposal's next step repeats it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gotchas import outline, record
from support.clients import gotchas_exe, isolated_env

MIXED = b"""# Gotchas

## Docker

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.

## The CI runner has two cores and `-n 8` thrashes

Use `-n 2` with pytest-xdist on the shared runners.
"""

PLAIN = b"""# Gotchas

- **Pin base images** - `latest` moves under you.
- **Copy the lockfile first** - the cache survives source edits.
"""


def _run(root: Path, home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [gotchas_exe(), "--root", str(root), *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(home),
    )


def _project(tmp_path: Path, data: bytes, config: str | None = None) -> Path:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".claude" / "rules" / "gotchas.md").write_bytes(data)
    if config is not None:
        (root / ".claude" / "gotchas.toml").write_text(config, encoding="utf-8")
    return root


def test_a_mixed_reading_says_it_is_a_guess() -> None:
    parsed = record.parse(MIXED)
    assert parsed.reading is not None and parsed.reading.notice is not None
    notice = parsed.reading.notice
    assert "guess" in notice and "runner-up" in notice and 'entries = "list"' in notice
    assert "\n" not in notice
    assert parsed.notice == notice  # what list and list_gotchas show
    assert outline.describe(parsed.reading, [e.id for e in parsed.entries])["notice"] == notice


def test_a_plain_reading_says_nothing() -> None:
    parsed = record.parse(PLAIN)
    assert parsed.reading is not None and parsed.reading.notice is None and parsed.notice is None


def test_list_and_outline_print_the_notice(tmp_path: Path) -> None:
    root = _project(tmp_path, MIXED)
    for command in ("list", "outline"):
        done = _run(root, tmp_path / "home", command)
        assert done.returncode == 0, done.stderr
        assert "the reading is a guess" in done.stdout + done.stderr, command


def test_the_pin_it_names_chooses_the_runner_up_and_silences_it(tmp_path: Path) -> None:
    root = _project(tmp_path, MIXED, 'entries = "list"\n')
    done = _run(root, tmp_path / "home", "list")
    assert done.returncode == 0, done.stderr
    assert "guess" not in done.stdout + done.stderr
    assert "Pin base images" in done.stdout and "two cores" not in done.stdout


def test_a_proposal_against_a_guessed_reading_carries_the_notice(tmp_path: Path) -> None:
    from gotchas import operations
    from gotchas.holds.sources.ledger import set_task_state
    from gotchas.workspace import Workspace

    def propose(data: bytes, name: str) -> str:
        root = tmp_path / name
        (root / ".claude" / "rules").mkdir(parents=True)
        (root / ".claude" / "rules" / "gotchas.md").write_bytes(data)
        set_task_state(root, "#9001", "landed", "notice-test")
        target = record.parse(data).entries[0]
        proposed = operations.propose_supersede(
            Workspace(root),
            target_id=target.id,
            task="#9001",
            title="Pin by digest",
            body="Tags move; digests do not.",
            diagnostic="compare the digests",
            ruled_out=["the advice of the entry above"],
            evidence="ledger line for #9001",
        )
        assert proposed["status"] == "proposed"
        return str(proposed["next_step"])

    assert "the reading is a guess" in propose(MIXED, "mixed")
    assert "guess" not in propose(PLAIN, "plain")


FOLDED = """# 教訓ログ

## デプロイ
- 本番DBにマイグレーション未適用 → マージ前に適用確認
- 環境変数がビルドに無い → `.env.example` を更新

## クエリ
- `description` ではなく `memo` → スキーマから名前を写す
- `salon_id` の絞り込み漏れ → 全クエリで絞り込む
- **対策**: コミット前に `make check-columns` を実行

## コード品質
- ページが900行に膨張 → 1ページ300行まで
""".encode()

UNLABELLED_FOLD = b"""# Gotchas

- **Abstain votes**
Abstaining counts toward quorum but not toward the result.

- **Route builder quirks**
- The builder is immutable; redeploy it instead of upgrading.

- **Council member updates**
Start them from the manager contract, never the timelock.
"""


def test_a_labelled_bullet_read_as_the_field_of_the_bullet_before_is_a_guess() -> None:
    parsed = record.parse(FOLDED)
    assert parsed.reading is not None and parsed.reading.unit == "list-item"
    titles = [e.title for e in parsed.entries]
    assert not any("対策" in t for t in titles)  # read as a field of the lesson before it
    notice = parsed.reading.notice
    assert notice is not None and "fields of the lesson before" in notice and "runner-up" in notice


def test_an_unlabelled_bullet_under_a_title_bullet_is_not_a_guess() -> None:
    parsed = record.parse(UNLABELLED_FOLD)
    assert parsed.reading is not None and len(parsed.entries) == 3
    assert parsed.reading.notice is None
