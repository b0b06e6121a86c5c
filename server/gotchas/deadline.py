"""The read deadline of ``serve --http``: a client that sends its request too slowly is dropped.

Each connection must deliver a whole request (headers and body) within the deadline of its
opening or of the previous response; otherwise it is closed. Half-sent requests (a slow
or idle client holding a connection open) cannot pile up, while a request fully received
may take as long as the tool needs to answer. ``GOTCHAS_HTTP_READ_TIMEOUT`` sets the
deadline in seconds (default 30).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from gotchas.errors import InvalidArgument

VARIABLE = "GOTCHAS_HTTP_READ_TIMEOUT"
DEFAULT = 30.0


def read_timeout(environ: Mapping[str, str]) -> float:
    """The deadline from the environment; a value that is not a positive number is refused."""
    raw = environ.get(VARIABLE, "").strip()
    if not raw:
        return DEFAULT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvalidArgument(f"{VARIABLE}={raw!r} is not a positive number of seconds")
    return value


def protocol(timeout: float) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with the read deadline ``timeout`` (seconds)."""

    class Deadlined(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _arm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._deadline = self.loop.call_later(timeout, self._expired)

        def _expired(self) -> None:
            """Close unless the request is whole (the tool is then working on it)."""
            self._deadline = None
            if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
                self.transport.close()

    return Deadlined
