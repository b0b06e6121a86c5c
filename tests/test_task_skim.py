"""The first task filter on a fresh parse reads only the entries that can be for the task.

It must give exactly what a parse with every entry read gives: the same entries with the
same ids (which depend on every title and every ``id:`` field), tasks, mentions, statuses
and bytes, for ``tasks:`` fields, mentions, ranges, aliases of the project's repository,
tracker keys and digits or spaces outside ASCII.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import query, record

TESTS = Path(__file__).resolve().parent
SHARED = TESTS.parents[1] / "shared"
HOME = "acme/widgets"

LESSONS = """\
# Gotchas

### Retry storm

Seen again in #664.

### Retry storm

id: retry-storm-3
tasks: 660-670 · root-cause: confirmed

### Retry storm

Nothing about the task here.

### Stale cache

**ID** :  stale-cache-first
tasks: #12, ABC-7

### Stale cache

Fixed by #٦٦٤ and #372 – #374.

### Range in prose

Between #650\u00a0–\u00a0#670 the worker hung.

### Slashes and repositories

Seen in #404/#458, acme/widgets#664 and https://github.com/acme/widgets/issues/12.

### Tracker keys

Filed as ABC-123 and pm-2026-008; INC-2026-004 too.

### Retry storm 2

- Status: fixed
- Task: PM-2026-008

### Wide digits

tasks: #٦٦٥

### Wide space

tasks: #660\u3000-#670

### Dated

