"""The package's import graph has no cycle: every ``import`` of one rankeval_cli module by
another, at module level or deferred inside a function, read from the source (AST)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rankeval_cli"

#: packages whose inner cycles others are taking apart right now, each with the reason
BEING_RESTRUCTURED: dict[str, str] = {}


def modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file of every module below ``root`` (a package's name for its ``__init__.py``)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _targets(name: str, path: Path, node, known: dict) -> list[str]:
    """The package modules an import statement names (a name imported from a package is the
    package, unless it is a module of it)."""
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else [])) \
            if node.level else node.module
        wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
    out = []
    for target in wanted:
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != name:
            out.append(target)
    return out


def import_graph(root: Path) -> dict[str, set]:
    """Module -> the package modules it imports anywhere in its source."""
    known = modules(root)
    graph = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[name].update(_targets(name, path, node, known))
    return graph


def components(graph: dict[str, set]) -> list[list[str]]:
    """The strongly connected components of more than one module: each module of one imports
    every other, directly or not (Tarjan 1972, iteratively)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def cycle_in(graph: dict[str, set], component: set) -> list[str]:
    """A shortest cycle through the component's first module, by breadth-first search."""
    first = min(component)
    parent, frontier = {first: None}, [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph[node] & component):
                if child == first:
                    path = [node]
                    while parent[path[-1]] is not None:
                        path.append(parent[path[-1]])
                    return [first, *reversed(path[:-1]), first]  # path ends at first, never a node's own import
                if child not in parent:
                    parent[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"no cycle in {sorted(component)}")


def _restructured(component: list[str]) -> bool:
    return any(all(m == p or m.startswith(p + ".") for m in component) for p in BEING_RESTRUCTURED)


def _shown(graph: dict[str, set], found: list) -> str:
    return "\n".join(" -> ".join(cycle_in(graph, set(c))) + f" ({len(c)} modules in the cycle's component)"
                     for c in found)


@pytest.fixture(scope="module")
def graph():
    return import_graph(PACKAGE)


def test_the_package_has_no_import_cycle(graph):
    found = [c for c in components(graph) if not _restructured(c)]
    assert not found, "import cycles (deferred imports included):\n" + _shown(graph, found)


def test_the_measure_registry_has_no_import_cycle(graph):
    """The registry is the base the families import; nothing of it imports a family back."""
    found = [c for c in components(graph) if any(m.startswith("rankeval_cli.measures") for m in c)]
    assert not found, _shown(graph, found)


def test_a_deferred_import_cycle_is_found(tmp_path):
    """The graph sees imports inside functions, relative and absolute, and names a cycle."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    for path, text in {"__init__.py": "", "a.py": "from .sub import b\n", "sub/__init__.py": "",
                       "sub/b.py": "def f():\n    from .. import c\n", "c.py": "import pkg.a\n",
                       "d.py": "from . import a\nfrom .sub.b import f\nimport numpy\n"}.items():
        (pkg / path).write_text(text)
    graph = import_graph(pkg)
    assert graph == {"pkg": set(), "pkg.a": {"pkg.sub.b"}, "pkg.sub": set(), "pkg.sub.b": {"pkg.c"},
                     "pkg.c": {"pkg.a"}, "pkg.d": {"pkg.a", "pkg.sub.b"}}
    assert components(graph) == [["pkg.a", "pkg.c", "pkg.sub.b"]]
    assert cycle_in(graph, {"pkg.a", "pkg.c", "pkg.sub.b"}) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]
