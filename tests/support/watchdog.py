"""A watchdog for work that must stay linear: a quadratic path on a megabyte line runs for
hours, a linear one for a fraction of a second, so a bound of many seconds tells them apart
without timing anything finely."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class TooSlow(AssertionError):
    """The work did not finish within the watchdog's bound: something in it is superlinear."""


@contextmanager
def finishes_within(seconds: float, what: str) -> Iterator[None]:
    """Raise :class:`TooSlow` if the block runs longer than ``seconds`` (SIGALRM; the regex
    engine checks for signals, so a runaway match is interrupted too)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise TooSlow(f"{what} took longer than {seconds:g}s: superlinear on this input")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
