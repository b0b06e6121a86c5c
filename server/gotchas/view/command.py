"""``gotchas view``: write the record as one static HTML page, and open it if asked.

The page is the only file written. It is no record and no state, yet it is written as
carefully: inside the project every folder on the way is walked without following a
symlink (a repository could make ``.gotchas`` a link to anywhere), a symlink or anything
but a regular file in the page's place is refused rather than written through, nothing is
written inside ``.git/``, and the page replaces the old one in a single rename. Everything
is gathered and rendered first, so a refusal leaves every file as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

from gotchas import collector
from gotchas.cli.options import json_flag, workspace
from gotchas.cli.output import emit, shown_path
from gotchas.confined import BY_DESCRIPTOR, open_dir_beneath
from gotchas.errors import InvalidArgument, UnsafePath
from gotchas.terminal import printable
from gotchas.workspace import Workspace

DEFAULT_OUTPUT = ".gotchas/view.html"
SUFFIXES = (".html", ".htm")


def add_view(cmd: argparse.ArgumentParser) -> None:
    cmd.add_argument(
        "--output", metavar="FILE", help=f"the page's path (default: {DEFAULT_OUTPUT} in the root)"
    )
    cmd.add_argument("--open", action="store_true", help="open the page in the browser once written")
    cmd.add_argument(
        "--no-holds", action="store_true", help="show holds without evaluating them (no git, no tracker)"
    )
    json_flag(cmd)


def run_view(args: argparse.Namespace) -> int:
    return run(
        workspace(args), output=args.output, open_page=args.open, holds=not args.no_holds, as_json=args.json
    )


def run(
    ws: Workspace, *, output: str | None, open_page: bool, holds: bool = True, as_json: bool = False
) -> int:
    from gotchas.view.gather import gather
    from gotchas.view.page import render_page

    target = _target(ws, output)
    ws.one_shot = True  # nothing edits the record in this run
    with collector.paused():  # millions of tokens and strings, no cyclic garbage among them
        page = gather(ws, holds=holds)
        data = render_page(page).encode("utf-8")
    write_page(ws.root, target, data)
    if open_page:
        import webbrowser

        webbrowser.open(target.as_uri())
    s = page.summary
    summary = {
        "lessons": s.lessons,
        "active": s.active,
        "superseded": s.superseded,
        "pending": s.pending,
        "findings": s.findings,
    }
    counts = f"{s.lessons} lessons, {s.superseded} superseded, {s.pending} pending"
    text = f"wrote {shown_path(target)} ({counts}; {len(data):,} bytes)"
    emit({"output": str(target), "bytes": len(data), "summary": summary}, as_json, text)
    return 0


def _target(ws: Workspace, output: str | None) -> Path:
    """The page's absolute path: ``output`` as given (relative to the working directory), or
    ``.gotchas/view.html`` in the project. Refused: not an HTML file name, inside ``.git``."""
    if output is None:
        return ws.root / DEFAULT_OUTPUT
    if "\x00" in output or not output.strip():
        raise InvalidArgument("--output: give the path of an .html file")
    path = Path(os.path.abspath(output))
    if not path.name.lower().endswith(SUFFIXES):
        raise InvalidArgument(
            f"--output {printable(output)!r}: the page is written only to an .html or .htm file"
        )
    if ".git" in (part.lower() for part in Path(os.path.realpath(path.parent)).parts) or ".git" in (
        part.lower() for part in path.parts
    ):
        raise UnsafePath(f"--output {printable(output)!r}: nothing is written inside .git/")
    return path


def write_page(root: Path, path: Path, data: bytes) -> None:
    """``data`` in place of ``path`` by one rename. Below ``root`` no folder on the way may be a
    symlink; anywhere, a symlink or a non-regular file at ``path`` is refused, not followed."""
    if BY_DESCRIPTOR:
        inside = path.is_relative_to(root)
        if inside:
            folder = open_dir_beneath(root, path.parent.relative_to(root).parts, create=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            _write_in(folder, path.name, data, path)
        finally:
            os.close(folder)
        return
    _write_by_path(root, path, data)


def _refuse_in_place(info: os.stat_result | None, path: Path) -> None:
    if info is None:
        return
    if stat.S_ISLNK(info.st_mode):
        raise UnsafePath(f"{path} is a symlink; the page is never written through one: remove it first")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafePath(f"{path} is not a regular file; the page replaces only a regular file")


def _write_in(folder: int, name: str, data: bytes, path: Path) -> None:
    try:
        info: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    _refuse_in_place(info, path)
    temp = f".{name}.{secrets.token_hex(6)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o644, dir_fd=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise


def _write_by_path(root: Path, path: Path, data: bytes) -> None:
    """Where folders cannot be held open: each folder below ``root`` checked with ``lstat``."""
    if path.is_relative_to(root):
        current = root
        for part in path.parent.relative_to(root).parts:
            current = current / part
            try:
                info = os.lstat(current)
            except FileNotFoundError:
                os.mkdir(current)
                continue
            if not stat.S_ISDIR(info.st_mode) or stat.S_ISLNK(info.st_mode):
                raise UnsafePath(
                    f"{current} is a symlink or not a folder; the page is not written through it"
                )
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileNotFoundError):
        _refuse_in_place(os.lstat(path), path)
    temp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        with open(temp, "xb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if exc.errno == errno.EISDIR:
            raise UnsafePath(f"{path} is a folder") from None
        raise
