"""What of a run's Python code decides its result: a key that changes when a component written in
Python changes, so that a sweep or a reproduction never serves a result of other code.

A component (a `Discipline`, `Controller` or `Application` subclass, registered by name or named
by its class) runs inside the engine, so a run's result depends on its code and on any code it
calls. The key covers:

- the source file of every module loaded from outside the interpreter's own folders (the standard
  library, site-packages) and outside fairsim: the component's module and whatever of the user's
  own code it imports, however deep (a helper module, a package of the user's installed with
  `pip install -e`), since which of them a component calls cannot be told without running it;
- the compiled code of every registered component class defined where there is no file to read
  (a notebook's cell, an interactive session): its methods' bytecode, constants and names,
  through its bases.

It is empty when no component class is defined outside fairsim: a run of built-in components only
is decided by the scenario and the engine, and its identity stays what it was. The choice errs
towards running again: editing any of the user's loaded modules, even one a component never calls,
changes the key.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
import sysconfig
import types
from pathlib import Path

#: fairsim's own folder: its modules are not the user's.
PACKAGE = Path(__file__).resolve().parent.parent


def _bases() -> tuple[type, ...]:
    from fairsim.extend.registry import BASES

    return tuple(BASES.values())


def _subclasses(base: type) -> list[type]:
    seen, stack = [], list(base.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls not in seen:
            seen.append(cls)
            stack.extend(cls.__subclasses__())
    return seen


def _outside() -> list[Path]:
    """Folders whose modules are not the user's: the interpreter's, its packages', fairsim's."""
    paths = sysconfig.get_paths()
    roots = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    roots |= {sys.prefix, sys.base_prefix, sys.exec_prefix, str(PACKAGE)}
    return [Path(r).resolve() for r in roots]


def _user_files() -> list[tuple[str, Path]]:
    """The modules loaded from the user's own files, by name."""
    outside = _outside()
    files = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file or not file.endswith(".py"):
            continue
        path = Path(file).resolve()
        if not any(path.is_relative_to(root) for root in outside):
            files.append((name, path))
    return sorted(files)


def _code_of(cls: type, digest) -> None:
    """Adds to `digest` the compiled code of `cls`'s own methods and of its bases' outside fairsim."""
    for klass in cls.__mro__:
        if klass.__module__.startswith("fairsim.") or klass is object:
            continue
        digest.update(f"{klass.__module__}:{klass.__qualname__}\n".encode())
        for attribute, value in sorted(vars(klass).items()):
            function = getattr(value, "__func__", value)  # classmethods and staticmethods
            code = getattr(function, "__code__", None)
            if isinstance(code, types.CodeType):
                digest.update(attribute.encode() + marshal.dumps(code))
            elif attribute == "params":
                digest.update(repr(value).encode())


def user_components() -> list[type]:
    """Every component class defined outside fairsim (a `Discipline`, `Controller` or
    `Application` subclass of the user's), registered or not."""
    return [c for base in _bases() for c in _subclasses(base) if not c.__module__.startswith("fairsim.")]


def code_key() -> str:
    """The key of the user's Python code that can decide a run's result (empty if none can)."""
    if not user_components():
        return ""
    digest = hashlib.sha256()
    for name, path in _user_files():
        try:
            digest.update(f"{name}\n".encode() + path.read_bytes())
        except OSError:  # a file gone since its import: its module's code is what runs
            digest.update(f"{name} (unreadable)\n".encode())
    from fairsim.extend.registry import _REGISTRY

    # a class without a file is read from its code; of a notebook cell run twice, the class its
    # name is registered to now (the older one lingers among the subclasses until collected)
    for what, classes_by_name in sorted(_REGISTRY.items()):
        for name, cls in sorted(classes_by_name.items()):
            if not getattr(sys.modules.get(cls.__module__), "__file__", None):
                digest.update(f"{what} {name}\n".encode())
                _code_of(cls, digest)
    return digest.hexdigest()[:16]
