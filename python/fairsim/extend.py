"""Queueing disciplines written in Python, run inside the engine (issue 33; docs/extending.md).

    import fairsim

    @fairsim.discipline("lifo")
    class Lifo(fairsim.Discipline):
        '''Last in, first out, with drop-tail.'''

        def __init__(self, port):
            self.stack = []

        def enqueue(self, packet, ctx):
            if ctx.admits(packet):
                self.stack.append(packet)
            else:
                ctx.drop(packet, "tail_drop")

        def dequeue(self, ctx):
            return self.stack.pop() if self.stack else None

A scenario then names it as it names any discipline (`qdisc = "lifo"`, in a pair or on a
link, with its parameters: `qdisc = { kind = "lifo", ... }`). A class that is importable but
not registered is named with its module: `qdisc = { kind = "python", class = "mymodule:Lifo" }`.
Worker processes (sweeps, reproductions, Dask) can only find classes named that way, or
registered by a module they import.

The engine keeps the packets. `enqueue` gets a view of each arriving packet, which the
discipline keeps (in a list, a heap, anything) or drops through the context. `dequeue` returns
one of the views it holds, or None. A hook that raises, or returns anything else, stops the run.
The error names the class, the hook and the simulated time, and gives the traceback.

Parameters are declared as a class attribute `params`, a dict from name to default. The
default's type is the parameter's: a scenario value of another type is refused with its place
in the file. The values reach `__init__` as keyword arguments.

The engine calls this module back with `_about`, `_names`, `_parameters` and `_build`
(`crates/fairsim-py/src/python_qdisc.rs`).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from fairsim import _core

#: The packet view and hook context the engine passes (defined in Rust).
Packet = _core.Packet
Context = _core.Context

#: Registered disciplines by name.
_REGISTRY: dict[str, type[Discipline]] = {}

#: The scenario kind that names an importable class instead of a registered name.
PYTHON_KIND = "python"


@dataclass(frozen=True)
class Port:
    """The port a discipline is built for."""

    #: The buffer's limit in packets, or in bytes; both None when it is unlimited.
    buffer_packets: int | None
    buffer_bytes: int | None
    #: The line's rate, bit/s.
    rate_bps: int
    #: How many flows the scenario has (a packet's `flow` is an index below this).
    flows: int
    #: The conversations whose route crosses the port: (flow, "data" or "ack").
    conversations: tuple[tuple[int, str], ...]


class Discipline:
    """Base class of a queueing discipline written in Python: override `enqueue` and `dequeue`."""

    #: Parameter name -> default; the default's type is the parameter's.
    params: ClassVar[dict[str, Any]] = {}
    #: Parameter name -> what it means, for `fairsim list NAME`.
    param_docs: ClassVar[dict[str, str]] = {}

    def __init__(self, port: Port, **params: Any) -> None:
        self.port = port
        for name, value in params.items():
            setattr(self, name, value)

    def enqueue(self, packet: Packet, ctx: Context) -> None:
        """Keep `packet`, or drop it (`ctx.drop`); may also drop packets kept before."""
        raise NotImplementedError

    def dequeue(self, ctx: Context) -> Packet | None:
        """The packet to send next (one kept by `enqueue`), or None."""
        raise NotImplementedError


def discipline(name: str):
    """Registers the decorated `Discipline` subclass under `name`, for scenarios to name."""

    def register(cls: type) -> type:
        _check_class(cls, f"fairsim.discipline({name!r})")
        builtin = {q[0] for q in _core.catalogue()[0]}
        if name in builtin or name == PYTHON_KIND:
            raise ValueError(f"fairsim.discipline({name!r}): `{name}` is a built-in discipline's name")
        if not name or not all(c.isalnum() or c in "_-" for c in name):
            raise ValueError(f"fairsim.discipline({name!r}): a name is letters, digits, `_` and `-`")
        _REGISTRY[name] = cls
        return cls

    return register


def _check_class(cls: object, who: str) -> None:
    if not (isinstance(cls, type) and issubclass(cls, Discipline)):
        raise TypeError(f"{who}: {cls!r} is not a subclass of fairsim.Discipline")
    missing = [h for h in ("enqueue", "dequeue") if getattr(cls, h) is getattr(Discipline, h)]
    if missing:
        raise TypeError(f"{who}: {cls.__qualname__} does not define {' and '.join(missing)}")
    if not isinstance(cls.params, dict) or not all(isinstance(k, str) for k in cls.params):
        raise TypeError(f"{who}: {cls.__qualname__}.params is a dict from parameter names to defaults")


def import_modules(modules: Iterable[str]) -> None:
    """Imports `modules` (their registrations with them), the current folder on the path as
    `python -m` has it; a module that fails is a `FairsimError` naming it."""
    import os
    import sys

    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as e:  # the user's module: any error in it is theirs
            raise _core.FairsimError(f"cannot import `{module}`: {type(e).__name__}: {e}") from None


def registering_modules() -> tuple[str, ...]:
    """The modules whose classes are registered, for worker processes to import first (a class
    defined in `__main__` is left out: only a forked worker, which inherits it, can run it)."""
    return tuple(sorted({cls.__module__ for cls in _REGISTRY.values()} - {"__main__"}))


def _label(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _import(path: str) -> type:
    """The class at `module:Class`."""
    module, _, qualname = path.partition(":")
    if not module or not qualname:
        raise LookupError(f"`{path}` is not `module:Class`")
    try:
        value: Any = importlib.import_module(module)
    except ImportError as e:
        raise LookupError(f"cannot import `{module}` ({e}); is it on PYTHONPATH?") from None
    for part in qualname.split("."):
        if not hasattr(value, part):
            raise LookupError(f"module `{module}` has no `{qualname}`")
        value = getattr(value, part)
    return value


def _about(name: str) -> tuple[str, str] | None:
    """What listings say of discipline `name`: its docstring's first paragraph and its class."""
    if name == PYTHON_KIND:
        return "a discipline written in Python, named by its class", "docs/extending.md"
    cls = _REGISTRY.get(name)
    if cls is None:
        return None
    first = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    return (first or "a discipline written in Python"), _label(cls)


