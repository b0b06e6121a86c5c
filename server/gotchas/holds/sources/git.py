"""Git: a task landed when a commit reachable from the default branch closes it.

One ``git log <branch> --grep '#N'`` call lets git's own fixed-string search narrow
tens of thousands of commits to the few that mention the task; only those few are
parsed here, so the check costs little more than the bare search. A commit on another
branch lands nothing, and a landing that a later commit reverts does not count.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gotchas.holds.sources import Evidence, Observation, SourceFailed, format_utc, utc_now

_FIELD = "\x1f"
_RECORD = "\x1e"
_LOG_FORMAT = "%H%x1f%cI%x1f%B%x1e"
_MAX_EVIDENCE = 5

_TASK = re.compile(r"^(?:(?P<repo>[^#\s]+/[^#\s]+))?#(?P<number>\d+)$")
_REMOTE = re.compile(r"(?:[:/])(?P<owner>[^/:]+)/(?P<name>[^/]+?)(?:\.git)?/?$")
_REVERTS = re.compile(r"This reverts commit (?P<sha>[0-9a-f]{7,40})", re.IGNORECASE)


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str
    message: str

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()


def closing_reason(message: str, number: int, repo: str | None = None) -> str | None:
    """How ``message`` closes task ``number`` (of ``repo``, when known), or None.

    Accepted: GitHub's closing keywords before ``#N`` (or ``owner/repo#N``) anywhere in the
    message, a squash-merge subject ending in ``(#N)``, or a ``Task: #N`` trailer that
    says the task landed.
    """
    ref = _ref_pattern(number, repo)
    subject, _, body = message.partition("\n")
    if subject.startswith('Revert "'):
        return None
    keyword = re.compile(
        rf"(?<![\w-])(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?::\s*|\s+){ref}", re.IGNORECASE
    )
    if keyword.search(message):
        return "closing keyword"
    if re.search(rf"\({ref}\)\s*$", subject.strip(), re.IGNORECASE):
        return "squash-merge subject"
    if body and _trailer_lands(body, ref):
        return "Task trailer"
    return None


def _ref_pattern(number: int, repo: str | None) -> str:
    prefix = rf"(?:{re.escape(repo)})?" if repo else ""
    return rf"{prefix}#0*{number}(?!\d)"


def _trailer_lands(body: str, ref: str) -> bool:
    paragraphs = [p for p in re.split(r"\n\s*\n", body.strip()) if p.strip()]
    if not paragraphs:
        return False
    trailers = paragraphs[-1].splitlines()
    task_line = re.compile(rf"^\s*Task:\s*{ref}(?P<rest>.*)$", re.IGNORECASE)
    landed = re.compile(r"\blanded\b", re.IGNORECASE)
    says_landed = re.compile(r"^\s*(?:Landed:|(?:Status|State|Task-State):\s*landed\b)", re.IGNORECASE)
    mentions_task = False
    for line in trailers:
        match = task_line.match(line)
        if match:
            mentions_task = True
            if landed.search(match["rest"]):
                return True
    return mentions_task and any(says_landed.match(line) for line in trailers)


def landings(
    commits: list[Commit], number: int, repo: str | None
) -> tuple[list[tuple[Commit, str]], list[tuple[Commit, str]]]:
    """Closing commits still in effect (newest first) and those a later commit reverted.

    ``commits`` come newest first, as ``git log`` prints them.
    """
    closing: dict[str, tuple[Commit, str]] = {}
    reverted: dict[str, tuple[Commit, str]] = {}
    reverted_by: dict[str, str] = {}  # revert commit -> the sha it undid
    for commit in reversed(commits):
        reason = closing_reason(commit.message, number, repo)
        if reason is not None:
            closing[commit.sha] = (commit, reason)
            continue
        match = _REVERTS.search(commit.message)
        if match is None:
            continue
        target = _find(match["sha"], [*closing, *reverted_by])
        if target in closing:
            reverted[target] = closing.pop(target)
            reverted_by[commit.sha] = target
        elif target in reverted_by:  # a revert of a revert re-applies the landing
            original = reverted_by[target]
            if original in reverted:
                closing[original] = reverted.pop(original)
    newest_first = [entry for entry in reversed(closing.values())]
    return newest_first, list(reversed(reverted.values()))


def _find(prefix: str, shas: list[str]) -> str | None:
    for sha in shas:
        if sha.startswith(prefix.lower()):
            return sha
    return None


def parse_log(output: str) -> list[Commit]:
    commits: list[Commit] = []
    for raw in output.split(_RECORD):
        record = raw.lstrip("\n")
        if not record:
            continue
        sha, date, message = [*record.split(_FIELD, 2), "", ""][:3]
        commits.append(Commit(sha=sha.strip(), date=_utc(date), message=message.rstrip("\n")))
    return commits


def _utc(git_date: str) -> str:
    try:
        return format_utc(datetime.fromisoformat(git_date.strip()))
    except ValueError:
        return git_date.strip()


def remote_slug(url: str) -> str | None:
    """``owner/name`` of a GitHub-style remote URL (https, ssh or scp-like), or None."""
    match = _REMOTE.search(url.strip())
    if match is None:
        return None
    return f"{match['owner']}/{match['name']}"


class Git:
    """Runs the ``git`` executable in one repository: argv lists, never a shell."""

    def __init__(self, root: Path, timeout: float = 60.0) -> None:
        self.root = root
        self.timeout = timeout
        self._settings: dict[str, str] | None = None

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        argv = ["git", "-c", "log.showSignature=false", "-c", "core.quotepath=off", *args]
        try:
            result = subprocess.run(
                argv,
                cwd=self.root,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=self.timeout,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except FileNotFoundError:
            raise SourceFailed("git is not installed or not on PATH") from None
        except subprocess.TimeoutExpired:
            raise SourceFailed(f"git {args[0]} timed out after {self.timeout:g}s") from None
        except OSError as exc:
            raise SourceFailed(f"cannot run git: {exc}") from None
        if check and result.returncode != 0:
            raise SourceFailed(f"git {args[0]} failed: {_first_line(result.stderr)}")
        return result

    def settings(self) -> dict[str, str]:
        """``init.defaultBranch`` and ``remote.origin.url``, read in one call and kept."""
        if self._settings is None:
            result = self.run(
                "config",
                "--get-regexp",
                r"^(init\.defaultbranch|remote\.origin\.url)$",
                check=False,
            )
            if result.returncode not in (0, 1):  # 1: none of the keys is set
                raise SourceFailed(f"git config failed: {_first_line(result.stderr)}")
            found: dict[str, str] = {}
            for line in result.stdout.splitlines():
                key, _, value = line.partition(" ")
                found.setdefault(key.lower(), value.strip())
            self._settings = found
        return self._settings

    def origin_slug(self) -> str | None:
        url = self.settings().get("remote.origin.url")
        return remote_slug(url) if url else None

    def default_branch(self) -> str | None:
        """origin/HEAD, else init.defaultBranch, main or master if present, else HEAD.

        None when the repository has no commits at all.
        """
        configured = self.settings().get("init.defaultbranch")
        candidates = list(dict.fromkeys([name for name in (configured, "main", "master") if name]))
        listed = self.run(
            "for-each-ref",
            "--format=%(refname)%00%(symref)",
            "refs/remotes/origin/HEAD",
            *(f"refs/heads/{name}" for name in candidates),
        ).stdout
        refs: dict[str, str] = {}
        for line in listed.splitlines():
            name, _, target = line.partition("\0")
            refs[name] = target
        origin_head = refs.get("refs/remotes/origin/HEAD")
        if origin_head:
            return origin_head.removeprefix("refs/remotes/")
        for name in candidates:
            if f"refs/heads/{name}" in refs:
                return name
        head = self.run("rev-parse", "--verify", "--quiet", "HEAD", check=False)
        return "HEAD" if head.returncode == 0 else None

    def commits_mentioning(self, branch: str, number: int) -> list[Commit]:
        """Commits reachable from ``branch`` whose message mentions ``#number`` at all."""
        result = self.run(
            "log",
            branch,
            "--no-color",
            "-F",
            "-i",
            f"--grep=#{number}",
            f"--format={_LOG_FORMAT}",
            "--",
        )
        return parse_log(result.stdout)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "no message"


class GitSource:
    """Landings in the project's own repository."""

    name = "git"

    def __init__(
        self,
        root: Path,
        branch: str | None = None,
        github_repo: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        self.git = Git(root, timeout=timeout)
        self.branch = branch
        self.github_repo = github_repo

    def observe(self, task: str) -> Observation:
        match = _TASK.match(task)
        if match is None:
            return self._unknown(
                {"source": "git", "note": f"git recognises only #N and owner/repo#N, not {task}"}
            )
        number = int(match["number"])
        this_repo = self.github_repo or self.git.origin_slug()
        if match["repo"] and (this_repo is None or this_repo.lower() != match["repo"].lower()):
            where = this_repo or "no configured GitHub repository and no origin remote"
            return self._unknown({"source": "git", "note": f"{task} is not this repository's task ({where})"})
        branch = self.branch or self.git.default_branch()
        if branch is None:
            return self._unknown({"source": "git", "note": "the repository has no commits yet"})
        commits = self.git.commits_mentioning(branch, number)
        observed_at = utc_now()
        landed, reverted = landings(commits, number, this_repo)
        evidence: list[Evidence] = [
            {
                "source": "git",
                "branch": branch,
                "commit": commit.sha,
                "subject": commit.subject,
                "date": commit.date,
                "matched": reason,
            }
            for commit, reason in landed[:_MAX_EVIDENCE]
        ]
        evidence.extend(
            {
                "source": "git",
                "branch": branch,
                "commit": commit.sha,
                "subject": commit.subject,
                "date": commit.date,
                "note": "closed the task but was reverted later; not counted",
            }
            for commit, _ in reverted[:_MAX_EVIDENCE]
        )
        if landed:
            return Observation("git", "landed", evidence, observed_at)
        evidence.append({"source": "git", "branch": branch, "note": f"no commit on {branch} closes {task}"})
        return Observation("git", None, evidence, observed_at)

    def _unknown(self, note: Evidence) -> Observation:
        return Observation("git", None, [note], utc_now())
