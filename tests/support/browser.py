"""A real headless Chromium driven over the DevTools protocol, for tests that look at a page
as a person does: what is shown, what is struck through, what a filter leaves, what the
page would fetch.

The protocol runs over a pipe (``--remote-debugging-pipe``: commands on the browser's fd 3,
answers on its fd 4, each JSON message ended by a NUL), so no port is opened and no
websocket client is needed. Tests that need it skip, saying why, only where no Chromium is
installed (CI installs Debian's ``chromium``).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import pytest

CHROMIUM = next(
    (found for name in ("chromium", "chromium-browser", "google-chrome") if (found := shutil.which(name))),
    None,
)
MISSING = "no chromium on PATH: install Debian's chromium (apt-get install chromium; .ci/run does)"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
)
TIMEOUT = 60.0
_TRAMPOLINE = (
    "import os, sys\n"
    "os.dup2(int(sys.argv[1]), 3)\n"
    "os.dup2(int(sys.argv[2]), 4)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)

F = TypeVar("F", bound=Callable[..., object])


def requires_chromium(test: F) -> F:
    marked: F = pytest.mark.skipif(CHROMIUM is None, reason=MISSING)(test)
    return marked


class Browser:
    """One Chromium process and one page in it, spoken to over the pipe."""

    def __init__(self, process: subprocess.Popen[bytes], commands: int, answers: int) -> None:
        self.process = process
        self.commands = commands
        self.answers = answers
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.session: str | None = None

    # --- the wire --------------------------------------------------------------------------

    def _write(self, message: dict[str, Any]) -> None:
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data) :]

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.answers], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self.answers, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium closed the pipe (exit {self.process.poll()})")
            self.buffer += chunk
        raw, _, self.buffer = self.buffer.partition(b"\0")
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False) -> Any:
        """One command's result; events that arrive meanwhile are kept in :attr:`events`."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not browser:
            message["sessionId"] = self.session
        self._write(message)
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def wait_for(self, method: str, since: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events[since:]:
                if event["method"] == method:
                    return event
            since = len(self.events)
            answer = self._read(deadline)
            if "method" in answer:
                self.events.append(answer)

    # --- a page ----------------------------------------------------------------------------

    def open(self, url: str, width: int, height: int = 900) -> None:
        """``url`` in a fresh page of ``width`` CSS pixels, once it has loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, browser=True)["targetId"]
        attached = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, browser=True)
        self.session = attached["sessionId"]
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.resize(width, height)
        since = len(self.events)
        self.send("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired", since)

    def resize(self, width: int, height: int = 900) -> None:
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        )

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        result = self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def type_into(self, selector: str, text: str) -> None:
        """Focus a form control and type ``text`` into it, as a keyboard would insert it."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        self.send("Input.insertText", {"text": text})
        self.settle()

    def settle(self) -> None:
        """Wait for two animation frames: what a filter changed is then laid out and painted."""
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")

    def screenshot(self, path: Path, *, full_page: bool = True) -> bytes:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            width, height = self.evaluate(
                "[document.documentElement.clientWidth, document.documentElement.scrollHeight]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        data = base64.b64decode(self.send("Page.captureScreenshot", params)["data"])
        path.write_bytes(data)
        return data

    def requests(self) -> list[str]:
        """Every URL the page asked for since it was opened."""
        return [
            e["params"]["request"]["url"] for e in self.events if e["method"] == "Network.requestWillBeSent"
        ]

    def log(self) -> list[str]:
        """Console and browser log lines (a CSP refusal is one), and uncaught exceptions."""
        lines = [e["params"]["entry"]["text"] for e in self.events if e["method"] == "Log.entryAdded"]
        lines += [
            json.dumps(e["params"]["exceptionDetails"])
            for e in self.events
            if e["method"] == "Runtime.exceptionThrown"
        ]
        return lines


@contextmanager
def chromium() -> Iterator[Browser]:
    """A headless Chromium with a fresh profile, closed afterwards."""
    if CHROMIUM is None:
        pytest.skip(MISSING)
    profile = tempfile.mkdtemp(prefix="gotchas-chromium-")
    command_read, command_write = (_above_four(fd) for fd in os.pipe())
    answer_read, answer_write = (_above_four(fd) for fd in os.pipe())
    # a small interpreter puts the two pipe ends on fds 3 and 4, then becomes the browser
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _TRAMPOLINE,
            str(command_read),
            str(answer_write),
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={profile}",
            "about:blank",
        ],
        pass_fds=(command_read, answer_write),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=None if os.environ.get("GOTCHAS_TEST_BROWSER_LOG") else subprocess.DEVNULL,
    )
    os.close(command_read)
    os.close(answer_write)
    browser = Browser(process, command_write, answer_read)
    try:
        yield browser
    finally:
        with suppress(RuntimeError, TimeoutError, OSError):
            browser.send("Browser.close", browser=True)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(command_write)
        os.close(answer_read)
        shutil.rmtree(profile, ignore_errors=True)


def _above_four(fd: int) -> int:
    """``fd`` moved above 4, so placing the pipes on the browser's fds 3 and 4 clobbers neither."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height of a PNG, from its header."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
