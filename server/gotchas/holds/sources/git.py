"""Git: a task landed when a commit reachable from the default branch closes it, unreverted.

One ``git log --topo-order <branch> --grep '#N' --grep 'This reverts commit'`` call lets
git's own fixed-string search narrow tens of thousands of commits to the few that
mention the task or revert something; only those few are parsed here. History is read
in topological order, ancestors first, so a commit dated in the future cannot jump
ahead of the revert that undid it. A revert of a merge undoes every landing the merge
brought in; that takes one ``git rev-list`` per such merge, and only when a landing
precedes it.

The repository is hostile input: no name read from it reaches git as an option (names
are checked, and ``--end-of-options`` ends git's options before any of them), and git
runs with the settings a hostile ``.git/config`` could use to start a program turned off.
"""

from __future__ import annotations

import bisect
import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from gotchas.holds.sources import Evidence, Observation, SourceFailed, format_utc, utc_now
from gotchas.holds.sources.landing import RevertRef, closing_reason, revert_refs
from gotchas.holds.sources.refname import checked_ref_name, ref_name_problem

__all__ = [
    "Commit",
    "Git",
    "GitSource",
    "Landing",
    "choose_default_branch",
    "closing_reason",
    "landings",
    "parse_log",
    "remote_slug",
]

_FIELD = "\x1f"
_LOG_FORMAT = "%H%x1f%P%x1f%cI%x1f%B"
_REVERT_GREP = "This reverts commit"
_MAX_EVIDENCE = 5
_HEX = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")

_TASK = re.compile(r"^(?:(?P<repo>[^#\s]+/[^#\s]+))?#(?P<number>\d+)$")
_REMOTE = re.compile(r"(?:[:/])(?P<owner>[^/:]+)/(?P<name>[^/]+?)(?:\.git)?/?$")

