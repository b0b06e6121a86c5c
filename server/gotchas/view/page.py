"""The page: one :class:`~gotchas.view.model.Page` rendered to one self-contained HTML string.

Pure. Every value from the repository goes through :func:`~gotchas.view.text.esc` (or the
sanitising Markdown renderer for lesson bodies); every ``href`` is a fragment of this page
built from a percent-encoded id, a link rebuilt from checked parts
(:mod:`gotchas.view.hosting`), or a link markdown-it normalised and
:func:`~gotchas.view.text.safe_link` admitted. Meaning never rests on colour alone: each
badge says its state in words, struck text carries a label, arrows read as words too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gotchas.view import assets
from gotchas.view.model import Card, Finding, Hold, Page, Pending, Step, Timeline
from gotchas.view.text import anchor, esc, inline, parser, render_all, when

ARROW = '<span class="arrow" aria-hidden="true">→</span><span class="sr"> replaced by </span>'
OPEN_BODIES = 200
"""Up to this many lessons, every lesson's text is open; beyond, each opens on a click, so a
big record's page lays out its cards and not every body."""

_STATUS_BADGE = {
    "active": ("b-ok", "✓", "active"),
    "superseded": ("b-bad", "✕", "superseded"),
    "red-herring": ("b-bad", "✕", "red herring"),
    "open": ("b-warn", "○", "open"),
    "fixed": ("b-info", "●", "fixed"),
    "resolved": ("b-info", "●", "resolved"),
    "closed": ("b-info", "●", "closed"),
    "wontfix": ("", "–", "won't fix"),
}
_HOLD_BADGE = {
    "released": ("b-ok", "▶", "released"),
    "held": ("b-warn", "⏸", "held"),
    "unsatisfiable": ("b-bad", "✕", "unsatisfiable"),
    "unknown": ("", "?", "unknown"),
}
_CAUSE_BADGE = {"confirmed": "b-ok", "suspected": "b-warn"}


def render_page(page: Page) -> str:
    titles: dict[str, str] = {}
    for card in page.cards:
        titles.setdefault(card.id, card.title)
    open_bodies = len(page.cards) <= OPEN_BODIES
    many = "" if open_bodies else ' class="many"'  # cards off screen are then not laid out
    parts = [
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f'<meta http-equiv="Content-Security-Policy" content="{assets.CSP}">\n',
        '<meta name="referrer" content="no-referrer">\n',
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
        '<meta name="color-scheme" content="light dark">\n',
        f"<title>Lessons · {esc(page.record)}</title>\n",
        f"<style>{assets.CSS}</style>\n</head>\n<body>\n",
        '<a class="skip" href="#lessons">Skip to the lessons</a>\n',
        _header(page),
        _filters(page),
        '<main class="wrap layout">\n<div class="side">\n',
        _timelines(page.timelines),
        _pending(page.pending, titles),
        _findings(page, titles),
        "</div>\n",
        f'<section id="lessons"{many} aria-labelledby="h-lessons">\n'
        '<h2 id="h-lessons">Lessons <span class="count">in file order</span></h2>\n',
    ]
    hrefs = page.line_hrefs
    found: dict[str, int] = {}
    for finding in page.findings:
        if finding.entry is not None:
            found[finding.entry] = found.get(finding.entry, 0) + 1
    bodies = render_all(parser(), [card.body if card.body.strip() else "" for card in page.cards])
    parts += [
        _card(card, body, hrefs.get(card.id), open_bodies, found.get(card.id, 0))
        for card, body in zip(page.cards, bodies, strict=True)
    ]
    if not page.cards:
        parts.append('<p class="empty">The record holds no lessons.</p>\n')
    parts += [
        "</section>\n</main>\n",
        f'<footer><div class="wrap">Made by <code>gotchas view</code> at {when(page.generated_at)} from '
        f"<code>{esc(page.record)}</code> (sha256 <code>{esc(page.record_sha256[:16])}</code>). A static "
        "page: it loads nothing and sends nothing.</div></footer>\n",
        f"<script>{assets.JS}</script>\n</body>\n</html>\n",
    ]
    return "".join(parts)


