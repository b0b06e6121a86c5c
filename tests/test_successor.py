"""A supersede's successor looks like a sibling; its caveat renders as a block inside the target.

Cases are data: ``tests/fixtures/successor/*.md``, in markdown-it-py's fixture-file style,
four dot-separated sections per case: a name, the input record, the target's id, and the
expected result, every line prefixed ``"  "`` when it was already there and ``"+ "`` when the
supersede inserted it. Each case also runs with CRLF line endings and without a final newline,
and its rendering is checked with markdown-it-py (CommonMark, inline on).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from gotchas import edit, operations, record, verification
from gotchas.errors import InvalidArgument, UnsupportedEntry
from gotchas.fields import parse_line
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import Workspace
from support.clients import gotchas
from support.rendered import caveat_problems, list_is_tight, list_tightness

FIXTURES = Path(__file__).parent / "fixtures" / "successor"
TASK = "#7"
LESSON = edit.lesson(
    "Confirmed cause",
    body="It was the cache.",
    tasks=[TASK],
    root_cause="confirmed",
    diagnostic="look at the cache",
)


def read_cases(path: Path) -> list[tuple[str, str, str, str]]:
    """(name, input, target id, expected) per case; a section ends at a line holding one dot."""
    cases = []
    sections: list[str] = []
    current: list[str] = []
    name = ""
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        if line.rstrip("\n") == ".":
            if not sections and not current:
                pass
            if name == "":
                name = "".join(current).strip()
            else:
                sections.append("".join(current))
            current = []
            if len(sections) == 3:
                cases.append((name, sections[0], sections[1].strip(), sections[2]))
                sections, name = [], ""
            continue
        current.append(line)
    return cases


CASES = [
    pytest.param(*case, id=f"{path.stem}: {case[0]}")
    for path in sorted(FIXTURES.glob("*.md"))
    for case in read_cases(path)
]


def split_target(target_id: str) -> tuple[str, str | None]:
    """A case's target id, and the file's pin when written after it: ``old-advice (entries = list)``."""
    pinned = re.fullmatch(r"(\S+) \(entries = (\S+)\)", target_id)
    return (pinned[1], pinned[2]) if pinned else (target_id, None)


def supersede(data: bytes, target_id: str) -> tuple[record.Record, record.Entry, edit.Plan]:
    target_id, pin = split_target(target_id)
    parsed = record.parse(data, pin)
    target = parsed.get(target_id)
    return parsed, target, edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON)


def gutter(data: bytes, plan: edit.Plan) -> str:
    """The result with each line marked as kept (``"  "``) or inserted (``"+ "``)."""
    kept = data.decode("utf-8").splitlines()
    inserted = {i.at: i.lines for i in plan.insertions}
    out = []
    for index in range(len(kept) + 1):
        out += [f"+ {line}".rstrip() for line in inserted.get(index, ())]
        if index < len(kept):
            out.append(f"  {kept[index]}".rstrip())
    return "\n".join(out) + "\n"


@pytest.mark.parametrize(("name", "given", "target_id", "expected"), CASES)
def test_successor_fixture(name: str, given: str, target_id: str, expected: str) -> None:
    data = given.encode("utf-8")
    parsed, _, plan = supersede(data, target_id)
    assert gutter(data, plan) == expected, name
    target_id, pin = split_target(target_id)
    after = record.parse(plan.data, pin)
    check = verification.check_edit(parsed, after, plan, LESSON)
    assert check.ok, check.problems
    assert caveat_problems(plan.data, after.get(target_id), TASK) == []


@pytest.mark.parametrize("final", [True, False], ids=["final-newline", "no-final-newline"])
@pytest.mark.parametrize("eol", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize(("name", "given", "target_id", "expected"), CASES)
def test_successor_fixture_line_endings(
    name: str, given: str, target_id: str, expected: str, eol: bytes, final: bool
) -> None:
    lf = given.encode("utf-8")
    _, _, reference = supersede(lf, target_id)
    data = lf.replace(b"\n", eol)
    if not final:
        data = data.rstrip(b"\n").rstrip(b"\r")
    parsed, _, plan = supersede(data, target_id)
    want = reference.data.replace(b"\n", eol)
    if not final:
        want = want[: -len(eol)]
    assert plan.data == want
    target_id, pin = split_target(target_id)
    after = record.parse(plan.data, pin)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    assert caveat_problems(plan.data, after.get(target_id), TASK) == []


def test_every_fixture_has_an_expected_result() -> None:
    assert len(CASES) >= 20
    assert all(str(case.values[3]).strip() for case in CASES)


# --- the rendering check itself can fail ---------------------------------------------------

CAVEAT = "> **Red herring for #7.** Its advice did not fix that task."
MARK = "red-herring-for: #7 · superseded-by: new (for #7)"
TABLE = "# Lessons\n\n| Problem | Fix |\n|---|---|\n"


@pytest.mark.parametrize(
    ("text", "complaint"),
    [
        (f"- **Old** — x\n  - sub\n  {MARK}\n  {CAVEAT}\n- **Other** — y\n", "follows a part"),
        (f"- **Old** — x\n  - sub\n\n    {MARK}\n\n    {CAVEAT}\n- **Other** — y\n", "own list item"),
        # text after an item up to the next one belongs to that item's entry, not to its list item
        (f"- **Old** — x\n{MARK}\n\n{CAVEAT}\n\n- **Other** — y\n", "own list item"),
        (f"## Old\n\nx\n\n## Other\n\n{MARK}\n\n{CAVEAT}\n", "outside the target"),
        (f"## Old\n\n**Symptom:** x\n\n{MARK}\n\n{CAVEAT}\n\n**Cause:** y\n\n## Other\n\nz\n", "part"),
        (f"## Old\n\n{MARK}\n\n- a\n- b\n\n  {CAVEAT}\n\n## Other\n\nz\n", "folded into"),
        ("## Old\n\ntext\n\n## Other\n\nz\n", "no blockquote"),
        # a callout's caveat is a block of the callout's own
        (f"> [!WARNING]\n> Old.\n\n{MARK}\n\n{CAVEAT}\n\n> [!WARNING]\n> Other.\n", "target's callout"),
        (f"> [!WARNING]\n> Old.\n>\n> - a\n>\n>   {MARK}\n>\n>   {CAVEAT}\n\n> [!WARNING]\n> B.\n", "folded"),
        # a table row's caveat is a continuation row of the target, after the mark row
        (
            f"{TABLE}| Old | x |\n| Other | y |\n| ↳ | {MARK} |\n| ↳ | {CAVEAT[2:]} |\n",
            "not one of the target",
        ),
        (f"{TABLE}| Old | x |\n| ↳ | {MARK} |\n| Other | y |\n\n{CAVEAT}\n", "no row of the target"),
        (f"{TABLE}| Old | x |\n| ↳ | {CAVEAT[2:]} |\n| ↳ | {MARK} |\n| Other | y |\n", "mark row"),
    ],
)
def test_misplaced_caveats_are_reported(text: str, complaint: str) -> None:
    data = text.encode("utf-8")
    target = record.parse(data).get("old")
    problems = caveat_problems(data, target, TASK)
    assert problems and complaint in problems[0], problems


# --- numbers and ids -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "taken", "expected"),
    [
        ("L-055 · Pin", {(56,)}, "L-055.1 · "),
        ("L-055 · Pin", {(55,)}, "L-056 · "),
        ("L-055 · Pin", {(56,), (55, 1), (55, 2)}, "L-055.3 · "),
        ("11.4 Old", {(11, 5)}, "11.4.1 "),
        ("11.4 Old", set(), "11.5 "),
        ("3. Third", {(4,)}, "3.1. "),
        ("STEP-09 — x", set(), "STEP-10 — "),
        ("STEP-01 — x", {(2,)}, "STEP-01.1 — "),
        ("陷阱 1：旧", {(2,)}, "陷阱 1.1："),
        ("#12: Old", set(), "#13: "),
    ],
)
def test_next_label_sorts_right_after_the_target(
    written: str, taken: set[tuple[int, ...]], expected: str
) -> None:
    label = edit.title_label(written)
    assert label is not None
    following = edit.next_label(label, frozenset(taken | {label.number}))
    assert following.text() == expected
    assert following.number not in taken and following.number > label.number
    later = [t for t in taken if t > label.number and t[: len(label.number)] != label.number]
    assert all(following.number < other for other in later)


@pytest.mark.parametrize(
    ("written", "number", "separator"),
    [
        ("2.", (2,), "."),
        ("1.1", (1, 1), ""),
        ("L-05:", (5,), ":"),
        ("7", (7,), ""),
        ("#12", (12,), ""),
        ("Lesson 3:", (3,), ":"),
    ],
)
def test_a_title_that_is_only_its_number_is_a_label(
    written: str, number: tuple[int, ...], separator: str
) -> None:
    label = edit.title_label(written)
    assert label is not None and (label.number, label.separator) == (number, separator)
    assert edit.split_title(written).core == ""


@pytest.mark.parametrize(
    "written",
    [
        "Python 3 is slow",
        "16-byte tiles",
        "CUDA 12 needs care",
        "3 retries",
        "2026-02-26",
        "2026",
        "2026:",
        "CUDA-12 builds need the newer driver",
        "GLM-4 and A100-80 notes",
        "Node 20.11 broke the loader",
        "UTF-8 everywhere",
    ],
)
def test_words_that_merely_start_with_a_number_are_not_labels(written: str) -> None:
    assert edit.title_label(written) is None


def test_bullets_opening_with_versioned_names_give_the_successor_no_number() -> None:
    data = (
        b"# Lessons\n\n- CUDA-11 builds need the old driver.\n- CUDA-12 builds need the new driver.\n"
        b"- Node 20.11 broke the loader.\n- Node 20.12 fixed it.\n"
    )
    parsed = record.parse(data)
    for target in parsed.entries:
        plan = edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON)
        assert f"- {LESSON.title} \u2014 ".encode() in plan.data, plan.data.decode()
    ids = "# Lessons\n\n- ADR-011 \u00b7 builds need the old driver.\n- ADR-012 \u00b7 new.\n".encode()
    parsed = record.parse(ids)
    plan = edit.plan_supersede(parsed, target=parsed.entries[0], task=TASK, new=LESSON)
    assert f"- ADR-011.1 \u00b7 {LESSON.title} \u2014 ".encode() in plan.data, plan.data.decode()


def test_a_mark_every_sibling_opens_with_is_their_form_and_the_successor_carries_it() -> None:
    data = (
        "# Anti-patterns\n\n1. \u26d4 **`__init__.py` full of logic breaks imports.** Keep it empty.\n"
        "2. \u26d4 **Old advice is to chunk the prompts.** It seemed to help.\n"
        "3. \u26d4 **A bare except swallows KeyboardInterrupt.** Catch what you mean.\n"
    ).encode()
    parsed = record.parse(data)
    target = parsed.entries[1]
    sentence = dataclasses.replace(LESSON, title="The cache was the confirmed cause")
    for new, written in (
        (sentence, "4. \u26d4 **The cache was the confirmed cause.** It was the cache."),
        # a title that is no sentence would read back with the mark in it: it goes without
        (LESSON, "4. **Confirmed cause.** It was the cache."),
    ):
        plan = edit.plan_supersede(parsed, target=target, task=TASK, new=new)
        assert f"\n{written}\n".encode() in plan.data, plan.data.decode()
        after = record.parse(plan.data)
        assert verification.check_edit(parsed, after, plan, new).ok
    # a mark only the target carries is its own status, not the successor's
    own = data.replace("1. \u26d4 ".encode(), b"1. ").replace("3. \u26d4 ".encode(), b"3. ")
    parsed = record.parse(own)
    plan = edit.plan_supersede(parsed, target=parsed.entries[1], task=TASK, new=sentence)
    assert b"\n4. **The cache was the confirmed cause.**" in plan.data, plan.data.decode()


def test_a_kind_of_lesson_its_siblings_name_is_the_successors_and_no_one_entrys() -> None:
    data = (
        b"# Troubleshooting\n\n### Issue: npm install fails\n\nClear the cache.\n\n"
        b"### Issue: The build hangs\n\nPin the tokenizer.\n\n### Issue: Tests flake\n\nRerun them.\n"
    )
    named = dataclasses.replace(LESSON, title="Problem: the cache")
    for given, new, written in (
        (data, LESSON, "### Issue: Confirmed cause"),
        # a title naming a kind of its own keeps it alone
        (data, named, "### Problem: the cache"),
        # a kind only the target names is its own (``Issue:`` among plain titles)
        (
            data.replace(b"### Issue: The", b"### The").replace(b"### Issue: Tests", b"### Tests"),
            LESSON,
            "### Confirmed cause",
        ),
    ):
        parsed = record.parse(given)
        target = next(e for e in parsed.entries if "npm" in e.title)
        plan = edit.plan_supersede(parsed, target=target, task=TASK, new=new)
        assert f"\n{written}\n".encode() in plan.data, plan.data.decode()
        assert verification.check_edit(parsed, record.parse(plan.data), plan, new).ok


def test_a_class_three_siblings_carry_is_no_id_for_the_successor() -> None:
    """``[SEV-1]`` on three headings is a severity, not an id: the successor gets no ``[SEV-1.1]``;
    ``[P-011]`` ids, each on one heading, go on as before (``[P-011.1]``)."""
    titles = ["Logout keeps sessions", "Seed wipes tables", "Invite link is local", "Icons load late"]
    for tags, written in (
        (["[SEV-1]", "[SEV-1]", "[SEV-2]", "[SEV-1]"], "### Confirmed cause"),
        (["[P-010]", "[P-011]", "[P-012]", "[P-013]"], "### [P-011.1] Confirmed cause"),
    ):
        body = "".join(f"### {t} {w}\n\nText.\n\n" for t, w in zip(tags, titles, strict=True))
        data = "# Gotchas\n\n" + body
        parsed = record.parse(data.encode())
        plan = edit.plan_supersede(parsed, target=parsed.entries[1], task=TASK, new=LESSON)
        assert f"\n{written}\n".encode() in plan.data, plan.data.decode()
        assert verification.check_edit(parsed, record.parse(plan.data), plan, LESSON).ok


@pytest.mark.parametrize(("mark", "level"), [("-", 2), ("=", 1)])
def test_a_setext_heading_gets_a_setext_successor_at_its_level(mark: str, level: int) -> None:
    """Lessons written as setext headings (a title over ``-----``) get a successor written so:
    its title over an underline as long, read back as a heading of the same level."""
    rule = mark * 12
    data = (
        f"Cache keys\n{rule}\n\nKey by the lockfile hash.\n\n"
        f"Worker restarts\n{rule}\n\nChunk the batch.\n\n"
        f"Proof sizes\n{rule}\n\nCompress the witness.\n"
    ).encode()
    parsed = record.parse(data)
    expected = [("heading", level, n) for n in (1, 6, 11)]
    assert [(e.kind, e.level, e.start_line) for e in parsed.entries] == expected
    plan = edit.plan_supersede(parsed, target=parsed.entries[1], task=TASK, new=LESSON)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    new = after.get(plan.new_id)
    assert (new.kind, new.level) == ("heading", level)
    title, underline = plan.data.decode().splitlines()[new.start_line - 1 : new.start_line + 1]
    assert not title.startswith("#") and underline == mark * max(3, len(title))


def test_a_setext_title_that_would_open_a_list_is_written_as_an_atx_heading() -> None:
    """``1. Why …`` over a rule is a list item and a rule, not a heading: a successor whose title
    would open so is written ``## 1. …`` instead, and still reads as a heading."""
    data = (
        b"Why split services\n------------------\n\nEach evolves alone.\n\n"
        b"Why a gateway\n-------------\n\nOne door.\n"
    )
    parsed = record.parse(data)
    new_lesson = dataclasses.replace(LESSON, title="1. The confirmed cause")
    plan = edit.plan_supersede(parsed, target=parsed.entries[0], task=TASK, new=new_lesson)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, new_lesson).ok
    new = after.get(plan.new_id)
    assert new.kind == "heading" and plan.data.decode().splitlines()[new.start_line - 1].startswith("## ")


