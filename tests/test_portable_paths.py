"""The path code on a platform without descriptor-relative calls (Windows has none of
``openat``, ``O_NOFOLLOW``, ``O_DIRECTORY``, ``pread`` or ``fcntl``).

Each case runs the real CLI in a fresh interpreter shaped like Windows as far as the path
and lock code can tell: those names are gone, every ``dir_fd`` is refused as Windows refuses
it, a folder cannot be opened, a regular file opened without ``O_BINARY`` is refused (on
Windows its bytes would be translated), and owner and mode calls Windows lacks are absent.
Locks come from an ``msvcrt``-shaped module (``locking``, ``LK_NBLCK``, ``LK_UNLCK``) backed
by the kernel's real ``flock``, captured before ``fcntl`` is made unimportable; without it a
write must be refused. What the fallback does must match, byte for byte, what the POSIX code
does on the same repository.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from gotchas import confined, workspace
from gotchas.errors import UnsafePath
from support.clients import (
    CORRECTION_BODY,
    CORRECTION_DIAGNOSTIC,
    CORRECTION_TITLE,
    HOLD,
    RECORD_PATH,
    isolated_env,
    make_scenario_repo,
    run_gotchas,
)

SIMULATION = r"""
import errno, os, stat, sys, types
import fcntl as _kernel_locks
if LOCKS != "fcntl":
    sys.modules["fcntl"] = None
if LOCKS == "msvcrt":
    import subprocess  # it decides whether it runs on Windows by importing msvcrt: before the fake
    msvcrt = types.ModuleType("msvcrt")
    msvcrt.LK_UNLCK, msvcrt.LK_LOCK, msvcrt.LK_NBLCK = 0, 1, 2
    def _locking(fd, mode, nbytes):
        # msvcrt raises OSError when LK_NBLCK finds the bytes locked; flock is the real lock
        if mode == msvcrt.LK_UNLCK:
            _kernel_locks.flock(fd, _kernel_locks.LOCK_UN)
        else:
            _kernel_locks.flock(fd, _kernel_locks.LOCK_EX | _kernel_locks.LOCK_NB)
    msvcrt.locking = _locking
    sys.modules["msvcrt"] = msvcrt
for name in ("O_NOFOLLOW", "O_DIRECTORY", "O_CLOEXEC", "O_NONBLOCK", "pread", "pwrite",
             "fchmod", "fchown", "geteuid", "getegid"):
    if hasattr(os, name):
        delattr(os, name)

def _no_dir_fd(real):
    def call(*args, **kwargs):
        if any(kwargs.get(k) is not None for k in ("dir_fd", "src_dir_fd", "dst_dir_fd")):
            raise NotImplementedError(f"{real.__name__}: dir_fd unavailable on this platform")
        if real is _listdir and args and isinstance(args[0], int):
            raise TypeError("listdir: path should be string, bytes or os.PathLike, not int")
        return real(*args, **kwargs)
    call.__name__ = real.__name__
    return call

_listdir = os.listdir
for name in ("stat", "lstat", "mkdir", "unlink", "remove", "rename", "replace", "rmdir",
             "listdir", "scandir", "utime", "chmod"):
    setattr(os, name, _no_dir_fd(getattr(os, name)))

_BINARY = 1 << 30
os.O_BINARY = _BINARY
_open = os.open
def _windows_open(path, flags, mode=0o777, *, dir_fd=None):
    if dir_fd is not None:
        raise NotImplementedError("open: dir_fd unavailable on this platform")
    fd = _open(path, flags & ~_BINARY, mode)
    kind = stat.S_IFMT(os.fstat(fd).st_mode)
    if kind == stat.S_IFDIR or (kind == stat.S_IFREG and not flags & _BINARY):
        os.close(fd)
        why = "a folder cannot be opened" if kind == stat.S_IFDIR else "text mode would translate bytes"
        raise PermissionError(errno.EACCES, f"{why}: {path}")
    return fd
