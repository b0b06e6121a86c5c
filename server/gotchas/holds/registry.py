"""Every hold source, one row each: the one table config, decision and server read.

A row says how to build the source from the project's settings, which task states it can
report (a failed source can only hide one of those), whether it observes the system of
record (git, GitHub, a tracker) rather than what someone wrote down (the ledger), and
whether asking it reaches the network. Factories import their module on first use, so
reading the table costs nothing at start-up.

Adding a source — say GitLab — is:

1. one new file, ``holds/sources/gitlab.py``: a class with a ``name`` and
   ``observe(task) -> Observation`` that raises ``SourceFailed`` when it cannot answer;
2. one row in :data:`SOURCES` below, with a factory that builds it from the settings and
   its release hint (what a person does so the source reports the task landed);
3. its settings: a ``GitLabConfig`` dataclass and a ``gitlab`` field on ``HoldsConfig`` in
   ``holds/settings.py``, and the function in ``config.py`` that validates ``[holds.gitlab]``;
4. its test, ``tests/test_hold_gitlab.py``, beside the others.

``[holds] sources``, the precedence rules, the "unknown rather than released" rule and the
server's open-world hint all follow from the row; nothing else names the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gotchas.errors import ConfigError
from gotchas.holds.sources import TASK_STATES, Evidence, Observation, Source, SourceFailed, TaskState
from gotchas.trust import PUBLIC_GITHUB_API, Trust

if TYPE_CHECKING:
    from gotchas.holds.settings import HoldsConfig


@dataclass(frozen=True)
class ReleaseAsk:
    """What a source's release hint is asked about: a task its hold waits for (``lands``, or
    any ``terminal`` state), the project's settings, whether the source is configured here
    and what it reported about the task."""

    task: str
    kind: str  # "lands" or "terminal"
    holds: HoldsConfig
    configured: bool
    evidence: Sequence[Evidence] = ()


@dataclass(frozen=True)
class SourceSpec:
    """One kind of hold source, as the rest of the package needs to know it. ``release`` says
    how a person makes this source report the task done (None: it cannot, or is not
    configured and has nothing to offer), so every held answer ends with what would release it."""

    name: str
    build: Callable[[Path, HoldsConfig, Trust], Source]  # trust: what the user allows here
    can_report: frozenset[TaskState]
    observes: bool  # looks at the system of record, not at what people wrote down
    reaches_network: bool
    release: Callable[[ReleaseAsk], str | None] = lambda ask: None


class NotAllowed:
    """A source the repository asked for and the user has not allowed: it answers nothing,
    so the hold is ``unknown`` with evidence that says what to add, and where."""

    def __init__(self, name: str, why: str, trust: Trust, line: str) -> None:
        self.name = name
        self.message = (
            f"{why}; the repository cannot allow this itself. To allow it, {trust.how_to_allow(line)}"
        )
        self.user_config = str(trust.user_config)
        self.add = f"{trust.table()}\n{line}"

    def observe(self, task: str) -> Observation:
        raise SourceFailed(self.message, not_allowed=True, user_config=self.user_config, add=self.add)


def _ledger(root: Path, holds: HoldsConfig, trust: Trust) -> Source:
    from gotchas.holds.sources.ledger import LedgerSource

    return LedgerSource(root)


def _git(root: Path, holds: HoldsConfig, trust: Trust) -> Source:
    from gotchas.holds.sources.git import GitSource

    return GitSource(root, branch=holds.git.branch, github_repo=holds.github.repo, timeout=holds.git.timeout)


def _github(root: Path, holds: HoldsConfig, trust: Trust) -> Source:
    """Tokens go only to the host the user named (default: the public API), read only from
    the variable the user named; a repository asking for another gets :class:`NotAllowed`."""
    from gotchas.holds.sources.github import GitHubSource

    asked = holds.github
    if asked.base_url not in (PUBLIC_GITHUB_API, trust.github_base_url):
        return NotAllowed(
            "github",
            f"the repository asks to query GitHub at {asked.base_url}, a host the user has not allowed",
            trust,
            f'github_base_url = "{asked.base_url}"',
        )
    if asked.token_env not in ("GITHUB_TOKEN", trust.github_token_env):
        return NotAllowed(
            "github",
            f"the repository asks to read the token from ${asked.token_env}, "
            "a variable the user has not named",
            trust,
            f'github_token_env = "{asked.token_env}"',
        )
    return GitHubSource.from_trust(root, asked, trust)


def _command(root: Path, holds: HoldsConfig, trust: Trust) -> Source:
    """The program is the one the user named for this repository, never one the repository names."""
    from gotchas.holds.sources.command import CommandSource

    if trust.command is None:
        asked = holds.command.argv or ("tool", "{task}")
        shown = "[" + ", ".join(_toml_quote(part) for part in asked) + "]"
        return NotAllowed(
            "command",
            "the repository asks for the command source, which runs a program; the user has not allowed it",
            trust,
            f"command = {shown}  # review: this program runs on every hold check",
        )
    return CommandSource(root, argv=trust.command, timeout=trust.command_timeout)


def _toml_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_GITHUB_REF = re.compile(r"^(?:(?P<repo>[^#\s/]+/[^#\s/]+))?#(?P<number>\d+)$")


def _ledger_release(ask: ReleaseAsk) -> str | None:
    if not ask.configured:
        return None
    typed = ask.task.removeprefix("#")  # a shell reads a word starting with # as a comment
    other = " (or abandoned, cancelled, failed)" if ask.kind == "terminal" else ""
    return f"`gotchas task set {typed} landed`{other}"


def _git_release(ask: ReleaseAsk) -> str | None:
    ref = _GITHUB_REF.match(ask.task)
    if not ask.configured or ref is None:
        return None  # git reads only #N and owner/repo#N from commit messages
    home = ask.holds.github.repo
    if ref["repo"] and home and ref["repo"].lower() != home.lower():
        return None  # another repository's task: no commit here closes it
    branches = [str(e["branch"]) for e in ask.evidence if e.get("source") == "git" and e.get("branch")]
    branch = branches[0] if branches else ask.holds.git.branch or "the default branch"
    return f"a commit on {branch} whose message says `closes {ask.task}`"


def _github_release(ask: ReleaseAsk) -> str | None:
    ref = _GITHUB_REF.match(ask.task)
    if ref is None:
        return None
    repo = ref["repo"] or ask.holds.github.repo
    issue = f"{repo}#{ref['number']}" if repo else ask.task
    if not ask.configured:
        return f'add "github" to [holds] sources (and [holds.github]) so closing issue {issue} releases it'

    done = "closed (completed or not planned)" if ask.kind == "terminal" else "closed as completed"
    return f"issue {issue} {done}, or its pull request merged"


def _command_release(ask: ReleaseAsk) -> str | None:
    if not ask.configured:
        return None
    return f"the tracker asked by the [holds.command] program reports {ask.task} landed"


SOURCES: tuple[SourceSpec, ...] = (
    SourceSpec(
        "ledger",
        _ledger,
        frozenset(TASK_STATES),
        observes=False,
        reaches_network=False,
        release=_ledger_release,
    ),
    SourceSpec(
        "git", _git, frozenset({"landed"}), observes=True, reaches_network=False, release=_git_release
    ),
    SourceSpec(
        "github",
        _github,
        frozenset({"running", "landed", "abandoned"}),
        observes=True,
        reaches_network=True,
        release=_github_release,
    ),
    SourceSpec(
        "command",
        _command,
        frozenset(TASK_STATES),
        observes=True,
        reaches_network=False,
        release=_command_release,
    ),
)
"""In the order they are documented; ``[holds] sources`` picks and orders them per project."""

BY_NAME: dict[str, SourceSpec] = {spec.name: spec for spec in SOURCES}
NAMES: tuple[str, ...] = tuple(BY_NAME)


def spec(name: str) -> SourceSpec:
    """The row for ``name``; ConfigError names the known ones."""
    found = BY_NAME.get(name)
    if found is None:
        raise ConfigError(f"unknown hold source {name!r}; known: {', '.join(NAMES)}")
    return found


def build_sources(holds: HoldsConfig, root: Path, trust: Trust | None = None) -> list[Source]:
    """The configured sources, in configured order; ``trust`` defaults to the user's file."""
    if trust is None:
        from gotchas.trust import load_trust

        trust = load_trust(root)
    return [spec(name).build(root, holds, trust) for name in holds.sources]


def observes(name: str) -> bool:
    """Whether the named source looks at the system of record; unknown names do not."""
    found = BY_NAME.get(name)
    return found is not None and found.observes


def can_report(names: Iterable[str] | None = None) -> dict[str, frozenset[TaskState]]:
    """What each named source (default: every one) is able to report: the states a failure
    of it could hide."""
    return {name: spec(name).can_report for name in (NAMES if names is None else names)}


def reaches_network(names: Iterable[str]) -> bool:
    """Whether asking any of the named sources leaves the machine."""
    return any(spec(name).reaches_network for name in names)
