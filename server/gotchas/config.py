"""Project configuration: ``.claude/gotchas.toml``, optional.

Zero configuration has to work on a plain git repository, so every field has a default
and the file only says what differs. A malformed file is refused with the reason rather
than half-applied, because a silently ignored ``[holds]`` table would change what a
hold trusts.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath

from gotchas.confined import read_confined
from gotchas.errors import ConfigError, GotchasError, UnknownConfigKey
from gotchas.holds import registry
from gotchas.holds.settings import (
    DEFAULT_GITHUB_API,
    DEFAULT_SOURCES,
    CommandConfig,
    GitConfig,
    GitHubConfig,
    HoldsConfig,
)
from gotchas.layout import CONFIG_PATH, DEFAULT_RECORD


@dataclass(frozen=True)
class TasksConfig:
    """``[tasks] keys = ["ABC", "PM"]``: tracker key prefixes, so ``ABC-123`` in prose is a task."""

    keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProposalsConfig:
    """``[proposals] stale_after_days = 14``: a pending proposal older than this is named at
    session start, so a forgotten one is applied or withdrawn rather than landing by surprise."""

    stale_after_days: int = 14


@dataclass(frozen=True)
class LintConfig:
    """``[lint] select = [...]``, ``ignore = [...]``: the lint codes (or code prefixes) that
    ``gotchas lint`` reports, and those it leaves out."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


@dataclass(frozen=True)
class Config:
    """Settings for one project; ``record`` is relative to the project root as written."""

    root: Path
    record: str = DEFAULT_RECORD
    entries: str | None = None
    hold_settings: HoldsConfig = field(default_factory=HoldsConfig)
    tasks: TasksConfig = field(default_factory=TasksConfig)
    lint: LintConfig = field(default_factory=LintConfig)
    proposals: ProposalsConfig = field(default_factory=ProposalsConfig)
    holds_problem: str | None = None  # why [holds] was refused; raised only where holds are used

    @property
    def record_path(self) -> Path:
        return self.root / self.record

    @property
    def holds(self) -> HoldsConfig:
        """``[holds]``, or the ConfigError that refused it: a typo there blocks deciding a
        hold (never half-applied), not listing or reading lessons, which need no holds."""
        if self.holds_problem is not None:
            raise ConfigError(self.holds_problem)
        return self.hold_settings


def load_config(root: Path) -> Config:
    """Read ``.claude/gotchas.toml`` under ``root``; defaults when it is absent."""
    try:  # as every state file: never through a symlink, never waiting on a FIFO
        text = read_confined(root / CONFIG_PATH, root).decode("utf-8")
    except FileNotFoundError:
        return Config(root=root)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{CONFIG_PATH}: cannot read it: {exc}") from None
    except GotchasError as exc:
        raise ConfigError(f"{CONFIG_PATH}: cannot read it: {exc.message}") from None
    return parse_config(text, root)


