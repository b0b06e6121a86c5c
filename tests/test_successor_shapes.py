"""A supersede in every entry shape a lessons file uses, with every line ending, at every position.

Each shape is a record of four lessons written one way (heading levels and decorations, list
markers tight and loose, nested lists, checkboxes, bold-lead and bold-numbered paragraphs, ids
and dotted numbers, ``---`` blocks, table rows, callouts, field lines, code fences inside
entries). Each runs with LF, CRLF, and a BOM without a final newline, superseding the first,
the middle and the last entry. Every run must: verify, change only inserted lines, give the
successor the target's form and a number or id no other entry has, render the caveat as a
block of its own inside the target (markdown-it), and leave every list as tight or loose as
it was.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from gotchas import edit, operations, record, verification
from gotchas.holds.sources.ledger import set_task_state
from gotchas.workspace import Workspace
from support.forms import form, label, successor_form
from support.rendered import caveat_problems, list_is_tight, list_tightness

TASK = "#7"
LESSON = edit.lesson(
    "Confirmed cause",
    body="It was the cache.\n\nClear it before timing.",
    tasks=[TASK],
    root_cause="confirmed",
    diagnostic="look at the cache",
    ruled_out=["chunking"],
)
WORDS = ["Warm the cache", "Pin the tokenizer", "Rerun flaky tests", "Check the last merge"]


def each(template: str, sep: str = "\n", head: str = "# Lessons\n\n") -> str:
    """A record of four entries from ``template`` (``{n}``: 1-4, ``{t}``: a title, ``{w}``: a word)."""
    parts = [template.format(n=n, t=t, w=t.split()[-1], nn=f"{n:03d}") for n, t in enumerate(WORDS, start=1)]
    return head + sep.join(parts)


def grouped(template: str, sep: str = "\n") -> str:
    """Four entries under two category headings, two each."""
    parts = [template.format(n=n, t=t, w=t.split()[-1], nn=f"{n:03d}") for n, t in enumerate(WORDS, start=1)]
    return "# Lessons\n\n## Build\n\n" + sep.join(parts[:2]) + "\n## Runtime\n\n" + sep.join(parts[2:])


SHAPES: dict[str, str] = {
    # headings
    "h2": each("## {t}\n\nDo it before timing.\n"),
    "h3-grouped": grouped("### {t}\n\nDo it before timing.\n"),
    "h4": each("#### {t}\n\nDo it before timing.\n", head="# Lessons\n\n## All\n\n### Some\n\n"),
    "h2-closing-hashes": each("## {t} ##\n\nDo it before timing.\n"),
    "h3-emoji": each("### ⚠️ {t}\n\nDo it before timing.\n"),
    "h3-bold": each("### **{t}**\n\nDo it before timing.\n"),
    "h2-id": each("## L-{nn} · {t}\n\nDo it before timing.\n"),
    "h3-kind": each("### Issue: {t}\n\nDo it before timing.\n"),
    "h2-kind-sentence": each("## Lesson: {t}.\n\nDo it before timing.\n"),
    "h3-dotted": grouped("### 11.{n} {t}\n\nDo it before timing.\n"),
    "h2-numbered": each("## {n}. {t}\n\nDo it before timing.\n"),
    "h3-step-id": each("### STEP-0{n} — {t}\n\nDo it before timing.\n"),
    "h3-dated": each("### 2026-01-0{n} — {t}\n\nDo it before timing.\n"),
    # a date in brackets before the title: the successor's date is bracketed too
    "h3-bracket-dated": each("### [2026-01-0{n}] {t}\n\nDo it before timing.\n"),
    # a heading that is a date alone: the successor's title follows its date after a dash
    "h2-date-alone": each("## 2026-01-0{n}\n\n{t} before timing the {w}.\n"),
    "h3-bracket-date-alone": each("### [2026-01-0{n}]\n\n{t} before timing the {w}.\n"),
    "h3-fields": each("### {t}\n\ntasks: #{n}0 · root-cause: suspected\n\nDo it before timing.\n"),
    "h3-parts": each("### {t}\n\n**Symptom:** it hangs.\n\n**Cause:** the {w}.\n\n**Fix:** change it.\n"),
    "h3-fence": each("### {t}\n\nRun this:\n\n```sh\nmake {w}\n```\n\nThen time it.\n"),
    "h3-table": each("### {t}\n\n| When | Do |\n|---|---|\n| cold | warm {w} |\n"),
    "h3-callout": each("### {t}\n\n> [!WARNING]\n> The {w} lies.\n\nDo it before timing.\n"),
    "h3-ruled": each("### {t}\n\nDo it before timing.\n", sep="\n---\n\n"),
    "h2-bold-fields": each("## {t}\n\n**Date:** 2026-01-0{n}\n**Severity:** high\n\nDo it before timing.\n"),
    "h3-bracket-id": each("### [P-0{n}] {t}\n\nDo it before timing.\n"),
    # a status mark most siblings carry is their form (one ``❌`` among ``✅``, not superseded here)
    "h4-status-marked": "# Lessons\n\n"
    + "\n".join(
        f"#### {'❌' if n == 2 else '✅'} **{t}**\n\nDo it before timing.\n"
        for n, t in enumerate(WORDS, start=1)
    ),
    "h3-dated-field-bullets": each(
        "### {t}\n\n- **Date:** 2026-01-0{n}\n- **Problem:** it hangs\n- **Fix:** the {w}\n"
    ),
    "h3-ruled-categories": grouped("### 4.{n}. {t}\n\nDo it before timing.\n\n---\n", sep="\n"),
    # lists
    "dash-tight": each("- **{t}** — do it before timing.\n", sep=""),
    "star-tight": each("* **{t}:** do it before timing.\n", sep=""),
    "plus-tight": each("+ **{t}.** Do it before timing.\n", sep=""),
    "dash-loose": each("- **{t}** — do it before timing.\n"),
    "star-loose": each("* **{t}:** do it before timing.\n"),
    "plus-loose": each("+ **{t}.** Do it before timing.\n"),
    "dot-tight": each("{n}. **{t}** — do it before timing.\n", sep=""),
    "paren-tight": each("{n}) **{t}:** do it before timing.\n", sep=""),
    "dot-loose": each("{n}. **{t}** — do it before timing.\n"),
    "paren-loose": each("{n}) **{t}:** do it before timing.\n"),
    "dash-plain-tight": each("- When the {w} acts up, {t} before timing.\n", sep=""),
    "dash-letter-id-tight": each("- L{n}: {t}. Do it before timing.\n", sep=""),
    "dash-nested-tight": each("- **{t}** — do it\n  - it seemed to help\n  - until it did not\n", sep=""),
    "dash-nested-loose": each("- **{t}** — do it\n  - it seemed to help\n  - until it did not\n"),
    "star-nested-fields": each("* **{t}**\n  * tasks: #{n}0\n  * **Symptom:** hangs\n", sep=""),
    "checkbox-tight": each("- [x] **{t}**: do it before timing\n", sep=""),
    "checkbox-loose": each("- [ ] **{t}**: do it before timing\n"),
    "dash-fields-tight": each("- **{t}** — do it\n  tasks: #{n}0 · root-cause: suspected\n", sep=""),
    "dash-fields-loose": each("- **{t}** — do it\n  tasks: #{n}0 · root-cause: suspected\n"),
    "dash-fields-text-tight": each("- **{t}** — do it\n  tasks: #{n}0\n  and more about the {w}\n", sep=""),
    "dash-id-tight": each("- **L-{nn} · {t}** — do it before timing.\n", sep=""),
    # a plain id and a dash before each lesson's text: the successor takes the next id, the dash
    # after it no sentence's end
    "dash-plain-id-dash-tight": each("- L-{nn} — {t} before timing the {w}.\n", sep=""),
    # an id in a bold lead-in wrapped onto the next line: the successor takes the next id
    "dash-id-wrapped-tight": each(
        "- **L-{nn}: {t} or the numbers\n  drift.** Do it before timing.\n", sep=""
    ),
    "dot-bold-id-alone": each(
        "{n}. **PITFALL-{nn}**: {t} before timing.\n", sep="", head="# Pitfalls\n\n## Core Invariants\n"
    )
    + "\nSee the wiki for the full write-ups.\n",
    "dash-dotted-tight": each("- **11.{n} {t}** — do it before timing.\n", sep=""),
    "dash-fence-tight": each("- **{t}** — run this:\n  ```\n  make {w}\n  ```\n", sep=""),
    "dash-fence-loose": each("- **{t}** — run this:\n\n  ```\n  make {w}\n  ```\n"),
    "dash-grouped-tight": grouped("- **{t}** — do it before timing.\n", sep=""),
    # one bold label on every lesson (a run of a topic), its facts nested: the successor between
    # the first two leaves the run, and the first, as they were
    "star-topic-run-nested": each("*   **Pattern:** {t} before timing.\n    *   **Context:** the {w}.\n"),
    # two numbered lessons and one written otherwise under one heading: the successor of a numbered
    # one makes four, three numbered, yet the plain one stays a lesson (a successor never tips its
    # siblings into a series)
    "h3-numbered-then-plain": "# Lessons\n\n## Build\n\n"
    + "".join(f"### {n}. {t}\n\nDo it before timing.\n\n" for n, t in enumerate(WORDS[:2], start=1))
    + f"### {WORDS[2]}\n\nDo it before timing.\n\n## Runtime\n\n### {WORDS[3]}\n\nDo it before timing.\n",
    "dot-grouped-loose": grouped("{n}. **{t}** — do it before timing.\n"),
    "dash-lazy-tight": each("- **{t}** — do it\nbefore timing the {w}\n", sep=""),
    "dash-callout-tight": each("- **{t}** — do it\n  > [!NOTE]\n  > the {w} lies\n", sep=""),
    "dot-split-by-fence": (
        "# Lessons\n\n1. **Warm the cache** — one\n2. **Pin the tokenizer** — two\n\n"
        "```\nmake all\n```\n\n3. **Rerun flaky tests** — three\n4. **Check the last merge** — four\n"
    ),
    # paragraphs
    "bold-colon": each("**{t}:** do it before timing.\n"),
    "dated-lines": each(
        "2026-05-1{n} — {t} before timing.\n", sep="", head="# Lessons\n\nOne dated line a lesson.\n\n"
    ),
    "bold-period": each("**{t}.** Do it before timing.\n"),
    # a dated bold lead-in wrapped onto the next line: the successor is dated the day of the change
    "bold-dated-wrapped": each("**2026-09-1{n} · {t} or the numbers\ndrift.** Do it before timing.\n"),
    "bold-dash": each("**{t}** — do it before timing.\n"),
    # a bold title closed by a full-width semicolon in a numbered list (``5. **…**；…``)
    "numbered-bold-cjk-semicolon": each("{n}. **{t}**；先计时再改。\n", sep=""),
    "bold-fields": each("**{t}:** do it before timing.\ntasks: #{n}0\n"),
    "bold-number-alone": each("**{n}.** {t}.\nDo it before timing.\n"),
    "bold-number-title": each("**{n}. {t}.** Do it before timing.\n"),
    "bold-id": each("**L-{nn} · {t}:** do it before timing.\n"),
    "bold-word-number": each("**Lesson {n}:** {t}. Do it before timing.\n"),
    "bold-label-lines": each("**{t}**\n**Problem:** it hangs\n**Fix:** the {w}\n"),
    # blocks between rules
    "ruled-bold": each("**{t}** — do it before timing.\n\nMore about the {w}.\n", sep="\n---\n\n"),
    "ruled-fields": each("- **Problem:** the {w} lies\n- **Fix:** {t}\n", sep="\n---\n\n"),
    "ruled-fields-loose": each("- **Problem:** the {w} lies\n\n- **Fix:** {t}\n", sep="\n---\n\n"),
    "ruled-fields-plain": each("* Problem: the {w} lies\n* Fix: {t}\n", sep="\n---\n\n"),
    "ruled-fields-numbered": each("1. **Problem:** the {w} lies\n2. **Fix:** {t}\n", sep="\n---\n\n"),
    # callouts
    "callout": each("> [!WARNING]\n> {t}. Do it before timing.\n"),
    "callout-kinds": "# Lessons\n\n"
    + "\n".join(
        f"> [!{kind}]\n> **{t}:** do it before timing.\n>\n> tasks: #{n}0\n"
        for n, (kind, t) in enumerate(zip(["WARNING", "CAUTION", "IMPORTANT", "CAUTION"], WORDS, strict=True))
    ),
    # tables
    "table": "# Lessons\n\n| Problem | Fix |\n|---|---|\n"
    + "".join(f"| {t} | do it before timing |\n" for t in WORDS),
    "table-ids": "# Lessons\n\n| ID | Problem | Fix |\n|---|---|---|\n"
    + "".join(f"| L-0{n} | {t} | do it before timing |\n" for n, t in enumerate(WORDS, start=1)),
    # bullets each followed by a fence at the margin: every bullet is a list of its own, tight
    "items-fenced": each("- {t} first\n\n```sh\nmake {w}\n```\n"),
}

# a checklist is read as lessons when the project pins its entries to list items
PINS = {"checkbox-tight": "list", "checkbox-loose": "list"}

# shapes that cannot be made right yet, with why: (shape, position) -> reason
KNOWN_GAPS: dict[tuple[str, str], str] = {}

ENDINGS = {
    "lf": lambda data: data,
    "crlf": lambda data: data.replace(b"\n", b"\r\n"),
    "bom-no-final-newline": lambda data: b"\xef\xbb\xbf" + data.rstrip(b"\n"),
}
POSITIONS: dict[str, Callable[[int], int]] = {
    "first": lambda n: 0,
    "middle": lambda n: n // 2,
    "last": lambda n: n - 1,
}


def params() -> list[object]:
    out: list[object] = []
    for shape in SHAPES:
        for position in POSITIONS:
            marks = []
            if (shape, position) in KNOWN_GAPS:
                marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_GAPS[shape, position]))
            for ending in ENDINGS:
                out.append(
                    pytest.param(shape, position, ending, marks=marks, id=f"{shape}-{position}-{ending}")
                )
    return out


def only_inserted(before: bytes, after: bytes) -> bool:
    """``after`` is ``before`` with whole lines inserted (and a line ending for a last line that
    lacked one): every old line is there, in order, and the rest are new lines."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    at = 0
    for index, line in enumerate(old):
        last = index == len(old) - 1 and not line.endswith((b"\n", b"\r"))
        while at < len(new) and not (new[at] == line or (last and new[at].rstrip(b"\r\n") == line)):
            at += 1
        if at == len(new):
            return False
        at += 1
    return True