def _names() -> list[str]:
    return [*_REGISTRY, PYTHON_KIND]


def _parameters(name: str) -> list[tuple[str, str | None, str]]:
    if name == PYTHON_KIND:
        return [("class", None, "the discipline's class, as `module:Class`")]
    cls = _REGISTRY[name]
    docs = getattr(cls, "param_docs", {})
    return [
        (k, str(v).lower() if isinstance(v, bool) else str(v), docs.get(k, "")) for k, v in cls.params.items()
    ]


def _accepts(default: Any, value: Any) -> bool:
    """Whether `value` (from a scenario) may stand for a parameter with `default`."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}


def _build(name: str, given: dict[str, Any], port: tuple) -> tuple:
    """An instance of discipline `name` for `port` from the scenario's parameters `given`:
    `(instance, label, resolved parameters)`, or `(None, key, message)` for a parameter refused."""
    given = dict(given)
    if name == PYTHON_KIND:
        path = given.pop("class", None)
        if not isinstance(path, str):
            return None, "class", 'a `python` discipline names its class: `class = "module:Class"`'
        try:
            cls = _import(path)
            _check_class(cls, f"class `{path}`")
        except (LookupError, TypeError) as e:
            return None, "class", str(e)
        resolved: dict[str, Any] = {"class": path}
        label = path
    else:
        cls = _REGISTRY[name]
        resolved = {}
        label = f"{name} ({_label(cls)})"
    values = {}
    for key, value in given.items():
        if key not in cls.params:
            takes = ", ".join(f"`{k}`" for k in cls.params) or "none"
            return None, key, f"unknown parameter `{key}` of {label} (its parameters: {takes})"
        default = cls.params[key]
        if not _accepts(default, value):
            wanted = _TYPE_NAMES.get(type(default), type(default).__name__)
            return None, key, f"`{key}` of {label} is {wanted}, not {value!r}"
        values[key] = float(value) if isinstance(default, float) else value
    values = {**cls.params, **values}
    resolved.update(values)
    packets, size, rate, flows, crossing = port
    instance = cls(Port(packets, size, rate, flows, tuple(crossing)), **values)
    return instance, label, resolved
