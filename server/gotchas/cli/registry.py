"""Every command as data: its name, the module that builds and runs it, and its one-line help.

A command line that starts with a command's name imports that command's module alone and
builds its parser alone (:mod:`gotchas.cli.parser`); the module imports what the command
runs on inside its ``run_*`` function, so loading it costs nothing else.
"""

from __future__ import annotations


class Command:
    """One command: ``module`` defines ``build(parser)`` (its arguments) and ``run(args) -> int``
    under the names given (by default ``add_<name>`` and ``run_<name>``, dashes as underscores)."""

    __slots__ = ("build", "help", "module", "name", "run")

    def __init__(
        self, name: str, module: str, help: str, *, build: str | None = None, run: str | None = None
    ) -> None:
        function = name.replace("-", "_")
        self.name = name
        self.module = module
        self.help = help
        self.build = build or f"add_{function}"
        self.run = run or f"run_{function}"


_LISTING = "gotchas.cli.listing"
_HOLDS = "gotchas.cli.holds"
_PROPOSALS = "gotchas.cli.proposals"
_REPOSITORY = "gotchas.cli.repository"
_VERIFY = "gotchas.cli.verify"
_SERVE = "gotchas.cli.serve"
_CHECK = "check the record's links and fields: one `path:line:col: severity code message` line per problem (exit 1 on errors)"  # noqa: E501

REGISTRY = (
    Command("list", _LISTING, "list lessons: id, lines, tasks, state and title"),
    Command("outline", _LISTING, "show how the record was read: unit, sections, entries, left out"),
    Command("pin", "gotchas.cli.pin", "choose the reading by hand in .claude/gotchas.toml; shows the reading before and after"),  # noqa: E501
    Command("show", _LISTING, "show one lesson in full"),
    Command("check-hold", _HOLDS, "evaluate a hold (exit 0 released, 3 held, 4 unsatisfiable, 5 unknown)"),
    Command("task", _HOLDS, "record or show a task's state in the ledger"),
    Command("propose", _PROPOSALS, "propose a supersession (--target-id) or a new lesson; writes only the proposal"),  # noqa: E501
    Command("apply", _PROPOSALS, "apply a stored proposal (exit 3 when refused)"),
    Command("proposals", _PROPOSALS, "list stored proposals: status and hold now, with evidence"),
    Command("withdraw", _PROPOSALS, "withdraw a stored proposal: never applied after (journalled)"),
    Command("merge-record", _REPOSITORY, "git merge driver for the record: keeps both sides' corrections (exit 1 on conflict)"),  # noqa: E501
    Command("init", _REPOSITORY, "set the repository up: record, .mcp.json, allowed tools, session hook, merge driver"),  # noqa: E501
    Command("session-start", _REPOSITORY, "Claude Code SessionStart hook: report held proposals whose hold is released (reads only)"),  # noqa: E501
    Command("history", "gotchas.cli.history", "the chain of root-cause hypotheses recorded for a task"),
    Command("check", "gotchas.cli.check", "find lessons the repository has moved away from (reads only)"),
    Command("verify", _VERIFY, _CHECK),
    Command("lint", _VERIFY, _CHECK, build="add_verify", run="run_verify"),
    Command("serve", _SERVE, "run the MCP server (stdio; --http for streamable HTTP)"),
    Command("demo", _SERVE, "walk through the #664 correction on a scratch copy"),
    Command("view", "gotchas.view.command", "write the record, its corrections and its tasks as one static HTML page"),  # noqa: E501
)
"""In the order ``gotchas --help`` lists them."""

COMMANDS = tuple(command.name for command in REGISTRY)
"""Every command's name: a command line that starts with one builds that command's parser alone."""