def _header(page: Page) -> str:
    s = page.summary
    findings = "–" if s.findings is None else f"{s.findings:,}"
    tiles = [
        ("lessons", f"{s.lessons:,}", "lesson" if s.lessons == 1 else "lessons"),
        ("active", f"{s.active:,}", "active"),
        ("superseded", f"{s.superseded:,}", "superseded"),
        ("pending", f"{s.pending:,}", "pending"),
        ("findings", findings, "finding" if s.findings == 1 else "findings"),
    ]
    items = "".join(
        f'<li class="sum-{key}"><strong>{value}</strong> {word}</li>' for key, value, word in tiles
    )
    where = (
        f' · <a href="{page.file_href}" rel="nofollow noreferrer">the file at its commit</a>'
        if page.file_href
        else ""
    )
    notices = "".join(f'<p class="notice">{esc(n)}</p>' for n in page.notices)
    return (
        '<header class="top"><div class="wrap">\n<p class="brand">gotchas</p>\n'
        f"<h1>Lessons in <code>{esc(page.record)}</code></h1>\n"
        f'<p class="sub">As of {when(page.generated_at)}{where}</p>\n'
        f'<ul class="summary" id="summary" aria-label="Summary">{items}</ul>\n{notices}</div></header>\n'
    )


def _filters(page: Page) -> str:
    tasks = "".join(f'<option value="{esc(t)}"></option>' for t in page.tasks)
    statuses = "".join(
        f'<option value="{esc(status)}">{esc(_status_word(status))} ({n:,})</option>'
        for status, n in page.statuses
    )
    total = len(page.cards)
    return (
        '<form class="filters" id="filters" role="search" aria-label="Filter the lessons">'
        '<div class="wrap">\n'
        '<label for="f-task">Task<input id="f-task" name="task" type="search" list="f-tasks" '
        'placeholder="#664" autocomplete="off" spellcheck="false"></label>\n'
        f'<datalist id="f-tasks">{tasks}</datalist>\n'
        '<label for="f-status">Status<select id="f-status" name="status">'
        f'<option value="">any status</option>{statuses}</select></label>\n'
        '<label for="f-text">Text<input id="f-text" name="text" type="search" '
        'placeholder="words in a lesson" autocomplete="off"></label>\n'
        '<output id="f-count" for="f-task f-status f-text" aria-live="polite">'
        f"{total:,} of {total:,} lessons shown</output>\n</div></form>\n"
    )


def _status_word(status: str) -> str:
    return _STATUS_BADGE[status][2] if status in _STATUS_BADGE else status


def _badge(tone: str, mark: str, word: str) -> str:
    """A badge says its state in words; the mark and the colour only repeat it."""
    return f'<span class="badge {tone}"><span aria-hidden="true">{mark}</span> {esc(word)}</span>'


def _status_badge(status: str) -> str:
    return _badge(*_STATUS_BADGE.get(status, ("", "•", status)))


def _task(task: str) -> str:
    """A task, as a button that filters the page by it (the script reads its text)."""
    return f'<button type="button" class="task">{esc(task)}</button>'


def _tasks(tasks: Iterable[str]) -> str:
    return " ".join(_task(t) for t in tasks)


def _ref(entry_id: str, title: str | None, *, struck: bool = False, dangling: bool = False) -> str:
    """A link to another lesson's card by its title, else by its id."""
    label = inline(title) if title is not None else f"<code>{esc(entry_id)}</code>"
    if dangling:
        label += " (not in the record)"
    if struck:
        label = f"<del>{label}</del>"
    return f'<a class="other" href="#{anchor(entry_id)}">{label}</a>'