# Settings a hostile .git/config could use to make a read-only git command run a program
# or write a file, each pinned to a harmless value on the command line (which wins over
# every config file): no fsmonitor daemon, no hooks, no pager, no signature program, no
# transport at all (a partial clone would otherwise fetch missing objects through a
# configured upload-pack program), and one output encoding.
SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "pager.log=false",
    "log.showSignature=false",
    "protocol.allow=never",
    "i18n.logOutputEncoding=UTF-8",
    "core.quotepath=off",
)
SAFE_ENV: dict[str, str] = {
    "GIT_TERMINAL_PROMPT": "0",  # never ask for credentials
    "GIT_OPTIONAL_LOCKS": "0",  # a read must not refresh and rewrite the index
    "GIT_NO_LAZY_FETCH": "1",  # git >= 2.44: never fetch missing objects
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str
    message: str
    parents: tuple[str, ...] = ()

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()


@dataclass(frozen=True)
class Landing:
    """A commit that closes the task; ``reverted_by`` names the revert still in effect, if any."""

    commit: Commit
    reason: str
    reverted_by: str | None = None


@dataclass(frozen=True)
class BranchChoice:
    """The branch whose history decides landings, or None with the reason it is not known."""

    branch: str | None
    reason: str


# --- the pure part -------------------------------------------------------------------------


def parse_log(output: str) -> list[Commit]:
    """Commits of ``git log -z --format=%H%x1f%P%x1f%cI%x1f%B``; malformed records are dropped."""
    commits: list[Commit] = []
    for record in output.split("\0"):
        fields = record.lstrip("\n").split(_FIELD, 3)
        if len(fields) != 4:
            continue
        sha, parents, date, message = fields
        parent_shas = tuple(parents.split())
        if not _HEX.match(sha) or not all(_HEX.match(parent) for parent in parent_shas):
            continue
        commits.append(Commit(sha=sha, date=_utc(date), message=message.rstrip("\n"), parents=parent_shas))
    return commits


def landings(
    commits: Sequence[Commit],
    number: int,
    repo: str | None,
    brought_in: Mapping[str, frozenset[str]] | None = None,
) -> tuple[list[Landing], list[Landing]]:
    """Closing commits still in effect and those a revert in effect undid, both newest first.

    ``commits`` come as ``git log --topo-order`` prints them: every commit before its
    ancestors. They are walked ancestors first; a revert undoes only commits already
    walked (so reverts cannot form a cycle), and a revert that is itself reverted undoes
    nothing. ``brought_in`` maps the sha named by a revert of a merge to the commits
    that merge brought in (see :func:`merges_to_expand`).
    """
    expansions = brought_in or {}
    walk = list(reversed(commits))
    reasons = {commit.sha: closing_reason(commit.message, number, repo) for commit in walk}
    undoers: dict[str, list[str]] = {}
    seen: list[str] = []  # sorted full shas walked so far, for abbreviated lookups
    position: dict[str, int] = {}
    for index, commit in enumerate(walk):
        for ref in revert_refs(commit.message):
            targets = set(expansions.get(ref.sha, frozenset()))
            resolved = _resolve(ref.sha, seen)
            if resolved is not None:
                targets.add(resolved)
            for target in targets:
                if target in position:
                    undoers.setdefault(target, []).append(commit.sha)
        position[commit.sha] = index
        bisect.insort(seen, commit.sha)
    in_effect: dict[str, bool] = {}
    undone_by: dict[str, str] = {}
    for commit in reversed(walk):  # newest first: every undoer is decided before its target
        active = [sha for sha in undoers.get(commit.sha, []) if in_effect[sha]]
        in_effect[commit.sha] = not active
        if active:
            undone_by[commit.sha] = active[-1]
    effective: list[Landing] = []
    reverted: list[Landing] = []
    for commit in commits:
        reason = reasons[commit.sha]
        if reason is None:
            continue
        if in_effect[commit.sha]:
            effective.append(Landing(commit, reason))
        else:
            reverted.append(Landing(commit, reason, reverted_by=undone_by[commit.sha]))
    return effective, reverted


def merges_to_expand(commits: Sequence[Commit], number: int, repo: str | None) -> list[RevertRef]:
    """Reverts whose target git must describe: not among ``commits`` or a merge, after a landing.

    A revert of a commit outside the search results can only matter if that commit is a
    merge that brought a landing in; asking git costs a call, so only reverts walked
    after some landing are asked about.
    """
    walk = list(reversed(commits))
    by_sha = {commit.sha: commit for commit in walk}
    shas = sorted(by_sha)
    wanted: list[RevertRef] = []
    landed = False
    for commit in walk:
        if landed:
            for ref in revert_refs(commit.message):
                resolved = _resolve(ref.sha, shas)
                if resolved is None or len(by_sha[resolved].parents) > 1:
                    wanted.append(ref)
        landed = landed or closing_reason(commit.message, number, repo) is not None
    return list(dict.fromkeys(wanted))


def choose_default_branch(
    refs: Mapping[str, str], has_origin: bool, init_default: str | None
) -> BranchChoice:
    """Which branch is the default, from ``refs`` (full name -> symref target) git listed.

    ``origin/HEAD`` when it exists. Otherwise exactly one of ``init.defaultBranch``,
    ``main`` and ``master`` must exist — on ``origin`` when there is an origin remote
    (local commits have not landed until pushed), else locally. Two of them, or none,
    is not a guess this makes: the answer is None with the reason.
    """
    candidates = list(dict.fromkeys(name for name in (init_default, "main", "master") if name))
    target = refs.get("refs/remotes/origin/HEAD", "")
    short = target.removeprefix("refs/remotes/")
    if target.startswith("refs/remotes/") and ref_name_problem(short) is None:
        return BranchChoice(short, "origin/HEAD")
    configure = 'set [holds.git] branch = "<name>" in .claude/gotchas.toml'
    if has_origin:
        found = [f"origin/{name}" for name in candidates if f"refs/remotes/origin/{name}" in refs]
        if len(found) == 1:
            return BranchChoice(found[0], f"origin has no HEAD; {found[0]} is its only default-like branch")
        why = f"both {' and '.join(found)} exist" if found else f"none of {', '.join(candidates)} is there"
        return BranchChoice(
            None,
            f"cannot tell origin's default branch: origin/HEAD is not set and {why}; "
            f"run `git remote set-head origin --auto` or {configure}",
        )
    found = [name for name in candidates if f"refs/heads/{name}" in refs]
    if len(found) == 1:
        return BranchChoice(found[0], f"no origin remote; {found[0]} is the only default-like branch")
    why = f"both {' and '.join(found)} exist" if found else f"none of {', '.join(candidates)} exists"
    return BranchChoice(
        None,
        f"cannot tell the default branch: there is no origin remote and {why} "
        f"(the current branch may be unmerged work); {configure}",
    )


def remote_slug(url: str) -> str | None:
    """``owner/name`` of a GitHub-style remote URL (https, ssh or scp-like), or None."""
    match = _REMOTE.search(url.strip())
    if match is None:
        return None
    return f"{match['owner']}/{match['name']}"


def _resolve(prefix: str, sorted_shas: list[str]) -> str | None:
    """The one sha in ``sorted_shas`` starting with ``prefix``; None if none or several do."""
    at = bisect.bisect_left(sorted_shas, prefix)
    if at == len(sorted_shas) or not sorted_shas[at].startswith(prefix):
        return None
    if at + 1 < len(sorted_shas) and sorted_shas[at + 1].startswith(prefix):
        return None
    return sorted_shas[at]


def _utc(git_date: str) -> str:
    try:
        return format_utc(datetime.fromisoformat(git_date.strip()))
    except ValueError:
        return git_date.strip()


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "no message"


# --- the shell -----------------------------------------------------------------------------


class Git:
    """Runs the ``git`` executable in one repository: argv lists, never a shell, never a pager."""

    def __init__(self, root: Path, timeout: float = 60.0) -> None:
        self.root = root
        self.timeout = timeout
        self._settings: dict[str, str] | None = None

    def run(
        self,
        *args: str,
        check: bool = True,
        stdin: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``git args`` with the safe settings; ``env`` adds variables (an index file, say)."""
        argv = ["git", "--no-pager"]
        for setting in SAFE_CONFIG:
            argv += ["-c", setting]
        argv += args
        try:
            result = subprocess.run(
                argv,
                cwd=self.root,
                env={**os.environ, **SAFE_ENV, **(env or {})},
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=self.timeout,
                input=stdin if stdin is not None else "",
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

    def choose_branch(self) -> BranchChoice:
        """The default branch by :func:`choose_default_branch`, from one ``for-each-ref``."""
        settings = self.settings()
        init_default = settings.get("init.defaultbranch")
        if init_default is not None and ref_name_problem(init_default) is not None:
            init_default = None  # not a name git could have created; ignore it
        candidates = list(dict.fromkeys(name for name in (init_default, "main", "master") if name))
        patterns = ["refs/remotes/origin/HEAD"]
        patterns += [f"refs/remotes/origin/{name}" for name in candidates]
        patterns += [f"refs/heads/{name}" for name in candidates]
        listed = self.run("for-each-ref", "--format=%(refname)%00%(symref)", *patterns).stdout
        refs: dict[str, str] = {}
        for line in listed.splitlines():
            name, _, target = line.partition("\0")
            refs[name] = target
        return choose_default_branch(refs, "remote.origin.url" in settings, init_default)

    def default_branch(self) -> str | None:
        """The default branch's name, or None when it cannot be told (see :meth:`choose_branch`)."""
        return self.choose_branch().branch

    def history(self, branch: str, number: int) -> list[Commit]:
        """Commits reachable from ``branch`` that mention ``#number`` or revert a commit.

        Newest first in topological order: a commit always comes before its ancestors,
        whatever its date says.
        """
        checked_ref_name(branch, "the branch")
        result = self.run(
            "log",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--no-notes",
            "--topo-order",
            "-z",
            "-F",
            "-i",
            f"--grep=#{number}",
            f"--grep={_REVERT_GREP}",
            f"--format={_LOG_FORMAT}",
            "--end-of-options",
            branch,
            "--",
        )
        return parse_log(result.stdout)

    def brought_in(self, refs: Sequence[RevertRef]) -> dict[str, frozenset[str]]:
        """For each reverted merge among ``refs``: every commit it brought in, and itself.

        What a merge brings in is what it reaches and its mainline parent does not: the
        parent named by ``reversing changes made to``, else the first parent.
        """
        if not refs:
            return {}
        described = self.run(
            "rev-list",
            "--no-walk",
            "--parents",
            "--ignore-missing",
            "--stdin",
            stdin="".join(f"{ref.sha}\n" for ref in refs),
            check=False,
        )
        parents_of: dict[str, list[str]] = {}
        for line in described.stdout.splitlines():
            sha, *parents = line.split()
            if _HEX.match(sha) and all(_HEX.match(parent) for parent in parents):
                parents_of[sha] = parents
        expansions: dict[str, frozenset[str]] = {}
        for ref in refs:
            merge = _resolve(ref.sha, sorted(parents_of))
            if merge is None or len(parents_of[merge]) < 2:
                continue
            parents = parents_of[merge]
            named = _resolve(ref.mainline, sorted(parents)) if ref.mainline else None
            mainline = named or parents[0]
            listed = self.run("rev-list", "--end-of-options", merge, f"^{mainline}", "--", check=False)
            shas = frozenset(sha for sha in listed.stdout.split() if _HEX.match(sha))
            expansions[ref.sha] = shas | {merge}
        return expansions


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
        if self.branch is not None:
            branch = checked_ref_name(self.branch, "[holds.git] branch")
        else:
            choice = self.git.choose_branch()
            if choice.branch is None:
                return self._unknown({"source": "git", "note": choice.reason})
            branch = choice.branch
        commits = self.git.history(branch, number)
        observed_at = utc_now()
        expansions = self.git.brought_in(merges_to_expand(commits, number, this_repo))
        landed, reverted = landings(commits, number, this_repo, expansions)
        evidence: list[Evidence] = [
            {
                "source": "git",
                "branch": branch,
                "commit": landing.commit.sha,
                "subject": landing.commit.subject,
                "date": landing.commit.date,
                "matched": landing.reason,
            }
            for landing in landed[:_MAX_EVIDENCE]
        ]
        evidence.extend(
            {
                "source": "git",
                "branch": branch,
                "commit": landing.commit.sha,
                "subject": landing.commit.subject,
                "date": landing.commit.date,
                "reverted_by": landing.reverted_by,
                "note": "closed the task but was reverted later; not counted",
            }
            for landing in reverted[:_MAX_EVIDENCE]
        )
        if landed:
            return Observation("git", "landed", evidence, observed_at)
        evidence.append({"source": "git", "branch": branch, "note": f"no commit on {branch} closes {task}"})
        return Observation("git", None, evidence, observed_at)

    def _unknown(self, note: Evidence) -> Observation:
        return Observation("git", None, [note], utc_now())
