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
from gotchas.edit import Insertion, Lesson, Plan
from gotchas.errors import ProposalInvalid, ProposalNotFound, shown
from gotchas.workspace import read_confined, write_atomic

FORMAT = "gotchas-proposal/1"
_ID = re.compile(r"^p-[0-9a-f]{12}$")


@dataclass(frozen=True)
class Proposal:
    kind: Literal["supersede", "capture", "annotate"]
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
    id: str = field(default="")

    @classmethod
    def of_plan(
        cls,
        plan: Plan,
        *,
        kind: Literal["supersede", "capture", "annotate"],
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
        """The lesson this proposal adds as an entry; None for an annotation, which adds none."""
        return None if self.kind == "annotate" else self.lesson

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
    try:
        body = json_text.loads(text)
        checksum = body.pop("checksum")
        if body.pop("format") != FORMAT:
            raise ProposalInvalid(f"proposal {expected_id} has an unknown format")
    except (ValueError, KeyError, AttributeError, TypeError):
        raise ProposalInvalid(f"proposal {expected_id} is not a readable proposal file") from None
    if hashlib.sha256(_canonical({"format": FORMAT, **body}).encode()).hexdigest() != checksum:
        raise ProposalInvalid(
            f"proposal {expected_id} was changed after it was made (checksum mismatch); "
            "propose again instead of editing the file"
        )
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
    return read_all(directory)[1]


def read_all(directory: Path) -> tuple[list[Proposal], list[str]]:
    found, refused = [], []
    for path in sorted(directory.glob("p-*.json")):
        try:
            found.append(load(directory, path.stem))
        except (ProposalInvalid, ProposalNotFound) as exc:
            refused.append(exc.message)
    return found, refused
