"""Proposals: a reviewed edit, stored durably so another session can apply it later.

A proposal is a small JSON file under ``.claude/gotchas/proposals/`` (safe to commit).
Its id is derived from what it asks, so proposing the same thing twice gives the same id;
a checksum over its content refuses a file edited by hand.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

from gotchas import json_text, surface
from gotchas.atomic import write_atomic
from gotchas.confined import read_confined
from gotchas.edit import Insertion, Lesson, Plan
from gotchas.errors import GotchasError, ProposalInvalid, ProposalNotFound, shown

FORMAT = "gotchas-proposal/1"
_ID = re.compile(r"^p-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Proposal:
    kind: Literal["supersede", "capture", "annotate", "retire", "recheck"]
    record: str
    base_sha256: str
    lesson: Lesson
    new_id: str
    result_sha256: str
    diff: str
    target_id: str | None = None
    target_sha256: str | None = None
    anchor_sha256: str | None = None
    task: str | None = None
    red_herring_note: str | None = None
    after_id: str | None = None
    hold: str | None = None
    created_at: str = ""
    insertions: tuple[Insertion, ...] = ()
    eol: str = "\n"
    entries_digest: str = ""
    renews: str | None = None  # the withdrawn proposal this one asks again for, if any
    id: str = field(default="")

    @classmethod
    def of_plan(
        cls,
        plan: Plan,
        *,
        kind: Literal["supersede", "capture", "annotate", "retire", "recheck"],
        record: str,
        base_sha256: str,
        lesson: Lesson,
        result_sha256: str,
        diff: str,
        entries_digest: str,
        created_at: str,
        target_sha256: str | None = None,
        anchor_sha256: str | None = None,
        red_herring_note: str | None = None,
        after_id: str | None = None,
        hold: str | None = None,
    ) -> Proposal:
        """The proposal that pins a verified plan; :meth:`as_plan` turns it back into one."""
        return cls(
            kind=kind,
            record=record,
            base_sha256=base_sha256,
            lesson=lesson,
            new_id=plan.new_id,
            result_sha256=result_sha256,
            diff=diff,
            target_id=plan.target_id,
            target_sha256=target_sha256,
            anchor_sha256=anchor_sha256,
            task=plan.task,
            red_herring_note=red_herring_note,
            after_id=after_id,
            hold=hold,
            created_at=created_at,
            insertions=plan.insertions,
            eol=plan.eol.decode("ascii"),
            entries_digest=entries_digest,
        )

    def as_plan(self, data: bytes) -> Plan:
        """The stored edit as the plan it came from, producing ``data``."""
        return Plan(
            data=data,
            insertions=self.insertions,
            eol=self.eol.encode("ascii"),
            new_id=self.new_id,
            new_title=self.lesson.title,
            target_id=self.target_id,
            task=self.task,
        )

    @property
    def adds(self) -> Lesson | None:
        """The lesson this proposal adds as an entry; None for a mark (annotation, retire,
        re-check), which adds none."""
        return None if self.kind in ("annotate", "retire", "recheck") else self.lesson

    def intent(self) -> dict[str, object]:
        """What the proposal asks for, independent of when it was made: the basis of its id."""
        return {
            "kind": self.kind,
            "record": self.record,
            "base_sha256": self.base_sha256,
            "target_id": self.target_id,
            "task": self.task,
            "red_herring_note": self.red_herring_note,
            "after_id": self.after_id,
            "hold": self.hold,
            "lesson": asdict(self.lesson),
            **({"renews": self.renews} if self.renews else {}),  # ids made before it are kept
        }


def make_id(proposal: Proposal) -> str:
    digest = hashlib.sha256(_canonical(proposal.intent()).encode()).hexdigest()
    return f"p-{digest[:12]}"


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def to_json(proposal: Proposal) -> str:
    body = {"format": FORMAT, **asdict(proposal)}
    body["checksum"] = hashlib.sha256(_canonical(body).encode()).hexdigest()
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def from_json(text: str, expected_id: str) -> Proposal:
    """The proposal stored in ``text``; ProposalInvalid when it is damaged, edited, forged or not ours.

    A proposal file is input from the repository: it may be truncated, nested deep enough to
    exhaust the parser, carry fields of the wrong type, an unknown kind or a malformed hold.
    Each of these is refused here, so nothing later meets a proposal it cannot handle.
    """
    try:
        return _from_json(text, expected_id)
    except RecursionError:
        raise ProposalInvalid(f"proposal {expected_id} is nested too deeply to be a proposal file") from None


def _from_json(text: str, expected_id: str) -> Proposal:
    try:
        body = json_text.loads(text)
        checksum = body.pop("checksum")
        if body.pop("format") != FORMAT:
            raise ProposalInvalid(f"proposal {expected_id} has an unknown format")
    except json_text.TooDeep:
        raise ProposalInvalid(f"proposal {expected_id} is nested too deeply to be a proposal file") from None
    except (ValueError, KeyError, AttributeError, TypeError):
        raise ProposalInvalid(f"proposal {expected_id} is not a readable proposal file") from None
    if hashlib.sha256(_canonical({"format": FORMAT, **body}).encode()).hexdigest() != checksum:
        raise ProposalInvalid(
            f"proposal {expected_id} was changed after it was made (checksum mismatch); "
            "propose again instead of editing the file"
        )
    problem = _field_problem(body)
    if problem:
        raise ProposalInvalid(f"proposal {expected_id} is not a valid proposal: {problem}")
    try:
        raw = body.pop("lesson")
        lesson = Lesson(**{**raw, "tasks": tuple(raw["tasks"]), "ruled_out": tuple(raw["ruled_out"])})
        inserts = tuple(Insertion(int(i["at"]), tuple(i["lines"])) for i in body.pop("insertions"))
        proposal = Proposal(lesson=lesson, insertions=inserts, **body)
    except (TypeError, KeyError, ValueError):
        raise ProposalInvalid(f"proposal {expected_id} does not have the expected fields") from None
    if proposal.id != expected_id or make_id(proposal) != expected_id:
        raise ProposalInvalid(f"proposal {expected_id} does not match its own id")
    return proposal


KINDS = ("supersede", "capture", "annotate", "retire", "recheck")
_TEXT = ("record", "base_sha256", "new_id", "result_sha256", "diff", "created_at", "entries_digest", "id")
_OPTIONAL_TEXT = (
    *("target_id", "target_sha256", "anchor_sha256", "task", "red_herring_note", "after_id", "renews"),
)
_EOLS = ("\n", "\r\n", "\r")


def _field_problem(body: dict[str, object]) -> str | None:
    """What is wrong with the fields of a proposal body, or None: types, kind, hold, lesson, edit."""
    if body.get("kind") not in KINDS:
        return f"unknown kind {shown(str(body.get('kind')))} (known: {', '.join(KINDS)})"
    for name in _TEXT:
        if name in body and not isinstance(body[name], str):
            return f"{name} is not text"
    for name in _OPTIONAL_TEXT:
        if body.get(name) is not None and not isinstance(body[name], str):
            return f"{name} is neither text nor null"
    if "eol" in body and body["eol"] not in _EOLS:
        return "eol is not a line ending"
    hold = _hold_problem(body.get("hold"))
    if hold:
        return hold
    lesson = body.get("lesson")
    if not isinstance(lesson, dict):
        return "lesson is not an object"
    if not all(isinstance(lesson.get(k), str) for k in ("title", "body", "root_cause")):
        return "the lesson's title, body or root cause is not text"
    if any(lesson.get(k) is not None and not isinstance(lesson[k], str) for k in ("diagnostic", "evidence")):
        return "the lesson's diagnostic or evidence is neither text nor null"
    if not all(_texts(lesson.get(k)) for k in ("tasks", "ruled_out")):
        return "the lesson's tasks or ruled-out causes are not a list of text"
    insertions = body.get("insertions", [])
    if not isinstance(insertions, list) or not all(_insertion(i) for i in insertions):
        return "insertions are not a list of {at: line number, lines: [text]}"
    return None


def _hold_problem(hold: object) -> str | None:
    """Why a stored hold is malformed: it is stored parsed and stripped, or not at all."""
    if hold is None:
        return None
    if not isinstance(hold, str) or not hold or hold != hold.strip():
        return "its hold is not a predicate"
    from gotchas.errors import PredicateError
    from gotchas.holds.predicate import parse_predicates

    try:
        parse_predicates(hold)
    except PredicateError as exc:
        return f"its hold is malformed: {exc.message}"
    return None


def _texts(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _insertion(value: object) -> bool:
    if not isinstance(value, dict) or set(value) != {"at", "lines"}:
        return False
    at = value["at"]
    return isinstance(at, int) and not isinstance(at, bool) and at >= 0 and _texts(value["lines"])


def check_id(proposal_id: str) -> str:
    text = proposal_id.strip()
    if not _ID.match(text):
        raise ProposalNotFound(
            f"{shown(proposal_id)} is not a proposal id (they look like p-1a2b3c4d5e6f); "
            + surface.list_proposals()
        )
    return text


def save(directory: Path, proposal: Proposal) -> Path:
    path = directory / f"{proposal.id}.json"
    write_atomic(path, to_json(proposal).encode("utf-8"))
    return path


def load(directory: Path, proposal_id: str) -> Proposal:
    pid = check_id(proposal_id)
    path = directory / f"{pid}.json"
    try:
        text = read_confined(path).decode("utf-8")
    except FileNotFoundError:
        raise ProposalNotFound(
            f"no proposal {pid} in {directory.name}/; propose again ({surface.list_proposals()})"
        ) from None
    except UnicodeDecodeError:
        raise ProposalInvalid(f"proposal {pid} is not UTF-8 text") from None
    return from_json(text, pid)


def stored(directory: Path) -> list[Proposal]:
    """Every readable stored proposal; see :func:`unreadable` for the files left out."""
    return read_all(directory)[0]


def unreadable(directory: Path) -> list[str]:
    """Why each proposal file that is left out was refused (edited by hand, forged, not ours)."""
    return [f.reason for f in read_all(directory)[1]]


@dataclass(frozen=True)
class Unreadable:
    """A stored proposal file that cannot be used: its name (``p-….json`` stem) and why."""

    name: str
    code: str
    reason: str


def read_all(directory: Path) -> tuple[list[Proposal], list[Unreadable]]:
    """Every stored proposal, and every file under its name that was refused, each alone."""
    found: list[Proposal] = []
    refused: list[Unreadable] = []
    for path in sorted(directory.glob("p-*.json")):
        try:
            found.append(load(directory, path.stem))
        except GotchasError as exc:  # invalid, not found, or reached through a symlink
            refused.append(Unreadable(path.stem, exc.code, exc.message))
        except OSError as exc:
            reason = f"proposal file {shown(path.name)} cannot be read: {exc.strerror or exc}"
            refused.append(Unreadable(path.stem, ProposalInvalid.code, reason))
    return found, refused
