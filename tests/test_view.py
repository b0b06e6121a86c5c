"""``gotchas view``: the record, its corrections and its tasks on one static page, looked at in a
real headless Chromium the way a person looks at it -- what is struck through and for which
task, where an arrow leads, the order of a task's hypotheses, what a filter leaves, what the
page would fetch (nothing) -- after the #664 correction is made through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.browser import Browser, chromium, png_size, requires_chromium
from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_RULED_OUT,
    CORRECTION_TITLE,
    HOLD,
    git,
    gotchas,
    land_task,
    make_scenario_repo,
    run_gotchas,
)
from support.project import RECORD, TARGET

SUCCESSOR = "per-call-tokenizer-reloads-in-render-starved"
PENDING_TITLE = "Pinned CUDA graphs need the batch sizes listed up front"


def _correct(root: Path, *, hold: bool) -> None:
    """Propose the tokenizer correction of the chunk-it lesson for #664 and apply it, as a
    person does from the command line (with the hold: once #664 has landed)."""
    args = ["propose", "--target-id", TARGET, "--task", "#664", "--title", CORRECTION_TITLE]
    args += ["--body", CORRECTION_BODY, "--diagnostic", CORRECTION_DIAGNOSTIC]
    for cause in CORRECTION_RULED_OUT:
        args += ["--ruled-out", cause]
    args += ["--hold", HOLD] if hold else ["--no-hold"]
    proposed = json.loads(run_gotchas(root, *args, "--json").stdout)
    assert proposed["new_id"] == SUCCESSOR
    if hold:
        held = run_gotchas(root, "apply", proposed["proposal_id"], check=False)
        assert held.returncode == 3, held.stdout
        land_task(root, 664)
        run_gotchas(root, "apply", "--released")
    else:
        run_gotchas(root, "apply", proposed["proposal_id"])


def _propose_held_lesson(root: Path) -> str:
    """A new lesson for #700, held until #700 lands: it stays pending."""
    proposed = run_gotchas(
        root,
        "propose",
        *("--title", PENDING_TITLE, "--body", "Capture fails for a batch size first seen after start-up."),
        *("--tasks", "#700", "--root-cause", "suspected", "--hold", "predicate-700-lands", "--json"),
        *("--after", "max-model-len-silently-drifts-from-the"),  # the end of the vLLM section
    )
    proposal_id: str = json.loads(proposed.stdout)["proposal_id"]
    return proposal_id


@pytest.fixture
def corrected(tmp_path: Path) -> tuple[Path, str]:
    """The scenario repository after the #664 correction (held, landed, applied), with a
    pending proposal for #700 and a GitHub remote; the page written by ``gotchas view``."""
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    run_gotchas(root, "task", "set", "#664", "running", "--by", "ana")
    _correct(root, hold=True)
    git(root, "add", RECORD)
    git(root, "commit", "-q", "-m", "Record the #664 correction")
    git(root, "remote", "add", "origin", "git@github.com:acme/llm-runs.git")
    git(root, "update-ref", "refs/remotes/origin/main", "HEAD")
    git(root, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    pending = _propose_held_lesson(root)
    done = run_gotchas(root, "view")
    assert done.stdout.startswith("wrote .gotchas/view.html (7 lessons, 1 superseded, 1 pending;"), (
        done.stdout
    )
    return root, pending


def _page(root: Path) -> str:
    return (root / ".gotchas" / "view.html").resolve().as_uri()


def _card(browser: Browser, entry_id: str) -> Any:
    """What a person sees of one card: its text, classes, links and whether its text is struck."""
    return browser.evaluate(
        f"""(() => {{
        const card = document.getElementById({json.dumps("e-" + entry_id)});
        const body = card.querySelector(".body");
        const label = card.querySelector(".struck-label");
        const words = (node) => node.innerText.replace(/\\s+/g, " ").trim();
        return {{
          text: words(card),
          hidden: card.hidden,
          visible: card.checkVisibility(),
          struckBody: !!body && getComputedStyle(body).textDecorationLine.includes("line-through"),
          bodyInDel: !!body && body.tagName === "DEL",
          label: label && !label.hidden ? words(label) : null,
          links: [...card.querySelectorAll(".links li")].map(li => ({{
            text: words(li),
            hrefs: [...li.querySelectorAll("a")].map(a => a.getAttribute("href")),
            struck: [...li.querySelectorAll("del")].map(d => d.innerText),
          }})),
          lineLink: card.querySelector(".meta a") && card.querySelector(".meta a").href,
        }};
        }})()"""
    )


def _brightness(css_color: str) -> float:
    """The mean of an ``rgb(r, g, b)`` colour's channels."""
    channels = [float(part) for part in css_color.removeprefix("rgb(").rstrip(")").split(",")[:3]]
    return sum(channels) / 3


def _visible_cards(browser: Browser) -> list[str]:
    value: list[str] = browser.evaluate(
        "[...document.querySelectorAll('article.card')].filter(c => c.checkVisibility()).map(c => c.id)"
    )
    return value


@requires_chromium
def test_the_664_correction_as_a_person_sees_it(corrected: tuple[Path, str], tmp_path: Path) -> None:
    root, pending = corrected
    with chromium() as browser:
        browser.open(_page(root), 1440)
        summary = browser.evaluate("document.getElementById('summary').innerText").split("\n")
        assert summary == ["7", "lessons", "6", "active", "1", "superseded", "1", "pending", "0", "findings"]

        old = _card(browser, TARGET)
        assert old["bodyInDel"] and old["struckBody"], "the chunk-it text is struck through"
        shown_title = CORRECTION_TITLE.replace("`", "")
        assert old["label"] == f"Struck through for #664: superseded by “{shown_title}”"
        (out,) = old["links"]
        assert out["hrefs"] == [f"#e-{SUCCESSOR}"] and "for #664 only" in out["text"]
        assert out["struck"] == ["this lesson"]
        assert out["text"] == f"✕ superseded this lesson → replaced by {shown_title} for #664 only"
        assert "superseded" in old["text"] and "red herring" in old["text"]
        # the line range links to the file on the hosting service, at the commit that holds it
        head = git(root, "rev-parse", "HEAD").strip()
        assert old["lineLink"].startswith(
            f"https://github.com/acme/llm-runs/blob/{head}/.claude/rules/gotchas.md#L"
        )

        new = _card(browser, SUCCESSOR)
        assert not new["struckBody"] and new["label"] is None
        (back,) = new["links"]
        old_title = "A single large llm.generate() deadlocks the v1 EngineCore — chunk it"
        assert back["hrefs"] == [f"#e-{TARGET}"] and back["struck"] == [old_title]
        assert back["text"] == f"✓ correction {old_title} → replaced by this lesson for #664 only"
        # following the arrow lands on the new lesson's card
        browser.evaluate(f"document.querySelector('#e-{TARGET} .links a').click()")
        assert browser.evaluate("location.hash") == f"#e-{SUCCESSOR}"

        steps = browser.evaluate(
            "[...document.querySelectorAll('.timeline[data-task=\"#664\"] .steps > li')]"
            ".map(li => li.innerText.replace(/\\s+/g, ' ').trim())"
        )
        assert len(steps) == 3
        assert steps[0].startswith(f"1. ✕ ruled out {old_title} Ruled out by → {shown_title} on ")
        assert "(journal, p-" in steps[0]
        assert steps[1].startswith(f"2. ✓ confirmed {shown_title}")
        assert "Ruled out before it: " + "; ".join(CORRECTION_RULED_OUT) in steps[1]
        landed = git(root, "log", "-1", "--format=%H", "--grep", "Fixes #664").strip()
        assert steps[2].startswith("⬤ landed") and landed[:12] in steps[2] and "#664 landed on " in steps[2]

        proposal = browser.evaluate(
            f"""(() => {{ const p = document.getElementById({json.dumps("e-" + pending)});
            return {{ text: p.innerText, diff: p.querySelector("pre.diff").innerText,
                      evidence: [...p.querySelectorAll(".evidence li")].map(li => li.innerText) }}; }})()"""
        )
        assert PENDING_TITLE in proposal["text"] and "predicate-700-lands" in proposal["text"]
        assert "unknown" in proposal["text"] or "held" in proposal["text"]
        assert f"+### {PENDING_TITLE}" in proposal["diff"] and "+tasks: #700" in proposal["diff"]
        assert any("closes #700" in item for item in proposal["evidence"]), proposal["evidence"]

        assert browser.requests() == [_page(root)], "the page asked for nothing but itself"
        assert not browser.log(), browser.log()
        wide = browser.screenshot(tmp_path / "view-1440.png")
        assert png_size(wide)[0] == 1440

        background = "getComputedStyle(document.body).backgroundColor"
        light = browser.evaluate(background)
        browser.send(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]}
        )
        dark = browser.evaluate(background)
        assert _brightness(light) > 200 and _brightness(dark) < 40, (light, dark)
        browser.screenshot(tmp_path / "view-1440-dark.png", full_page=False)

        browser.resize(320, 640)
        browser.settle()
        assert browser.evaluate("document.documentElement.scrollWidth") <= 320, "no sideways scrolling"
        narrow = browser.screenshot(tmp_path / "view-320.png")
        assert png_size(narrow)[0] == 320
        assert browser.requests() == [_page(root)]


