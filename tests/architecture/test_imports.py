"""The package's import structure: no module imports itself back through others (a lazy import
inside a function counts: it hides a circle, it does not remove it), and the decompiler core
imports nothing but the standard library and itself."""
from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set

SRC = Path(__file__).resolve().parents[2] / "src"


def _modules() -> Dict[str, Path]:
    out = {}
    for path in sorted((SRC / "depyf").rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _is_type_checking_block(node: ast.AST) -> bool:
    test = getattr(node, "test", None)
    return isinstance(node, ast.If) and isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> Iterator[ast.AST]:
    """Every import statement, at any depth, except those only a type checker runs."""
    stack: List[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if not _is_type_checking_block(node):
            stack.extend(ast.iter_child_nodes(node))


# The oracle package is loaded by path under other names (benchmarks, the gate), so its modules
# import each other relatively; everywhere else imports are absolute.
_RELATIVE_IMPORTS_ALLOWED = "depyf.verify"


def _imported_names(node: ast.AST, modules: Dict[str, Path], importer: str) -> Set[str]:
    """The top-level names (`depyf.x.y`, `torch`, ...) one import statement loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    assert isinstance(node, ast.ImportFrom)
    module = node.module
    if node.level:
        package = importer if modules[importer].name == "__init__.py" else importer.rpartition(".")[0]
        if not (package + ".").startswith(_RELATIVE_IMPORTS_ALLOWED + ".") or node.level != 1:
            raise AssertionError(f"relative import in {importer}: from {'.' * node.level}{module or ''} import ...")
        module = f"{package}.{module}" if module else package
    assert module is not None
    submodules = {f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules}
    # `from package import submodule` loads the submodule; any other name comes from the package
    return submodules | ({module} if len(submodules) < len(node.names) else set())


def _graph() -> Dict[str, Set[str]]:
    modules = _modules()
    graph: Dict[str, Set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        loaded: Set[str] = set()
        for node in _imports(tree):
            loaded |= _imported_names(node, modules, name)
        graph[name] = loaded - {name}
    return graph


def _circles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    found: List[List[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root] & graph.keys())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step] & graph.keys()))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
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


def test_no_import_circles() -> None:
    graph = _graph()
    circles = _circles(graph)
    detail = [{m: sorted(graph[m] & set(c)) for m in c} for c in circles]
    assert not circles, f"modules that import each other: {detail}"


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


# depyf 0.20's `from depyf.decompiler import Decompiler`: the package's __getattr__ hands out the
# compatible class, loaded on first use (torch-free too).
_ALLOWED_OUTSIDE = {("depyf.decompiler", "depyf.compat")}


def test_decompiler_core_imports_only_the_standard_library_and_itself() -> None:
    stdlib = getattr(sys, "stdlib_module_names", None)
    for name, deps in _graph().items():
        if not name.startswith("depyf.decompiler"):
            continue
        for dep in deps:
            if (name, dep) in _ALLOWED_OUTSIDE:
                continue
            top = dep.split(".")[0]
            if dep.startswith("depyf."):
                assert dep.startswith("depyf.decompiler"), f"{name} imports {dep}"
            elif stdlib is not None:
                assert top in stdlib or top == "__future__", f"{name} imports {dep}"
            else:
                assert top not in ("torch", "numpy"), f"{name} imports {dep}"


def test_only_the_adapter_imports_torch_internals() -> None:
    """torch's private modules (`torch._dynamo`, `torch._inductor`, ...) change between releases:
    one package feature-detects them, so a torch upgrade is fixed in one place."""
    for name, deps in _graph().items():
        if name == "depyf.dynamo.adapter" or name.startswith("depyf.dynamo.adapter."):
            continue
        private = sorted(d for d in deps if d.startswith("torch._"))
        assert not private, f"{name} imports {private}: reach them through depyf.dynamo.adapter"


def test_the_oracle_imports_only_the_standard_library_and_itself() -> None:
    """The oracle judges other decompilers too, loaded alone by path: nothing of depyf outside it
    but `depyf.decompile`, its default decompiler, imported when first called."""
    for name, deps in _graph().items():
        if name == _RELATIVE_IMPORTS_ALLOWED or name.startswith(_RELATIVE_IMPORTS_ALLOWED + "."):
            outside = sorted(d for d in deps if d.startswith("depyf.") and not d.startswith(_RELATIVE_IMPORTS_ALLOWED))
            assert not outside, f"{name} imports {outside}"