def item_number(line: str) -> int | None:
    found = re.match(r"^\s*(\d+)[.)]\s", line)
    return int(found[1]) if found else None


@pytest.mark.parametrize(("shape", "position", "ending"), params())
def test_a_supersede_in_every_shape_looks_like_a_sibling(shape: str, position: str, ending: str) -> None:
    data = ENDINGS[ending](SHAPES[shape].encode())
    pin = PINS.get(shape)
    before = record.parse(data, pin)
    assert len(before.entries) == 4, [e.title for e in before.entries]
    target = before.entries[POSITIONS[position](len(before.entries))]
    plan = edit.plan_supersede(before, target=target, task=TASK, new=LESSON)
    out = plan.data
    after = record.parse(out, pin)

    # verifies, and nothing but inserted lines
    check = verification.check_edit(before, after, plan, LESSON)
    assert check.ok, check.problems
    errors = {(p.code, p.entry) for p in verification.check_record(after) if p.severity == "error"}
    assert not errors, errors
    assert only_inserted(data, out)
    assert out.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    assert out.endswith(b"\n") == data.endswith(b"\n")
    if b"\r\n" in data:
        assert out.count(b"\n") == out.count(b"\r\n")

    # the successor takes the target's form, right after it
    new = after.get(plan.new_id)
    ids = [e.id for e in after.entries]
    assert ids.index(new.id) == ids.index(target.id) + 1
    lines = out.decode("utf-8").splitlines()
    first = [lines[e.start_line - 1] for e in after.entries]
    mine = lines[new.start_line - 1]
    assert new.kind == target.kind
    # every sibling names one kind of lesson (``### Issue: …``): the successor names it too
    written = lines[target.start_line - 1]
    assert form(mine, kind=True) == successor_form(written, kind=True), (mine, written)

    # its number or id is no other entry's, and its list number no other item's
    others = [line for line, e in zip(first, after.entries, strict=True) if e.id != new.id]
    if label(lines[target.start_line - 1]) is not None:
        assert label(mine) is not None and label(mine) not in {label(o) for o in others}, mine
    if new.kind == "item" and item_number(mine) is not None:
        used = [item_number(line) for n, line in enumerate(lines) if n != new.start_line - 1]
        indent = len(mine) - len(mine.lstrip())
        same = [
            u
            for u, line in zip(used, [x for n, x in enumerate(lines) if n != new.start_line - 1], strict=True)
            if u is not None and len(line) - len(line.lstrip()) == indent
        ]
        assert item_number(mine) not in same, mine

    # the caveat renders as a block of its own inside the target
    assert caveat_problems(out, after.get(target.id), TASK) == []

    # every list is as tight or loose as it was; the successor's item is in a list like the target's
    kinds = Counter((kind, tight) for _, kind, tight in list_tightness(data))
    grown = Counter((kind, tight) for _, kind, tight in list_tightness(out))
    assert not kinds - grown, "a list changed between tight and loose"
    if target.kind == "item":
        assert list_is_tight(out, target.start_line - 1) == list_is_tight(data, target.start_line - 1)
        assert list_is_tight(out, new.start_line - 1) == list_is_tight(data, target.start_line - 1)
    elif target.kind == "block" and re.match(r"^\s*(?:[-*+]|\d+[.)])\s", lines[target.start_line - 1]):
        # a block of field bullets: the successor is a list like the target's, and nothing more
        opened = next(k for n, k, _ in list_tightness(data) if n == target.start_line - 1)
        assert grown - kinds == Counter({(opened, list_is_tight(data, target.start_line - 1)): 1})
        assert not kinds - grown, "the edit changed a list"
    else:
        assert grown == kinds, "the edit added or changed a list"


