"""fairsim's Python modules import one another one way only: from the user-facing layer (the
command line, the API, reports) down to the parts they are built from (docs/architecture.md,
*Layers*). A loop makes a module's meaning depend on which side was imported first and hides a
missing layer; this test finds every loop, at any depth, among the imports the interpreter runs
(an import inside a function counts; one under `if TYPE_CHECKING:`, an annotation only, does
not)."""

from __future__ import annotations

import ast
from pathlib import Path

import fairsim

PACKAGE = Path(fairsim.__file__).resolve().parent


def _modules(root: Path) -> dict[str, Path]:
    """Every module under `root`, by its dotted name (a package by its folder's); a compiled one
    (the engine, `fairsim._core`) too, which imports nothing of fairsim's."""
    found = {}
    for path in [*root.rglob("*.py"), *root.rglob("*.so"), *root.rglob("*.pyd")]:
        parts = list(path.relative_to(root.parent).parts)
        parts[-1] = parts[-1].split(".")[0]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _annotation_only(tree: ast.AST) -> set[int]:
    """The nodes under `if TYPE_CHECKING:`."""
    return {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for statement in branch.body
        for node in ast.walk(statement)
    }


def _imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that module `name` imports when it runs."""
    if path.suffix != ".py":
        return set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _annotation_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([node.module] if node.module else [])])
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in modules else base)
    return {m for m in out if m in modules and m != name}


def import_loops(root: Path) -> list[list[str]]:
    """Each set of modules under `root` that import one another in a loop (a strongly connected
    component of the import graph with more than one module), as a sorted list."""
    modules = _modules(root)
    edges = {name: _imported(name, path, modules) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return loops


def test_the_detector_finds_a_loop_through_a_lazy_import_and_ignores_annotations(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def x():\n    from pkg import c\n")
    (pkg / "c.py").write_text("from . import a\n")
    # d and e would be a loop if an annotation's import counted
    annotation = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.e import y\n"
    (pkg / "d.py").write_text(annotation)
    (pkg / "e.py").write_text("import pkg.d\n")
    assert import_loops(pkg) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_fairsims_modules_import_one_another_one_way():
    assert import_loops(PACKAGE) == []