✅ FIXED 2026-01-08 in #13.
"""


def _tasks(parsed: record.Record) -> list[str]:
    found = {t for e in parsed.entries for t in e.tasks}
    found |= {t for e in parsed.entries for t in parsed.mentions(e)}
    extra = {"#664", "#1", "#12", "#373", "#665", "#999999", "ABC-123", "PM-2026-008", "acme/widgets#664"}
    return sorted(found | extra)


def _same_as_full_read(data: bytes, tasks: list[str] | None = None, keys: tuple[str, ...] = ()) -> None:
    full = record.parse(data, task_keys=keys)
    assert full.entries is not None  # every entry read before any filter
    kept_nothing = record.parse(data, task_keys=keys, reuse=False)  # a one-shot command's parse
    assert kept_nothing.reading == full.reading
    assert query.listing(kept_nothing, "r", limit=1000) == query.listing(full, "r", limit=1000)
    for task in tasks if tasks is not None else _tasks(full):
        for home in (None, HOME):
            fresh = record.parse(data, task_keys=keys)
            skimmed = query.select(fresh, task=task, home=home)
            read = record.parse(data, task_keys=keys)
            read.entries  # noqa: B018 - the full read, before the filter
            assert skimmed == query.select(read, task=task, home=home), (task, home)
            listed = query.listing(record.parse(data, task_keys=keys), "r", task=task, home=home, limit=1000)
            assert listed == query.listing(read, "r", task=task, home=home, limit=1000), (task, home)


def test_a_fresh_filter_reads_only_candidate_entries() -> None:
    parsed = record.parse(LESSONS.encode())
    hits = query.select(parsed, task="#664")
    assert "entries" not in parsed.__dict__
    assert len(parsed.unread.some) < parsed.unread.count
    # a mention, a range in a tasks: field (that field decides alone), spaces outside ASCII
    assert [e.id for e in hits] == ["retry-storm", "retry-storm-3", "stale-cache", "wide-space"]
    assert parsed.entries[1].id == "retry-storm-3"  # the full read agrees afterwards
    assert not parsed.indexed
    query.select(parsed, task="#664")  # a second filter builds the index: later ones look up
    assert parsed.indexed


def test_ids_come_from_every_title_and_id_field() -> None:
    parsed = record.parse(LESSONS.encode())
    # ``**ID** :`` names the first "Stale cache", so the second gets the plain slug; the
    # explicit ``retry-storm-3`` pushes the third "Retry storm" to ``-2`` (read without it)
    assert [e.id for e in query.select(parsed, task="#12", home=HOME)] == [
        "stale-cache-first",
        "slashes-and-repositories",
    ]
    assert "entries" not in parsed.__dict__
    assert [e.id for e in parsed.entries][:5] == [
        "retry-storm",
        "retry-storm-3",
        "retry-storm-2",
        "stale-cache-first",
        "stale-cache",
    ]


def test_the_skim_lists_what_the_full_read_lists() -> None:
    data = LESSONS.encode()
    _same_as_full_read(data)
    _same_as_full_read(data, keys=("ABC", "PM"))
    _same_as_full_read(data.replace(b"\n", b"\r\n"))


@pytest.mark.parametrize(
    "path", sorted((TESTS / "fixtures").rglob("*.md")), ids=lambda p: p.relative_to(TESTS).as_posix()
)
def test_the_skim_matches_on_fixtures(path: Path) -> None:
    _same_as_full_read(path.read_bytes())


def _corpus() -> list[Path]:
    folder = SHARED / "corpus" / "real"
    return sorted(folder.iterdir()) if folder.is_dir() else []


@pytest.mark.skipif(not _corpus(), reason="../shared/corpus/real is not beside the repository")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name[:50])
def test_the_skim_matches_on_real_files(path: Path) -> None:
    data = path.read_bytes()
    try:
        record.parse(data)
    except Exception:  # a file the record refuses has nothing to filter
        pytest.skip("not a readable record")
    _same_as_full_read(data)


_LINES = st.sampled_from(
    [
        "# Lessons",
        "## Group",
        "### Retry storm",
        "### Stale cache",
        "### retry-storm-2",
        "- **Retry storm:** seen in #664",
        "- Stale cache, #12",
        "tasks: #664",
        "tasks: 660-670",
        "tasks: #12 · id: retry-storm",
        "Task: ABC-7",
        "id: stale-cache",
        "**Id:** retry-storm-2",
        "Seen in #664 and #372–#374.",
        "Seen in #٦٦٤.",
        "tasks: #٦٦٤",
        "tasks: #660\u3000-#670",
        "Between #660\u00a0-\u00a0#670.",
        "acme/widgets#664 and ABC-7",
        "status: fixed",
        "red-herring-for: #664",
        "superseded-by: stale-cache (for #664)",
        "```",
        "| a | b |",
        "|---|---|",
        "| #664 | x |",
        "---",
        "",
        "",
        "Plain prose.",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_LINES, max_size=40), st.sampled_from(["#664", "#12", "#665", "ABC-7", "acme/widgets#664"]))
def test_the_skim_matches_on_generated_records(lines: list[str], task: str) -> None:
    data = "\n".join(lines).encode()
    _same_as_full_read(data, [task])


def test_a_filter_and_a_full_read_in_two_threads_agree() -> None:
    data = LESSONS.encode() * 20
    expected = query.select(record.parse(data), task="#664")
    for _ in range(20):
        parsed = record.parse(data)
        with ThreadPoolExecutor(4) as pool:
            reads = [pool.submit(getattr, parsed, "entries") for _ in range(2)]
            filters = [pool.submit(query.select, parsed, task="#664") for _ in range(2)]
        assert all(f.result() == expected for f in filters)
        assert all(r.result() == parsed.entries for r in reads)
    read = record.parse(data)
    assert read.unread.read_some([0, 3]) == [read.entries[0], read.entries[3]]


def _slug_by_pattern(title: str) -> str:
    """``record.slugify`` as a regular expression writes it, for titles in ASCII."""
    text = title.lower()
    if "<" in text or "](" in text:
        text = re.sub(r"<[^>]*>|\]\([^)]*\)", " ", text)
    slug = re.sub(r"[\W_]+", "-", text.replace("'", "")).strip("-")
    if len(slug) > record.MAX_ID_LENGTH:
        slug = slug[: record.MAX_ID_LENGTH].rsplit("-", 1)[0]
    return slug or record.slugify(title)  # an empty slug: the title's hash either way


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_an_ascii_title_slugs_as_the_pattern_does(title: str) -> None:
    assert record.slugify(title) == _slug_by_pattern(title)
