"""Value classes for the reading path, without the ``dataclasses`` module.

``dataclasses`` loads ``inspect`` (and with it ``ast``, ``dis`` and ``tokenize``) and builds
every method of every class with an ``exec`` of its own: on a one-shot ``gotchas list`` that
was a fifth of the whole run. :func:`dataclass` gives a class the methods the standard
decorator gives it for the options used here (``frozen``, ``slots``; ``field`` with
``default``, ``default_factory``, ``repr``, ``compare``) -- ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, the frozen ``__setattr__``/``__delattr__``, ``__slots__`` and
``__match_args__`` -- the same code, built with one ``exec`` a class. The type checker reads
the standard decorator in its place, so the two must agree: ``tests/test_values.py`` holds
them side by side.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """A field of a frozen instance assigned to or deleted."""


class Field:
    """What :func:`field` declares: a default (or a factory for one), and whether the field
    is shown by ``repr`` and compared by ``==`` and ``hash``."""

    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] = _MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    return Field(default, default_factory, repr, compare)


class _TupleMeta(type):
    def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        return _named_tuple(name, namespace)


_NamedTupleBase = type.__new__(_TupleMeta, "NamedTuple", (), {})  # the base itself is no tuple


class _NamedTupleEntry:
    """``class Block(NamedTuple)``: the class statement makes a ``collections.namedtuple``."""

    def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type, ...]:
        return (_NamedTupleBase,)


NamedTuple: Any = _NamedTupleEntry()
"""``typing.NamedTuple`` as a base, without loading ``typing``: the same namedtuple, with the
class's annotations, defaults, docstring and methods."""


def _named_tuple(name: str, namespace: dict[str, Any]) -> Any:
    import collections  # loaded already: functools and re use it

    annotations = namespace.get("__annotations__", {})
    names = list(annotations)
    make: Any = collections.namedtuple  # typed where it is used: typing.NamedTuple
    defaults = [namespace[n] for n in names if n in namespace]
    made: Any = make(name, names, defaults=defaults, module=namespace["__module__"])
    made.__annotations__ = made.__new__.__annotations__ = dict(annotations)
    for key, value in namespace.items():
        if key not in ("__module__", "__name__", "__annotations__") and key not in names:
            setattr(made, key, value)
    return made