def _card(card: Card, body: str, href: str | None, open_body: bool, findings: int) -> str:
    ident = anchor(card.id)
    state = card.status if card.status.replace("-", "").isalnum() else "other"
    classes = f"card st-{state}" + (" struck" if card.struck_everywhere else "")
    data_tasks = esc(" " + " ".join(card.filter_tasks) + " ")
    red = f' data-red="{esc(" " + " ".join(card.struck_for) + " ")}"' if card.struck_for else ""
    badges = [_status_badge(card.status)]
    if findings:
        word = "finding" if findings == 1 else "findings"
        badges.append(f'<a class="badge b-warn" href="#findings">⚠ {findings} {word}</a>')
    if card.root_cause:
        tone = _CAUSE_BADGE.get(card.root_cause, "")
        badges.append(f'<span class="badge {tone}">root cause: {esc(card.root_cause)}</span>')
    meta = []
    if card.tasks:
        meta.append(f"<span>{'mentions' if card.mentioned else 'tasks'} {_tasks(card.tasks)}</span>")
    start, end = card.lines
    lines = f"lines {start}–{end}" if end != start else f"line {start}"
    meta.append(
        f'<a href="{href}" rel="nofollow noreferrer">{lines}</a>' if href else f"<span>{lines}</span>"
    )
    if card.section:
        meta.append(f"<span>in {esc(card.section)}</span>")
    meta.append(f'<code class="id">{esc(card.id)}</code>')
    out = [
        f'<article class="{classes}" id="{ident}" data-tasks="{data_tasks}" '
        f'data-status="{esc(card.status)}"{red}>\n',
        f'<div class="head"><h3><a href="#{ident}">{inline(card.title)}</a></h3>'
        f'<p class="badges">{"".join(badges)}</p></div>\n',
        f'<p class="meta">{"".join(meta)}</p>\n',
        _links(card),
    ]
    if body:
        label = _struck_label(card)
        if card.struck_everywhere:
            text = f'{label}<del class="body">{body}</del>'
        elif card.struck_for:
            text = f'{label}<div class="body">{body}</div>'
        else:
            text = f'<div class="body">{body}</div>'
        out.append(
            f'<details class="text"{" open" if open_body else ""}><summary>Text</summary>{text}</details>\n'
        )
    if card.notes:
        notes = "".join(
            f"<dt>{esc(key.replace('-', ' '))}</dt><dd>{inline(value)}</dd>" for key, value in card.notes
        )
        out.append(f'<dl class="notes">{notes}</dl>\n')
    out.append("</article>\n")
    return "".join(out)


def _struck_label(card: Card) -> str:
    """Words for what the strike-through says: for which tasks, and what replaced it."""
    tasks = esc(", ".join(card.struck_for))
    by = [ref for ref in card.superseded_by if not ref.tasks or set(ref.tasks) & set(card.struck_for)]
    names = ", ".join(f"“{inline(ref.title)}”" if ref.title else f"<code>{esc(ref.id)}</code>" for ref in by)
    replaced = f": superseded by {names}" if names else ""
    if card.struck_everywhere:
        return f'<p class="struck-label">Struck through for {tasks}{replaced}</p>'
    still = esc(", ".join(card.active_for))
    return (
        f'<p class="struck-label" hidden>Struck through for {tasks}{replaced}; still active for {still}</p>'
    )


def _scope(tasks: tuple[str, ...]) -> str:
    return f"for {_tasks(tasks)} only" if tasks else "for every task"


def _links(card: Card) -> str:
    """The supersede links of a card, both ways, each as old → new with its scope."""
    items = []
    for ref in card.superseded_by:
        other = _ref(ref.id, ref.title, dangling=ref.title is None)
        items.append(
            f'<li class="out">{_badge("b-bad", "✕", "superseded")} <del>this lesson</del> {ARROW} '
            f"{other} <span>{_scope(ref.tasks)}</span></li>"
        )
    for ref in card.supersedes:
        other = _ref(ref.id, ref.title, struck=True, dangling=ref.title is None)
        items.append(
            f'<li class="in">{_badge("b-ok", "✓", "correction")} {other} {ARROW} this lesson '
            f"<span>{_scope(ref.tasks)}</span></li>"
        )
    if card.struck_for and card.active_for:
        items.append(
            f'<li class="still">{_badge("b-ok", "✓", "still active")} for {_tasks(card.active_for)}</li>'
        )
    return f'<ul class="links">{"".join(items)}</ul>\n' if items else ""


