"""Sizes a reader can hold: no module in src over 800 lines, no function over 80. A function that
outgrows this is split into named phases (a NamedTuple for the shape it reads), a module into
modules by responsibility."""
import ast
from pathlib import Path
from typing import List, Tuple

SRC = Path(__file__).resolve().parents[2] / "src" / "depyf"
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def _sources() -> List[Tuple[str, str]]:
    return [(str(p.relative_to(SRC.parent)), p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))]


def test_no_module_is_over_the_limit() -> None:
    long = {name: text.count("\n") for name, text in _sources() if text.count("\n") > MAX_MODULE_LINES}
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_over_the_limit() -> None:
    long = {}
    for name, text in _sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{name}:{node.lineno} {node.name}"] = lines
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
