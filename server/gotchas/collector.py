"""The cyclic garbage collector, handled in this one place.

Two moments only, both in processes this package starts: a server's start-up (importing the
MCP SDK allocates hundreds of thousands of long-lived objects; collecting them while the
server is built is wasted work, so collection waits, and what exists once it is built is
frozen out of later collections), and a one-shot command that builds one large structure
with no cyclic garbage in it and then exits (``gotchas list``, ``gotchas view``: a collection
would only walk the parse, about 8% of a cold listing). Never around a parse in a
long-running server: frozen objects are never collected.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def starting() -> None:
    """A server is being built: no collection until :func:`serving`."""
    gc.disable()


def serving() -> None:
    """The server is built: what exists now is long-lived; collect from here on."""
    gc.freeze()
    gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """For one-shot work that makes no cyclic garbage; the previous state afterwards."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
