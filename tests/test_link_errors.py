"""An apply checks the links of the entries it touched, not the whole record.

``link_errors(record, ids)`` must report exactly the errors ``check_record`` reports on
those entries, in the same order: on every lint case, on generated records full of
links, duplicate ids and cycles.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import edit, record, verification
from gotchas.errors import InvalidArgument
from test_verification import ALL

IDS = ["a", "b", "c", "d"]


def _expected(parsed: record.Record, ids: set[str]) -> list[verification.Problem]:
    return [p for p in verification.check_record(parsed) if p.entry in ids and p.severity == "error"]


def _every_pair(parsed: record.Record) -> None:
    names = sorted({e.id for e in parsed.entries} | {"missing"})
    for first in names:
        for second in names:
            wanted = {first, second}
            assert verification.link_errors(parsed, [first, second, None]) == _expected(parsed, wanted)


def test_link_errors_match_the_lint_cases() -> None:
    for case in ALL:
        _every_pair(record.parse(case.data))


entry = st.tuples(
    st.sampled_from(IDS),
    st.lists(st.tuples(st.sampled_from([*IDS, "zz"]), st.sampled_from(["", " for #7"])), max_size=2),
    st.lists(st.sampled_from([*IDS, "zz"]), max_size=2),
    st.booleans(),
    st.sampled_from(["confirmed", "suspected"]),
    st.booleans(),
)


def _render(entries: list[tuple[str, list[tuple[str, str]], list[str], bool, str, bool]]) -> bytes:
    out = ["# Gotchas", ""]
    for n, (name, sup, by, red, cause, diag) in enumerate(entries):
        out += [f"### Lesson {n}", "", f"id: {name}", f"tasks: #{n + 1} · root-cause: {cause}"]
        if diag:
            out.append("diagnostic: the log line")
        if sup:
            out.append("supersedes: " + ", ".join(target + scope for target, scope in sup))
        if by:
            out.append("superseded-by: " + ", ".join(by))
        if red:
            out.append("red-herring-for: #7")
        out += ["", "Body text.", ""]
    return "\n".join(out).encode()


@settings(max_examples=120, deadline=None)
@given(st.lists(entry, min_size=1, max_size=6))
def test_link_errors_match_on_generated_records(
    entries: list[tuple[str, list[tuple[str, str]], list[str], bool, str, bool]],
) -> None:
    _every_pair(record.parse(_render(entries)))


def test_a_plan_check_is_reused_only_for_the_same_parses() -> None:
    data = _render([("a", [], [], False, "suspected", True), ("b", [], [], False, "suspected", True)])
    before = record.parse(data)
    lesson = edit.lesson(
        "The real cause",
        body="It was the cache.",
        tasks=["#7"],
        root_cause="confirmed",
        diagnostic="the log says so",
    )
    plan = edit.plan_supersede(before, target=before.get("a"), task="#7", new=lesson)
    after = record.parse(plan.data)
    first = verification.check_plan(before, after, plan, lesson)
    assert first.ok and verification.check_plan(before, after, plan, lesson) is first
    # another base parse of other bytes: checked afresh, and it does not verify
    other = record.parse(data.replace(b"id: b", b"id: c"))
    assert verification.check_edit(other, after, plan, lesson).ok is False
    with pytest.raises(InvalidArgument, match="would not verify") as refused:
        verification.check_plan(other, after, plan, lesson)
    # an entry of the base is read differently after the edit: the reading is the suspect
    assert "gotchas pin" in str(refused.value) and "Markdown in the body" not in str(refused.value)
