"""gotchas.values makes the same classes as dataclasses, for the options the reading path uses.

The type checker reads the standard decorator in its place, so each class is built both
ways and every behaviour the code can see is compared: construction (positional, keyword,
defaults, factories), repr, equality, hashing, frozen assignment, slots, match arguments
and ``replace``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cached_property
from typing import Any

import pytest

from gotchas import values


def build(make: Any, make_field: Callable[..., Any]) -> dict[str, Any]:
    @make(frozen=True, slots=True)
    class Point:
        """A frozen slotted value."""

        x: int
        y: str
        z: tuple[int, ...] = ()

        def total(self) -> int:
            return self.x + sum(self.z)

    @make(frozen=True)
    class Doc:
        """Frozen with a cached property and a field left out of repr and ==."""

        data: bytes
        note: str | None = None
        extra: Any = make_field(default=None, repr=False, compare=False)

        @cached_property
        def size(self) -> int:
            return len(self.data)

    @make
    class Box:
        """Mutable, with factories."""

        name: str
        items: list[int] = make_field(default_factory=list)
        hidden: dict[str, int] = make_field(default_factory=dict, repr=False)

    return {"Point": Point, "Doc": Doc, "Box": Box}


OURS = build(values.dataclass, values.field)
THEIRS = build(dataclasses.dataclass, dataclasses.field)


def both(name: str) -> tuple[Any, Any]:
    return OURS[name], THEIRS[name]


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    [
        ("Point", (1, "a"), {}),
        ("Point", (1,), {"y": "b", "z": (2, 3)}),
        ("Doc", (b"abc",), {"note": "n", "extra": object()}),
        ("Box", ("b",), {}),
        ("Box", (), {"name": "c", "items": [1]}),
    ],
)
def test_construction_repr_equality_and_hash_agree(
    name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    ours, theirs = both(name)
    a, b, c = ours(*args, **kwargs), ours(*args, **kwargs), theirs(*args, **kwargs)
    assert repr(a) == repr(c)
    assert a == b
    assert a != c  # a different class is never equal, as with dataclasses
    assert (a.__eq__(object()), c.__eq__(object())) == (NotImplemented, NotImplemented)
    assert ours.__match_args__ == theirs.__match_args__
    if theirs.__hash__ is None:
        assert ours.__hash__ is None
    else:
        assert hash(a) == hash(b) == hash(c)


def test_slotted_frozen_values_have_no_dict_and_refuse_assignment() -> None:
    ours, theirs = both("Point")
    mine, standard = ours(1, "a", (2,)), theirs(1, "a", (2,))
    assert ours.__slots__ == theirs.__slots__ == ("x", "y", "z")
    assert not hasattr(mine, "__dict__")
    assert mine.total() == standard.total() == 3
    for target in (mine, standard):
        with pytest.raises(AttributeError):
            target.x = 2
        with pytest.raises(AttributeError):
            del target.y
    assert (mine.x, mine.y) == (1, "a")


def test_a_field_left_out_of_comparison_is_left_out_of_repr_eq_and_hash() -> None:
    ours, _ = both("Doc")
    a, b = ours(b"x", extra=1), ours(b"x", extra=2)
    assert a == b and hash(a) == hash(b)
    assert "extra" not in repr(a)
    assert a.size == 1 and a.__dict__["size"] == 1  # cached_property still writes the instance dict
    assert ours(b"x").extra is None and ours.extra is None


def test_factories_give_each_instance_its_own_value() -> None:
    ours, _ = both("Box")
    a, b = ours("a"), ours("b")
    a.items.append(1)
    assert b.items == [] and "hidden" not in repr(a)
    a.name = "changed"  # not frozen
    assert a.name == "changed"


def test_replace_makes_a_changed_copy_and_refuses_unknown_names() -> None:
    ours, theirs = both("Point")
    mine, standard = ours(1, "a"), theirs(1, "a")
    assert values.replace(mine, y="b") == ours(1, "b")
    assert repr(values.replace(mine, z=(1,))).endswith(
        repr(dataclasses.replace(standard, z=(1,))).split("Point")[1]
    )
    with pytest.raises(TypeError):
        values.replace(mine, w=1)
    with pytest.raises(TypeError):
        ours(1)  # a field without a default is required


def test_the_standard_functions_take_these_classes_for_dataclasses() -> None:
    """Code that calls ``dataclasses.replace`` or ``fields`` on a value gets what it would get."""
    ours, theirs = both("Doc")
    mine, standard = ours(b"x", "n", extra=1), theirs(b"x", "n", extra=1)
    changed: Any = dataclasses.replace(mine, note="m")
    assert type(changed) is ours and changed == ours(b"x", "m") and changed.extra == 1
    assert [(f.name, f.repr, f.compare) for f in dataclasses.fields(mine)] == [
        (f.name, f.repr, f.compare) for f in dataclasses.fields(standard)
    ]
    assert dataclasses.asdict(mine) == dataclasses.asdict(standard)
    point = OURS["Point"](1, "a")
    assert dataclasses.replace(point, z=(5,)) == OURS["Point"](1, "a", (5,))
    assert dataclasses.is_dataclass(ours) and dataclasses.is_dataclass(mine)


def test_a_named_tuple_class_is_the_one_typing_makes() -> None:
    import typing

    def make(base: Any) -> Any:
        class Pair(base):  # type: ignore[misc]
            """A pair."""

            kind: str
            start: int
            title: str = ""
            level: int = -1

            def span(self) -> int:
                return int(self.start) + 1

        return Pair

    ours, theirs = make(values.NamedTuple), make(typing.NamedTuple)
    a, b = ours("h", 3), theirs("h", 3)
    assert a == b == ("h", 3, "", -1) and hash(a) == hash(b) and repr(a) == repr(b)
    assert ours._fields == theirs._fields and ours._field_defaults == theirs._field_defaults
    assert ours.__doc__ == theirs.__doc__
    # typing wraps each annotation string in a ForwardRef; the names and texts are the same
    assert ours.__annotations__ == {k: v.__forward_arg__ for k, v in theirs.__annotations__.items()}
    assert a.span() == b.span() == 4 and a._replace(level=2) == b._replace(level=2)
    assert ours.__bases__ == theirs.__bases__ == (tuple,)


def test_init_is_compiled_on_first_use_and_then_is_the_class_s_own() -> None:
    ours = build(values.dataclass, values.field)["Point"]  # a fresh class: no instance made yet
    first = ours.__init__
    with pytest.raises(TypeError):
        ours(1)  # the compiled __init__ answers the first call, missing argument and all
    assert ours.__init__ is not first
    compiled = ours.__init__
    assert ours(1, "a") == ours(1, "a", ()) and ours.__init__ is compiled
    assert compiled.__qualname__ == f"{ours.__qualname__}.__init__"