os.open = _windows_open
os.supports_dir_fd = set()
os.supports_fd = {os.stat}
os.supports_follow_symlinks = {os.stat}
"""


def simulated(locks: str, then: str) -> str:
    """A program: the simulation with ``locks`` ("msvcrt", "none" or "fcntl"), then ``then``."""
    return f"LOCKS = {locks!r}\n{SIMULATION}\n{then}"


CLI = "from gotchas.cli import main\nraise SystemExit(main(sys.argv[1:]))"


def on_windows_shape(
    root: Path, *args: str, locks: str = "msvcrt", stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", simulated(locks, CLI), *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(root.parent / "home"),
        check=False,
    )


def on_posix(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", f"import sys\n{CLI}", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        env=isolated_env(root.parent / "home"),
        check=False,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    make_scenario_repo(root)
    run_gotchas(root, "task", "set", "664", "running")
    return root


def probe(then: str, locks: str = "msvcrt") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", simulated(locks, then)], capture_output=True, text=True, check=False
    )


def test_this_platform_uses_descriptors_and_the_simulation_does_not() -> None:
    assert workspace.BY_DESCRIPTOR, "on POSIX the descriptor-relative code stays the default"
    done = probe("from gotchas import workspace\nprint(workspace.BY_DESCRIPTOR)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


@pytest.mark.parametrize(
    ("call", "error"),
    [
        ("import fcntl", "ModuleNotFoundError: import of fcntl halted"),
        ("os.pread", "AttributeError"),
        ("os.O_NOFOLLOW", "AttributeError"),
        ("os.O_DIRECTORY", "AttributeError"),
        ("os.fchmod", "AttributeError"),
        ("os.stat('x', dir_fd=3)", "NotImplementedError: stat: dir_fd unavailable"),
        ("os.replace('a', 'b', src_dir_fd=3)", "NotImplementedError: replace: dir_fd unavailable"),
        ("os.listdir(3)", "TypeError: listdir"),
        ("os.open('.', os.O_RDONLY | os.O_BINARY)", "PermissionError: [Errno 13] a folder cannot be opened"),
        (f"os.open({str(Path(__file__))!r}, os.O_RDONLY)", "PermissionError: [Errno 13] text mode"),
    ],
)
def test_the_simulation_really_refuses_what_windows_lacks(call: str, error: str) -> None:
    done = probe(call)
    assert done.returncode == 1
    assert error in done.stderr, done.stderr


def test_the_simulated_msvcrt_lock_excludes_another_process(tmp_path: Path) -> None:
    """The fake lock is a real one: a second process cannot take it while the first holds it."""
    target = tmp_path / "lock"
    target.write_bytes(b"")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            simulated(
                "msvcrt",
                f"import msvcrt, time\nfd = os.open({str(target)!r}, os.O_RDWR | os.O_BINARY)\n"
                "msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)\nprint('held', flush=True)\ntime.sleep(30)",
            ),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        second = probe(
            f"import msvcrt\nfd = os.open({str(target)!r}, os.O_RDWR | os.O_BINARY)\n"
            "msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)"
        )
        assert second.returncode != 0 and "BlockingIOError" in second.stderr
    finally:
        holder.kill()
        holder.wait()


# --- reading: the same answers as on POSIX -----------------------------------------------------

READS = [
    ("list",),
    ("list", "--json", "--task", "#664"),
    ("show", "a-single-large-llm-generate-deadlocks-the-v1"),
    ("verify",),
    ("outline",),
    ("proposals",),
    ("task", "show", "664"),
]


@pytest.mark.parametrize("args", READS)
@pytest.mark.parametrize("locks", ["msvcrt", "none"])
def test_reads_answer_as_on_posix(repo: Path, args: tuple[str, ...], locks: str) -> None:
    expected = on_posix(repo, *args)
    done = on_windows_shape(repo, *args, locks=locks)
    assert expected.returncode == 0, expected.stderr
    assert (done.returncode, done.stdout) == (0, expected.stdout), done.stderr


@pytest.mark.parametrize("locks", ["msvcrt", "none"])
def test_check_hold_answers_as_on_posix(repo: Path, locks: str) -> None:
    expected = on_posix(repo, "check-hold", HOLD, "--json")
    done = on_windows_shape(repo, "check-hold", HOLD, "--json", locks=locks)
    assert done.returncode == expected.returncode == 3, done.stderr
    assert _timeless(json.loads(done.stdout)) == _timeless(json.loads(expected.stdout))


def _timeless(value: object) -> object:
    """``value`` without the clock readings (``*_at``), which differ between two runs."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if not k.endswith("_at")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


# --- what the repository holds is refused as on POSIX ------------------------------------------


def _record_linked_outside(root: Path) -> None:
    record = root / RECORD_PATH
    outside = root.parent / "elsewhere.md"
    outside.write_bytes(record.read_bytes())
    record.unlink()
    record.symlink_to(outside)


def _record_linked_inside(root: Path) -> None:
    record = root / RECORD_PATH
    record.rename(record.with_name("real.md"))
    record.symlink_to("real.md")


def _rules_linked_inside(root: Path) -> None:
    rules = root / ".claude/rules"
    rules.rename(root / "docs-rules")
    rules.symlink_to("../docs-rules", target_is_directory=True)


