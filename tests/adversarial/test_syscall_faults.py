"""Faults and kills at each system call of the real ``gotchas apply``, injected by strace.

The monkeypatched faults in ``test_write_path`` run everywhere; these run the installed CLI
as a process under ``strace`` and make the kernel answer ``EIO`` (or deliver ``SIGKILL``)
at one exact call: the temp file's open, write and fsync, the rename, the folder's fsync,
and the journal's open, write and fsync. Which call is the n-th of its kind is read from a
traced dry run of the same apply on an identical copy of the project, and every injected
run checks that strace hit the call it was aimed at.

Before the rename a fault leaves the old bytes, no temp file, a one-line error naming the
failure, and a lock the next apply takes. After the rename the answer is ``applied`` with
a warning, and the next call reconciles the journal to exactly one ``applied`` event. A
kill anywhere leaves the old record or the new one; the next apply finishes or says
truthfully that it already had, and the journal ends with exactly one ``applied`` event.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.clients import gotchas_exe, isolated_env
from support.project import RECORD, SCENARIO, TARGET, write_record

STRACE = shutil.which("strace")


def _strace_works() -> bool:
    """strace is installed and this system lets it trace (containers may forbid ptrace)."""
    if STRACE is None:
        return False
    probe = subprocess.run([STRACE, "-qq", "-o", "/dev/null", "true"], capture_output=True, check=False)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(
    not _strace_works(),
    reason="strace is not installed or may not trace here; test_write_path's monkeypatched faults "
    "cover the same steps",
)

# -- the traced dry run ------------------------------------------------------------------------

_LINE = re.compile(r"^(?P<pid>\d+) +(?P<name>\w+)\((?P<args>.*)$")


@dataclass(frozen=True)
class Call:
    """One system call of the dry run: its name, which of that name it is, and its text."""

    name: str
    nth: int
    text: str

    @property
    def first_argument(self) -> str:
        return re.split(r"\)\s+= ", self.text, maxsplit=1)[0].split(", ", 1)[0]


def calls(trace: str) -> list[Call]:
    """The calls of the first process in an ``strace -f -y`` log, numbered per name."""
    found: list[Call] = []
    seen: dict[str, int] = {}
    main_pid = None
    for line in trace.splitlines():
        match = _LINE.match(line)
        if match is None or "resumed>" in line:
            continue
        main_pid = main_pid or match["pid"]
        if match["pid"] != main_pid:
            continue
        seen[match["name"]] = seen.get(match["name"], 0) + 1
        found.append(Call(match["name"], seen[match["name"]], match["args"]))
    return found


def normal(text: str, root: Path) -> str:
    """A call's text with what differs between two copies of a run made alike."""
    text = text.replace(str(root), "ROOT")
    text = re.sub(r"gotchas-\d+-[0-9a-f]+\.tmp", "gotchas-N.tmp", text)
    text = re.sub(r"(pipe|socket):\[\d+\]", r"\1:[N]", text)
    return re.sub(r"0x[0-9a-f]+", "0x", text)


@dataclass
class Scene:
    """The project with one stored proposal, and what a clean apply of it does and makes."""

    template: Path
    proposal_id: str
    old: bytes
    new: bytes
    dry: list[Call]
    dry_root: Path
    counter: int = 0

    def copy(self) -> Path:
        """A fresh copy of the project (with a home beside it), as it was before the apply."""
        self.counter += 1
        # every copy's path as long as the dry run's: a longer path allocates differently and
        # moves the memory calls (``brk``) the kills are counted by
        place = self.template.parent / f"run-{self.counter:04d}"
        (place / "home").mkdir(parents=True)
        shutil.copytree(self.template, place / "project", symlinks=True)
        return place / "project"

    def at(self, point: Callable[[Call], bool], what: str) -> Call:
        hits = [c for c in self.dry if point(c)]
        assert len(hits) == 1, f"the dry run has {len(hits)} calls for {what}: {[c.text for c in hits]}"
        return hits[0]


