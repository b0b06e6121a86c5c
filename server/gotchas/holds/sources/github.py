"""GitHub issues and pull requests through the REST API (stdlib ``urllib`` only).

``GET /repos/{owner}/{repo}/issues/{n}`` answers for issues and pull requests alike;
a pull request is then read from ``/pulls/{n}`` for ``merged_at``. Every way the call
can fail — 404, 401, rate limits, a dropped connection, a timeout, a body that is not
the documented JSON — becomes a :class:`SourceFailed` that says what to do next.

Only the project's own repository is asked (``[holds.github] repo``, else the origin
remote): a task naming another ``owner/repo`` is answered unknown without a request, so
stored proposals cannot aim the user's token at repositories of their choosing.
"""

from __future__ import annotations

import http.client
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime, timedelta
from email.message import Message
from pathlib import Path
from typing import IO, TYPE_CHECKING

from gotchas import json_text
from gotchas.holds.sources import Evidence, Observation, SourceFailed, TaskState, format_utc, utc_now

if TYPE_CHECKING:
    from gotchas.holds.settings import GitHubConfig
    from gotchas.trust import Trust

API_VERSION = "2022-11-28"
_TASK = re.compile(r"^(?:(?P<repo>[^#\s]+/[^#\s]+))?#(?P<number>\d+)$")
_MAX_BODY = 5 * 1024 * 1024


class GitHubSource:
    """Issue and pull-request state on github.com or a GitHub Enterprise server."""

    name = "github"

    def __init__(
        self,
        root: Path,
        *,
        repo: str | None = None,
        base_url: str = "https://api.github.com",
        token: str | None = None,
        token_env: str = "GITHUB_TOKEN",
        timeout: float = 10.0,
    ) -> None:
        self.root = root
        self.repo = repo
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.token_env = token_env
        self.timeout = timeout

    @classmethod
    def from_trust(cls, root: Path, config: GitHubConfig, trust: Trust) -> GitHubSource:
        """Host and token variable from the user's trust, never from the repository's config."""
        return cls(
            root,
            repo=config.repo,
            base_url=trust.github_base_url,
            token=os.environ.get(trust.github_token_env) or None,
            token_env=trust.github_token_env,
            timeout=config.timeout,
        )

    def observe(self, task: str) -> Observation:
        match = _TASK.match(task)
        if match is None:
            note: Evidence = {"source": "github", "note": f"{task} is not a GitHub issue reference"}
            return Observation("github", None, [note], utc_now())
        repo = self._default_repo()
        if match["repo"] and match["repo"].lower() != repo.lower():
            why = f"{task} is not a task of this repository ({repo}); not asked"
            note = {"source": "github", "note": why}
            return Observation("github", None, [note], utc_now())
        number = int(match["number"])
        issue = self._get(f"/repos/{repo}/issues/{number}", f"{repo}#{number}")
        state: TaskState | None
        if "pull_request" in issue:
            pull = self._get(f"/repos/{repo}/pulls/{number}", f"{repo}#{number}")
            state, evidence = pull_state(pull)
        else:
            state, evidence = issue_state(issue)
        return Observation("github", state, [evidence], utc_now())

    def _default_repo(self) -> str:
        if self.repo:
            return self.repo
        from gotchas.holds.sources.git import Git

        slug = Git(self.root, timeout=self.timeout).origin_slug()
        if slug is None:
            raise SourceFailed(
                "no GitHub repository to ask: set [holds.github] repo in .claude/gotchas.toml "
                "or add an origin remote"
            )
        return slug

    def _get(self, path: str, what: str) -> dict[str, object]:
        url = self.base_url + path
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "gotchas-holds",
        }
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(url, headers=headers, method="GET")
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                body = response.read(_MAX_BODY + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc, what, url) from None
        except TimeoutError:
            raise SourceFailed(f"GitHub did not answer within {self.timeout:g}s ({url})", url=url) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, TimeoutError):
                raise SourceFailed(
                    f"GitHub did not answer within {self.timeout:g}s ({url})", url=url
                ) from None
            raise SourceFailed(f"cannot reach GitHub at {self.base_url}: {reason}", url=url) from None
        except (http.client.HTTPException, ConnectionError) as exc:
            raise SourceFailed(
                "GitHub dropped the connection before answering "
                f"({type(exc).__name__}: {exc or 'no detail'})",
                url=url,
            ) from None
        except OSError as exc:
            raise SourceFailed(f"cannot reach GitHub at {self.base_url}: {exc}", url=url) from None
        if len(body) > _MAX_BODY:
            raise SourceFailed(f"GitHub's answer for {what} is larger than expected", url=url)
        try:
            data = json_text.loads(body)
        except ValueError:
            raise SourceFailed(f"GitHub answered {what} with something that is not JSON", url=url) from None
        if not isinstance(data, dict):
            raise SourceFailed(f"GitHub answered {what} with JSON that is not an object", url=url)
        return data

    def _http_error(self, exc: urllib.error.HTTPError, what: str, url: str) -> SourceFailed:
        status = exc.code
        headers = exc.headers
        message = _error_message(exc)
        retry_at = rate_limit_retry_at(status, headers, datetime.now(UTC))
        if retry_at is not None:
            return SourceFailed(
                f"rate limited; retry after {retry_at}",
                status=status,
                retry_after=retry_at,
                url=url,
            )
        if status == 401:
            hint = (
                f"the token in ${self.token_env} was refused"
                if self.token
                else f"set ${self.token_env} to a token that can read the repository"
            )
            return SourceFailed(
                f"GitHub refused the request (401 unauthorized): {hint}", status=status, url=url
            )
        if status == 404:
            hint = "" if self.token else f"; a private repository also answers 404 without ${self.token_env}"
            return SourceFailed(
                f"GitHub has no issue or pull request {what} (404){hint}", status=status, url=url
            )
        if status == 403:
            return SourceFailed(f"GitHub forbids reading {what} (403): {message}", status=status, url=url)
        return SourceFailed(f"GitHub answered {status} for {what}: {message}", status=status, url=url)