def test_a_successor_carrying_the_tick_its_siblings_open_with_is_a_lesson_among_them() -> None:
    """Ticked items naming an issue by its number (``- ✅ #7 …``) are lessons; a short ticked line
    without one is progress. A successor written with their mark names no number, yet it is a
    lesson: its fields say this tool wrote it."""
    data = (
        "# Known Issues\n\n## Fixed in the sweep\n\n"
        "- ✅ `.mcp.json` fallback uses the plain plugin root. — **v0.13.0**\n"
        "- ✅ #7 a dead doc link now points at the setup page.\n"
        "- ✅ #8 stale default model refs name the current model.\n"
        "- ✅ #9 removed a leftover executable backup of the hook.\n"
    ).encode()
    parsed = record.parse(data)
    assert [e.start_line for e in parsed.entries] == [6, 7, 8]
    plan = edit.plan_supersede(parsed, target=parsed.entries[0], task=TASK, new=LESSON)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    ids = [e.id for e in after.entries]
    assert ids == [parsed.entries[0].id, plan.new_id, parsed.entries[1].id, parsed.entries[2].id]


def test_a_numbered_successor_that_repeats_a_number_does_not_verify() -> None:
    data = b"## L-01 \xc2\xb7 Old\n\nid: old\n\ntext\n\n## L-02 \xc2\xb7 Next\n\nmore\n"
    parsed = record.parse(data)
    plan = edit.plan_supersede(parsed, target=parsed.get("old"), task=TASK, new=LESSON)
    assert b"## L-01.1 \xc2\xb7 Confirmed cause" in plan.data
    clash = plan.data.replace(b"## L-01.1 ", b"## L-02 ")
    check = verification.check_edit(parsed, record.parse(clash), plan, LESSON)
    assert any("already used" in p for p in check.problems), check.problems