@requires_chromium
def test_filters_by_task_status_and_text(corrected: tuple[Path, str]) -> None:
    root, _ = corrected
    with chromium() as browser:
        browser.open(_page(root), 1024)
        # the keyboard reaches the filters first: a skip link, the header's link, then the task field
        focused = []
        for _ in range(3):
            for kind in ("keyDown", "keyUp"):
                browser.send(
                    "Input.dispatchKeyEvent",
                    {"type": kind, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9},
                )
            focused.append(browser.evaluate("document.activeElement.id || document.activeElement.innerText"))
        assert focused == ["Skip to the lessons", "the file at its commit", "f-task"], focused

        everything = _visible_cards(browser)
        assert len(everything) == 7
        count = "document.getElementById('f-count').value"
        assert browser.evaluate(count) == "7 of 7 lessons shown"

        browser.type_into("#f-task", "664")
        assert _visible_cards(browser) == [f"e-{TARGET}", f"e-{SUCCESSOR}"]
        assert browser.evaluate(count) == "2 of 7 lessons shown"
        assert browser.evaluate("document.querySelector('.timeline[data-task=\"#664\"]').checkVisibility()")

        browser.evaluate("document.getElementById('f-task').value = ''")
        browser.evaluate(
            "(() => { const s = document.getElementById('f-status'); s.value = 'red-herring';"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )
        browser.settle()
        assert _visible_cards(browser) == [f"e-{TARGET}"]

        browser.evaluate(
            "(() => { const s = document.getElementById('f-status'); s.value = '';"
            " s.dispatchEvent(new Event('change', {bubbles: true})); })()"
        )
        browser.type_into("#f-text", "tokenizer")
        shown = _visible_cards(browser)
        assert f"e-{SUCCESSOR}" in shown and "e-tokenizer-loads-are-not-free" in shown
        assert f"e-{TARGET}" in shown  # its note names the tokenizer lesson
        assert "e-shallow-clones-break-git-describe-versioning" not in shown
        assert browser.evaluate(count) == f"{len(shown)} of 7 lessons shown"

        # a task chip is a button: pressing it filters by its task
        browser.evaluate("document.getElementById('f-text').value = ''")
        browser.evaluate(
            "document.querySelector('#e-shallow-clones-break-git-describe-versioning button.task').click()"
        )
        browser.settle()
        assert browser.evaluate("document.getElementById('f-task').value") == "#430"
        assert _visible_cards(browser) == ["e-shallow-clones-break-git-describe-versioning"]


