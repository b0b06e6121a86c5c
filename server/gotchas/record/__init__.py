"""The record: a lessons file read into entries with stable ids and exact byte spans.

``parse(data)`` is pure: bytes in, a ``Record`` out, no I/O. Nothing is re-rendered:
every entry is a byte range of the input, and the entries plus the bytes between them
reassemble the input exactly (``segments``). Invalid UTF-8 and binary data are refused.

One module a concept, dependencies pointing down the list:

- :mod:`~gotchas.record.parsing` -- ``parse``: the reading's spans become a ``Record``;
- :mod:`~gotchas.record.unread` -- entries read on first use, or only those a filter needs;
- :mod:`~gotchas.record.reuse` -- entries an edit did not touch, taken over from the parse before;
- :mod:`~gotchas.record.entries` -- one entry from its span: fields, links, tasks, status;
- :mod:`~gotchas.record.model` -- ``Entry`` and ``Record``, with the indexes filters use;
- :mod:`~gotchas.record.ids` -- entry ids: explicit, or the title's slug and a counter;
- :mod:`~gotchas.record.lines` -- decoding, line starts, front matter, content ends.
"""

from __future__ import annotations

from gotchas.record.ids import MAX_ID_LENGTH, slugify
from gotchas.record.lines import BOM, MAX_RECORD_BYTES, THEMATIC_BREAK, common_prefix, common_suffix, decode
from gotchas.record.model import Entry, MentionIndex, Record
from gotchas.record.parsing import parse

__all__ = [
    "BOM",
    "MAX_ID_LENGTH",
    "MAX_RECORD_BYTES",
    "THEMATIC_BREAK",
    "Entry",
    "MentionIndex",
    "Record",
    "common_prefix",
    "common_suffix",
    "decode",
    "parse",
    "slugify",
]