# --- kinds -------------------------------------------------------------------------------------


def test_a_kind_without_a_form_is_refused_before_anything_is_planned() -> None:
    parsed = record.parse(b"## Old\n\nid: old\n\ntext\n")
    unknown = dataclasses.replace(parsed.get("old"), kind="figure")  # type: ignore[arg-type]
    with pytest.raises(UnsupportedEntry, match="figure") as raised:
        edit.plan_supersede(parsed, target=unknown, task=TASK, new=LESSON)
    assert isinstance(raised.value, InvalidArgument) and raised.value.code == "unsupported-entry"
    with pytest.raises(UnsupportedEntry):
        edit.plan_capture(parsed, new=LESSON, after=unknown)
    assert set(edit.FORMS) == {"heading", "item", "paragraph", "block", "row", "document"}


def test_a_row_outside_any_table_is_refused_with_a_typed_error() -> None:
    parsed = record.parse(b"## Old\n\nid: old\n\ntext\n")
    row = dataclasses.replace(parsed.get("old"), kind="row")
    with pytest.raises(InvalidArgument, match="not a row of a table"):
        edit.plan_supersede(parsed, target=row, task=TASK, new=LESSON)


def as_kind(data: bytes, kind: str, start: int, end: int) -> tuple[record.Record, record.Entry]:
    """A record whose entry on 1-based lines ``start``..``end`` is of ``kind`` (detection of
    paragraph and block entries lives elsewhere; the edit only needs the span and fields)."""
    parsed = record.parse(data)
    lines = data.splitlines(keepends=True)
    entry = dataclasses.replace(
        parsed.entries[0],
        id="old",
        kind=kind,  # type: ignore[arg-type]
        start_line=start,
        end_line=end,
        body_line=start + 1,
        start=sum(len(x) for x in lines[: start - 1]),
        end=sum(len(x) for x in lines[:end]),
        fields=tuple(
            f for n in range(start, end + 1) for f in parse_line(lines[n - 1].decode().rstrip("\n"), n)
        ),
    )
    return dataclasses.replace(parsed, unread=record.unread.Unread.of((entry,))), entry