def _timelines(timelines: tuple[Timeline, ...]) -> str:
    head = (
        '<section id="timelines" aria-labelledby="h-timelines">\n<h2 id="h-timelines">Root-cause timelines '
        f'<span class="count">({len(timelines):,})</span></h2>\n'
    )
    if not timelines:
        return head + '<p class="empty">No task has had its root cause corrected.</p>\n</section>\n'
    return head + "".join(_timeline(t) for t in timelines) + "</section>\n"


def _timeline(timeline: Timeline) -> str:
    n = len(timeline.steps)
    word = "hypothesis" if n == 1 else "hypotheses"
    items = [_step(i, step) for i, step in enumerate(timeline.steps, start=1)]
    landing = timeline.landing
    if landing is not None:
        stamp = f"on {when(landing.at)}" if landing.at else "at a time not recorded"
        commit = f" in <code>{esc(landing.commit[:12])}</code>" if landing.commit else ""
        subject = f" “{esc(landing.subject)}”" if landing.subject else ""
        items.append(
            f'<li class="step landed"><p class="what">{_badge("b-info", "⬤", "landed")} '
            f"{esc(landing.task)} landed {stamp}</p>"
            f'<p class="how">{commit.strip()}{subject} (source: {esc(landing.source)})</p></li>'
        )
    for proposal_id in timeline.waiting:
        items.append(
            f'<li class="step wait"><p class="what">{_badge("b-warn", "⏳", "waiting")} '
            f'<a href="#{anchor(proposal_id)}">proposal {esc(proposal_id)}</a></p></li>'
        )
    return (
        f'<article class="panel timeline" data-task="{esc(timeline.task)}" aria-label="Timeline of '
        f'{esc(timeline.task)}">\n<h3>{_task(timeline.task)} <span class="badge">{n} {word}</span></h3>\n'
        f'<ol class="steps">{"".join(items)}</ol>\n</article>\n'
    )


def _step(n: int, step: Step) -> str:
    superseded = step.state == "superseded"
    title = f'<a href="#{anchor(step.id)}">{inline(step.title)}</a>'
    if superseded:
        badge = _badge("b-bad", "✕", "ruled out")
        title = f"<del>{title}</del>"
        tone = "off"
    elif step.state == "confirmed":
        badge = _badge("b-ok", "✓", "confirmed")
        tone = "on"
    else:
        badge = f'<span class="badge">{esc(step.state)}</span>'
        tone = "maybe"
    lines = [f'<p class="what"><span class="n">{n}.</span>{badge} {title}</p>']
    for later in step.replaced_by:
        at = f" on {when(later.at)}" if later.at else ""
        how = [x for x in (later.source, later.proposal_id, (later.commit or "")[:12] or None, later.by) if x]
        detail = f" ({esc(', '.join(how))})" if how else ""
        lines.append(
            f'<p class="how">Ruled out by <span class="arrow" aria-hidden="true">→</span> '
            f"{_ref(later.id, later.title)}{at}{detail}</p>"
        )
    if step.ruled_out:
        lines.append(f"<p>Ruled out before it: {inline('; '.join(step.ruled_out))}</p>")
    if step.diagnostic:
        lines.append(f"<p>Diagnostic: {inline(step.diagnostic)}</p>")
    return f'<li class="step {tone}">{"".join(lines)}</li>'


def _pending(pending: tuple[Pending, ...], titles: Mapping[str, str]) -> str:
    head = (
        '<section id="pending" aria-labelledby="h-pending">\n<h2 id="h-pending">Waiting to be applied '
        f'<span class="count">({len(pending):,})</span></h2>\n'
    )
    if not pending:
        return head + '<p class="empty">No stored proposal is waiting.</p>\n</section>\n'
    return head + "".join(_proposal(p, titles) for p in pending) + "</section>\n"