def test_the_matrix_is_wide_enough() -> None:
    assert len(SHAPES) >= 50


def test_the_checks_can_fail() -> None:
    assert only_inserted(b"a\nb", b"a\nnew\nb\nmore")
    assert not only_inserted(b"a\nb\n", b"a\nB\n")
    assert not only_inserted(b"a\r\nb\r\n", b"a\nb\n")
    assert form("- **Title** — text") != form("* **Title** — text") != form("- Title — text")
    assert form("## 11.4 Title") == form("## 11.4.1 Other title") != form("## Title ##")
    assert form("> [!WARNING]") == form(">  [!WARNING]") != form("> [!CAUTION]") != form("Title — text")
    assert label("## L-055 · Pin") == label("- **L-055 · Other**") != label("## L-055.1 · Pin")
    # a row's escaped pipe is its cell's text: the row is as wide as one without it
    assert form("| 43 | API | `\\|\\|` in merges | Use `??` |") == form("| 43.1 | Title | | Text |")
    assert form("| 43 | API | Title | Text |") != form("| 43 | Title | Text |")
    # words that end in bold are no bold title; a version in a name is no id
    assert form("### Logs show **TrieNodeException**") == form("### Title") != form("### **Title**")
    assert label("- GPT-5.4-mini answers vary") is None and label("## L-003. Pin") is not None