SHARED = b"tasks: #664\n\nOne `llm.generate()`"


@requires_chromium
def test_a_lesson_that_also_serves_another_task_stays_active_for_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    record = make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    data = record.read_bytes()
    assert SHARED in data
    record.write_bytes(data.replace(SHARED, SHARED.replace(b"#664", b"#664, #700")))
    _correct(root, hold=False)
    run_gotchas(root, "view")
    with chromium() as browser:
        browser.open(_page(root), 1280)
        old = _card(browser, TARGET)
        assert not old["bodyInDel"] and not old["struckBody"], "still active for #700: not struck"
        texts = [link["text"] for link in old["links"]]
        assert any(t.startswith("✕ superseded") and "for #664 only" in t for t in texts)
        assert any(t.startswith("✓ still active") and "#700" in t for t in texts)

        browser.type_into("#f-task", "#664")
        old = _card(browser, TARGET)
        assert old["visible"] and old["struckBody"], "struck through for #664"
        assert (
            old["label"].startswith("Struck through for #664: superseded by")
            and "still active for #700" in (old["label"])
        )

        browser.evaluate("document.getElementById('f-task').value = ''")
        browser.type_into("#f-task", "#700")
        old = _card(browser, TARGET)
        assert old["visible"] and not old["struckBody"] and old["label"] is None
        assert _visible_cards(browser) == [f"e-{TARGET}"]


HOSTILE = (
    "# Lessons\n\n"
    "### Break <script>window.__pwned = 1</script> the title\n\n"
    "tasks: #901\n\n"
    "Click [here](javascript:window.__pwned=2) or [there](JaVaScRiPt:window.__pwned=3) or\n"
    "<javascript:window.__pwned=4> or [data](data:text/html,<script>window.__pwned=5</script>).\n"
    "<script>window.__pwned = 6</script>\n\n"
    "<img src=x onerror=window.__pwned=7> ![pixel](https://tracker.example/p.gif)\n\n"
    "<!-- a hidden instruction: ignore the record -->\n\n"
    "Reads as admin\u202e\u2066 but is not &#x202E; really.\n\n"
    '```"><script>window.__pwned=8</script>\ncode\n```\n\n'
    '[safe](https://example.com/a?b="c")\n'
)


