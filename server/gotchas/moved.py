"""Copies of frozen slotted value classes or named tuples with some integer fields moved, made in bulk.

After an edit, every entry, span and field below it is the same as before but for its
line and byte positions. Built one by one, a frozen value class costs a Python-level
``__setattr__`` a field; here each field is set over all the copies at once by its slot's
own setter, so copying ten thousand entries costs a few passes in C instead.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from itertools import repeat
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def copies(
    cls: type[T], objects: Sequence[T], by: Mapping[str, int], replace: Mapping[str, Sequence[Any]] = {}
) -> list[T]:
    """``objects`` (all of type ``cls``) copied with ``by[name]`` added to each field ``name``
    and the fields in ``replace`` taken from its sequences (one value an object, in order).

    ``cls`` must be a slotted value class (``@dataclass(frozen=True, slots=True)``) without
    ``__post_init__``: its ``__init__`` only assigns, so setting every slot makes the very
    object ``__init__`` would. A named tuple is built from its columns, as ``blockmap.moved_all``
    builds blocks. A class of another kind is copied one object at a time.
    """
    fields: tuple[str, ...] | None = getattr(cls, "_fields", None)
    if fields is not None and issubclass(cls, tuple):
        if not objects:
            return []
        rows: Any = objects
        columns_of = list(zip(*rows, strict=True))
        for at, name in enumerate(fields):
            if name in replace:
                columns_of[at] = tuple(replace[name])
            if by.get(name):
                columns_of[at] = tuple(map(by[name].__add__, columns_of[at]))
        return list(map(tuple.__new__, repeat(cls), zip(*columns_of, strict=True)))
    names: tuple[str, ...] = getattr(cls, "__slots__", ())
    if not names or hasattr(cls, "__post_init__") or not hasattr(cls, "__dataclass_fields__"):
        from dataclasses import replace as replaced  # not on the reading path: no such class there

        return [replaced(o, **_changed(o, by, replace, n)) for n, o in enumerate(objects)]  # type: ignore[type-var]
    made: list[T] = list(map(object.__new__, repeat(cls, len(objects))))
    if not made:
        return made
    # every field of every object read in one call an object, then turned into columns
    columns = dict(zip(names, zip(*map(attrgetter(*names), objects), strict=True), strict=True))
    for name in names:
        column: Any = replace[name] if name in replace else columns[name]
        if by.get(name):
            column = map(by[name].__add__, column)
        deque(map(getattr(cls, name).__set__, made, column), maxlen=0)
    return made


def _changed(
    obj: object, by: Mapping[str, int], replace: Mapping[str, Sequence[Any]], index: int
) -> dict[str, object]:
    out: dict[str, object] = {name: values[index] for name, values in replace.items()}
    for name, step in by.items():
        current: Any = out[name] if name in out else getattr(obj, name)
        out[name] = current + step
    return out