class _SameOriginRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to the same scheme and host: the token must not travel on."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        old, new = urllib.parse.urlsplit(req.full_url), urllib.parse.urlsplit(newurl)
        if (old.scheme, old.netloc) != (new.scheme, new.netloc):
            return None  # the 3xx is then reported as an HTTP error
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOriginRedirects)


def rate_limit_retry_at(status: int, headers: Message | None, now: datetime) -> str | None:
    """When to retry a rate-limited request, as ISO-8601 UTC; None when it was not a rate limit.

    GitHub signals primary limits with ``x-ratelimit-remaining: 0`` and an epoch
    ``x-ratelimit-reset``, secondary limits with ``retry-after`` seconds, on 403 or 429.
    """
    if status not in (403, 429) or headers is None:
        return None
    retry_after = headers.get("retry-after")
    remaining = headers.get("x-ratelimit-remaining")
    reset = headers.get("x-ratelimit-reset")
    if retry_after is not None and retry_after.strip().isdigit():
        return format_utc(now + timedelta(seconds=int(retry_after.strip())))
    if remaining is not None and remaining.strip() == "0":
        if reset is not None and reset.strip().isdigit():
            return format_utc(datetime.fromtimestamp(int(reset.strip()), UTC))
        return format_utc(now + timedelta(minutes=1))
    if status == 429:
        return format_utc(now + timedelta(minutes=1))
    return None


def _error_message(exc: urllib.error.HTTPError) -> str:
    try:
        data = json_text.loads(exc.read(64 * 1024) or b"{}")
    except (ValueError, OSError, http.client.HTTPException):
        return exc.reason or "no detail"
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    return str(exc.reason or "no detail")


MAINTAINERS = frozenset({"OWNER", "MEMBER", "COLLABORATOR"})
"""``author_association`` values of people with write access to the repository."""


def _login(value: object) -> str | None:
    login = value.get("login") if isinstance(value, dict) else None
    return login if isinstance(login, str) else None


def closed_by_outside_author(issue: dict[str, object]) -> bool:
    """Whether the issue was closed by the person who opened it, who is not a maintainer.

    Anyone may open an issue and close their own; that says nothing about the task landing,
    so it must not release a hold. A close by a maintainer, by someone with triage rights
    (only they can close another person's issue) or by a closing commit counts.
    """
    author, closer = _login(issue.get("user")), _login(issue.get("closed_by"))
    return author is not None and author == closer and issue.get("author_association") not in MAINTAINERS


def issue_state(issue: dict[str, object]) -> tuple[TaskState | None, Evidence]:
    """open → running; closed as completed (or with no reason) → landed, unless its author,
    not a maintainer, closed it (unknown: see :func:`closed_by_outside_author`); otherwise
    abandoned."""
    state = _required_str(issue, "state")
    reason = issue.get("state_reason")
    evidence: Evidence = {
        "source": "github",
        "kind": "issue",
        "url": issue.get("html_url"),
        "state": state,
        "state_reason": reason,
        "closed_at": issue.get("closed_at"),
    }
    if state == "open":
        return "running", evidence
    if state != "closed":
        raise SourceFailed(f"GitHub answered an issue state {state!r}; expected open or closed")
    if reason in (None, "completed"):
        if closed_by_outside_author(issue):
            evidence["note"] = (
                "closed by its own author, who is not a maintainer: not counted as landed; "
                "a closing commit or a maintainer's close releases it"
            )
            return None, evidence
        if reason is None:
            evidence["note"] = "closed without a reason; GitHub shows that as completed"
        return "landed", evidence
    return "abandoned", evidence  # not_planned, duplicate


def pull_state(pull: dict[str, object]) -> tuple[TaskState, Evidence]:
    """A merged pull request landed; closed unmerged was abandoned; open is still running."""
    state = _required_str(pull, "state")
    merged_at = pull.get("merged_at")
    evidence: Evidence = {
        "source": "github",
        "kind": "pull_request",
        "url": pull.get("html_url"),
        "state": state,
        "merged_at": merged_at,
        "merge_commit_sha": pull.get("merge_commit_sha"),
    }
    if merged_at:
        return "landed", evidence
    if state == "open":
        return "running", evidence
    if state == "closed":
        evidence["note"] = "closed without merging"
        return "abandoned", evidence
    raise SourceFailed(f"GitHub answered a pull request state {state!r}; expected open or closed")


def _required_str(data: dict[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise SourceFailed(f"GitHub's answer has no {key!r} field; not the documented issue shape")
    return value