def parse_config(text: str, root: Path) -> Config:
    """Validate the TOML text of a config file; ConfigError names the key at fault."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{CONFIG_PATH}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{CONFIG_PATH}: not valid TOML: nested deeper than it can be read") from None
    _only(data, set(KEYS), "")
    record = _record(data.get("record", DEFAULT_RECORD))
    entries = _entries(data.get("entries"), data.get("lessons-section"), data.get("checkboxes"))
    entries = _sections(data.get("sections"), entries)
    tasks = _tasks(_table(data.get("tasks", {}), "tasks"))
    lint = _lint(_table(data.get("lint", {}), "lint"))
    proposals = _proposals(_table(data.get("proposals", {}), "proposals"))
    problem: str | None = None
    _check(_table(data.get("check", {}), "check"))
    try:
        holds = _holds(data.get("holds", {}))
    except ConfigError as exc:
        holds, problem = HoldsConfig(), exc.message
    return Config(
        root=root,
        record=record,
        entries=entries,
        hold_settings=holds,
        tasks=tasks,
        lint=lint,
        proposals=proposals,
        holds_problem=problem,
    )


KEYS = (
    "record",
    "entries",
    "lessons-section",
    "checkboxes",
    "sections",
    "tasks",
    "holds",
    "lint",
    "proposals",
    "check",
)
"""Every key the top level of the file may hold; any other is refused, the nearest named."""


def _lint(table: dict[str, object]) -> LintConfig:
    _only(table, {"select", "ignore"}, "lint")
    out = []
    for key in ("select", "ignore"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(
                f"{CONFIG_PATH}: lint.{key} must be a list of lint codes or code prefixes, "
                'like ["unassigned-text"]'
            )
        out.append(tuple(v.strip() for v in value))
    return LintConfig(select=out[0], ignore=out[1])


MAX_STALE_DAYS = 3650


def _proposals(table: dict[str, object]) -> ProposalsConfig:
    _only(table, {"stale_after_days"}, "proposals")
    days = table.get("stale_after_days", ProposalsConfig.stale_after_days)
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_STALE_DAYS:
        raise ConfigError(
            f"{CONFIG_PATH}: proposals.stale_after_days must be a whole number of days, 1 to {MAX_STALE_DAYS}"
        )
    return ProposalsConfig(stale_after_days=days)


def _check(table: dict[str, object]) -> None:
    """``[check] errors = [...]``: finding codes of ``gotchas check`` that fail like errors (read
    by :func:`gotchas.check.report.error_codes`; validated here so a typo is not ignored)."""
    from gotchas.check.findings import CODES

    _only(table, {"errors"}, "check")
    value = table.get("errors", [])
    if not isinstance(value, list) or not all(v in CODES for v in value):
        raise ConfigError(
            f"{CONFIG_PATH}: check.errors must be a list of finding codes from {', '.join(CODES)}"
        )


def _holds(value: object) -> HoldsConfig:
    holds_table = _table(value, "holds")
    _only(holds_table, {f.name for f in fields(HoldsConfig)}, "holds")
    return HoldsConfig(
        sources=_sources(holds_table.get("sources", list(DEFAULT_SOURCES))),
        git=_git(_table(holds_table.get("git", {}), "holds.git")),
        github=_github(_table(holds_table.get("github", {}), "holds.github")),
        command=_command(_table(holds_table.get("command", {}), "holds.command")),
    )


_TASK_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,9}$")
MAX_TASK_KEYS = 100


def _tasks(table: dict[str, object]) -> TasksConfig:
    """Declared tracker prefixes: letters then letters or digits, at most 10 characters each."""
    _only(table, {"keys"}, "tasks")
    keys = table.get("keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) and _TASK_KEY.match(k) for k in keys):
        raise ConfigError(
            f'{CONFIG_PATH}: tasks.keys must be a list of tracker key prefixes like ["ABC", "PM"] '
            "(a letter, then up to 9 letters or digits)"
        )
    if len(keys) > MAX_TASK_KEYS:
        raise ConfigError(
            f"{CONFIG_PATH}: tasks.keys lists {len(keys)} prefixes; the limit is {MAX_TASK_KEYS}"
        )
    return TasksConfig(keys=tuple(dict.fromkeys(k.upper() for k in keys)))


ENTRY_STYLES = (
    *("h1", "h2", "h3", "h4", "h5", "h6"),
    *("list", "paragraph", "hr-block", "table-row", "single", "none"),
)


def _entries(value: object, section: object = None, checkboxes: object = None) -> str | None:
    """The reading pin, when the guess is wrong: the entries' unit and/or the lessons section.

    ``entries`` is a heading level, ``list``, ``paragraph`` (lead-in paragraphs), ``hr-block``
    (blocks between ``---`` rules), ``table-row``, ``single`` (the whole file is one lesson) or
    ``none``; ``lessons-section`` is the title of the one section that holds the lessons;
    ``checkboxes = false`` (with ``list``) leaves checkbox and done-mark items out, as detection
    does. Kept as one string, ``unit[,no-checkboxes]@section`` (see ``reading.Pin``).
    """
    if value is not None and value not in ENTRY_STYLES:
        raise ConfigError(f"{CONFIG_PATH}: entries must be one of {', '.join(ENTRY_STYLES)}, got {value!r}")
    if checkboxes is not None and not isinstance(checkboxes, bool):
        raise ConfigError(f"{CONFIG_PATH}: checkboxes must be true or false, got {checkboxes!r}")
    if checkboxes is not None and value != "list":
        raise ConfigError(f'{CONFIG_PATH}: checkboxes applies only with entries = "list"')
    if section is not None and (
        not isinstance(section, str) or not section.strip() or "@" in section or len(section) > 200
    ):
        raise ConfigError(f"{CONFIG_PATH}: lessons-section must be a section title, got {section!r}")
    if value is None and section is None:
        return None
    flags = ",no-checkboxes" if checkboxes is False else ""  # reading.NO_CHECKBOXES; not imported:
    # commands that never read the record (check-hold) must not load the reading
    return f"{value or ''}{flags}{'@' + section.strip() if isinstance(section, str) else ''}"


SECTION_STYLES = (*ENTRY_STYLES, "auto")


def _sections(value: object, entries: str | None) -> str | None:
    """``[sections]``: a unit per section title (``"What went wrong" = "h3"``), ``"none"`` to
    leave a section out, ``"auto"`` to read it by detection; the rest of the file is read as
    ``entries`` says (or detected). Added to the pin string, one ``title<TAB>unit`` line each."""
    if value is None:
        return entries
    table = _table(value, "sections")
    rows = []
    for title, unit in table.items():
        if not title.strip() or len(title) > 200 or any(c in title for c in "\t\n\r@"):
            raise ConfigError(f"{CONFIG_PATH}: sections: a key must be a section title, got {title!r}")
        if unit not in SECTION_STYLES:
            raise ConfigError(
                f"{CONFIG_PATH}: sections.{title!r} must be one of {', '.join(SECTION_STYLES)}, got {unit!r}"
            )
        rows.append(f"\n{title.strip()}\t{unit}")
    return (entries or "") + "".join(rows) if rows else entries


def _record(value: object) -> str:
    text = _string(value, "record")
    pure = PurePosixPath(text)
    if pure.is_absolute() or ".." in pure.parts:
        raise ConfigError(f"{CONFIG_PATH}: record must be a path inside the project, got {text!r}")
    return text


def _sources(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{CONFIG_PATH}: holds.sources must be a list of names from {registry.NAMES}")
    unknown = [name for name in value if name not in registry.NAMES]
    if unknown:
        raise ConfigError(
            f"{CONFIG_PATH}: holds.sources: unknown source {unknown[0]!r}; known: {', '.join(registry.NAMES)}"
        )
    if not value:
        raise ConfigError(f"{CONFIG_PATH}: holds.sources is empty; no hold could ever be decided")
    if len(set(value)) != len(value):
        raise ConfigError(f"{CONFIG_PATH}: holds.sources names a source twice")
    return tuple(value)


def _git(table: dict[str, object]) -> GitConfig:
    _only(table, {"branch", "timeout"}, "holds.git")
    branch = table.get("branch")
    return GitConfig(
        branch=None if branch is None else _string(branch, "holds.git.branch"),
        timeout=_seconds(table.get("timeout", GitConfig.timeout), "holds.git.timeout"),
    )


def _github(table: dict[str, object]) -> GitHubConfig:
    _only(table, {"repo", "base_url", "token_env", "timeout"}, "holds.github")
    repo = table.get("repo")
    if repo is not None:
        repo = _string(repo, "holds.github.repo")
        owner, slash, name = repo.partition("/")
        if not (owner and slash and name) or "/" in name:
            raise ConfigError(f"{CONFIG_PATH}: holds.github.repo must be owner/name, got {repo!r}")
    base_url = _string(table.get("base_url", DEFAULT_GITHUB_API), "holds.github.base_url")
    if not base_url.startswith(("https://", "http://")):
        raise ConfigError(f"{CONFIG_PATH}: holds.github.base_url must be an http(s) URL, got {base_url!r}")
    return GitHubConfig(
        repo=repo,
        base_url=base_url.rstrip("/"),
        token_env=_string(table.get("token_env", "GITHUB_TOKEN"), "holds.github.token_env"),
        timeout=_seconds(table.get("timeout", GitHubConfig.timeout), "holds.github.timeout"),
    )


def _command(table: dict[str, object]) -> CommandConfig:
    _only(table, {"argv", "timeout"}, "holds.command")
    argv = table.get("argv", [])
    if not isinstance(argv, list) or not all(isinstance(item, str) for item in argv):
        raise ConfigError(
            f'{CONFIG_PATH}: holds.command.argv must be a list of strings, like ["tool", "{{task}}"]'
        )
    return CommandConfig(
        argv=tuple(argv),
        timeout=_seconds(table.get("timeout", CommandConfig.timeout), "holds.command.timeout"),
    )


def _table(value: object, key: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise ConfigError(f"{CONFIG_PATH}: [{key}] must be a table")
    return value


def _only(table: dict[str, object], allowed: set[str], key: str) -> None:
    """Refuse a key not in ``allowed`` (``key`` names the table; empty: the top level), naming
    the nearest known key: a typo must not leave a setting silently at its default."""
    extra = sorted(set(table) - allowed)
    if extra:
        import difflib

        near = difflib.get_close_matches(extra[0], sorted(allowed), n=1)
        where = f"[{key}] has unknown key" if key else "unknown key"
        hint = f"did you mean {near[0]!r}? known" if near else "known"
        raise UnknownConfigKey(f"{CONFIG_PATH}: {where} {extra[0]!r}; {hint}: {', '.join(sorted(allowed))}")


def _string(value: object, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{CONFIG_PATH}: {key} must be a non-empty string")
    return value


def _seconds(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{CONFIG_PATH}: {key} must be a positive number of seconds")
    return float(value)