def test_a_paragraph_entry_gets_a_lead_paragraph_successor_and_its_caveat_after_the_fields() -> None:
    data = b"# L\n\n**Old advice:** chunk it.\ntasks: #3\n\n**Other:** keep it.\n"
    parsed, target = as_kind(data, "paragraph", 3, 4)
    plan = edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON)
    text = plan.data.decode()
    assert text == (
        "# L\n\n**Old advice:** chunk it.\ntasks: #3\n"
        f"red-herring-for: #7 · superseded-by: confirmed-cause (for #7)\n\n{edit_caveat()}\n\n"
        "**Confirmed cause:** It was the cache.\n"
        "tasks: #7 · root-cause: confirmed · supersedes: old (for #7)\n"
        "diagnostic: look at the cache\n\n"
        "**Other:** keep it.\n"
    )
    _, grown = as_kind(plan.data, "paragraph", 3, 7)
    assert caveat_problems(plan.data, grown, TASK) == []


def edit_caveat() -> str:
    return (
        "> **Red herring for #7.** The confirmed cause is in "
        "\u201cConfirmed cause\u201d (`confirmed-cause`), just below. "
        "This entry may still hold for other tasks."
    )


def test_a_block_entry_gets_a_successor_ruled_off_like_its_siblings() -> None:
    data = "# L\n\n**Old advice** — chunk it.\n\nMore on it.\n\n---\n\n**Other** — keep it.\n".encode()
    parsed, target = as_kind(data, "block", 3, 5)
    plan = edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON)
    text = plan.data.decode()
    assert text == (
        "# L\n\n**Old advice** — chunk it.\n"
        f"red-herring-for: #7 · superseded-by: confirmed-cause (for #7)\n\n{edit_caveat()}\n\n"
        "More on it.\n\n---\n\n"
        "**Confirmed cause** — It was the cache.\n"
        "tasks: #7 · root-cause: confirmed · supersedes: old (for #7)\n"
        "diagnostic: look at the cache\n\n"
        "---\n\n**Other** — keep it.\n"
    )
    _, grown = as_kind(plan.data, "block", 3, 9)
    assert caveat_problems(plan.data, grown, TASK) == []


