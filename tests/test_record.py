"""The record model: byte-exact spans, stable ids, field lines, and refusals."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import record
from gotchas.errors import AmbiguousEntry, EntryNotFound, RecordEncodingError, RecordUnreadable

SHARED = Path(__file__).resolve().parents[2] / "shared"
SCENARIO = Path(__file__).resolve().parents[1] / "server" / "gotchas" / "demo" / "record.md"


def reassemble(parsed: record.Record) -> bytes:
    return b"".join(parsed.data[a:b] for _, a, b in parsed.segments())


def test_scenario_has_six_entries_under_sections() -> None:
    parsed = record.parse(SCENARIO.read_bytes())
    assert parsed.style == "###"
    assert len(parsed.entries) == 6
    chunk = parsed.get("a-single-large-llm-generate-deadlocks-the-v1")
    assert chunk.tasks == ("#664",)
    assert chunk.root_cause is None
    orphan = parsed.get("crashed-runs-leave-an-orphaned-vllm-enginecore")
    assert orphan.tasks == ("#601", "#653")
    assert orphan.root_cause == "confirmed"
    assert orphan.section == "vLLM"
    assert hashlib.sha256(parsed.data[orphan.start : orphan.end]).hexdigest() == orphan.sha256


def test_ids_are_stable_for_the_same_bytes() -> None:
    data = SCENARIO.read_bytes()
    assert [e.id for e in record.parse(data).entries] == [e.id for e in record.parse(data).entries]


def test_hash_line_inside_a_fence_is_not_a_heading() -> None:
    data = b"# T\n\n## One\n\n```bash\n# not a heading\n## nor this\n```\n\n## Two\n\ntext\n"
    parsed = record.parse(data)
    assert [e.title for e in parsed.entries] == ["One", "Two"]


def test_explicit_id_wins_and_duplicate_titles_are_disambiguated() -> None:
    data = b"## Same\n\nid: custom\n\n## Same\n\nx\n\n## Same\n\ny\n"
    assert [e.id for e in record.parse(data).entries] == ["custom", "same", "same-2"]


def test_duplicate_explicit_ids_are_ambiguous() -> None:
    parsed = record.parse(b"## A\n\nid: x\n\n## B\n\nid: x\n")
    with pytest.raises(AmbiguousEntry):
        parsed.get("x")
    with pytest.raises(EntryNotFound, match="did you mean"):
        parsed.get("xx")


def test_bullet_entries_with_bold_lead_ins() -> None:
    data = (
        b"# Lessons\n\n## Build\n\n- **Pin the toolchain** \xe2\x80\x94 CI broke (#12).\n"
        b"- **Cache keys include the lockfile** \xe2\x80\x94 stale deps (#13).\n\n## Tests\n\n"
        b"- **Seed the RNG** \xe2\x80\x94 flaky (#14).\n- **No network** \xe2\x80\x94 hangs.\n"
    )
    parsed = record.parse(data)
    assert parsed.style == "list"
    assert [e.title for e in parsed.entries] == [
        "Pin the toolchain",
        "Cache keys include the lockfile",
        "Seed the RNG",
        "No network",
    ]
    assert parsed.mentions(parsed.entries[0]) == ("#12",)


def test_field_line_forms() -> None:
    data = (
        b"## A\n\n- Tasks: 664, acme/app#12, ABC-7\n- Root cause: Confirmed\n"
        b"**Diagnostic:** profile one call\n\nsupersedes: old-one (for #664)\n"
    )
    entry = record.parse(data).entries[0]
    assert entry.tasks == ("#664", "acme/app#12", "ABC-7")
    assert entry.root_cause == "confirmed"
    assert entry.diagnostic == "profile one call"
    assert [(s.target, s.tasks) for s in entry.supersedes] == [("old-one", ("#664",))]


def test_fields_inside_a_callout_are_read() -> None:
    data = (
        b"# G\n\n> [!WARNING]\n> **Retries:** no backoff.\n>\n> tasks: #31 \xc2\xb7 root-cause: confirmed\n\n"
        b"> [!CAUTION]\n> Tokens go stale.\n> > - Tasks: #32\n"
    )
    parsed = record.parse(data)
    assert [(e.tasks, e.root_cause) for e in parsed.entries] == [(("#31",), "confirmed"), (("#32",), None)]


def test_front_matter_is_not_an_entry() -> None:
    data = b"---\npaths:\n  - src/**\n---\n# G\n\n## One\n\nx\n\n## Two\n\ny\n"
    parsed = record.parse(data)
    assert parsed.front_matter == (0, 4)
    assert [e.title for e in parsed.entries] == ["One", "Two"]


def test_invalid_utf8_is_refused_with_its_position() -> None:
    with pytest.raises(RecordEncodingError, match="offset 5"):
        record.parse(b"## A\n\xff\n")


def test_binary_and_oversize_are_refused() -> None:
    with pytest.raises(RecordUnreadable, match="binary"):
        record.parse(b"## A\n\x00\n")
    with pytest.raises(RecordUnreadable, match="limit"):
        record.decode(b"a" * (record.MAX_RECORD_BYTES + 1))


lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "# T",
                "## S",
                "### E",
                "- **x** y",
                "1. z",
                "```",
                "# c",
                "tasks: #1",
                "---",
                "",
                "   ",
                "> q",
                "<!-- c -->",
                "| a | b |",
                "Ωμέγα",
                "    code",
            ]
        ),
        st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=20),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None)
@given(lines, st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans())
def test_spans_reassemble_any_input_exactly(
    parts: list[str], eol: str, bom: bool, final_newline: bool
) -> None:
    text = eol.join(parts) + (eol if final_newline and parts else "")
    data = (record.BOM if bom else b"") + text.encode("utf-8")
    if b"\x00" in data:
        return
    parsed = record.parse(data)
    assert reassemble(parsed) == data
    previous = 0
    for entry in parsed.entries:
        assert previous <= entry.start < entry.end <= len(data)
        assert parsed.data[entry.start : entry.end].decode("utf-8")
        previous = entry.end


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_parse_or_are_refused_clearly(data: bytes) -> None:
    try:
        parsed = record.parse(data)
    except (RecordEncodingError, RecordUnreadable):
        return
    assert reassemble(parsed) == data


def corpus_files() -> list[Path]:
    folder = SHARED / "corpus" / "real"
    return sorted(p for p in folder.glob("*") if p.suffix != ".tsv") if folder.is_dir() else []


@pytest.mark.skipif(not corpus_files(), reason="../shared/corpus/real is not beside the repository")
@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:50])
def test_every_real_file_lists_byte_exactly(path: Path) -> None:
    data = path.read_bytes()
    parsed = record.parse(data)
    assert reassemble(parsed) == data
    assert path.read_bytes() == data
    assert len({e.id for e in parsed.entries}) == len(parsed.entries)