def dataclass(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    def wrap(cls: Any) -> Any:
        return _process(cls, frozen, slots)

    return wrap if cls is None else wrap(cls)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with ``changes``: made by its ``__init__``, so unknown names fail."""
    kind: Any = type(obj)
    values = {name: getattr(obj, name) for name in kind.__value_fields__}
    values.update(changes)
    return kind(**values)  # type: ignore[no-any-return]


def _process(cls: Any, frozen: bool, slots: bool) -> Any:
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 -- no inspect here
    names = list(annotations)
    declared = {name: cls.__dict__.get(name, _MISSING) for name in names}
    specs = {
        name: v if isinstance(v, Field) else Field(v, _MISSING, True, True) for name, v in declared.items()
    }
    body = dict(cls.__dict__)
    for name, spec in specs.items():
        if slots or spec.default is _MISSING:
            body.pop(name, None)
        else:
            body[name] = spec.default
    if slots:
        body.pop("__dict__", None)
        body.pop("__weakref__", None)
        body["__slots__"] = tuple(names)
        qualname = cls.__qualname__
        cls = type(cls)(cls.__name__, cls.__bases__, body)
        cls.__qualname__ = qualname
    else:
        for name in specs:
            if name in body:
                setattr(cls, name, body[name])
            elif name in cls.__dict__:
                delattr(cls, name)

    scope: dict[str, Any] = {"_MISSING": _MISSING, "_set": object.__setattr__}
    params, lines = [], []
    for name, spec in specs.items():
        if spec.default_factory is not _MISSING:
            scope[f"_factory_{name}"] = spec.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_factory_{name}() if {name} is _MISSING else {name}"
        elif spec.default is not _MISSING:
            scope[f"_default_{name}"] = spec.default
            params.append(f"{name}=_default_{name}")
            value = name
        else:
            params.append(name)
            value = name
        lines.append(f"  _set(self, {name!r}, {value})" if frozen else f"  self.{name} = {value}")
    # __init__ is made from source, as dataclasses makes it (instances are made by the
    # thousand), when the first instance is made: a run compiles only the classes it uses.
    # The other methods are closures over the field names, with no compiling.
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(lines or ["  pass"])
    scope["__init__"] = _init_on_first_use(cls, source, scope)
    scope.update(_methods(cls, tuple(names), specs))
    qualname = cls.__qualname__
    own_hash = cls.__dict__.get("__hash__", _MISSING)
    explicit_hash = not (own_hash is _MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    for name in ("__init__", "__repr__", "__eq__"):
        if name not in cls.__dict__:  # a method the class writes itself is kept, as dataclasses does
            _attach(cls, name, scope[name], qualname)
    if frozen:
        _attach(cls, "__setattr__", scope["__setattr__"], qualname)
        _attach(cls, "__delattr__", scope["__delattr__"], qualname)
        if not explicit_hash:
            _attach(cls, "__hash__", scope["__hash__"], qualname)
    elif not explicit_hash:
        cls.__hash__ = None
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(names)  # type: ignore[misc]
    cls.__value_fields__ = tuple(names)
    cls.__dataclass_fields__ = _StandardFields(annotations, specs, frozen)
    return cls


class _StandardFields:
    """``__dataclass_fields__``, made on first use: ``dataclasses.replace``, ``fields`` and
    ``asdict`` then take these classes for what they stand for (the standard module loads
    then, on the edit path, where it is needed anyway)."""

    def __init__(self, annotations: dict[str, Any], specs: dict[str, Field], frozen: bool) -> None:
        self.source = (annotations, specs, frozen)

    def __get__(self, instance: object, owner: Any) -> Any:
        import dataclasses

        annotations, specs, frozen = self.source
        body: dict[str, Any] = {"__annotations__": dict(annotations)}
        for name, spec in specs.items():
            body[name] = dataclasses.field(
                default=spec.default if spec.default is not _MISSING else dataclasses.MISSING,
                default_factory=(
                    spec.default_factory if spec.default_factory is not _MISSING else dataclasses.MISSING
                ),
                repr=spec.repr,
                compare=spec.compare,
            )
        standard: Any = dataclasses.dataclass(frozen=frozen)(type(owner.__name__, (), body))
        fields = standard.__dataclass_fields__
        type.__setattr__(owner, "__dataclass_fields__", fields)  # made once a class
        return fields


def _init_on_first_use(cls: Any, source: str, scope: dict[str, Any]) -> Callable[..., None]:
    """An ``__init__`` that compiles the class's own on the first call and puts it in its place."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        exec(source, scope)
        made = scope["__init__"]
        _attach(cls, "__init__", made, cls.__qualname__)
        made(self, *args, **kwargs)

    return __init__


def _methods(cls: Any, names: tuple[str, ...], specs: dict[str, Field]) -> dict[str, Any]:
    """``__repr__``, ``__eq__``, ``__hash__`` and the frozen ``__setattr__``/``__delattr__``:
    what dataclasses writes out for the fields, as closures (values compare as the tuple of
    the compared fields, as there)."""
    import operator  # loaded already: collections uses it

    compared = [name for name in names if specs[name].compare]
    shown = [name for name in names if specs[name].repr]
    if len(compared) >= 2:
        key: Callable[[Any], tuple[Any, ...]] = operator.attrgetter(*compared)
    elif compared:
        only = compared[0]
        key = lambda value: (getattr(value, only),)  # noqa: E731
    else:
        key = lambda value: ()  # noqa: E731

    def __repr__(self: Any) -> str:
        inside = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{self.__class__.__qualname__}({inside})"

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return {
        "__repr__": __repr__,
        "__eq__": __eq__,
        "__hash__": __hash__,
        "__setattr__": __setattr__,
        "__delattr__": __delattr__,
    }


def _attach(cls: Any, name: str, function: Any, qualname: str) -> None:
    function.__qualname__ = f"{qualname}.{name}"
    setattr(cls, name, function)