@pytest.mark.parametrize(
    ("shown", "title", "carried"),
    [
        ("Confirmed cause", "Confirmed cause", True),
        ("L-056 · Confirmed cause", "Confirmed cause", True),
        ("2026-02-26 — STEP-01.1 — Confirmed cause", "Confirmed cause", True),
        ("⚠️ **Confirmed cause**", "Confirmed cause", True),
        ("Confirmed cause:", "Confirmed cause", True),
        ("Another cause", "Confirmed cause", False),
        ("L-056 · Confirmed cause twice", "Confirmed cause", False),
        # ``**1.1.** Confirmed cause`` may read back as its number alone, or as the text after it
        ("1.1", "1.1. Confirmed cause", True),
        ("Confirmed cause", "1.1. Confirmed cause", True),
        ("1.1. Confirmed cause", "1.1. Confirmed cause", True),
        ("1.2", "1.1. Confirmed cause", False),
        ("Another cause", "1.1. Confirmed cause", False),
    ],
)
def test_a_numbered_or_decorated_title_still_carries_the_lessons_title(
    shown: str, title: str, carried: bool
) -> None:
    assert edit.carries_title(shown, title) is carried


def test_a_captured_lesson_is_numbered_right_after_the_entry_it_follows() -> None:
    data = "## L-01 · One\n\nText.\n\n## L-02 · Two\n\nText.\n".encode()
    parsed = record.parse(data)
    suspected = edit.lesson("New finding", body="Seen once.", tasks=["#8"], root_cause="suspected")
    after_first = edit.plan_capture(parsed, new=suspected, after=parsed.entries[0])
    at_the_end = edit.plan_capture(parsed, new=suspected, after=None)
    assert "## L-01.1 · New finding\n" in after_first.data.decode()
    assert "## L-03 · New finding\n" in at_the_end.data.decode()
    for plan in (after_first, at_the_end):
        assert verification.check_edit(parsed, record.parse(plan.data), plan, suspected).ok


# --- applying twice ----------------------------------------------------------------------------

NUMBERED_RECORD = b"""# Gotchas

### L-054 \xc2\xb7 Warm the cache first

tasks: #5

Warm it before timing.

### L-055 \xc2\xb7 Pin the tokenizer

tasks: #6

Pin it in the lockfile.
"""