def _proposal(p: Pending, titles: Mapping[str, str]) -> str:
    task = f' data-task="{esc(p.task)}"' if p.task else ""
    what = (
        f"corrects {_ref(p.target_id, titles.get(p.target_id))} for {_task(p.task)}"
        if p.target_id and p.task
        else "adds a lesson"
    )
    out = [
        f'<article class="panel proposal" id="{anchor(p.id)}"{task} aria-label="Proposal {esc(p.id)}">\n',
        f'<h3><span class="badge">{esc(p.kind)}</span> {inline(p.title)}</h3>\n',
        f'<p class="meta"><code>{esc(p.id)}</code><span>{what}</span>'
        f"<span>new id <code>{esc(p.new_id)}</code></span><span>made {when(p.created_at)}</span></p>\n",
    ]
    if p.status != "pending":
        out.append(f"<p>{_badge('b-bad', '!', p.status)} {esc(p.reason)}</p>\n")
    out.append(_hold(p.hold, p.hold_now))
    if p.diff is not None:
        out.append(f'<details class="text" open><summary>Diff</summary>{_diff(p.diff)}</details>\n')
    out.append("</article>\n")
    return "".join(out)


def _hold(predicate: str | None, hold: Hold | None) -> str:
    if predicate is None:
        return "<p>No hold: it can be applied now.</p>\n"
    if hold is None:
        return f"<p>Hold <code>{esc(predicate)}</code>, not evaluated.</p>\n"
    badge = _badge(*_HOLD_BADGE.get(hold.state, ("", "?", hold.state)))
    out = [
        f'<p class="hold">{badge} hold <code>{esc(hold.predicate)}</code>, '
        f"checked {when(hold.checked_at)}</p>\n"
    ]
    for task in hold.tasks:
        evidence = "".join(f"<li>{_pairs(item)}</li>" for item in task.evidence)
        out.append(
            f"<p>{_task(task.task)} is {esc(task.state or 'unknown')} "
            f"(source: {esc(task.source or 'none')})</p>"
            f'<ul class="evidence" aria-label="Evidence for {esc(task.task)}">{evidence}</ul>\n'
        )
    return "".join(out)


def _pairs(item: Iterable[tuple[str, str]]) -> str:
    return ", ".join(f"{esc(k)}: {esc(v)}" for k, v in item)


def _diff(diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        if line.startswith(("+++", "---")):
            lines.append(f'<span class="meta-line">{esc(line)}</span>')
        elif line.startswith("+"):
            lines.append(f'<span class="add">{esc(line)}</span>')
        elif line.startswith("-"):
            lines.append(f'<span class="del">{esc(line)}</span>')
        elif line.startswith("@@"):
            lines.append(f'<span class="hunk">{esc(line)}</span>')
        else:
            lines.append(esc(line))
    return f'<pre class="diff" aria-label="Diff"><code>{chr(10).join(lines)}</code></pre>'


def _findings(page: Page, titles: Mapping[str, str]) -> str:
    head = '<section id="findings" aria-labelledby="h-findings">\n<h2 id="h-findings">Findings'
    if page.summary.findings is None:
        return (
            head + '</h2>\n<p class="empty">Not checked: <code>gotchas check</code> is not part of this '
            "version.</p>\n</section>\n"
        )
    head += f' <span class="count">({len(page.findings):,})</span></h2>\n'
    if not page.findings:
        return head + '<p class="empty">No finding: every lesson checked holds.</p>\n</section>\n'
    return (
        head
        + '<ul class="panel">'
        + "".join(_finding(f, titles) for f in page.findings)
        + "</ul>\n</section>\n"
    )


def _finding(f: Finding, titles: Mapping[str, str]) -> str:
    tone = "b-bad" if f.severity == "error" else "b-warn"
    where = _ref(f.entry, titles.get(f.entry)) if f.entry else ""
    line = f" line {f.line}" if f.line else ""
    evidence = f'<ul class="evidence"><li>{_pairs(f.evidence)}</li></ul>' if f.evidence else ""
    return (
        f'<li class="finding"><span class="badge {tone}">{esc(f.severity)}</span> <code>{esc(f.code)}</code> '
        f"{where}{line}: {esc(f.message)}{evidence}</li>"
    )
