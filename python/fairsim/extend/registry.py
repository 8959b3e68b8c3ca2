"""The registry of components written in Python: registration, lookup, parameters, building.

The engine calls it back through `_about`, `_names`, `_parameters` and `_build`, each
with the type of component first (`"discipline"` or `"controller"`; the hosts are in
`crates/fairsim-py/src/python_host.rs`). Parameters are declared as a class attribute `params`,
a dict from name to default; the default's type is the parameter's, and a scenario value of
another type is refused with its place in the file. The values reach `__init__` as keyword
arguments.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import random
from collections.abc import Iterable
from typing import Any

from fairsim import _core
from fairsim.extend.application import AppFlow, Application
from fairsim.extend.controller import Controller, Flow
from fairsim.extend.discipline import Discipline, Port

#: The base class of each type of component.
BASES: dict[str, type] = {"discipline": Discipline, "controller": Controller, "application": Application}

#: Registered classes by type and name.
_REGISTRY: dict[str, dict[str, type]] = {what: {} for what in BASES}

#: The scenario kind that names an importable class instead of a registered name.
PYTHON_KIND = "python"


def discipline(name: str):
    """Registers the decorated `Discipline` subclass under `name`, for scenarios to name as a
    discipline (`qdisc = "NAME"`)."""
    return _registering("discipline", name)


def controller(name: str):
    """Registers the decorated `Controller` subclass under `name`, for scenarios to name as a
    transport (`transport = "NAME"`): the controller under TCP's reliability layer."""
    return _registering("controller", name)


def application(name: str):
    """Registers the decorated `Application` subclass under `name`, for flows to name as their
    application (`app = "NAME"`)."""
    return _registering("application", name)


def _registering(what: str, name: str):
    def register(cls: type) -> type:
        who = f"fairsim.{what}({name!r})"
        _check_class(what, cls, who)
        qdiscs, transports, apps = _core.catalogue()
        listed = {"discipline": qdiscs, "controller": transports, "application": apps}[what]
        # the engine's own names; those that came through its door (these classes) may be taken again
        builtin = {e[0] for e in listed if not e[4]}
        if name in builtin or name in (PYTHON_KIND, "none"):
            raise ValueError(f"{who}: `{name}` is a built-in {_shown(what)}'s name")
        if not name or not all(c.isalnum() or c in "_-" for c in name):
            raise ValueError(f"{who}: a name is letters, digits, `_` and `-`")
        before = _REGISTRY[what].get(name)
        # a class defined again (a notebook's cell run twice, a module reloaded) takes its name
        # back; another class may not take it, or listings and runs could use different ones
        if before is not None and _label(before) != _label(cls):
            raise ValueError(f"{who}: `{name}` is registered already, by {_label(before)}")
        _REGISTRY[what][name] = cls
        return cls

    return register


def _a(noun: str) -> str:
    """`noun` with its indefinite article."""
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def _shown(what: str) -> str:
    return {"discipline": "discipline", "controller": "transport", "application": "application"}[what]


def _check_class(what: str, cls: object, who: str) -> None:
    base = BASES[what]
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise TypeError(f"{who}: {cls!r} is not a subclass of fairsim.{base.__name__}")
    missing = [h for h in base.required if getattr(cls, h) is getattr(base, h)]
    if missing:
        raise TypeError(f"{who}: {cls.__qualname__} does not define {' and '.join(missing)}")
    if not isinstance(cls.params, dict) or not all(isinstance(k, str) for k in cls.params):
        raise TypeError(f"{who}: {cls.__qualname__}.params is a dict from parameter names to defaults")
    wrong = _wrong_hook(base, cls)
    if wrong:
        raise TypeError(f"{who}: {cls.__qualname__}.{wrong}")


@functools.cache
def _wrong_hook(base: type, cls: type) -> str | None:
    """`hook(given) is called as hook(called)` for the first hook of `cls` that cannot take the
    arguments `base`'s takes; None if all can. Once per class: a class is checked for every
    flow or port it is built for, and `inspect.signature` is slow."""
    for hook, theirs in _hooks(base):
        mine = getattr(cls, hook)
        if mine is not theirs and not _takes(mine, _arity(theirs)):
            return f"{hook}{_parameters_of(mine)} is called as {hook}{_parameters_of(theirs)}"
    return None


