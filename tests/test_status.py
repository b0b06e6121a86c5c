"""Status: markers in titles and fields read into one normalised word, the text kept."""

from __future__ import annotations

import pytest

from gotchas import query, record, status

TITLES = [
    ("Token cache leaks (resolved 2026-04-19)", "resolved", "(resolved 2026-04-19)", "2026-04-19"),
    ("Token cache leaks (Resolved)", "resolved", "(Resolved)", None),
    ("~~Retry storm on deploy~~ (Resolved)", "resolved", "(Resolved)", None),
    ("~~Retry storm on deploy~~", "resolved", "~~Retry storm on deploy~~", None),
    ("✅ FIXED: Lockfile drift", "fixed", "✅ FIXED", None),
    ("2. ✅ Fixed: Wrong upsert syntax", "fixed", "✅ Fixed", None),
    ("✅ Resolved 2026-03-02 — queue stalls", "resolved", "✅ Resolved 2026-03-02", "2026-03-02"),
    ("FIXED — Lockfile drift", "fixed", "FIXED —", None),
    ("Lockfile drift — FIXED 2026-01-08", "fixed", "FIXED 2026-01-08", "2026-01-08"),
    ("[SUPERSEDED 2026-03-01 — see the v2 notes] Old auth rule", "superseded", None, "2026-03-01"),
    ("Old auth rule [WONTFIX]", "wontfix", "[WONTFIX]", None),
    ("Socket reuse (won't fix)", "wontfix", "(won't fix)", None),
    ("OPEN — token leak in the worker", "open", "OPEN —", None),
    ("Flaky upload (not fixed)", "open", "(not fixed)", None),
    ("Дубли заказов (закрыто 2026-05-24)", "closed", "(закрыто 2026-05-24)", "2026-05-24"),
    ("【已解决】缓存失效", "resolved", "【已解决】", None),
    ("キャッシュの不整合（解決済み）", "resolved", "（解決済み）", None),
    ("Tom hurtigbuffer (løst)", "resolved", "(løst)", None),
    ("Cache périmé (résolu)", "resolved", "(résolu)", None),
]


@pytest.mark.parametrize(("title", "value", "text", "date"), TITLES)
def test_title_markers(title: str, value: str, text: str | None, date: str | None) -> None:
    found = status.from_title(title)
    assert found is not None
    assert found.value == value
    if text is not None:
        assert found.text == text
    assert found.date == date


NOT_STATUS_TITLES = [
    "Fix: pin the toolchain",
    "Fixed-size buffers overflow",
    "Open: the file handle stays",
    "Closed sockets are reused",
    "Resolve DNS once per worker",
    "Upsert mirror (found 2026-07-13)",
    "Status codes from the proxy",
    "Use `~~` for strikethrough in docs",
    "The build is done in CI (mostly)",
]


@pytest.mark.parametrize("title", NOT_STATUS_TITLES)
def test_titles_without_a_status(title: str) -> None:
    assert status.from_title(title) is None


FIELDS = [
    ("✅ **FIXED 2026-01-08**", "fixed", "2026-01-08"),
    ("**Resolved**", "resolved", None),
    ("RESOLVED.", "resolved", None),
    ("закрыто 2026-05-24", "closed", "2026-05-24"),
    ("已解决", "resolved", None),
    ("解決済み", "resolved", None),
    ("løst", "resolved", None),
    ("behoben", "fixed", None),
    ("open", "open", None),
    ("❌", "open", None),
    ("✅", "resolved", None),
    ("won't fix", "wontfix", None),
    ("superseded", "superseded", None),
    ("In review", "in review", None),
    ("Under investigation.", "open", None),
    ("**In progress**", "open", None),
    ("Investigating — see #12", "open", None),
    ("en cours", "open", None),
    ("active", "active", None),  # the default, kept as written
]


@pytest.mark.parametrize(("value", "normal", "date"), FIELDS)
def test_status_field_values(value: str, normal: str, date: str | None) -> None:
    found = status.from_field(value)
    assert (found.value, found.text, found.date) == (normal, value, date)


