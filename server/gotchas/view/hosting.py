"""Where the record lives on its hosting service, for links to its lines.

The remote URL is read from the repository's ``.git/config``, so it is hostile: only the
plain forms of GitHub- and GitLab-like remotes are accepted (``https://host/owner/name``,
``ssh://git@host/owner/name``, ``git@host:owner/name``), credentials in them are dropped,
and a link is rebuilt from checked parts -- a host name, path segments of URL-safe
characters, a commit id in hex -- never copied. Anything else gives no link.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = rf"(?P<host>{_LABEL}(?:\.{_LABEL})+)"
_PATH = r"(?P<path>[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+)/?"
_FORMS = (
    re.compile(rf"^https://(?:[^@/\s]+@)?{_HOST}(?::443)?/{_PATH}$"),
    re.compile(rf"^ssh://(?:[A-Za-z0-9_.-]+@)?{_HOST}(?::\d{{1,5}})?/{_PATH}$"),
    re.compile(rf"^(?:[A-Za-z0-9_.-]+@){_HOST}:(?!/){_PATH}$"),
)
MAX_REMOTE = 500
_COMMIT = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


@dataclass(frozen=True, slots=True)
class Hosting:
    """The record's file on a hosting service at one commit: ``line_href`` gives its lines."""

    kind: Literal["github", "gitlab"]
    base: str  # https://host/owner/name
    commit: str
    path: str  # the record's path in the repository, percent-encoded segment by segment

    @property
    def file_href(self) -> str:
        middle = "/-/blob/" if self.kind == "gitlab" else "/blob/"
        return f"{self.base}{middle}{self.commit}/{self.path}"

    def line_href(self, start: int, end: int) -> str:
        if self.kind == "gitlab":
            return f"{self.file_href}#L{start}-{end}" if end != start else f"{self.file_href}#L{start}"
        return f"{self.file_href}#L{start}-L{end}" if end != start else f"{self.file_href}#L{start}"


def hosting(remote: str, commit: str, path: str) -> Hosting | None:
    """The hosting of a remote URL, or ``None`` for any form not accepted (a local path, an
    unknown host, a URL with a query, a path segment ``..``, anything with a space)."""
    if not _COMMIT.match(commit) or not path or path.startswith("/") or len(remote) > MAX_REMOTE:
        return None
    for form in _FORMS:
        match = form.match(remote.strip())
        if match is not None:
            break
    else:
        return None
    host = match["host"].lower()
    segments = match["path"].removesuffix(".git").split("/")
    if any(part in (".", "..") or part.startswith(".") for part in segments):
        return None
    label = host.split(".")
    kind: Literal["github", "gitlab"]
    if "github" in label:
        kind = "github"
        if len(segments) != 2:
            return None
    elif "gitlab" in label:
        kind = "gitlab"
    else:
        return None
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return None
    encoded = "/".join(quote(part, safe="") for part in parts)
    return Hosting(kind, f"https://{host}/{'/'.join(segments)}", commit, encoded)


def blob_id(data: bytes, object_format: int) -> str:
    """Git's object id of a file with ``data``: the record links only when HEAD holds these bytes."""
    header = b"blob %d\0" % len(data)
    digest = hashlib.sha256 if object_format == 64 else hashlib.sha1
    return digest(header + data).hexdigest()