SHORT_GROUPS = b"""# Pitfalls

## 1. Build

### 1.1 Cache keys need the lockfile hash

Stale modules come back after an upgrade unless the key includes the lockfile.

### 1.2 Build user

- The app user, not root
- Owns the shared volume

### 1.3 Deploy keys

- Read-only key on the build server
- Rotated every quarter

## 2. Ops

### 2.1 The health check shares the worker pool

A slow request starves the probe; serve the probe on a port of its own.

### 2.2 Restarts drop queued jobs

The queue lives in memory; drain it before a restart or persist it.

### 2.3 Port clash

- Backend on 8080
- Nginx also on 8080

### 2.4 Log rotation

- Rotated daily
- Kept for a week
"""


LIST_SECTIONS = b"""# Lessons

## Tooling

- Pin the formatter version in the lockfile.
- Run the linter before the formatter.

## CI

- Split jobs by responsibility and name them after it.
- Cache the package store, not the node_modules folder.

## Auth

- The sign-in endpoint wants the email in lower case.
- Sessions are stateless since the database was removed.

## Testing

- JSX in tests needs the automatic runtime set explicitly.
- Fake timers must be restored after each test.

## Deploy

- The standalone output needs the workspace root copied too.
- Service accounts get the least privilege that deploys.

## Native add-ons break when the Node version changes between build and run

- Rebuild the add-on for the runtime's ABI.
- Scope the rebuild to the workspace that owns it.

## Optional peer dependencies end up installed unless an override removes them

- Auto-installed peers land in the lockfile.
- An override with a dash removes the package.

## Review pages must not show internal wording to the store reviewers at all

- Internal labels leaked into the review build.
- The contact address comes from an environment variable.
"""


