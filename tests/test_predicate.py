"""Hold predicates: the accepted forms parse to one normal form; anything else is refused."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gotchas.errors import PredicateError
from gotchas.holds.predicate import Predicate, parse_predicates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("predicate-664-lands", Predicate("#664", "lands")),
        ("predicate-664-terminal", Predicate("#664", "terminal")),
        ("predicate-#664-lands", Predicate("#664", "lands")),
        ("predicate-vllm-project/vllm#664-lands", Predicate("vllm-project/vllm#664", "lands")),
        ("predicate-ABC-123-lands", Predicate("ABC-123", "lands")),
        ("predicate-abc-123-terminal", Predicate("ABC-123", "terminal")),
        ("  predicate-0664-lands\n", Predicate("#664", "lands")),
    ],
)
def test_each_accepted_form_parses_to_the_normal_task(text: str, expected: Predicate) -> None:
    assert parse_predicates(text) == [expected]


def test_predicates_joined_with_plus_must_all_be_listed_in_order_once() -> None:
    parsed = parse_predicates("predicate-664-lands + predicate-ABC-7-terminal+predicate-664-lands")
    assert parsed == [Predicate("#664", "lands"), Predicate("ABC-7", "terminal")]


def test_text_gives_back_the_predicate_as_written_on_a_task_card() -> None:
    assert Predicate("#664", "lands").text == "predicate-664-lands"
    assert Predicate("o/r#5", "terminal").text == "predicate-o/r#5-terminal"
    assert Predicate("ABC-1", "lands").text == "predicate-ABC-1-lands"


@pytest.mark.parametrize(
    "text",
    [
        "predicate-abc-lands;rm -rf /",
        "predicate-abc-lands",
        "predicate-664",
        "predicate-664-landed",
        "predicate-664-lands+",
        "+predicate-664-lands",
        "predicate--lands",
        "664",
        "",
        "   ",
        "predicate-664-lands && echo pwned",
        "predicate-66 4-lands",
        "predicate-664-lands\npredicate-665-lands",
        "hold-664-lands",
        "predicate-" + "9" * 5000 + "-lands",
    ],
)
def test_anything_else_is_refused_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(PredicateError) as caught:
        parse_predicates(text)
    assert caught.value.code == "invalid-predicate"
    assert "predicate-<task>-lands" in caught.value.message
    assert "owner/repo#664" in caught.value.message


def test_the_shell_fragment_is_named_in_the_error() -> None:
    with pytest.raises(PredicateError, match=r"rm -rf /"):
        parse_predicates("predicate-abc-lands;rm -rf /")


@given(st.text(max_size=80))
def test_any_text_either_parses_or_raises_a_predicate_error(text: str) -> None:
    try:
        parsed = parse_predicates(text)
    except PredicateError:
        return
    assert parsed
    assert all(p.kind in ("lands", "terminal") for p in parsed)
    assert parse_predicates("+".join(p.text for p in parsed)) == parsed
