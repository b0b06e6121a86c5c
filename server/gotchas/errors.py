"""Typed errors: every refusal the product makes is one of these.

Each carries a stable ``code`` so agents and scripts can branch on it, and a
message written for the reader who must act on it. Shells (MCP tools, CLI)
turn them into an ``isError`` result or one line on stderr; nothing else
escapes as a traceback.
"""

from __future__ import annotations


class GotchasError(Exception):
    """Base of every expected failure; ``code`` is stable, the message is for people."""

    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def hint(self) -> str | None:
        """What to do, where the message says it: messages read "what is wrong; what to do"."""
        _, sep, rest = self.message.partition("; ")
        return rest if sep and rest else None


class RecordNotFound(GotchasError):
    code = "record-not-found"


class RecordUnreadable(GotchasError):
    """The record exists but is not a UTF-8 text file we may read (directory, binary, too big)."""

    code = "record-unreadable"


class RecordEncodingError(GotchasError):
    code = "record-encoding"


class PathOutsideRoot(GotchasError):
    code = "path-outside-root"


class EntryNotFound(GotchasError):
    code = "entry-not-found"


class AmbiguousEntry(GotchasError):
    code = "entry-ambiguous"


class InvalidArgument(GotchasError):
    code = "invalid-argument"


class TaskRefError(InvalidArgument):
    code = "invalid-task"


class PredicateError(InvalidArgument):
    code = "invalid-predicate"


class UnsupportedEntry(InvalidArgument):
    """An entry of a kind no edit is defined for yet (a table row): refused before any write."""

    code = "unsupported-entry"


class ForgedStructure(InvalidArgument):
    """Lesson text that would create structure (a heading, a rule, a field line) in the record."""

    code = "forged-structure"


class NeedsServerStack(GotchasError):
    """A command that runs the MCP server (``serve``, ``demo``) in an install without its stack:
    the core distribution is the CLI and linter alone."""

    code = "needs-gotchas-mcp"


class ConflictMarkers(GotchasError):
    """The record holds git conflict markers: a merge was left unresolved. Nothing is
    proposed or applied on it until the merge is resolved."""

    code = "conflict-markers"


class ProposalNotFound(GotchasError):
    code = "proposal-not-found"


class ProposalInvalid(GotchasError):
    """A stored proposal that fails its own checksum or schema (edited by hand, truncated)."""

    code = "proposal-invalid"


class Conflict(GotchasError):
    """The record changed under a proposal in a way that touches the target."""

    code = "conflict"


class HoldNotReleased(GotchasError):
    """An apply refused because its hold is not released; the code of that refusal."""

    code = "hold-not-released"


class SourceError(GotchasError):
    """A task-state source failed (git missing, HTTP error, bad JSON, timeout)."""

    code = "source-error"


class ConfigError(GotchasError):
    code = "config-error"


class UnknownConfigKey(ConfigError, InvalidArgument):
    """A key the config file does not know (a typo, most often): bad input, exit 2."""

    code = "config-error"


class UnsafePath(GotchasError):
    """A path to write or lock goes through a symlink, or names what is not a regular file."""

    code = "unsafe-path"


class RecordReadOnly(GotchasError):
    """The record is read-only or belongs to another user: it is refused, never replaced."""

    code = "record-read-only"


class LockUnavailable(GotchasError):
    """The platform offers no file lock, so a write that concurrent writers could race is refused."""

    code = "lock-unavailable"


class SystemFailure(GotchasError):
    """The operating system refused a read or write (permissions, a full disk, a vanished
    file): said with the path and what to check, never as an internal error."""

    code = "os-error"


def from_os_error(exc: OSError) -> SystemFailure:
    """A typed error for ``exc`` that names the file and what to do about it."""
    import errno

    where = f" on {exc.filename}" if exc.filename else ""
    reason = exc.strerror or type(exc).__name__
    hint = {
        errno.EACCES: "check the file's permissions and owner",
        errno.EPERM: "check the file's permissions and owner",
        errno.EROFS: "the file system is read-only; run where the project is writable",
        errno.ENOSPC: "the disk is full; free space and retry",
        errno.EDQUOT: "the disk quota is exhausted; free space and retry",
        errno.EIO: "the disk reported an I/O error; check it, then retry",
        errno.ENOENT: "the file vanished while it was used; retry",
    }.get(exc.errno or 0, "check the path and retry")
    return SystemFailure(f"the system refused{where}: {reason}; {hint}")


MAX_SHOWN = 80


def shown(value: str, limit: int = MAX_SHOWN) -> str:
    """``value`` quoted for a message, cut to ``limit`` characters: an error never echoes
    megabytes of its input back."""
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value)} characters)"


class RecordUncommitted(GotchasError):
    """``--commit`` was asked while the record has changes of its own, in the work tree or the
    index: the commit would carry edits no one reviewed, so nothing is applied or committed."""

    code = "record-uncommitted"


class CommitFailed(GotchasError):
    """A correction was applied but could not be committed: not a git work tree, no identity,
    or the branch moved meanwhile. The record is written; commit it by hand or apply again."""

    code = "commit-failed"


class StateTooLarge(GotchasError):
    """A state file (journal, ledger) or the record's git history is larger than gotchas reads:
    a repository cannot make a tool take minutes and gigabytes. Nothing was changed."""

    code = "state-too-large"