# five numbered lessons: alone under the title they are a series, and the list beside them is
# the report around it (the marked target still counts, so the correction keeps the series);
# beside four headings over short facts they are one short of it, and a successor numbered 6
# (or 1.1) must not tip them over (under ``# Known issues``: a troubleshooting how-to would
# read only its common issues, its practices being the how-to's own)
NUMBERED_RUN = b"""### 1. The map is empty after a reload

Nodes are kept in a Map; restore them as one.

### 2. Shortcuts fire inside text fields

Ignore key events whose target is editable.

### 3. Panning stops after a resize

Recompute the offset on resize.

### 4. Centering misses the root

A map needs one root node; check for it first.

### 5. Positions jump on every render

Compute them in a memo, not in state.
"""
NUMBERED_SERIES = (
    b"# Troubleshooting\n\n"
    + NUMBERED_RUN
    + b"""
### Practices
- Keep nodes in a Map
- Keep UI state apart
- Save the map as a list
- Debounce resizes
- Skip hidden nodes
"""
)
NUMBERED_BESIDE = (
    b"# Known issues\n\n## Common issues\n\n"
    + NUMBERED_RUN
    + b"""
## Practices

### State
- Keep nodes in a Map
- Keep UI state apart
- Save the map as a list

### Layout
- Position in the layout engine
- Pan while rendering
- Keep the root first

### Events
- Clean up listeners
- Debounce resizes
- Skip editable targets

### Speed
- Memoise positions
- Skip hidden nodes
- Batch the updates
"""
)


