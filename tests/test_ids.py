"""Entry ids: the same ids as a search from ``-2`` for every repeat, in linear work."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import record
from gotchas.fields import Field, parse_line
from gotchas.record import ids


def searched_from_two(drafts: list[tuple[str, tuple[Field, ...]]]) -> list[tuple[str, bool]]:
    """The rule as first written: each repeat searches ``-2``, ``-3``… from the start."""
    explicit = [ids.explicit_id(fields) for _, fields in drafts]
    taken = {value for value in explicit if value}
    out: list[tuple[str, bool]] = []
    for (title, _), value in zip(drafts, explicit, strict=True):
        if value:
            out.append((value, True))
            continue
        base = ids.slugify(title)
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        out.append((candidate, False))
    return out


def same_title(n: int) -> list[str]:
    return ["h"] * n


def same_prefix(n: int) -> list[str]:
    return ["h" + " 2" * (i % 50) for i in range(n)]


def numbered(n: int) -> list[str]:
    return ["h" if i % 2 else f"h {n - i}" for i in range(n)]


def drafts_of(titles: list[str]) -> list[tuple[str, tuple[Field, ...]]]:
    return [(title, ()) for title in titles]


SHAPES = [same_title, same_prefix, numbered]


def test_each_shape_gets_the_ids_of_the_search_from_two() -> None:
    for shape in SHAPES:
        drafts = drafts_of(shape(600))
        assert ids.assign(drafts) == searched_from_two(drafts), shape.__name__


def test_probes_grow_linearly_with_colliding_titles() -> None:
    for shape in SHAPES:
        counts = []
        for n in (1_000, 4_000):
            slugs = ids.Slugs(set())
            ids.assign(drafts_of(shape(n)), slugs=slugs)
            assert slugs.probes <= 2 * n, (shape.__name__, n, slugs.probes)
            counts.append(slugs.probes)
        assert counts[1] <= 4 * counts[0] + 4, (shape.__name__, counts)


def test_a_repeat_probes_its_own_slug_once_and_its_next_suffix() -> None:
    """4,000 same titles: one probe each, one more for each repeat (a search from ``-2`` for
    every repeat would make about eight million)."""
    n = 4_000
    slugs = ids.Slugs(set())
    ids.assign(drafts_of(same_title(n)), slugs=slugs)
    assert slugs.probes == 2 * n - 1  # one probe each, and one more for every repeat but the first


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["h", "h 2", "h-2", "h 2 2", "h 3", "a", "a 2", "H", "h 10", "ß", "ss"]),
            st.sampled_from([None, "h", "h-2", "h-3", "a-2", "x"]),
        ),
        max_size=40,
    )
)
def test_any_mix_of_titles_and_explicit_ids_matches_the_search_from_two(
    rows: list[tuple[str, str | None]],
) -> None:
    drafts: list[tuple[str, tuple[Field, ...]]] = [
        (title, () if given_id is None else (_id_field(given_id),)) for title, given_id in rows
    ]
    assert ids.assign(drafts) == searched_from_two(drafts)


def _id_field(value: str) -> Field:
    (field,) = parse_line(f"id: {value}", 1)
    return field


def test_a_record_of_repeated_headings_reads_with_the_same_ids() -> None:
    titles = numbered(300)
    data = "".join(f"### {title}\n\nbody\n\n" for title in titles).encode()
    read = [entry.id for entry in record.parse(data).entries]
    assert read == [value for value, _ in searched_from_two(drafts_of(titles))]
    assert len(set(read)) == len(read)


def test_an_id_field_that_no_link_could_name_is_no_id() -> None:
    """``id: 'server-components',`` in a code sample is not this lesson's id: a link could not
    name it (a comma ends a link), so the lesson keeps its title's slug and can be superseded;
    quotes or backticks around a plain id are markup."""
    sample = b"# Lessons\n\n## Add a lesson to the list\n\nid: 'server-components',\ntitle: 'Server'\n"
    read = record.parse(sample).entries
    assert [(e.id, e.explicit_id) for e in read] == [("add-a-lesson-to-the-list", False)]
    for written in (b"id: `G-7`", b"id: 'G-7'", b'id: "G-7"', b"id: G-7"):
        data = b"# Lessons\n\n## Keys leak\n\n" + written + b"\n\nOne key per environment.\n"
        assert [(e.id, e.explicit_id) for e in record.parse(data).entries] == [("G-7", True)]
