"""The pure edit: insertions only, the file's line endings, BOM and final-newline state kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gotchas import edit, record, verification
from gotchas.errors import InvalidArgument
from support.rendered import caveat_problems

LESSON = edit.lesson(
    "Confirmed cause",
    body="It was the cache.",
    tasks=["#7"],
    root_cause="confirmed",
    diagnostic="look at the cache",
)


def supersede(data: bytes, target: str = "old") -> tuple[record.Record, edit.Plan]:
    parsed = record.parse(data)
    return parsed, edit.plan_supersede(parsed, target=parsed.get(target), task="#7", new=LESSON)


@pytest.mark.parametrize("eol", [b"\n", b"\r\n"])
@pytest.mark.parametrize("bom", [False, True])
@pytest.mark.parametrize("final", [False, True])
def test_supersede_keeps_every_outside_byte(eol: bytes, bom: bool, final: bool) -> None:
    lines = [b"# G", b"", b"## Old", b"", b"tasks: #7", b"", b"Chunk it.", b"", b"## Keep", b"", b"Other."]
    data = (record.BOM if bom else b"") + eol.join(lines) + (eol if final else b"")
    parsed, plan = supersede(data.replace(b"## Old", b"## Old\n\nid: old".replace(b"\n", eol)))
    before = parsed.data
    keep = parsed.get("keep")
    target = parsed.get("old")
    after = plan.data
    assert after[: target.start] == before[: target.start]
    assert after.endswith(before[keep.start :])
    assert after.startswith(record.BOM) == bom
    assert after.endswith(eol) == final
    if eol == b"\r\n":
        assert after.count(b"\n") == after.count(b"\r\n")
    reparsed = record.parse(after)
    new = reparsed.get(plan.new_id)
    assert new.root_cause == "confirmed" and [s.target for s in new.supersedes] == ["old"]
    assert reparsed.get("old").red_herring_for == ("#7",)
    assert reparsed.get("keep").sha256 == keep.sha256


def test_list_item_target_gets_a_list_item_successor() -> None:
    data = b"# L\n\n- **Old** \xe2\x80\x94 chunk it\n  id: old\n- **Keep** \xe2\x80\x94 other\n"
    _, plan = supersede(data)
    reparsed = record.parse(plan.data)
    assert [e.kind for e in reparsed.entries] == ["item", "item", "item"]
    assert reparsed.entries[1].id == plan.new_id
    assert b"- **Keep**" in plan.data


def test_suspected_cause_cannot_supersede() -> None:
    parsed = record.parse(b"## Old\n\nid: old\n")
    guess = edit.lesson("Guess", body="maybe", tasks=["#7"], root_cause="suspected")
    with pytest.raises(InvalidArgument, match="confirmed"):
        edit.plan_supersede(parsed, target=parsed.get("old"), task="#7", new=guess)


@pytest.mark.parametrize(
    ("title", "body", "root_cause", "diagnostic", "message"),
    [
        ("", "b", "suspected", None, "title is empty"),
        ("t" * 201, "b", "suspected", None, "limit"),
        ("t", "   ", "suspected", None, "body is empty"),
        ("t", "b", "confirmed", None, "diagnostic"),
        ("t", "b", "maybe", None, "root_cause"),
    ],
)
def test_bad_lessons_are_refused(
    title: str, body: str, root_cause: str, diagnostic: str | None, message: str
) -> None:
    with pytest.raises(InvalidArgument, match=message):
        edit.lesson(title, body=body, tasks=["#1"], root_cause=root_cause, diagnostic=diagnostic)


def test_diff_shows_only_the_change() -> None:
    parsed, plan = supersede(b"## Old\n\nid: old\n\ntext\n\n## Keep\n\nx\n")
    diff = edit.unified_diff("g.md", parsed.data, plan.data)
    assert diff.startswith("--- a/g.md\n+++ b/g.md\n@@ -")
    added = [line for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert any("red-herring-for: #7" in line for line in added)
    assert not [line for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]


BLOCKS = st.sampled_from(
    [
        "Plain prose line.",
        "tasks: #7",
        "tasks: #7 · root-cause: suspected",
        "- a bullet",
        "  - a nested bullet",
        "1. a numbered line",
        "```\n# not a heading\n```",
        "> a quote",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "<!-- tasks: #9 -->",
        "---",
        "",
        "**Symptom:** it hangs",
        "Ωμέγα, 缓存, перезагрузка",
        "#### A deeper heading",
        "Underlined\n---",
        "    indented code: tasks: #8",
        "text with a trailing break  ",
        "<details>\n<summary>more</summary>\n\nhidden\n</details>",
    ]
)


LEAD_LINES = st.sampled_from(["more text", "tasks: #7", "**Symptom:** it hangs", "a lazy line"])
ROW_EXTRAS = st.sampled_from(["| ↳ | tasks: #7 |", "| ↳ | root-cause: suspected |", "| ↳ | a note |"])


@st.composite
def records(draw: st.DrawFn) -> bytes:
    """A lessons file of one entry kind (headings, list items, lead paragraphs, ``---`` blocks,
    table rows, or one whole-document lesson) with odd content drawn into its entries."""
    style = draw(st.sampled_from(["h2", "h3", "list", "numbered", "paragraph", "hr", "table", "document"]))
    parts = ["---", "paths: ['src/**']", "---"] if draw(st.booleans()) else []
    if style == "document":
        parts += ["# The cache must be warm before timing", "", "Timings on a cold cache mislead.", ""]
        for heading in draw(st.lists(st.sampled_from(["## Problem", "## Root cause", "## Fix"]), max_size=3)):
            parts += [heading, ""]
            parts += draw(st.lists(BLOCKS, max_size=3))
            parts.append("")
    else:
        parts += ["# Lessons", ""]
    id_column = draw(st.booleans())
    if style == "table":
        parts += ["| # | Problem | Fix |" if id_column else "| Problem | Fix |"]
        parts += ["|---|---|---|" if id_column else "|---|---|"]
    count = 0 if style == "document" else draw(st.integers(min_value=1, max_value=6))
    for n in range(count):
        if style in ("h3", "paragraph") and n % 2 == 0:
            parts += [f"## Area {n}", ""]
        if style in ("h2", "h3"):
            parts += [f"{'#' * (2 if style == 'h2' else 3)} Lesson {n} title", ""]
            parts += draw(st.lists(BLOCKS, max_size=5))
            parts.append("")
        elif style == "paragraph":
            parts.append(f"**Lesson {n} title:** text (#{n + 10})")
            parts += draw(st.lists(LEAD_LINES, max_size=2))
            parts.append("")
        elif style == "hr":
            if n:
                parts += ["---", ""]
            parts.append(f"**Lesson {n} title** — text (#{n + 10})")
            parts += draw(st.lists(st.sampled_from(["", "More on it.", "tasks: #7", "- a part"]), max_size=3))
            parts.append("")
        elif style == "table":
            parts.append(
                f"| {n + 1} | Lesson {n} title | text (#{n + 10}) |"
                if id_column
                else f"| Lesson {n} title | text |"
            )
            extras = draw(st.lists(ROW_EXTRAS, max_size=2))
            parts += [e.replace("| ↳ |", "| ↳ | |") if id_column else e for e in extras]
        else:
            marker = "-" if style == "list" else f"{n + 1}."
            parts.append(f"{marker} **Lesson {n} title** — text (#{n + 10})")
            parts += [
                b.removeprefix("lazy:") if b.startswith("lazy:") or not b else "   " + b
                for b in draw(
                    st.lists(
                        st.sampled_from(
                            [
                                "more text",
                                "tasks: #7",
                                "- a nested bullet",
                                "**Symptom:** it hangs",
                                "",
                                "lazy:a lazy line",
                            ]
                        ),
                        max_size=3,
                    )
                )
            ]
    if style == "table" and draw(st.booleans()):
        parts += ["", "A closing note."]
    if style == "table" and draw(st.booleans()):
        # the same table without its outer pipes, which GFM allows
        parts = [p.strip().removeprefix("|").removesuffix("|").strip() if "|" in p else p for p in parts]
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(parts)
    if draw(st.booleans()):
        text += eol
    return (record.BOM if draw(st.booleans()) else b"") + text.encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(records(), st.data())
def test_any_supersede_verifies_and_keeps_every_outside_byte(data: bytes, pick: st.DataObject) -> None:
    parsed = record.parse(data)
    if not parsed.entries:
        return
    writable = [e for e in parsed.entries if e.kind in edit.FORMS]
    if not writable:
        return
    target = pick.draw(st.sampled_from(writable))
    lesson = edit.lesson(
        "Confirmed cause",
        body="It was the cache.",
        tasks=["#7"],
        root_cause="confirmed",
        diagnostic="look",
        ruled_out=["chunking"],
    )
    try:
        plan = edit.plan_supersede(parsed, target=target, task="#7", new=lesson)
    except InvalidArgument:
        return
    after = record.parse(plan.data)
    check = verification.check_edit(parsed, after, plan, lesson)
    assert check.ok, (check.problems, data, plan.data)
    assert caveat_problems(plan.data, after.get(target.id), "#7") == [], (data, plan.data)
    assert plan.data[: target.start] == data[: target.start]
    assert plan.data.endswith(data[target.end :])
    assert plan.data.startswith(record.BOM) == data.startswith(record.BOM)
    assert plan.data.endswith((b"\n", b"\r")) == data.endswith((b"\n", b"\r"))


def test_a_capture_beside_a_section_of_only_a_comment_changes_no_other_entry() -> None:
    """A section holding only an HTML comment beside one holding only a sub-heading: the
    captured lesson joins the entries read before it, and changes none of them."""
    data = (
        b"# Lessons\n\n## Lesson 0 title\n\n<!-- tasks: #9 -->\n\n"
        b"## Lesson 1 title\n\n#### A deeper heading\n"
    )
    parsed = record.parse(data)
    lesson = edit.lesson("Captured cause", body="Body line.", tasks=["#8"], root_cause="suspected")
    plan = edit.plan_capture(parsed, new=lesson, after=None)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, lesson).ok
    assert [e.title for e in after.entries] == [*(e.title for e in parsed.entries), "Captured cause"]


def test_marking_a_claim_over_one_part_keeps_it_one_lesson() -> None:
    """A heading that states a claim over one sub-heading and no text of its own is one lesson;
    the red-herring mark written into it is not text of its own, so it stays one lesson."""
    data = (
        b"# Lessons\n\n## Area 0\n\n### Lesson 0 title\n\n"
        b"**Symptom:** it hangs\nUnderlined\n---\n\n### Lesson 1 title\n\n"
    )
    parsed = record.parse(data)
    target = parsed.entries[-1]
    assert target.title == "**Symptom:** it hangs Underlined"
    plan = edit.plan_supersede(parsed, target=target, task="#7", new=LESSON)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    assert [e.title for e in after.entries] == [*(e.title for e in parsed.entries), "Confirmed cause"]


def test_the_caveat_of_a_bullet_stays_in_it_before_an_unindented_quote() -> None:
    """``> a quote`` right under a tight list item, not indented, is a block of its own after
    the list: the mark and the caveat go in the item, before it, and render there."""
    data = b"# Lessons\n\n## Lesson 0 title\n\n- a bullet\n> a quote\n#### A deeper heading\n"
    parsed = record.parse(data)
    target = parsed.get("a-bullet")
    plan = edit.plan_supersede(parsed, target=target, task="#7", new=LESSON)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, LESSON).ok
    assert caveat_problems(plan.data, after.get(target.id), "#7") == []
    assert b"- a bullet\n  red-herring-for: #7" in plan.data


def test_marking_a_lesson_among_categories_alike_keeps_the_file_read_whole() -> None:
    """Categories whose lessons open with one field label are read whole; the mark and caveat
    written over one of them hide no label, so the file is still read whole after the edit."""
    data = (
        b"# Render notes\n\n## Engine pitfalls\n\n### 1. Blurry pixel art\n**Symptom:** smeared.\n\n"
        b"### 2. Jitter\n**Symptom:** shakes.\n\n## Workflow\n\n### 3. Unsigned commits\n"
        b"**Symptom:** the hook rejects them.\n"
    )
    before = record.parse(data)
    assert before.reading is not None and before.reading.kind == "lessons"
    plan = edit.plan_supersede(before, target=before.entries[2], task="#7", new=LESSON)
    after = record.parse(plan.data)
    assert verification.check_edit(before, after, plan, LESSON).ok
    assert after.reading is not None
    assert (after.reading.kind, after.reading.reason) == (before.reading.kind, before.reading.reason)
    assert [e.title for e in after.entries] == [*(e.title for e in before.entries), "4. Confirmed cause"]


def test_a_lesson_with_prose_over_sub_lessons_supersedes_alone() -> None:
    """A heading with paragraphs of its own over a sub-lesson: superseding either one marks it
    and adds the successor, and the other keeps its lines."""
    data = (
        b"# Traps\n\n## Two bots see two ids for one message\n\nEach bot gets its own id.\n\n"
        b"The unique key lets the copy in.\n\n### The key must include the bot\n\nOr the copy overwrites.\n\n"
        b"## Webhooks retry after five seconds\n\nA slow handler is called twice.\n"
    )
    parsed = record.parse(data)
    assert [e.title for e in parsed.entries] == [
        "Two bots see two ids for one message",
        "The key must include the bot",
        "Webhooks retry after five seconds",
    ]
    for target in parsed.entries[:2]:
        plan = edit.plan_supersede(parsed, target=target, task="#7", new=LESSON)
        after = record.parse(plan.data)
        assert verification.check_edit(parsed, after, plan, LESSON).ok, target.title
        assert after.get(target.id).red_herring_for == ("#7",)
        others = [e for e in parsed.entries if e.id != target.id]
        assert all(after.get(e.id).sha256 == e.sha256 for e in others)
        # the successor follows the whole section, sub-lesson included, as a sibling of its target
        titles = [e.title for e in after.entries]
        assert titles.index("Confirmed cause") == 2
        assert after.get("confirmed-cause").level == target.level


@settings(max_examples=150, deadline=None)
@given(records(), st.data())
def test_any_capture_verifies_wherever_it_goes(data: bytes, pick: st.DataObject) -> None:
    parsed = record.parse(data)
    after = pick.draw(st.sampled_from([None, *parsed.entries]))
    lesson = edit.lesson(
        "Captured cause", body="Body line.\n\nSecond paragraph.", tasks=["#8"], root_cause="suspected"
    )
    try:
        plan = edit.plan_capture(parsed, new=lesson, after=after)
    except InvalidArgument:
        return
    check = verification.check_edit(parsed, record.parse(plan.data), plan, lesson)
    assert check.ok, (check.problems, data, plan.data)
    anchor = after or (parsed.entries[-1] if parsed.entries else None)
    kept = data[: anchor.end].rstrip(b"\r\n") if anchor else b""
    assert plan.data.startswith(kept)


@settings(max_examples=150, deadline=None)
@given(records(), st.data())
def test_any_annotation_changes_only_its_target(data: bytes, pick: st.DataObject) -> None:
    parsed = record.parse(data)
    writable = [e for e in parsed.entries if e.kind in edit.FORMS]
    if len(parsed.entries) < 2 or not writable:
        return
    target = pick.draw(st.sampled_from(writable))
    successor = pick.draw(st.sampled_from([e for e in parsed.entries if e.id != target.id]))
    plan = edit.plan_annotate(parsed, target=target, task="#7", successor=successor)
    check = verification.check_edit(parsed, record.parse(plan.data), plan, None)
    assert check.ok, (check.problems, data, plan.data)
    assert plan.data[: target.start] == data[: target.start]


# --- what the property tests found, pinned small ---------------------------------------------

# three heading lessons, then a heading over a short list: the start of two cases below, found
# by superseding the first and last lessons of labelled real files
THREE_LESSONS_AND_A_LIST = (
    b"# Lessons\n\n## The build cache survives a branch switch\n\n"
    b"Clear it with `make clean` before you compare timings.\n\n"
    b"## Migrations run in name order, not date order\n\n"
    b"Prefix each new file with the next number.\n\n"
    b"## The staging database is shared with the demo\n\nNever truncate a table there.\n\n"
    b"## Releases\n\n- Tags come from the release job.\n- The team key signs them.\n\n"
)

FOUND = [
    # a numbered item's entry ends in text outside its list item, and a bullet indented under
    # where the new item goes follows a blank line: the new item's content column moves past it
    (
        b"# Lessons\n\n1. **Lesson 0 title** \xe2\x80\x94 text (#10)\n\na lazy line\n"
        b"2. **Lesson 1 title** \xe2\x80\x94 text (#11)\n\n   - a nested bullet",
        0,
    ),
    # blocks ruled off by ---: the mark inside the first one does not make the file one lesson
    (
        b"# Lessons\n\n**Lesson 0 title** \xe2\x80\x94 text (#10)\n\n---\n\n"
        b"**Lesson 1 title** \xe2\x80\x94 text (#11)\n",
        0,
    ),
    # a group's own block opened by indented code: its successor is a paragraph, not code
    (b"# Lessons\n\n## Lesson 3 title\n\n> a quote\nUnderlined\n---\n    indented code: tasks: #8\n", -1),
    # a group's own block opened by a table: the mark is a paragraph after it, not a row
    (b"# Lessons\n\n## Lesson 0 title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n#### A deeper heading\n", 0),
    # a --- block ends at the rule before the next one: the HTML block after it is not the target's
    (
        b"# Lessons\n\n## Lesson 0 title\n\n    indented code: tasks: #8\n---\n<details>\n"
        b"<summary>more</summary>\n\nhidden\n</details>\n",
        0,
    ),
    # a lone bullet among groups of blocks: after its successor is ruled off, still blocks
    (
        b"# Lessons\n\n## Lesson 0 title\n\n- a bullet\n```\n# not a heading\n```\n\n"
        b"## Lesson 1 title\n\n```\n# not a heading\n```\n---\nPlain prose line.\n",
        0,
    ),
    # a line indented as code after a table is no row of it (a GFM parser reads it as code)
    (
        b"# Lessons\n\n## Lesson 0 title\n\n- a bullet\n#### A deeper heading\n"
        b"| a | b |\n|---|---|\n| 1 | 2 |\n    indented code: tasks: #8\n",
        -1,
    ),
    # a one-lesson document: its successor follows it, after a rule
    (b"---\npaths: ['src/**']\n---\n# Lessons\n\n**Lesson 0 title** \xe2\x80\x94 text (#10)\n", 0),
    # three heading lessons over two short lists: the successor heading is no lesson of their
    # level, so the lists stay groups (counted, it made them lessons and the edit was refused)
    (
        THREE_LESSONS_AND_A_LIST
        + b"## Emails\n\n- Sent from the worker.\n- Previewed at `/dev/mail`.\n",
        0,
    ),
    # headings each over a table: a marked one counts among them as it read before its mark,
    # so its sibling lesson is not made a group of rows
    (
        b"# Lessons\n\n## The build cache survives a switch to another branch\n\n"
        b"| Step | What to do |\n|---|---|\n| Before timing | Run `make clean` first |\n"
        b"| In CI | Expect an empty cache |\n\n"
        b"## Migrations run in name order and never in date order\n\n| Step | What to do |\n"
        b"|---|---|\n| New file | Prefix it with the next number |\n"
        b"| Renamed file | Expect it to run again |\n\n## Releases\n\n| Step | What to do |\n"
        b"|---|---|\n| Tagging | Only the release job tags |\n"
        b"| Signing | The team key signs every tag |\n",
        0,
    ),
    # a list made one lesson among heading lessons, then marked: it still counts as a list for
    # the introduced list beside it, which stays a group
    (
        THREE_LESSONS_AND_A_LIST
        + b"## Emails\n\nTwo things about mail:\n\n- Sent from the worker.\n- Previewed at `/dev/mail`.\n",
        3,
    ),
    # one bold-led lesson carrying its fields under a title naming lessons: a lesson of its own,
    # not the whole file, so a lesson captured after it is its sibling, not a second title
    (b"# Lessons\n\n**Lesson 0 title** \xe2\x80\x94 text (#10)\ntasks: #7\n", 0),
    # the same under a group heading, prose on after its fields: marked, the caveat splits the
    # prose off into a paragraph of its own, which stays the lesson's
    (
        b"# Lessons\n\n## Area 0\n\n**Lesson 0 title:** text (#10)\n\n**Lesson 1 title:** text (#11)\n\n"
        b"## Area 2\n\n**Lesson 2 title:** text (#12)\ntasks: #7\nmore text\n",
        2,
    ),
]


@pytest.mark.parametrize(("data", "which"), FOUND)
def test_found_cases_supersede_and_capture_verify(data: bytes, which: int) -> None:
    parsed = record.parse(data)
    target = parsed.entries[which]
    lesson = edit.lesson(
        "Confirmed cause",
        body="It was the cache.",
        tasks=["#7"],
        root_cause="confirmed",
        diagnostic="look",
        ruled_out=["chunking"],
    )
    plan = edit.plan_supersede(parsed, target=target, task="#7", new=lesson)
    after = record.parse(plan.data)
    check = verification.check_edit(parsed, after, plan, lesson)
    assert check.ok, check.problems
    assert caveat_problems(plan.data, after.get(target.id), "#7") == []
    for successor in [e for e in parsed.entries if e.id != target.id]:
        plan = edit.plan_annotate(parsed, target=target, task="#7", successor=successor)
        check = verification.check_edit(parsed, record.parse(plan.data), plan, None)
        assert check.ok, check.problems
    captured = edit.lesson(
        "Captured cause", body="Body line.\n\nSecond paragraph.", tasks=["#8"], root_cause="suspected"
    )
    for anchor in (None, target):
        plan = edit.plan_capture(parsed, new=captured, after=anchor)
        check = verification.check_edit(parsed, record.parse(plan.data), plan, captured)
        assert check.ok, check.problems


# Found by the capture property test: a new lesson captured at the end changes how an earlier
# `---` block is read (not fixed yet); one captured after an empty heading that setext headings
# follow moved them while it took their underlines for rules between lessons (fixed).
GAP = pytest.mark.xfail(strict=True, reason="the capture changes how entries around it are read")
CAPTURE_GAPS = [
    pytest.param(
        b"# Lessons\n\n## Lesson 0 title\n\n```\n# not a heading\n```\n---\nPlain prose line.\n\n"
        b"## Lesson 1 title\n\n- a bullet\n---\nPlain prose line.\n",
        None,
        id="rule-after-a-bullet-splits-once-a-block-follows",
        marks=GAP,
    ),
    pytest.param(
        b"# The cache must be warm before timing\n\nTimings on a cold cache mislead.\n\n## Problem\n\n"
        b"Underlined\n---\n#### A deeper heading\nUnderlined\n---\n",
        0,
        id="after-an-empty-heading-before-setext-headings",
    ),
    # one heading lesson under the title, bullets in the title's own text before it: a captured
    # heading, carrying its fields, does not make those bullets the file's introduction
    pytest.param(
        b"# Mistakes\n\n- Keep each entry to what happened and the fix.\n- Newest entries go on top.\n\n"
        b"## The retry loop hid a permanent failure\n\nRetry only on 5xx and timeouts.\n",
        None,
        id="a-second-heading-beside-the-title's-own-bullets",
    ),
    # a policy for keeping lessons, every part speaking of lessons: the captured lesson, which
    # does not, is one, and leaves the policy's parts as they read
    pytest.param(
        b"# Lessons\n\n## Where lessons live\n\nOne lesson per file in `notes/`.\n\n## Promotion\n\n"
        b"A lesson seen twice becomes a rule.\n\n## Recall\n\nSearch the entries before a change.\n\n"
        b"## Size\n\nPast forty entries, merge the oldest.\n",
        None,
        id="into-a-policy-for-keeping-lessons",
    ),
]


@pytest.mark.parametrize(("data", "after"), CAPTURE_GAPS)
def test_a_capture_leaves_every_entry_as_it_was(data: bytes, after: int | None) -> None:
    parsed = record.parse(data)
    captured = edit.lesson(
        "Captured cause", body="Body line.\n\nSecond paragraph.", tasks=["#8"], root_cause="suspected"
    )
    plan = edit.plan_capture(parsed, new=captured, after=None if after is None else parsed.entries[after])
    check = verification.check_edit(parsed, record.parse(plan.data), plan, captured)
    assert check.ok, check.problems


def test_a_title_after_indented_code_is_read_from_the_code_line() -> None:
    data = b"# Lessons\n\n## Group\n\n    indented code: tasks: #8\n#### A deeper heading\n"
    assert [e.title for e in record.parse(data).entries] == ["indented code: tasks: #8", "A deeper heading"]


def test_a_table_whose_body_repeats_its_header_keeps_its_rows_when_a_row_is_added() -> None:
    data = b"# Lessons\n\n## Lesson 0 title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    data += b"| a | b |\n|---|---|\n| 1 | 2 |\n"
    parsed = record.parse(data)
    captured = edit.lesson("Captured cause", body="Body line.", tasks=["#8"], root_cause="suspected")
    plan = edit.plan_capture(parsed, new=captured, after=parsed.entries[-1])
    check = verification.check_edit(parsed, record.parse(plan.data), plan, captured)
    assert check.ok, check.problems


STAMPED = (
    b"# Gotchas\n\n## Cache keys ignore the lockfile\n\nHash the lockfile into the key.\n\n"
    b"## Retries hide permanent failures\n\nRetry only on 5xx and timeouts.\n\n"
    b"---\n\n*Last updated: 2026-01-01*\n"
)
STAMP = b"\n---\n\n*Last updated: 2026-01-01*\n"


@pytest.mark.parametrize(
    "stamp", [b"*Last updated: 2026-01-01*", b"*Kept by the platform team; reviewed in May.*"]
)
def test_a_successor_of_the_last_heading_lesson_goes_above_the_files_closing_stamp(stamp: bytes) -> None:
    """The ``---`` rule and stamp closing the file are the file's: the last lesson ends above
    them, its successor is written there, and the stamp stays the file's last lines."""
    data = STAMPED.replace(b"*Last updated: 2026-01-01*", stamp)
    parsed = record.parse(data)
    target = parsed.entries[-1]
    assert target.end_line == 9  # the lesson's text, not the rule and the stamp below it
    lesson = edit.lesson(
        "Confirmed cause", body="It was the cache.", tasks=["#7"], root_cause="confirmed", diagnostic="look"
    )
    plan = edit.plan_supersede(parsed, target=target, task="#7", new=lesson)
    after = record.parse(plan.data)
    assert verification.check_edit(parsed, after, plan, lesson).ok
    assert plan.data.endswith(b"\n---\n\n" + stamp + b"\n")
    assert plan.data.index(b"## Confirmed cause") < plan.data.index(b"\n---\n")