def test_a_status_line_bolded_whole() -> None:
    found = status.from_bold_line("intro\n**Status: RESOLVED.** The keys moved.\n")
    assert found is not None
    assert (found.value, found.text) == ("resolved", "Status: RESOLVED.")
    assert status.from_bold_line("**Status: under discussion** later") is None
    assert status.from_bold_line("the status: fixed in prose") is None


RECORD = """# Lessons

### Lockfile drift — FIXED 2026-01-08

The lockfile and the manifest disagreed.

### Retry storm

- **Status:** ✅ **FIXED 2026-02-01**
- tasks: #12

### ~~Stale DNS cache~~

Resolved by pinning the resolver.

### Token refresh race

Статус: закрыто 2026-05-24

### Upload hangs

**Status: Open.** Still seen weekly.

### Worker pool sizing

status: In review

### Old auth rule

red-herring-for: #664 · superseded-by: new-auth-rule (for #664)
status: fixed

### Legacy cache note

superseded-by: new-cache-note

### Fixed-size buffers overflow

Nothing about status here.
"""


def test_entries_carry_normalised_status_and_raw_text() -> None:
    parsed = record.parse(RECORD.encode())
    seen = {e.title: (e.status, e.status_text, e.status_date) for e in parsed.entries}
    assert seen == {
        "Lockfile drift — FIXED 2026-01-08": ("fixed", "FIXED 2026-01-08", "2026-01-08"),
        "Retry storm": ("fixed", "✅ **FIXED 2026-02-01**", "2026-02-01"),
        "~~Stale DNS cache~~": ("resolved", "~~Stale DNS cache~~", None),
        "Token refresh race": ("closed", "закрыто 2026-05-24", "2026-05-24"),
        "Upload hangs": ("open", "Status: Open.", None),
        "Worker pool sizing": ("in review", "In review", None),
        "Old auth rule": ("red-herring", "fixed", None),
        "Legacy cache note": ("superseded", "superseded-by", None),
        "Fixed-size buffers overflow": ("active", None, None),
    }


@pytest.mark.parametrize(
    ("wanted", "titles"),
    [
        ("fixed", ["Lockfile drift — FIXED 2026-01-08", "Retry storm"]),
        ("FIXED", ["Lockfile drift — FIXED 2026-01-08", "Retry storm"]),
        ("закрыто", ["Token refresh race"]),
        ("superseded", ["Legacy cache note"]),
        ("red-herring", ["Old auth rule"]),
        ("active", ["Fixed-size buffers overflow"]),
        ("in review", ["Worker pool sizing"]),
    ],
)
def test_status_filter_uses_the_normalised_value(wanted: str, titles: list[str]) -> None:
    parsed = record.parse(RECORD.encode())
    assert [e.title for e in query.select(parsed, status=wanted)] == titles


def test_listing_shows_normal_status_and_detail_the_raw_text() -> None:
    parsed = record.parse(RECORD.encode())
    entry = parsed.entries[1]
    assert query.summary(entry, parsed)["status"] == "fixed"
    detail = query.detail(entry, parsed)
    assert (detail["status"], detail["status_text"], detail["status_date"]) == (
        "fixed",
        "✅ **FIXED 2026-02-01**",
        "2026-02-01",
    )
    listed = query.listing(parsed, "lessons.md", status="fixed")
    assert "fixed" in query.table(listed).splitlines()[0]


def test_a_status_on_the_first_line_outside_the_title() -> None:
    from gotchas.status import from_lead_line

    resolved = from_lead_line("- **Thumbnails stretch** (Resolved) — request 2x images.")
    assert resolved is not None and (resolved.value, resolved.text) == ("resolved", "(Resolved)")
    dated = from_lead_line("- **El buscador ignora tildes** — resuelto 2026-03-10 con un analizador.")
    assert dated is not None and (dated.value, dated.date) == ("resolved", "2026-03-10")
    row = from_lead_line("| Printing cuts the last column | ✅ Fixed | — |")
    assert row is not None and row.value == "fixed"
    assert from_lead_line("| Safari 14 blank | Won't fix | Update |").value == "wontfix"  # type: ignore[union-attr]
    # a fix described after the lead, an undated word, or a row without a status cell: no status
    assert from_lead_line("- **Cache keys** — fixed by adding the flags.") is None
    assert from_lead_line("| Drain nodes first | Ops |") is None
    assert from_lead_line("- Plain bullet (Resolved)") is None