class Imports:
    """One bytecode cache for every run here, filled by warm-up runs and then only read: each
    run opens the same files, whatever the checkout's own ``__pycache__`` holds meanwhile."""

    cache: Path | None = None


def same_imports(*, fill: bool = False) -> dict[str, str]:
    assert Imports.cache is not None
    return {
        "PYTHONPYCACHEPREFIX": str(Imports.cache),
        "PYTHONDONTWRITEBYTECODE": "" if fill else "1",
        "PYTHONHASHSEED": "0",
    }


def env(root: Path, *, fill: bool = False) -> dict[str, str]:
    return isolated_env(root.parent / "home", **same_imports(fill=fill))


def run(root: Path, *args: str, fill: bool = False) -> subprocess.CompletedProcess[str]:
    """The CLI, untraced, as :func:`support.clients.gotchas` runs it, on the one bytecode cache."""
    return subprocess.run(
        [gotchas_exe(), *args],
        cwd=root,
        env=env(root, fill=fill),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def traced_apply(root: Path, proposal_id: str, *options: str) -> subprocess.CompletedProcess[str]:
    assert STRACE is not None
    return subprocess.run(
        [STRACE, "-f", "-qq", "-y", *options, gotchas_exe(), "apply", proposal_id, "--json"],
        cwd=root,
        env=env(root),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Scene:
    base = tmp_path_factory.mktemp("syscalls")
    Imports.cache = base / "bytecode"
    template = base / "template" / "project"
    write_record(template, SCENARIO.read_bytes())
    (template.parent / "home").mkdir()
    made = run(
        template,
        "propose",
        "--no-hold",
        "--target-id",
        TARGET,
        "--task",
        "#664",
        "--title",
        "Split the engine's step loop",
        "--body",
        "The deadlock is in the step loop; chunking only hides it.",
        "--diagnostic",
        "py-spy shows the engine blocked in the step loop",
        "--json",
        fill=True,
    )
    assert made.returncode == 0, made.stderr
    proposal_id = json.loads(made.stdout)["proposal_id"]
    scene = Scene(template, proposal_id, (template / RECORD).read_bytes(), b"", [], template)
    warm = scene.copy()
    for args in (("apply", proposal_id, "--json"), ("apply", proposal_id, "--json"), ("list", "--json")):
        assert run(warm, *args, fill=True).returncode == 0
    dry_root = scene.copy()
    log = dry_root.parent / "dry.trace"
    done = traced_apply(dry_root, proposal_id, "-o", str(log))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "applied"
    scene.new = (dry_root / RECORD).read_bytes()
    scene.dry = calls(log.read_text("utf-8", errors="replace"))
    scene.dry_root = dry_root
    assert scene.new != scene.old
    return scene


# -- where each fault goes ---------------------------------------------------------------------

RENAMES = ("rename", "renameat", "renameat2")


def _on(name: str, *needles: str) -> Callable[[Call], bool]:
    """A call by name whose text holds every needle (an ``openat`` by the name it opens)."""
    names = RENAMES if name == "rename" else (name,)
    return lambda c: c.name in names and all(n in c.text for n in needles)


def _to(name: str, file: str) -> Callable[[Call], bool]:
    """A call by name on a descriptor whose path (as ``strace -y`` shows it) ends with ``file``."""
    return lambda c: c.name == name and c.first_argument.endswith(f"{file}>")


POINTS: dict[str, tuple[Callable[[Call], bool], str]] = {
    "open the temp file": (_on("openat", '.tmp"', "O_CREAT|O_EXCL"), "before"),
    "write the temp file": (_to("write", ".tmp"), "before"),
    "fsync the temp file": (_to("fsync", ".tmp"), "before"),
    "rename over the record": (_on("rename", '"gotchas.md"'), "before"),
    "fsync the folder": (_to("fsync", "/.claude/rules"), "after"),
    "open the journal": (_on("openat", '"journal.jsonl"', "O_APPEND"), "after"),  # apply reads it first
    "write the journal": (_to("write", "journal.jsonl"), "after"),
    "fsync the journal": (_to("fsync", "journal.jsonl"), "after"),
}


def applied_events(root: Path, proposal_id: str) -> list[dict[str, Any]]:
    journal = root / ".claude" / "gotchas" / "journal.jsonl"
    if not journal.exists():
        return []
    events = [json.loads(line) for line in journal.read_text("utf-8").splitlines() if line.strip()]
    return [e for e in events if e.get("proposal_id") == proposal_id and e.get("status") == "applied"]


def temp_files(root: Path) -> list[Path]:
    beside = list((root / RECORD).parent.glob("*.tmp"))
    state = root / ".claude" / "gotchas" / "tmp"
    return beside + (list(state.glob("*.tmp")) if state.exists() else [])


def hit(log: Path, call: Call, root: Path, dry_root: Path) -> str:
    """The traced line of the injected call, checked to be the dry run's ``call``."""
    mine = [c for c in calls(log.read_text("utf-8", errors="replace")) if c.name == call.name]
    assert len(mine) >= call.nth, f"the run made only {len(mine)} {call.name} calls"
    got = mine[call.nth - 1]
    assert normal(got.first_argument, root) == normal(call.first_argument, dry_root), (
        f"strace hit {got.text!r}, not the dry run's {call.text!r}"
    )
    return got.text


@pytest.mark.parametrize("point", POINTS)
def test_an_eio_at_each_write_path_call(scene: Scene, point: str) -> None:
    predicate, phase = POINTS[point]
    call = scene.at(predicate, point)
    root = scene.copy()
    log = root.parent / "inject.trace"

    done = traced_apply(
        root, scene.proposal_id, "-o", str(log), "-e", f"trace={call.name}",
        "-e", f"inject={call.name}:error=EIO:when={call.nth}",
    )  # fmt: skip

    assert "(INJECTED)" in hit(log, call, root, scene.dry_root)
    record = (root / RECORD).read_bytes()
    assert temp_files(root) == []
    if phase == "before":
        assert done.returncode == 1, done.stdout
        assert record == scene.old
        error = done.stderr.strip().splitlines()
        assert len(error) == 1, done.stderr
        assert error[0].startswith("gotchas: ")
        assert "Input/output error" in error[0]
        assert "I/O error; check it, then retry" in error[0]
        assert "internal error" not in error[0]
        assert applied_events(root, scene.proposal_id) == []
        # the lock went with the process: the next apply takes it and finishes
        again = run(root, "apply", scene.proposal_id, "--json")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["status"] == "applied"
    else:
        assert done.returncode == 0, done.stderr
        answer = json.loads(done.stdout)
        assert answer["status"] == "applied"
        assert answer["warnings"], answer
        assert any("Input/output error" in w for w in answer["warnings"]), answer["warnings"]
        assert record == scene.new
        lost = point in ("open the journal", "write the journal")
        assert len(applied_events(root, scene.proposal_id)) == (0 if lost else 1)
        # the next call says what is true and records the event the fault lost
        again = run(root, "apply", scene.proposal_id, "--json")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["status"] == "already-applied"
    assert (root / RECORD).read_bytes() == scene.new
    events = applied_events(root, scene.proposal_id)
    assert len(events) == 1, events
    third = run(root, "apply", scene.proposal_id, "--json")
    assert json.loads(third.stdout)["status"] == "already-applied"
    assert len(applied_events(root, scene.proposal_id)) == 1


@pytest.mark.parametrize(
    ("point", "error", "strerror"),
    [
        ("open the journal", "EROFS", "Read-only file system"),  # a read-only .claude/gotchas
        ("write the journal", "ENOSPC", "No space left on device"),  # a full disk on the journal line
    ],
)
def test_a_read_only_or_full_state_folder_after_the_rename_is_a_warning(
    scene: Scene, point: str, error: str, strerror: str
) -> None:
    call = scene.at(POINTS[point][0], point)
    root = scene.copy()
    log = root.parent / "inject.trace"
    done = traced_apply(
        root, scene.proposal_id, "-o", str(log), "-e", f"trace={call.name}",
        "-e", f"inject={call.name}:error={error}:when={call.nth}",
    )  # fmt: skip
    assert "(INJECTED)" in hit(log, call, root, scene.dry_root)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["status"] == "applied"
    assert any(strerror in w and "journal" in w for w in answer["warnings"]), answer["warnings"]
    assert (root / RECORD).read_bytes() == scene.new
    assert applied_events(root, scene.proposal_id) == []
    again = run(root, "apply", scene.proposal_id, "--json")
    assert json.loads(again.stdout)["status"] == "already-applied"
    events = applied_events(root, scene.proposal_id)
    assert len(events) == 1 and events[0].get("reconciled") is True, events


# -- SIGKILL at every call from the temp file to the answer ------------------------------------


# the allocator's calls: how many a run makes varies from run to run, so the nth of them is no
# fixed point of the write path; a kill at one is a kill between the file calls around it
ALLOCATOR = frozenset({"mmap", "munmap", "mremap", "brk", "madvise", "mprotect"})


def kill_points(scene: Scene) -> list[Call]:
    """Every call from opening the temp file to writing the answer, the rename included, but the
    allocator's."""
    start = scene.dry.index(scene.at(POINTS["open the temp file"][0], "the temp file"))
    answer = next(
        i for i, c in enumerate(scene.dry) if c.name == "write" and c.first_argument.startswith("1<")
    )
    return [c for c in scene.dry[start : answer + 1] if c.name not in ALLOCATOR]


ROUNDS = 2
"""Each call is killed this many times: the outcome must not depend on the run."""


@pytest.mark.slow
def test_sigkill_at_every_call_around_the_rename_leaves_old_or_new_and_converges(scene: Scene) -> None:
    points = kill_points(scene)
    rename = next(i for i, c in enumerate(points) if c.name in RENAMES)
    assert 0 < rename < len(points) - 10  # calls on both sides of the rename are covered
    outcomes: dict[str, int] = {"old": 0, "new": 0}
    for index, call in [*enumerate(points)] * ROUNDS:
        root = scene.copy()
        log = root.parent / "kill.trace"
        done = traced_apply(
            root, scene.proposal_id, "-o", str(log), "-e", f"trace={call.name}",
            "-e", f"inject={call.name}:signal=KILL:when={call.nth}",
        )  # fmt: skip
        where = f"kill #{index} on entering {call.text[:100]!r}"
        hit(log, call, root, scene.dry_root)
        assert done.returncode in (-9, 137), f"{where}: exit {done.returncode}"
        assert done.stdout == "", where  # killed before it answered

        record = (root / RECORD).read_bytes()
        assert record in (scene.old, scene.new), f"{where}: the record is partial"
        if index > rename:
            assert record == scene.new, where
        outcomes["new" if record == scene.new else "old"] += 1

        again = run(root, "apply", scene.proposal_id, "--json")
        assert again.returncode == 0, f"{where}: {again.stderr}"
        status = json.loads(again.stdout)["status"]
        assert status == ("already-applied" if record == scene.new else "applied"), where
        assert (root / RECORD).read_bytes() == scene.new, where
        assert len(applied_events(root, scene.proposal_id)) == 1, where
        third = run(root, "apply", scene.proposal_id, "--json")
        assert json.loads(third.stdout)["status"] == "already-applied", where
        assert len(applied_events(root, scene.proposal_id)) == 1, where
        listed = run(root, "list", "--json")
        assert len(json.loads(listed.stdout)["entries"]) == 7, where
        shutil.rmtree(root.parent)
    assert outcomes["new"] == ROUNDS * (len(points) - rename - 1)
    print(
        f"{ROUNDS * len(points)} kills, {outcomes['new']} after the rename: {outcomes['old']} left the "
        f"old record, {outcomes['new']} the new one; every next apply converged with one applied event"
    )