def test_a_lesson_captured_at_the_end_goes_above_the_files_closing_stamp() -> None:
    """Captured after the last lesson, a new one is written above the closing stamp, where it
    is read as the last lesson; written below it, every lesson read otherwise and the capture
    was refused."""
    parsed = record.parse(STAMPED)
    captured = edit.lesson("Captured cause", body="Body line.", tasks=["#8"], root_cause="suspected")
    plan = edit.plan_capture(parsed, new=captured, after=None)
    after = record.parse(plan.data)
    check = verification.check_edit(parsed, after, plan, captured)
    assert check.ok, check.problems
    assert plan.data.endswith(STAMP)
    assert [e.title for e in after.entries][-1] == "Captured cause"


ONE_STAMPED = (
    b"# The lockfile must be in the cache key\n\n"
    b"Stale modules came back after a dependency bump because the cache key ignored the lockfile.\n"
    b"Hash the lockfile into the key, and bust the cache on every bump of the package manager.\n"
    + STAMP
)


def test_a_correction_to_a_one_lesson_file_keeps_its_closing_stamp_last() -> None:
    """A file that is one lesson ends above its closing stamp: the mark, the caveat and the new
    lesson go there, and the stamp stays the file's last lines; below it, the edit was refused."""
    parsed = record.parse(ONE_STAMPED)
    (target,) = parsed.entries
    assert target.kind == "document" and target.end_line == 4
    lesson = edit.lesson(
        "Confirmed cause", body="It was the cache.", tasks=["#7"], root_cause="confirmed", diagnostic="look"
    )
    plan = edit.plan_supersede(parsed, target=target, task="#7", new=lesson)
    check = verification.check_edit(parsed, record.parse(plan.data), plan, lesson)
    assert check.ok, check.problems
    assert plan.data.endswith(STAMP)
    mark, new = plan.data.index(b"Red herring for #7"), plan.data.index(b"## Confirmed cause")
    assert mark < new < plan.data.rindex(b"---")
