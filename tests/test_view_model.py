"""The page's pure parts without a browser: which remotes give links to the record's lines and
what those links are, one parse for every body rendering each as it would alone, hostile
text made inert, and the findings slot ``gotchas check`` fills."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gotchas import record
from gotchas.view import model
from gotchas.view.hosting import blob_id, hosting
from gotchas.view.page import render_page
from gotchas.view.text import _trim, esc, parser, render, render_all, safe_link, visible
from support.project import SCENARIO

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.parametrize(
    ("remote", "file_href"),
    [
        ("https://github.com/acme/llm-runs.git", "https://github.com/acme/llm-runs/blob/{c}/docs/a%20b.md"),
        ("https://github.com/acme/llm-runs", "https://github.com/acme/llm-runs/blob/{c}/docs/a%20b.md"),
        ("git@github.com:acme/llm-runs.git", "https://github.com/acme/llm-runs/blob/{c}/docs/a%20b.md"),
        ("ssh://git@github.com/acme/llm-runs.git", "https://github.com/acme/llm-runs/blob/{c}/docs/a%20b.md"),
        (
            "https://x-token:s3cret@github.com/acme/llm-runs.git",
            "https://github.com/acme/llm-runs/blob/{c}/docs/a%20b.md",
        ),
        (
            "https://gitlab.com/group/sub/proj.git",
            "https://gitlab.com/group/sub/proj/-/blob/{c}/docs/a%20b.md",
        ),
        (
            "git@gitlab.example.org:group/proj.git",
            "https://gitlab.example.org/group/proj/-/blob/{c}/docs/a%20b.md",
        ),
    ],
)
def test_a_known_remote_links_to_the_record_at_its_commit(remote: str, file_href: str) -> None:
    site = hosting(remote, COMMIT, "docs/a b.md")
    assert site is not None
    assert site.file_href == file_href.format(c=COMMIT)
    assert "s3cret" not in site.file_href and "x-token" not in site.file_href
    expected = "#L3-L9" if site.kind == "github" else "#L3-9"
    assert site.line_href(3, 9) == site.file_href + expected
    assert site.line_href(4, 4).endswith("#L4")


@pytest.mark.parametrize(
    "remote",
    [
        "/srv/git/llm-runs.git",
        "file:///srv/git/llm-runs.git",
        "http://github.com/acme/llm-runs.git",
        "https://bitbucket.org/acme/llm-runs.git",
        "https://github.com/acme/llm-runs.git?x=1",
        'https://github.com/acme/llm"><script>.git',
        "https://github.com/acme/../../evil",
        "https://github.com/acme/llm runs",
        "javascript:alert(1)//github.com/a/b",
        "https://github.com/only-owner",
        "https://github.com/a/b/c",
        "https://evilgithub.com/acme/llm-runs",
    ],
)
def test_any_other_remote_gives_no_link(remote: str) -> None:
    assert hosting(remote, COMMIT, "gotchas.md") is None


def test_no_link_without_a_commit_id_or_with_an_odd_path() -> None:
    assert hosting("https://github.com/a/b", "HEAD", "x.md") is None
    assert hosting("https://github.com/a/b", COMMIT, "../x.md") is None
    assert hosting("https://github.com/a/b", COMMIT, "/etc/x.md") is None


def test_the_blob_id_is_git_s() -> None:
    # `printf 'hello\n' | git hash-object --stdin`
    assert blob_id(b"hello\n", 40) == "ce013625030ba8dba906f756967f9e9ca394464a"


BLOCKS = [
    "text",
    "more words here",
    "- item",
    "- other item",
    "  - nested",
    "1. first",
    "2) second",
    "```",
    "```python",
    "~~~",
    "    indented code",
    "> quoted",
    "| a | b |",
    "|---|---|",
    "# heading",
    "===",
    "---",
    "***bold*** and `code`",
    "",
    "   ",
]


@given(st.lists(st.lists(st.sampled_from(BLOCKS), max_size=8).map("\n".join), max_size=8))
def test_one_parse_renders_every_body_as_it_renders_alone(bodies: list[str]) -> None:
    md = parser()
    assert render_all(md, bodies) == [render(md, _trim(body)) for body in bodies]


def test_bodies_that_run_into_each_other_still_render_alone() -> None:
    md = parser()
    bodies = ["intro\n\n- a\n- b", "- c\n- d", "```\nnever closed", "after the fence", "    code\n\n"]
    assert render_all(md, bodies) == [render(md, _trim(b)) for b in bodies]
    assert "<li>c</li>" in render_all(md, bodies)[1] and "<p>after the fence</p>" in render_all(md, bodies)[3]


def test_trimming_is_linear_on_hostile_blank_runs() -> None:
    assert _trim("\n \t" * 200_000 + "x" + "\n \n" * 200_000) == " \tx\n"


def test_links_are_web_mail_or_this_page_only() -> None:
    for url in ("https://a.example/b", "http://a.example", "mailto:a@b.example", "#e-some-id"):
        assert safe_link(url)
    for url in (
        "javascript:alert(1)",
        "JAVASCRIPT:x",
        "data:text/html,x",
        "vbscript:x",
        "file:///etc/passwd",
        "x.md",
    ):
        assert not safe_link(url)


def test_hostile_text_is_escaped_and_its_hidden_characters_shown() -> None:
    assert esc('<b a="1">&\'') == "&lt;b a=&quot;1&quot;&gt;&amp;&#x27;"
    assert visible("a\u202eb\u2066c\u200bd\x1be") == "a⟦U+202E⟧b⟦U+2066⟧c⟦U+200B⟧d⟦U+001B⟧e"
    md = parser()
    html = render(
        md, "<script>x()</script> <!-- c --> [a](javascript:x) &#x202E; ![i](https://t.example/p.png)"
    )
    assert (
        "<script" not in html
        and "<!--" not in html
        and "javascript:" not in html.replace("[a](javascript:", "")
    )
    assert "⟦U+202E⟧" in html and "<img" not in html and 'href="https://t.example/p.png"' in html
    fence = render(md, '```"><script>alert(1)</script>\nx\n```')
    assert (
        "<script" not in fence
        and '<span class="lang">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;</span>' in fence
    )


def test_findings_fill_their_slot_and_the_summary() -> None:
    parsed = record.parse(SCENARIO.read_bytes())
    views = [
        {
            "code": "stale-path",
            "severity": "warning",
            "entry": "shallow-clones-break-git-describe-versioning",
            "line": 80,
            "column": 1,
            "message": "cites ci/release.yml, gone since 1a2b3c",
            "evidence": {"path": "ci/release.yml", "removed_in": "1a2b3c"},
        }
    ]
    page = model.build(
        parsed, record="r.md", generated_at="2026-01-01T00:00:00Z", findings=model.findings_of(views)
    )
    assert page.summary.findings == 1
    (finding,) = page.findings
    assert finding.evidence == (("path", "ci/release.yml"), ("removed_in", "1a2b3c"))
    html = render_page(page)
    assert re.search(r'<li class="sum-findings"><strong>1</strong> finding</li>', html)
    assert (
        "<code>stale-path</code>" in html and 'href="#e-shallow-clones-break-git-describe-versioning"' in html
    )
    card = html[html.index('id="e-shallow-clones-break-git-describe-versioning"') :]
    assert '<a class="badge b-warn" href="#findings">⚠ 1 finding</a>' in card[: card.index("</article>")]
    unchecked = render_page(model.build(parsed, record="r.md", generated_at="x"))
    assert (
        '<li class="sum-findings"><strong>–</strong> findings</li>' in unchecked
        and "Not checked" in unchecked
    )