def test_a_numbered_successor_applied_again_after_other_changes_is_already_applied(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    path = root / ".claude" / "rules" / "gotchas.md"
    path.write_bytes(NUMBERED_RECORD)
    set_task_state(root, "#9", "landed", "test")
    ws = Workspace(root)
    proposed = operations.propose_supersede(
        ws,
        target_id="l-055-pin-the-tokenizer",
        task="#9",
        title="Clear the tokenizer cache",
        body="The cache held a stale vocabulary.",
        diagnostic="compare the vocabulary hash",
        hold="predicate-9-lands",
    )
    proposal_id = proposed["proposal_id"]
    assert proposal_id is not None
    assert operations.apply(ws, proposal_id=proposal_id)["status"] == "applied"
    written = path.read_bytes()
    assert "L-056 \u00b7 Clear the tokenizer cache".encode() in written  # the title is numbered
    changed = written + b"\n### L-057 \xc2\xb7 Another lesson\n\ntasks: #10\n\nText.\n"
    path.write_bytes(changed)
    again = operations.apply(ws, proposal_id=proposal_id)
    assert again["status"] == "already-applied", again["reason"]
    assert path.read_bytes() == changed


# --- table rows through the real command line ----------------------------------------------

TABLE_RECORD = b"""# Troubleshooting

| Problem             | Solution                     |
| ------------------- | ---------------------------- |
| Cold cache          | Warm it before timing        |
| Old advice          | Chunk the prompts            |
| Flaky runner        | Rerun it alone               |
"""


def test_a_row_is_listed_shown_superseded_and_verified_through_the_command_line(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".git").mkdir()
    path = root / ".claude" / "rules" / "gotchas.md"
    path.write_bytes(TABLE_RECORD)
    listed = json.loads(gotchas(root, "list", "--json").stdout)
    assert [e["id"] for e in listed["entries"]] == ["cold-cache", "old-advice", "flaky-runner"]
    shown = json.loads(gotchas(root, "show", "old-advice", "--json").stdout)
    assert shown["kind"] == "row" and "Chunk the prompts" in shown["text"]
    assert gotchas(root, "task", "set", "9", "landed").returncode == 0
    proposed = gotchas(
        root,
        "propose",
        "--target-id",
        "old-advice",
        "--task",
        "#9",
        "--title",
        "Prompt cache | tokenizer reload",
        "--body",
        "The tokenizer reloaded per call.\n\nCache it once.",
        "--diagnostic",
        "count tokenizer loads",
        "--hold",
        "predicate-9-lands",
        "--json",
    )
    assert proposed.returncode == 0, proposed.stderr
    assert path.read_bytes() == TABLE_RECORD, "propose wrote to the record"
    applied = json.loads(gotchas(root, "apply", json.loads(proposed.stdout)["proposal_id"], "--json").stdout)
    assert applied["status"] == "applied" and applied["verification"]["ok"], applied
    written = path.read_bytes().decode()
    assert written.startswith(TABLE_RECORD.decode().split("| Flaky")[0])
    assert written.endswith("| Flaky runner        | Rerun it alone               |\n")
    assert (
        "| Prompt cache \\| tokenizer reload | The tokenizer reloaded per call.<br><br>Cache it once. |"
        in written
    )
    assert gotchas(root, "verify").returncode == 0
    after = record.parse(path.read_bytes())
    assert [e.kind for e in after.entries] == ["row"] * 4
    old, new = after.get("old-advice"), after.entries[2]
    assert old.red_herring_for == ("#9",) and new.title == "Prompt cache | tokenizer reload"
    assert [(link.target, link.tasks) for link in new.supersedes] == [("old-advice", ("#9",))]
    assert caveat_problems(path.read_bytes(), old, "#9") == []
    by_task = json.loads(gotchas(root, "list", "--task", "#9", "--json").stdout)["entries"]
    assert {e["id"] for e in by_task} == {"old-advice", new.id}


PIPELESS_RECORD = b"""# Troubleshooting

Problem | Solution
--- | ---
Cold cache | Warm it before timing
Old advice | Chunk the prompts
"""


@pytest.mark.parametrize(
    ("title", "body", "complaint"),
    [
        ("Confirmed cause", "Run this:\n\n```\nmake clean\n```", "fenced code block"),
        # without outer pipes, a title cell that opens like a list item would end the table
        ("- Confirmed cause", "It was the cache.", "cannot be written as rows"),
    ],
)
def test_a_lesson_that_cannot_fit_a_row_is_refused_and_nothing_is_written(
    tmp_path: Path, title: str, body: str, complaint: str
) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    path = root / ".claude" / "rules" / "gotchas.md"
    path.write_bytes(PIPELESS_RECORD)
    parsed = record.parse(PIPELESS_RECORD)
    assert [e.kind for e in parsed.entries] == ["row", "row"]
    lesson = edit.lesson(title, body=body, tasks=[TASK], root_cause="confirmed", diagnostic="look")
    with pytest.raises(InvalidArgument, match=complaint):
        edit.plan_supersede(parsed, target=parsed.get("old-advice"), task=TASK, new=lesson)
    set_task_state(root, TASK, "landed", "test")
    with pytest.raises(InvalidArgument, match=complaint):
        operations.propose_supersede(
            Workspace(root),
            target_id="old-advice",
            task=TASK,
            title=title,
            body=body,
            diagnostic="look",
            hold="predicate-7-lands",
        )
    assert path.read_bytes() == PIPELESS_RECORD
    assert not (root / ".claude" / "gotchas" / "proposals").exists() or not any(
        (root / ".claude" / "gotchas" / "proposals").iterdir()
    )


def test_a_rows_fields_are_read_from_its_continuation_rows_only() -> None:
    data = (
        "# Gotchas\n\n| Problem | Fix |\n|---|---|\n"
        "| Status: odd | tasks: #3 in a fix cell is text |\n"
        "| ↳ | tasks: #4 · root-cause: suspected |\n"
        "| ↳ | diagnostic: a \\| b |\n"
        "| Other | y |\n"
    ).encode()
    parsed = record.parse(data)
    first, other = parsed.entries
    assert (first.title, first.tasks, first.root_cause, first.diagnostic) == (
        "Status: odd",
        ("#4",),
        "suspected",
        "a | b",
    )
    assert [f.line for f in first.fields] == [6, 6, 7]
    assert (other.start_line, other.tasks, other.fields) == (8, (), ())


# --- tight lists stay tight ----------------------------------------------------------------

TWO_PARAGRAPHS = edit.lesson(
    "Confirmed cause",
    body="It was the cache.\n\nClear it before timing.\n\nThen time again.",
    tasks=[TASK],
    root_cause="confirmed",
    diagnostic="look at the cache",
    ruled_out=["chunking"],
)


def rendered_item_blocks(data: bytes, line: int) -> list[str]:
    """The direct children of the list item starting on 0-based ``line``, by token type."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(data.decode())
    start = next(i for i, t in enumerate(tokens) if t.type == "list_item_open" and t.map and t.map[0] == line)
    level = tokens[start].level + 1
    out = []
    for token in tokens[start + 1 :]:
        if token.level < level:
            break
        if token.level == level and token.nesting == 1:
            out.append(token.type)
    return out


@pytest.mark.parametrize(
    "given",
    [
        "# L\n\n- **One** — a\n- **Old advice** — b\n- **Three** — c\n",
        "# L\n\n## A\n\n- **One** — a\n- **Old advice** — b\n\n## B\n\n- **Four** — d\n- **Five** — e\n",
        "# L\n\n1. **One** — a\n2. **Old advice** — b\n   tasks: #3\n   more of its text\n3. **Three** — c\n",
        "# L\n\n* **Old advice** — b\n  * part one\n  * part two\n* **Three** — c\n",
    ],
    ids=["middle", "last-before-text", "text-after-fields", "nested-parts"],
)
def test_a_tight_list_stays_tight_and_the_caveat_is_a_quote_of_the_target_item(given: str) -> None:
    data = given.encode()
    parsed = record.parse(data)
    target = parsed.get("old-advice")
    assert list_is_tight(data, target.start_line - 1)
    plan = edit.plan_supersede(parsed, target=target, task=TASK, new=TWO_PARAGRAPHS)
    after = record.parse(plan.data)
    assert [(kind, tight) for _, kind, tight in list_tightness(plan.data)] == [
        (kind, tight) for _, kind, tight in list_tightness(data)
    ]
    assert list_is_tight(plan.data, target.start_line - 1)
    assert caveat_problems(plan.data, after.get("old-advice"), TASK) == []
    assert "blockquote_open" in rendered_item_blocks(plan.data, target.start_line - 1)
    new = after.get(plan.new_id)
    assert new.kind == "item" and list_is_tight(plan.data, new.start_line - 1)
    assert rendered_item_blocks(plan.data, new.start_line - 1) == ["paragraph_open"]
    # the field lines still read back, and the body's paragraphs are hard breaks in one item
    assert (new.tasks, new.root_cause, new.diagnostic) == ((TASK,), "confirmed", "look at the cache")
    assert any(f.key == "ruled-out" for f in new.fields)
    text = plan.data.decode()
    assert "Clear it before timing.\\\n" in text and "Then time again.\n" in text
    assert not re.search(r"(tasks|diagnostic|root-cause): .*\\$", text, re.M), "a field line got a hard break"
    assert verification.check_edit(parsed, after, plan, TWO_PARAGRAPHS).ok


def test_a_loose_list_keeps_its_blank_lines_and_the_bodys_paragraphs() -> None:
    data = b"# L\n\n- **One** - a\n\n- **Old advice** - b\n\n- **Three** - c\n"
    parsed = record.parse(data)
    plan = edit.plan_supersede(parsed, target=parsed.get("old-advice"), task=TASK, new=TWO_PARAGRAPHS)
    assert not list_is_tight(plan.data, 4)
    assert "\n\n  Then time again.\n" in plan.data.decode()
    assert caveat_problems(plan.data, record.parse(plan.data).get("old-advice"), TASK) == []


@pytest.mark.parametrize(
    ("body", "joined"),
    [
        (["", "Second.", "", "Third."], ["Second.\\", "Third."]),
        (["More.", "", "```", "code", "", "more code", "```", "", "After."], None),
        (["", "- a", "- b", "", "After."], ["- a", "- b", "", "After."]),
        (["Ends in a backslash\\", "", "Next."], ["Ends in a backslash\\", "", "Next."]),
        (["Text.", "", "# Heading", "", "Text."], ["Text.", "# Heading", "Text."]),
    ],
    ids=["paragraphs", "fence", "list-then-text", "backslash", "heading"],
)
def test_joining_a_body_for_a_tight_item(body: list[str], joined: list[str] | None) -> None:
    expected = joined if joined is not None else ["More.", "```", "code", "", "more code", "```", "After."]
    assert edit.successor.joined_paragraphs(body) == expected


def test_a_lesson_captured_into_a_tight_list_keeps_it_tight() -> None:
    data = b"# L\n\n- **One** - a\n- **Two** - b\n- **Three** - c\n"
    parsed = record.parse(data)
    suspected = edit.lesson(
        "New finding", body="Seen once.\n\nSeen twice.", tasks=["#8"], root_cause="suspected"
    )
    plan = edit.plan_capture(parsed, new=suspected, after=parsed.get("two"))
    after = record.parse(plan.data)
    assert [e.id for e in after.entries] == ["one", "two", "new-finding", "three"]
    assert list_is_tight(plan.data, 2)
    assert "- **New finding** - Seen once.\n  tasks: #8 · root-cause: suspected\n  Seen twice.\n" in (
        plan.data.decode()
    )
    assert verification.check_edit(parsed, after, plan, suspected).ok


def test_marking_an_item_of_a_tight_list_alone_keeps_it_tight() -> None:
    data = (
        "# L\n\n- **Old advice** - a\n- **Confirmed cause** - b\n"
        "  tasks: #7 · root-cause: confirmed · supersedes: old-advice (for #7)\n  diagnostic: look\n"
    ).encode()
    parsed = record.parse(data)
    plan = edit.plan_annotate(
        parsed, target=parsed.get("old-advice"), task=TASK, successor=parsed.get("confirmed-cause")
    )
    assert list_is_tight(plan.data, 2)
    assert caveat_problems(plan.data, record.parse(plan.data).get("old-advice"), TASK) == []


def test_a_bold_numbered_successor_applied_again_is_already_applied(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    path = root / ".claude" / "rules" / "gotchas.md"
    data = (
        b"# Gotchas\n\n**1.** Warm the cache\nWarm it before timing.\n\n**2.** Pin the tokenizer\nPin it.\n"
    )
    path.write_bytes(data)
    set_task_state(root, "#9", "landed", "test")
    ws = Workspace(root)
    target = record.parse(data).entries[0]
    proposed = operations.propose_supersede(
        ws,
        target_id=target.id,
        task="#9",
        title="Clear the cache",
        body="The cache was stale.\n\nClear it first.",
        diagnostic="compare the cache hash",
        hold="predicate-9-lands",
    )
    proposal_id = proposed["proposal_id"]
    assert proposal_id is not None
    applied = operations.apply(ws, proposal_id=proposal_id)
    assert applied["status"] == "applied", applied["reason"]
    assert applied["verification"] is not None and applied["verification"]["ok"]
    written = path.read_bytes()
    assert b"\n**1.1.** Clear the cache\n" in written
    changed = written + b"\n**3.** Rerun flaky tests\nRerun them alone.\n"
    path.write_bytes(changed)  # the record changed since: the check reads the entry itself
    again = operations.apply(ws, proposal_id=proposal_id)
    assert again["status"] == "already-applied", again["reason"]
    assert path.read_bytes() == changed


# --- a dated successor carries the day of the change ---------------------------------------

DATED = {
    "heading": "# Log\n\n### 2026-01-02 — Warm the cache\n\nWarm it.\n\n"
    "### 2026-01-03 — Pin the compiler\n\nPin it.\n",
    "stamp": "# Log\n\n- [2026-01-02 10:00] Warm the cache: builds are slow.\n"
    "- [2026-01-03 11:00] Pin the compiler: builds drift.\n",
}


def successor_line(data: bytes) -> str:
    return next(
        line for line in data.decode().splitlines() if line.startswith(("#", "-")) and "Confirmed" in line
    )


@pytest.mark.parametrize("shape", list(DATED))
def test_a_dated_successor_carries_the_day_of_the_change(shape: str) -> None:
    data = DATED[shape].encode()
    parsed = record.parse(data)
    target = parsed.entries[-1]
    kept = edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON)
    assert "2026-01-03" in successor_line(kept.data)  # no day given: the target's date, as before
    plan = edit.plan_supersede(parsed, target=target, task=TASK, new=LESSON, today="2026-02-14")
    line = successor_line(plan.data)
    assert "2026-02-14" in line and "2026-01-03" not in line and "11:00" not in line, line
    assert "2026-02-14" in plan.new_title
    assert verification.check_edit(parsed, record.parse(plan.data), plan, LESSON).ok
    captured = edit.plan_capture(parsed, new=LESSON, after=target, today="2026-02-14")
    assert "2026-02-14" in captured.new_title


def test_a_proposed_dated_successor_is_dated_the_day_it_was_proposed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    path = root / ".claude" / "rules" / "gotchas.md"
    path.write_bytes(DATED["heading"].encode())
    ws = Workspace(root)
    proposed = operations.propose_supersede(
        ws,
        target_id="2026-01-03-pin-the-compiler",
        task="#9",
        title="Clear the tokenizer cache",
        body="The cache held a stale vocabulary.",
        diagnostic="compare the vocabulary hash",
        hold="none",
    )
    assert proposed["proposal_id"] is not None
    stored = json.loads(next((root / ".claude" / "gotchas" / "proposals").glob("*.json")).read_text())
    day = stored["created_at"][:10]
    assert operations.apply(ws, proposal_id=proposed["proposal_id"])["status"] == "applied"
    assert f"### {day} — Clear the tokenizer cache".encode() in path.read_bytes()
