"""Where a new lesson goes without --after: the end of the section whose lessons share its
tasks (else enough of its words), or a refusal that asks for --after and names the
candidates; never wherever the file happens to end. Through the real CLI, and the pure
choice on its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from gotchas import errors, placement, record
from support.clients import RECORD_PATH, gotchas, make_scenario_repo, run_gotchas
from support.project import SCENARIO

SECTIONS = ("## vLLM", "## Hugging Face", "## Git and CI")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    make_scenario_repo(repo)
    (tmp_path / "home").mkdir()
    return repo


def captured(root: Path, title: str, tasks: str, body: str = "What we saw.") -> str:
    """The record after proposing and applying a lesson without --after."""
    args = ["propose", "--json", "--no-hold", "--title", title, "--body", body, "--tasks", tasks]
    made = json.loads(run_gotchas(root, *args, "--root-cause", "suspected").stdout)
    run_gotchas(root, "apply", made["proposal_id"])
    return (root / RECORD_PATH).read_text("utf-8")


def section_of(text: str, title: str) -> str:
    """The ``##`` section the line holding ``title`` lies in."""
    at = text.index(f"### {title}")
    return [s for s in SECTIONS if text.find(s) < at][-1]


def test_a_lesson_sharing_a_task_goes_to_the_end_of_that_section(root: Path) -> None:
    before = (root / RECORD_PATH).read_text("utf-8")
    text = captured(root, "Tokenizer warm-up hides the first-call cost", "#547")
    assert section_of(text, "Tokenizer warm-up hides") == "## Hugging Face"
    # at its end: right before the next section, after the section's last lesson
    assert text.index("### Tokenizer warm-up") > text.index("### Tokenizer loads are not free")
    assert text.index("### Tokenizer warm-up") < text.index("## Git and CI")
    # one insertion, every other byte as it was
    head = _common(before, text)
    tail = _common(before[head:][::-1], text[head:][::-1])
    assert head + tail == len(before) and "Tokenizer warm-up hides" in text[head : len(text) - tail]


def _common(a: str, b: str) -> int:
    """How many leading characters ``a`` and ``b`` share."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_a_lesson_sharing_words_goes_to_that_section(root: Path) -> None:
    text = captured(root, "vLLM sampler seeds are per request", "#900")
    assert section_of(text, "vLLM sampler seeds") == "## vLLM"
    text = captured(root, "CI runners reuse stale wheels", "#901")
    assert section_of(text, "CI runners reuse") == "## Git and CI"


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts[:1]
    }


def test_a_lesson_sharing_nothing_is_refused_asking_for_after(root: Path) -> None:
    before = tree(root)
    args = ["propose", "--no-hold", "--title", "Docker layers order pip installs", "--body", "Order them."]
    done = gotchas(root, *args, "--tasks", "#902", "--root-cause", "suspected")
    assert done.returncode == 2
    assert "needs-after" in done.stderr and "--after ID" in done.stderr
    for last in ("max-model-len-silently-drifts-from-the", "tokenizer-loads-are-not-free"):
        assert last in done.stderr
    assert tree(root) == before
    with_after = gotchas(
        root, *args, "--tasks", "#902", "--root-cause", "suspected", "--after", "tokenizer-loads-are-not-free"
    )
    assert with_after.returncode == 0, with_after.stderr


def test_the_choice_is_pure_and_one_section_needs_no_choice() -> None:
    parsed = record.parse(SCENARIO.read_bytes())
    chosen = placement.after(parsed, title="x", body="y", tasks=["#601"])
    assert chosen is not None and chosen.id == "max-model-len-silently-drifts-from-the"
    with pytest.raises(errors.NeedsPlacement):
        placement.after(parsed, title="Nothing here", body="at all", tasks=["#1"])
    # a tie on tasks is no choice either
    with pytest.raises(errors.NeedsPlacement):
        placement.after(parsed, title="x", body="y", tasks=["#601", "#547"])
    flat = record.parse(b"# G\n\n## One\n\ntasks: #1\n\nA.\n\n## Two\n\ntasks: #2\n\nB.\n")
    last = placement.after(flat, title="Other", body="c", tasks=["#3"])
    assert last is not None and last.id == "two"
    assert placement.after(record.parse(b""), title="First", body="a", tasks=["#1"]) is None
