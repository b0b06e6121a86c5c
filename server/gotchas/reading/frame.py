"""The frame a file is read in: the section read as the file (its title section when one
heading tops all others), that title's note, the project's pin, and the file's own name.

A person knows what a file is before reading a line of it when its name says so: a
``CLAUDE.md`` or an ``AGENTS.md`` is what a coding agent reads as its instructions, and its
lessons, if any, are one section of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gotchas import vocabulary
from gotchas.reading.model import Note, Pin, Reading
from gotchas.reading.sections import Reader
from gotchas.reading.tree import Section

# the names coding agents load as their instructions (Claude Code, Codex and other AGENTS.md
# readers, Gemini CLI, Cursor, Windsurf, Cline, GitHub Copilot)
AGENT_GUIDES = frozenset(
    {
        "claude.md",
        "claude.local.md",
        "agents.md",
        "agent.md",
        "gemini.md",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
        "copilot-instructions.md",
    }
)


def _base(name: str) -> str:
    """The file's name without its folders, on either system's separator."""
    return name.replace("\\", "/").rsplit("/", 1)[-1]


def agent_guide(name: str | None) -> str | None:
    """The base name of ``name`` when it names a coding agent's guide, else ``None``."""
    if not name:
        return None
    base = _base(name)
    return base if base.lower() in AGENT_GUIDES else None


def lessons_name(name: str | None) -> bool:
    """Whether the base name of ``name``, its extension and separators aside, names lessons."""
    if not name:
        return False
    stem = _base(name).rsplit(".", 1)[0]
    return vocabulary.names_lessons(stem.replace("_", " ").replace("-", " "))


@dataclass(frozen=True, slots=True)
class Frame:
    """The section read as the file (its title section when one heading tops all others), that
    title's note, the project's pin, and the file's path in its repository (``None``: unknown)."""

    root: Section
    title_note: Note | None
    pin: Pin | None
    name: str | None = None

    @property
    def named_lessons(self) -> bool:
        """The file's own name names lessons (``CAVEATS.md``, ``docs/learnings.md``): whatever
        its sections are about, it is no guide of the project."""
        return lessons_name(self.name)

    @property
    def guide(self) -> str | None:
        """The file's base name when it names a coding agent's guide (``AGENTS.md``)."""
        return agent_guide(self.name)


FileRule = Callable[[Reader, Frame], "Reading | None"]


def title_section(reader: Reader) -> tuple[Section, Note | None]:
    """The document's title heading, when one heading sits above all others."""
    root = reader.tree
    top = None if any(b.kind not in ("html", "hr") for b in root.body) else _lone_title(reader, root)
    if top is not None:
        note = Note(
            top.start,
            top.heading.end if top.heading else top.start,
            "title",
            top.title,
            "the document's title",
        )
        return top, note
    return root, None


def _lone_title(reader: Reader, root: Section) -> Section | None:
    """The heading above all others: the only top heading, or a first top heading with nothing
    under it, or only its introduction, before its same-level siblings (``Known Issues`` /
    ``====`` over ``# Settings``, ``# Seeds``): the file's title written at its sections' level."""
    tops = root.children
    if len(tops) == 1:
        # front matter that titles the file (``title: "Known issues"``) leaves its one section,
        # below the title's level, a section of the file: ``## Permission issue`` is its first
        if tops[0].level > 1 and reader.matter_title():
            return None
        return tops[0]
    if not tops:
        return None
    first, rest = tops[0], tops[1:]
    if first.level != 1 or not (_empty(first) or _introduces(reader, first)):
        return None
    if any(_empty(section) for section in rest):
        return None  # a run of one-line headings (``# READ THIS FIRST``) is a header, not a title's body
    return Section(first.heading, first.start, root.end, first.body, rest, None)


def _introduces(reader: Reader, section: Section) -> bool:
    """A first heading titled as lessons or problems met (``# Known Issues``) over an
    introduction of its own: one paragraph, or paragraphs that open by naming the file
    (``This document lists …``). The file's title, and what the file is for."""
    title = section.title
    if not (vocabulary.names_lessons(title) or vocabulary.names_problems(title)) or section.children:
        return False
    return reader.introduces(section.body)


def _empty(section: Section) -> bool:
    return not section.children and not any(b.kind not in ("html", "hr") for b in section.body)
