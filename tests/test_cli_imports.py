"""Commands load only what they use: start-up is most of a quick command's time.

Each command runs as a real process under ``python -X importtime``; the modules it
imported are read from that report. The MCP stack (``mcp``, ``pydantic``, ``anyio``,
``uvicorn``) belongs to ``serve`` alone, and ``check-hold`` reads no record, so it needs
neither the Markdown parser nor the record model. The read-only commands (``list``,
``show``, ``outline``, ``verify``) read the record with the line scanner: markdown-it is
loaded only when the record holds a block the scanner hands over, and the edit machinery
never.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support.project import SCENARIO, git_init, write_record

SERVER_STACK = ("mcp", "pydantic", "pydantic_core", "anyio", "uvicorn", "starlette", "httpx")
RECORD_MODEL = ("markdown_it", "gotchas.record", "gotchas.reading", "gotchas.edit", "gotchas.operations")
EDITING = ("markdown_it", "gotchas.edit", "gotchas.operations", "gotchas.proposal", "gotchas.journal")


def imported(root: Path, *argv: str) -> set[str]:
    """The modules ``gotchas <argv>`` imported, as ``-X importtime`` reports them."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONWARNINGS"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "gotchas", *argv],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 3, 5), done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "gotchas.cli" in names  # the report is there: an empty set would prove nothing
    return names


def roots(names: set[str]) -> set[str]:
    return {name.split(".")[0] for name in names} | names


@pytest.fixture
def project_repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_record(root, SCENARIO.read_bytes())
    git_init(root)
    return root


def test_check_hold_loads_neither_the_server_stack_nor_the_record_model(project_repo: Path) -> None:
    names = roots(imported(project_repo, "check-hold", "predicate-664-lands", "--json"))
    assert "gotchas.holds.check" in names
    assert names.isdisjoint(SERVER_STACK), sorted(names & set(SERVER_STACK))
    assert names.isdisjoint(RECORD_MODEL), sorted(names & set(RECORD_MODEL))


def test_list_loads_the_record_model_but_not_the_server_stack(project_repo: Path) -> None:
    names = roots(imported(project_repo, "list", "--json"))
    assert {"gotchas.record", "gotchas.scanner"} <= names
    assert names.isdisjoint(SERVER_STACK), sorted(names & set(SERVER_STACK))


@pytest.mark.parametrize(
    "argv",
    [("list",), ("list", "--json", "--task", "#664"), ("outline",), ("verify",), ("show", "ENTRY")],
    ids=" ".join,
)
def test_read_only_commands_load_neither_markdown_it_nor_the_edit_machinery(
    project_repo: Path, argv: tuple[str, ...]
) -> None:
    if argv == ("show", "ENTRY"):
        listed = subprocess.run(
            [sys.executable, "-m", "gotchas", "list", "--json"],
            cwd=project_repo,
            capture_output=True,
            text=True,
        )
        argv = ("show", json.loads(listed.stdout)["entries"][0]["id"])
    names = roots(imported(project_repo, *argv))
    assert "gotchas.record" in names
    assert names.isdisjoint(SERVER_STACK), sorted(names & set(SERVER_STACK))
    assert names.isdisjoint(EDITING), sorted(names & set(EDITING))


LISTING_NEEDS_NONE = (
    "typing_extensions",
    "gotchas.results",  # the output shapes are for the checker and the server's schemas
    "gotchas.verification",
    "difflib",
    "base64",
    "secrets",
    "json",
)


def test_list_loads_none_of_the_heavy_modules_a_listing_does_not_use(project_repo: Path) -> None:
    """Start-up is most of a one-shot listing: what it does not use, it does not import."""
    names = roots(imported(project_repo, "list"))
    assert {"gotchas.record", "gotchas.lookup"} <= names
    assert names.isdisjoint(LISTING_NEEDS_NONE), sorted(names & set(LISTING_NEEDS_NONE))


def test_list_loads_markdown_it_for_a_block_the_scanner_hands_over(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_record(root, SCENARIO.read_bytes() + b"\n<details>\nraw HTML\n</details>\n")
    git_init(root)
    names = roots(imported(root, "list", "--json"))
    assert "markdown_it" in names
    assert names.isdisjoint(SERVER_STACK), sorted(names & set(SERVER_STACK))


def test_list_reads_an_html_comment_without_markdown_it(tmp_path: Path) -> None:
    """A template comment, the HTML most lessons files hold, is read by the line scanner."""
    root = tmp_path / "project"
    comment = b"\n<!-- template: copy a lesson below\n\n### Title\n\ntasks: #N\n-->\n"
    write_record(root, SCENARIO.read_bytes() + comment)
    git_init(root)
    names = roots(imported(root, "list", "--json"))
    assert {"gotchas.record", "gotchas.scanner"} <= names
    assert "markdown_it" not in names


def test_help_loads_no_command_at_all(project_repo: Path) -> None:
    names = roots(imported(project_repo, "--help"))
    assert names.isdisjoint(SERVER_STACK)
    assert names.isdisjoint(RECORD_MODEL)
    assert "gotchas.holds" not in names


def test_the_edit_machinery_loads_markdown_it_only_when_asked() -> None:
    """Loading the edit modules costs no parser: markdown-it is imported where a check needs it."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, gotchas.edit, gotchas.operations; print('markdown_it' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "False", done.stderr[-2000:]



def loaded_command_modules(root: Path, *argv: str) -> set[str]:
    """The command modules in ``sys.modules`` once ``gotchas <argv>`` has run (the parser
    imports them with ``importlib``, which ``-X importtime`` does not report)."""
    program = (
        "import sys\nfrom gotchas.cli import main\nfrom gotchas.cli.registry import REGISTRY\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\nmodules = {c.module for c in REGISTRY}\n"
        "print('LOADED', *sorted(m for m in modules if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, *argv], cwd=root, capture_output=True, text=True, timeout=120
    )
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LOADED")]
    return set(line.split()[1:])


def test_a_command_line_imports_its_own_command_module_alone(project_repo: Path) -> None:
    """The registry names each command's module; only the named one is imported."""
    from gotchas.cli.registry import REGISTRY

    assert loaded_command_modules(project_repo, "list", "--json") == {"gotchas.cli.listing"}
    assert loaded_command_modules(project_repo, "check-hold", "predicate-664-lands") == {"gotchas.cli.holds"}
    assert loaded_command_modules(project_repo, "outline") == {"gotchas.cli.listing"}
    every = {command.module for command in REGISTRY}
    assert loaded_command_modules(project_repo, "no-such-command") == every  # the whole parser