# a heading over short field bullets reads as their group, and the file's other heading
# lessons make it one lesson (``series.cousins_agree``); marked, it is one lesson by its mark,
# and its vote among its list-only siblings must stay the group it read as, or the last
# sibling (eight bullets) would be read as one lesson too
VOTING_LEAF = b"""# Orchestrator lessons

## 2026-06-17 - Agent design

### Multi-agent coordination

Agents share one status file; each writes only its own section.

### Lifecycle

Stop an agent before its window closes, or its last report is lost.

### Quality checks

A reviewer agent reads every diff before it is merged.

## 2026-06-18 - Later session

### Effective intervention

- **Situation**: the developer was stuck on a key error for an hour
- **Action**: sent a short note naming the log line to read
- **Lesson**: point at evidence, not at the fix

### Cross-window checks

- **Discovery**: server logs can be watched while the developer works
- **Application**: saw the key error clear before the developer did
- **Value**: encouragement based on what actually happened
- **Practice**: always check the windows next to the one at work

### Documentation reminders

- **Challenge**: developers skip notes when the fix works
- **Solution**: send a reminder naming what to write down
- **Impact**: the next session starts from the notes

### Plan mode

- **Feature**: plan mode starts with Shift+Tab twice
- **Sequence**: hold Shift, press Tab, press Tab again
- **Check**: the status line must say plan mode is on
- **Implementation**: send the keys with a short pause between them
- **Verification**: read the status line after each try
- **Troubleshooting**: try again when the line does not change
- **Correction**: the user fixed the key order once
- **Use**: plan before any change across files
"""