def _state_linked_outside(root: Path) -> None:
    state = root / ".claude/gotchas"
    moved = root.parent / "state-elsewhere"
    state.rename(moved)
    state.symlink_to(moved, target_is_directory=True)


def _journal_linked_outside(root: Path) -> None:
    journal = root / ".claude/gotchas/journal.jsonl"
    outside = root.parent / "journal-elsewhere"
    outside.write_bytes(b"")
    journal.symlink_to(outside)


def _ledger_linked_outside(root: Path) -> None:
    ledger = root / ".claude/gotchas/tasks.jsonl"
    outside = root.parent / "ledger-elsewhere"
    outside.write_bytes(ledger.read_bytes())
    ledger.unlink()
    ledger.symlink_to(outside)


def _locks_linked_outside(root: Path) -> None:
    outside = root.parent / "locks-elsewhere"
    outside.mkdir()
    (root / ".claude/gotchas/locks").symlink_to(outside, target_is_directory=True)


def _fifo_record(root: Path) -> None:
    record = root / RECORD_PATH
    record.unlink()
    os.mkfifo(record)


def _record_is_a_folder(root: Path) -> None:
    record = root / RECORD_PATH
    record.unlink()
    record.mkdir()


HOSTILE = [
    (_record_linked_outside, ("list",)),
    (_record_linked_inside, ("list",)),
    (_record_linked_inside, ("verify",)),
    (_record_linked_inside, ("show", "a-single-large-llm-generate-deadlocks-the-v1")),
    (_rules_linked_inside, ("list",)),
    (_rules_linked_inside, ("outline",)),
    (_state_linked_outside, ("task", "set", "664", "landed", "--by", "ci")),
    (_state_linked_outside, ("proposals",)),
    (_state_linked_outside, ("check-hold", HOLD, "--json")),
    (_journal_linked_outside, ("proposals",)),
    (_ledger_linked_outside, ("task", "set", "664", "landed", "--by", "ci")),
    (_ledger_linked_outside, ("check-hold", HOLD, "--json")),
    (_fifo_record, ("list",)),
    (_record_is_a_folder, ("list",)),
]


def _files(root: Path) -> dict[Path, bytes]:
    """Every regular file under ``root`` (a fixture's ``tmp_path``) with its bytes."""
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


@pytest.mark.parametrize(
    ("hostile", "args"),
    HOSTILE,
    ids=lambda v: v.__name__.strip("_") if callable(v) else " ".join(v),
)
def test_a_hostile_layout_gets_the_posix_answer(
    repo: Path, hostile: Callable[[Path], None], args: tuple[str, ...]
) -> None:
    """Refusals, codes, messages and output are those of the descriptor-relative code."""
    hostile(repo)
    expected = on_posix(repo, *args)
    before = _files(repo.parent)
    done = on_windows_shape(repo, *args)
    assert "internal error" not in done.stderr
    assert done.returncode == expected.returncode, done.stderr
    assert _timeless_text(done.stdout) == _timeless_text(expected.stdout)
    assert _timeless_text(done.stderr) == _timeless_text(expected.stderr)
    assert _files(repo.parent) == before


def _timeless_text(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "<time>", text)


@pytest.mark.parametrize(
    ("hostile", "code"),
    [
        (_record_linked_outside, "path-outside-root"),
        (_fifo_record, "record-unreadable"),
        (_record_is_a_folder, "record-unreadable"),
    ],
    ids=lambda v: v.__name__.strip("_") if callable(v) else v,
)
def test_a_record_that_is_not_a_plain_file_inside_is_refused(
    repo: Path, hostile: Callable[[Path], None], code: str
) -> None:
    hostile(repo)
    done = on_windows_shape(repo, "list")
    assert done.returncode != 0
    assert done.stderr.startswith(f"gotchas: {code}:"), done.stderr


def test_a_write_through_a_linked_state_folder_is_refused(repo: Path) -> None:
    _state_linked_outside(repo)
    before = _files(repo.parent)
    done = on_windows_shape(repo, "task", "set", "664", "landed", "--by", "ci")
    assert done.returncode != 0
    assert done.stderr.startswith("gotchas: unsafe-path:"), done.stderr
    assert _files(repo.parent) == before


# --- writing: the same bytes as on POSIX --------------------------------------------------------


