"""User-level trust: what a person allows one repository's hold sources to do.

A repository's ``.claude/gotchas.toml`` is written by whoever wrote the repository, so it
cannot choose which program runs, which host receives a token, or which environment
variable is read. Those choices live in a file only the user writes, outside every
repository: ``$GOTCHAS_USER_CONFIG``, else ``$XDG_CONFIG_HOME/gotchas/config.toml``, else
``~/.config/gotchas/config.toml``. One table per repository, keyed by its absolute root::

    [repositories."/home/me/src/proj"]
    command = ["linear-state", "{task}"]      # opt in to the command source, with this argv
    command_timeout = 30
    github_base_url = "https://ghe.example.com/api/v3"  # a GitHub host other than api.github.com
    github_token_env = "GHE_TOKEN"            # the variable that holds the token (default GITHUB_TOKEN)
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from gotchas.errors import ConfigError

USER_CONFIG_ENV = "GOTCHAS_USER_CONFIG"
PUBLIC_GITHUB_API = "https://api.github.com"
DEFAULT_TOKEN_ENV = "GITHUB_TOKEN"
_KEYS = frozenset({"command", "command_timeout", "github_base_url", "github_token_env"})


@dataclass(frozen=True)
class Trust:
    """What the user allows for one repository; the defaults allow nothing beyond public GitHub."""

    user_config: Path
    root: Path
    command: tuple[str, ...] | None = None
    command_timeout: float = 30.0
    github_base_url: str = PUBLIC_GITHUB_API
    github_token_env: str = DEFAULT_TOKEN_ENV

    def table(self) -> str:
        """The TOML table header the user adds for this repository."""
        return f"[repositories.{_toml_string(str(self.root))}]"

    def how_to_allow(self, line: str) -> str:
        """Exactly what to add, and where, to allow one thing."""
        return f"add to {self.user_config}:\n{self.table()}\n{line}"


def user_config_path(environ: dict[str, str] | None = None) -> Path:
    """Where the user's trust file is (it need not exist)."""
    env = os.environ if environ is None else environ
    explicit = env.get(USER_CONFIG_ENV)
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CONFIG_HOME")
    config_home = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return config_home / "gotchas" / "config.toml"


def load_trust(root: Path, path: Path | None = None) -> Trust:
    """The user's trust for the repository at ``root``; nothing allowed when the file or the
    repository's table is absent. A malformed file is refused with the reason."""
    where = user_config_path() if path is None else path
    resolved = _resolved(root)
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Trust(where, resolved)
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read the user config: {exc}") from None
    return parse_trust(text, resolved, where)


def parse_trust(text: str, root: Path, where: Path) -> Trust:
    """Validate the user's file and pick the table whose key resolves to ``root``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{where}: not valid TOML: nested deeper than it can be read") from None
    extra = sorted(set(data) - {"repositories"})
    if extra:
        raise ConfigError(f"{where}: unknown top-level key {extra[0]!r}; known: repositories")
    repositories = data.get("repositories", {})
    if not isinstance(repositories, dict):
        raise ConfigError(f'{where}: [repositories] must be tables like [repositories."/abs/path"]')
    for key, table in repositories.items():
        if not Path(key).is_absolute():
            raise ConfigError(f"{where}: repositories.{key!r} must be an absolute path to a repository root")
        if not isinstance(table, dict):
            raise ConfigError(f"{where}: repositories.{key!r} must be a table")
        if _resolved(Path(key)) == root:
            return _trust(table, root, where, key)
    return Trust(where, root)


def _trust(table: dict[str, object], root: Path, where: Path, key: str) -> Trust:
    name = f"{where}: repositories.{key!r}"
    extra = sorted(set(table) - _KEYS)
    if extra:
        raise ConfigError(f"{name} has unknown key {extra[0]!r}; known: {', '.join(sorted(_KEYS))}")
    command = table.get("command")
    if command is not None and (
        not isinstance(command, list)
        or not command
        or not all(isinstance(part, str) and part for part in command)
        or not any("{task}" in part for part in command)
    ):
        raise ConfigError(
            f'{name}: command must be a list of strings with a {{task}} argument, like ["tool", "{{task}}"]'
        )
    timeout = table.get("command_timeout", 30.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError(f"{name}: command_timeout must be a positive number of seconds")
    base_url = table.get("github_base_url", PUBLIC_GITHUB_API)
    if not isinstance(base_url, str) or not base_url.startswith(("https://", "http://")):
        raise ConfigError(f"{name}: github_base_url must be an http(s) URL")
    token_env = table.get("github_token_env", DEFAULT_TOKEN_ENV)
    if not isinstance(token_env, str) or not token_env.strip():
        raise ConfigError(f"{name}: github_token_env must name an environment variable")
    return Trust(
        where,
        root,
        command=None if command is None else tuple(command),
        command_timeout=float(timeout),
        github_base_url=base_url.rstrip("/"),
        github_token_env=token_env,
    )


def _resolved(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):
        return path.absolute()


def _toml_string(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