def _hooks(base: type) -> list[tuple[str, Any]]:
    """The hooks the engine calls on a subclass of `base`: its public methods."""
    return [(n, f) for n, f in vars(base).items() if not n.startswith("_") and inspect.isfunction(f)]


def _parameters_of(function: Any) -> str:
    """`function`'s parameters as a message shows them: `(self, count, ctx)`."""
    return f"({', '.join(inspect.signature(function).parameters)})"


def _arity(function: Any) -> int:
    """How many positional arguments `function` (a base's hook) takes, `self` included."""
    return len(inspect.signature(function).parameters)


def _takes(function: Any, count: int) -> bool:
    """Whether `function` can be called with `count` positional arguments (`self` included)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # a callable Python cannot inspect: let the call tell
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters):
        return True
    required = [p for p in positional if p.default is p.empty]
    return len(required) <= count <= len(positional)


def import_modules(modules: Iterable[str]) -> None:
    """Imports `modules` (their registrations with them); a module that fails is a
    `FairsimError` naming it."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as e:  # the user's module: any error in it is theirs
            raise _core.FairsimError(f"cannot import `{module}`: {type(e).__name__}: {e}") from None


def registered_names() -> set[str]:
    """Every registered class's name (disciplines and controllers)."""
    return {name for classes in _REGISTRY.values() for name in classes}


def registering_modules() -> tuple[str, ...]:
    """The modules whose classes are registered, for worker processes to import first (a class
    defined in `__main__` is left out: only a forked worker, which inherits it, can run it)."""
    modules = {cls.__module__ for classes in _REGISTRY.values() for cls in classes.values()}
    return tuple(sorted(modules - {"__main__"}))


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


def _about(what: str, name: str) -> tuple[str, str] | None:
    """What listings say of `name`: its docstring's first paragraph and its class."""
    if name == PYTHON_KIND:
        return f"{_a(_shown(what))} written in Python, named by its class", "docs/extending.md"
    cls = _REGISTRY[what].get(name)
    if cls is None:
        return None
    first = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    return (first or f"{_a(_shown(what))} written in Python"), _label(cls)


def _names(what: str) -> list[str]:
    return [*_REGISTRY[what], PYTHON_KIND]


def _parameters(what: str, name: str) -> list[tuple[str, str | None, str]]:
    if name == PYTHON_KIND:
        return [("class", None, "the class, as `module:Class`")]
    cls = _REGISTRY[what][name]
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


def _build(what: str, name: str, given: dict[str, Any], built_for: tuple) -> tuple:
    """An instance of `name` built for a port (a discipline) or a flow (a controller) from the
    scenario's parameters `given`: `(instance, label, resolved parameters)`, or
    `(None, key, message)` for a parameter refused."""
    given = dict(given)
    if name == PYTHON_KIND:
        path = given.pop("class", None)
        if not isinstance(path, str):
            return None, "class", f'a `python` {_shown(what)} names its class: `class = "module:Class"`'
        try:
            cls = _import(path)
            _check_class(what, cls, f"class `{path}`")
        except (LookupError, TypeError) as e:
            return None, "class", str(e)
        resolved: dict[str, Any] = {"class": path}
        label = path
    else:
        cls = _REGISTRY[what][name]
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
    if what == "discipline":
        packets, bytes_, rate, flows, conversations, port_name = built_for
        made_for = Port(packets, bytes_, rate, flows, tuple(conversations), port_name)
    elif what == "application":  # the flow's payload, and the application's own stream
        payload, seed = built_for
        made_for = AppFlow(payload, random.Random(seed))
    else:  # the flow, and the controller's own random stream, seeded by the engine
        name_, window, packet_size, seed = built_for
        made_for = Flow(name_, window, packet_size, random.Random(seed))
    return cls(made_for, **values), label, resolved