def _supersede(root: Path, run: Callable[..., subprocess.CompletedProcess[str]]) -> str:
    proposed = run(
        root,
        "propose",
        "--no-hold",
        "--target-id",
        "a-single-large-llm-generate-deadlocks-the-v1",
        "--task",
        "664",
        "--title",
        CORRECTION_TITLE,
        "--body",
        CORRECTION_BODY,
        "--diagnostic",
        CORRECTION_DIAGNOSTIC,
        "--json",
    )
    assert proposed.returncode == 0, proposed.stderr
    pid: str = json.loads(proposed.stdout)["proposal_id"]
    return pid


def _crlf_bom(root: Path) -> None:
    """Someone else's conventions the edit must keep: a BOM, CRLF line ends, no final newline."""
    record = root / RECORD_PATH
    text = record.read_bytes().replace(b"\r\n", b"\n").rstrip(b"\n").replace(b"\n", b"\r\n")
    record.write_bytes(b"\xef\xbb\xbf" + text)


@pytest.mark.parametrize("conventions", [None, _crlf_bom], ids=["lf", "crlf-bom"])
def test_a_supersede_writes_the_same_bytes_as_on_posix(
    tmp_path: Path, conventions: Callable[[Path], None] | None
) -> None:
    results = []
    for name, run in (("posix", on_posix), ("windows", on_windows_shape)):
        root = tmp_path / name / "repo"
        make_scenario_repo(root)
        if conventions is not None:
            conventions(root)
        record = root / RECORD_PATH
        before = record.read_bytes()
        pid = _supersede(root, run)
        applied = run(root, "apply", pid, "--json")
        assert applied.returncode == 0, applied.stderr
        assert json.loads(applied.stdout)["status"] == "applied"
        after = record.read_bytes()
        assert after != before and CORRECTION_TITLE.encode() in after
        assert stat.S_IMODE(record.stat().st_mode) == 0o644
        journal = (root / ".claude/gotchas/journal.jsonl").read_bytes()
        assert journal.endswith(b"\n") and b'"applied"' in journal
        assert list((root / ".claude/gotchas/tmp").glob("*.tmp")) == []
        results.append(after)
    assert results[0] == results[1]


def test_an_apply_without_a_lock_is_refused_and_every_byte_stays(repo: Path) -> None:
    pid = _supersede(repo, on_posix)
    before = _files(repo.parent)
    done = on_windows_shape(repo, "apply", pid, locks="none")
    assert done.returncode == 1
    assert done.stderr.startswith("gotchas: lock-unavailable:"), done.stderr
    after = _files(repo.parent)
    assert {p: after[p] for p in before} == before
    locks = repo / ".claude/gotchas/locks"
    assert all(p.parent == locks for p in set(after) - set(before)), "only the lock file is new"


def test_a_symlinked_state_folder_refuses_a_supersede_and_leaves_every_byte(repo: Path) -> None:
    pid = _supersede(repo, on_posix)
    _state_linked_outside(repo)
    before = _files(repo.parent)
    done = on_windows_shape(repo, "apply", pid)
    assert done.returncode != 0
    assert done.stderr.startswith("gotchas: unsafe-path:"), done.stderr
    assert _files(repo.parent) == before


def test_a_linked_locks_folder_refuses_an_apply_as_on_posix(repo: Path) -> None:
    pid = _supersede(repo, on_posix)
    _locks_linked_outside(repo)
    before = _files(repo.parent)
    expected = on_posix(repo, "apply", pid)
    done = on_windows_shape(repo, "apply", pid)
    assert expected.stderr.startswith("gotchas: unsafe-path:"), expected.stderr
    assert (done.returncode, done.stderr) == (expected.returncode, expected.stderr)
    assert _files(repo.parent) == before


def test_concurrent_ledger_writes_lose_nothing(repo: Path) -> None:
    """Six processes append to the ledger at once through the by-path opens and the lock."""
    ledger = repo / ".claude/gotchas/tasks.jsonl"
    before = ledger.read_bytes()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", simulated("msvcrt", CLI), "task", "set", str(700 + n), "running"],
            cwd=repo,
            env=isolated_env(repo.parent / "home"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=60)
        assert writer.returncode == 0, err
    assert ledger.read_bytes().startswith(before)
    added = ledger.read_bytes()[len(before) :].splitlines()
    assert sorted(json.loads(line)["task"] for line in added) == [f"#{700 + n}" for n in range(6)]


# --- the checks themselves, in-process: links, and swaps in the instant of the open -------------