def _supersede(tmp_path: Path, data: bytes, target_id: str) -> tuple[record.Record, record.Record]:
    """Supersede ``target_id`` for a landed task through propose and apply: the record before
    and after."""
    root = tmp_path / "repo"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / ".claude" / "rules" / "gotchas.md").write_bytes(data)
    set_task_state(root, "#9001", "landed", "sibling test")
    workspace = Workspace(root)
    proposed = operations.propose_supersede(
        workspace,
        target_id=target_id,
        task="#9001",
        title="The confirmed cause behind the build break",
        body="One key per environment; the shared key was the leak.",
        diagnostic="list the keys on each server",
        ruled_out=["the advice above"],
        evidence="ledger line for #9001",
    )
    assert proposed["status"] == "proposed", proposed
    applied = operations.apply(workspace, proposal_id=str(proposed["proposal_id"]))
    assert applied["status"] == "applied", applied
    return record.parse(data), record.parse((root / ".claude" / "rules" / "gotchas.md").read_bytes())


# two heading lessons beside a table whose header names no lesson: one heading short of the
# three that make the table a summary around them, so its rows are lessons
TABLE_BESIDE = b"""# Lessons

## The cache key ignored the lockfile

Stale modules came back. Hash the lockfile into the key.

## Two jobs wrote the same artifact

The second upload replaced the first. Name artifacts by job.

## Decisions that stuck

| Decision | Why it matters |
|----------|----------------|
| One cache per branch | Branches stop evicting each other |
| Artifacts named by job | Uploads never collide |
"""


# one heading lesson under the title, bullets in the title's own text before it: one heading
# short of the two that make those bullets the file's introduction, so they are lessons
INTRO_BEFORE = b"""# Mistakes

- Keep each entry to what happened and the fix.
- Newest entries go on top.

## The retry loop hid a permanent failure

The importer retried a 404 for an hour. Retry only on 5xx and timeouts.
"""

# three heading lessons beside the table, two after the title's own bullets: the rows and the
# bullets are around them, and a target the correction marks still counts, so they stay so
TABLE_BESIDE_THREE = TABLE_BESIDE.replace(
    b"## Decisions that stuck",
    b"## Migrations lock the orders table\n\nIndex concurrently.\n\n## Decisions that stuck",
)
INTRO_BEFORE_TWO = INTRO_BEFORE + b"\n## The staging key reached production\n\nLoad keys by name.\n"

# four heading lessons, three of them speaking of lessons: one short of a policy for keeping
# lessons; the caveat a correction writes into the fourth names an entry, and counts for nothing
POLICY_NEAR = b"""# Lessons

## The cache key ignored the lockfile

That lesson cost a day: hash the lockfile into the key.

## Migrations lock the orders table

We learned this lesson twice. Index concurrently.

## Retries hid a permanent failure

Another lesson from the importer: retry only on 5xx.

## Two jobs wrote the same artifact

The second upload replaced the first. Name artifacts by job.
"""


