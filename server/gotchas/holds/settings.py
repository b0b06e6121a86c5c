"""The ``[holds]`` settings: which sources a hold asks, in which order, and each source's block.

They live beside the sources rather than in :mod:`gotchas.config`, which reads and checks the
file: the sources and their table take their settings' types from here, and the reader takes
the table's names, so each points one way."""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_SOURCES: tuple[str, ...] = ("ledger", "git")
DEFAULT_GITHUB_API = "https://api.github.com"


@dataclass(frozen=True)
class GitConfig:
    branch: str | None = None  # None: detect origin/HEAD, init.defaultBranch, main, master, HEAD
    timeout: float = 60.0


@dataclass(frozen=True)
class GitHubConfig:
    """``[holds.github]``. ``base_url`` and ``token_env`` are only requests: a host other than
    the public API, or another variable, takes effect only when the user's trust file
    (:mod:`gotchas.trust`) names the same for this repository."""

    repo: str | None = None  # None: the origin remote's owner/name
    base_url: str = DEFAULT_GITHUB_API
    token_env: str = "GITHUB_TOKEN"
    timeout: float = 10.0


@dataclass(frozen=True)
class CommandConfig:
    """``[holds.command]``: what the repository suggests; the program that runs is the one the
    user's trust file names for this repository (:mod:`gotchas.trust`), or none."""

    argv: tuple[str, ...] = ()
    timeout: float = 30.0


@dataclass(frozen=True)
class HoldsConfig:
    """``[holds]``: which sources, in which order, and one block per source that has settings
    (each source's row in :mod:`gotchas.holds.registry` builds it from its block)."""

    sources: tuple[str, ...] = DEFAULT_SOURCES
    git: GitConfig = field(default_factory=GitConfig)
    github: GitHubConfig = field(default_factory=GitHubConfig)
    command: CommandConfig = field(default_factory=CommandConfig)