@pytest.mark.parametrize(
    ("mode", "attributes", "tag", "link"),
    [
        (stat.S_IFLNK | 0o777, 0, 0, True),
        (stat.S_IFDIR | 0o755, stat.FILE_ATTRIBUTE_REPARSE_POINT, 0xA0000003, True),  # junction
        (stat.S_IFREG | 0o644, stat.FILE_ATTRIBUTE_REPARSE_POINT, 0xA000000C, True),  # symlink
        (stat.S_IFREG | 0o644, stat.FILE_ATTRIBUTE_REPARSE_POINT, 0, True),  # untagged
        (stat.S_IFREG | 0o644, stat.FILE_ATTRIBUTE_REPARSE_POINT, 0x9000001A, False),  # cloud file
        (stat.S_IFDIR | 0o755, stat.FILE_ATTRIBUTE_DIRECTORY, 0, False),
        (stat.S_IFREG | 0o644, 0, 0, False),
    ],
)
def test_links_and_junctions_are_told_from_files(mode: int, attributes: int, tag: int, link: bool) -> None:
    assert confined.redirects(mode, attributes, tag) is link


@pytest.fixture
def without_nofollow(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on Windows, an open by path follows a link: only the checks around it can refuse."""
    monkeypatch.delattr(os, "O_NOFOLLOW", raising=False)


def _swap_during_open(monkeypatch: pytest.MonkeyPatch, target: str, swap: Callable[[], None]) -> None:
    real = os.open

    def open_after_swap(path: str | os.PathLike[str], flags: int, mode: int = 0o777, **kw: int) -> int:
        if os.fspath(path).endswith(target):
            swap()
        return real(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", open_after_swap)


@pytest.mark.usefixtures("without_nofollow")
def test_a_file_swapped_for_a_link_in_the_instant_of_the_open_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes/a.md").write_bytes(b"inside\n")
    secret = tmp_path / "secret.md"
    secret.write_bytes(b"outside\n")

    def swap() -> None:
        (root / "notes/a.md").unlink()
        (root / "notes/a.md").symlink_to(secret)

    _swap_during_open(monkeypatch, "a.md", swap)
    with pytest.raises(UnsafePath, match="replaced while it was opened"):
        confined.open_beneath_by_path(root, "notes/a.md", os.O_RDONLY)


@pytest.mark.usefixtures("without_nofollow")
def test_a_folder_swapped_for_a_link_in_the_instant_of_the_open_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes/a.md").write_bytes(b"inside\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.md").write_bytes(b"outside\n")

    def swap() -> None:
        (root / "notes").rename(tmp_path / "moved")
        (root / "notes").symlink_to(elsewhere, target_is_directory=True)

    _swap_during_open(monkeypatch, "a.md", swap)
    with pytest.raises(UnsafePath):
        confined.open_beneath_by_path(root, "notes/a.md", os.O_RDONLY)


@pytest.mark.usefixtures("without_nofollow")
def test_a_link_planted_where_a_file_is_created_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "root"
    (root / "state").mkdir(parents=True)
    target = tmp_path / "created-outside"

    _swap_during_open(monkeypatch, "new.lock", lambda: (root / "state/new.lock").symlink_to(target))
    with pytest.raises(UnsafePath):
        confined.open_beneath_by_path(root, "state/new.lock", os.O_RDWR | os.O_CREAT)
    assert not target.exists()


@pytest.mark.parametrize("name", ["a\x00b.md", "..", "", "."])
def test_a_name_that_is_not_one_plain_entry_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "notes").mkdir()
    with pytest.raises(UnsafePath):
        confined.open_beneath_by_path(tmp_path, f"notes/{name}", os.O_RDONLY)


# --- the server ---------------------------------------------------------------------------------


def test_the_stdio_server_serves_a_read_in_the_simulation(repo: Path) -> None:
    """``gotchas serve`` answers tools/list and a listing. ``fcntl`` stays importable here: the
    MCP SDK's stdio transport imports it whenever the platform is not win32 (its Windows branch
    is chosen by platform name), so only the SDK, not this package, needs it in the simulation."""
    from mcp import Client, StdioServerParameters

    serve = "from gotchas.cli import main\nraise SystemExit(main(['serve']))"

    async def session() -> tuple[set[str], str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", simulated("fcntl", serve)],
            env=isolated_env(repo.parent / "home", GOTCHAS_ROOT=str(repo)),
            cwd=repo,
        )
        async with Client(params) as client:
            tools = {tool.name for tool in (await client.list_tools()).tools}
            listed = await client.call_tool("list_gotchas", {})
            return tools, json.dumps(listed.model_dump(mode="json"))

    tools, listed = asyncio.run(session())
    assert "list_gotchas" in tools
    assert "a-single-large-llm-generate-deadlocks-the-v1" in listed