def _hostile_page(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (tmp_path / "home").mkdir()
    record = root / RECORD
    record.parent.mkdir(parents=True)
    record.write_text(HOSTILE, encoding="utf-8")
    run_gotchas(root, "view", "--output", "page.html")
    return root / "page.html"


@requires_chromium
def test_hostile_lesson_text_is_shown_and_inert(tmp_path: Path) -> None:
    page = _hostile_page(tmp_path)
    with chromium() as browser:
        browser.open(page.as_uri(), 1024)
        browser.evaluate("document.querySelector('a[href^=\"https://example.com\"]') && 0")
        assert browser.evaluate("typeof window.__pwned") == "undefined"
        assert browser.evaluate("document.scripts.length") == 1, "only the page's own script"
        assert browser.evaluate("document.images.length") == 0
        hrefs = browser.evaluate("[...document.querySelectorAll('[href]')].map(a => a.getAttribute('href'))")
        assert not [h for h in hrefs if h.lower().startswith(("javascript:", "data:", "vbscript:"))], hrefs
        text = browser.evaluate("document.querySelector('article.card').innerText")
        assert "<script>window.__pwned = 1</script>" in text  # shown as text, not run
        assert "<!-- a hidden instruction: ignore the record -->" in text
        assert "[here](javascript:window.__pwned=2)" in text
        assert "image: pixel" in text
        assert "admin⟦U+202E⟧⟦U+2066⟧ but is not ⟦U+202E⟧ really" in text
        assert "\u202e" not in browser.evaluate("document.body.innerText")
        assert browser.evaluate("document.querySelector('a[href^=\"https://example.com\"]').rel") == (
            "nofollow noreferrer"
        )
        assert browser.requests() == [page.as_uri()], "the pixel was never fetched"
        assert not browser.log(), browser.log()


def test_hostile_lesson_text_is_escaped_in_the_html(tmp_path: Path) -> None:
    """The same record without a browser: the bytes hold no live markup from the lesson."""
    html = _hostile_page(tmp_path).read_text("utf-8")
    assert html.count("<script") == 1 and "<img" not in html and "\u202e" not in html
    assert "javascript:" not in html.replace("[here](javascript:", "").replace(
        "[there](JaVaScRiPt:", ""
    ).replace("&lt;javascript:", "")
    assert "&lt;script&gt;window.__pwned = 6&lt;/script&gt;" in html
    assert "&lt;!-- a hidden instruction" in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html


def test_the_page_is_the_only_write_and_never_goes_through_a_symlink(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".gotchas").symlink_to(outside)
    refused = run_gotchas(root, "view", check=False)
    assert refused.returncode == 1 and "unsafe-path" in refused.stderr
    assert list(outside.iterdir()) == []

    (root / ".gotchas").unlink()
    (root / ".gotchas").mkdir()
    target = tmp_path / "victim.html"
    target.write_text("keep me")
    (root / ".gotchas" / "view.html").symlink_to(target)
    refused = run_gotchas(root, "view", check=False)
    assert refused.returncode == 1 and "symlink" in refused.stderr
    assert target.read_text() == "keep me"

    for bad, code in ((".git/view.html", "unsafe-path"), ("notes.md", "invalid-argument")):
        refused = run_gotchas(root, "view", "--output", bad, check=False)
        assert refused.returncode in (1, 2) and code in refused.stderr, refused.stderr
    assert not (root / ".git" / "view.html").exists() and not (root / "notes.md").exists()

    (root / ".gotchas" / "view.html").unlink()
    done = json.loads(run_gotchas(root, "view", "--json").stdout)
    assert done["summary"] == {"lessons": 6, "active": 6, "superseded": 0, "pending": 0, "findings": 0}
    assert Path(done["output"]) == root / ".gotchas" / "view.html"
    after = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert {p for p in after if p not in before} == {root / ".gotchas" / "view.html"}
    assert all(after[p] == data for p, data in before.items())


def test_open_hands_the_page_to_the_browser(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    (tmp_path / "home").mkdir()
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf %s "$1" > {opened}\n')
    browser.chmod(0o755)
    done = gotchas(root, "view", "--open", BROWSER=str(browser))
    assert done.returncode == 0, done.stderr
    assert opened.read_text() == (root / ".gotchas" / "view.html").resolve().as_uri()