@pytest.mark.parametrize(
    ("data", "kind", "targets", "entries", "pick"),
    [
        (SHORT_GROUPS, "item", 8, 11, 0),
        (LIST_SECTIONS, "heading", 3, 13, 0),
        (VOTING_LEAF, "heading", 5, 13, 3),
        (NUMBERED_BESIDE, "heading", 9, 9, 4),
        (NUMBERED_BESIDE, "heading", 9, 9, 0),
        (NUMBERED_SERIES, "heading", 5, 5, 4),
        (NUMBERED_SERIES, "heading", 5, 5, 0),
        (TABLE_BESIDE, "heading", 2, 4, 0),
        (INTRO_BEFORE, "heading", 1, 3, 0),
        (TABLE_BESIDE_THREE, "heading", 3, 3, 0),
        (INTRO_BEFORE_TWO, "heading", 2, 2, 0),
        (POLICY_NEAR, "heading", 4, 4, 3),
    ],
    ids=[
        "a-bullet-in-a-group-of-short-bullets",
        "a-heading-lesson-over-a-list",
        "a-leaf-that-votes-as-a-group",
        "the-last-of-a-numbered-run-one-short-of-a-series",
        "the-first-of-a-numbered-run-one-short-of-a-series",
        "the-last-of-a-numbered-series",
        "the-first-of-a-numbered-series",
        "a-heading-one-short-of-making-a-table-beside-it-a-summary",
        "a-heading-one-short-of-making-the-bullets-before-it-an-introduction",
        "a-marked-heading-still-makes-a-table-beside-it-a-summary",
        "a-marked-heading-still-makes-the-bullets-before-it-an-introduction",
        "a-heading-whose-caveat-names-an-entry-among-lessons-that-speak-of-lessons",
    ],
)
def test_a_correction_does_not_change_how_sibling_sections_read(
    tmp_path: Path, data: bytes, kind: str, targets: int, entries: int, pick: int
) -> None:
    """Siblings short of the half that would make them agree: three heading lessons beside
    four headings over short bullets (groups), five category headings over bullets (groups)
    beside three long claims over bullets (lessons), or a heading lesson whose short bullets
    vote as a group among its siblings, or a run of numbered lessons one short of a series that
    would leave the facts beside them out, or heading lessons one short of making a table
    beside them a summary, or the bullets before them the file's introduction. Correcting an
    entry of the kind in question adds a mark, a quote and a successor with entry fields; the
    siblings still read as before, so the edit verifies and every other entry keeps its place."""
    before = record.parse(data)
    chosen = [e for e in before.entries if e.kind == kind]
    assert len(chosen) == targets and len(before.entries) == entries
    old, new = _supersede(tmp_path, data, chosen[pick].id)
    assert {e.id for e in old.entries} < {e.id for e in new.entries}
    assert len(new.entries) == len(old.entries) + 1


def test_a_mark_only_the_target_carries_is_its_own_not_the_successors() -> None:
    """``## ✅ … — closed`` among unmarked siblings is that entry's status: a new lesson has not
    earned it."""
    data = ("# Lessons\n\n## ✅ Warm the cache — closed\n\nDone.\n\n"
            + "".join(f"## {t}\n\nDo it before timing.\n\n" for t in WORDS[1:])).encode()
    before = record.parse(data)
    plan = edit.plan_supersede(before, target=before.entries[0], task=TASK, new=LESSON)
    after = record.parse(plan.data)
    new = after.get(plan.new_id)
    assert plan.data.decode().splitlines()[new.start_line - 1] == "## Confirmed cause"



def test_a_grade_every_sibling_carries_by_colour_is_kept_by_the_successor() -> None:
    """``### 🔴 …``, ``### 🟡 …``, ``### 🟢 …``: every problem graded by colour. The successor
    of the 🟢 one is graded as the problem it corrects, not left without a grade."""
    graded = zip("🔴🟡🟢🟡", WORDS, strict=True)
    body = "".join(f"### {g} {t}\n\nDo it before timing.\n\n" for g, t in graded)
    data = ("# Known issues\n\n" + body).encode()
    before = record.parse(data)
    plan = edit.plan_supersede(before, target=before.entries[2], task=TASK, new=LESSON)
    after = record.parse(plan.data)
    new = after.get(plan.new_id)
    assert plan.data.decode().splitlines()[new.start_line - 1] == "### 🟢 Confirmed cause"
