"""``fit``: the pin that reads the lessons a person names. It reads them exactly when a pin
can, comes no further from them than detection when none can, and tries a bounded number of
readings."""

from __future__ import annotations

from gotchas import fit, record
from gotchas.reading import Pin

GUIDE = b"""# Troubleshooting

## Connection

### "Connection refused" on start

The server binds to 127.0.0.1 only.

### Timeouts behind the proxy

Lower keepalive to 30 s.

## Debugging

- Set LOG_LEVEL=debug before starting the server.
- The server writes to `~/.app/logs`.

## Notes

Ask in the channel first.
"""


def _starts(data: bytes, found: fit.Fit) -> list[int]:
    """The lessons read under the pin found, written as the config writes a pin."""
    rows = "".join(f"\n{title}\t{unit}" for title, unit in found.pin.sections)
    return [e.start_line for e in record.parse(data, ((found.pin.unit or "") + rows) or None).entries]


def test_the_pin_found_reads_exactly_the_lessons_named() -> None:
    detected = [e.start_line for e in record.parse(GUIDE).entries]
    for wanted in ([5, 9], [5, 9, 15, 16], [15, 16], [1]):
        found = fit.fit_record(GUIDE, frozenset(wanted))
        assert found.exact and found.missing == [] == found.extra, wanted
        assert _starts(GUIDE, found) == wanted, found.pin
        if wanted == detected:
            assert found.pin == Pin() and found.tries == 1, "detection already reads them: no pin"


def test_when_no_pin_reads_them_the_closest_is_no_further_than_detection() -> None:
    wanted = frozenset({5, 7})  # line 7 is inside the first lesson's body
    detected = {e.start_line for e in record.parse(GUIDE).entries}
    found = fit.fit_record(GUIDE, wanted)
    assert not found.exact and 6 in found.missing  # 0-based: the body line
    assert len({n + 1 for n in found.read} ^ wanted) <= len(detected ^ wanted)
    assert found.tries <= fit.MAX_READS
    assert len(found.pin.sections) <= fit.MAX_ROWS
