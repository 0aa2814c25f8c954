"""Make code objects run from dumped files, so breakpoints set in those files are hit.

Two cases:

* Dynamo's transformed code: the decompiled source is compiled from its dump file into a code
  object with the layout Dynamo requires (argument names, free and cell variables). It replaces
  Dynamo's code only when :func:`depyf.verify.compare_code` finds it bytecode-equal, so the
  program computes exactly the same thing.
* Graph ``forward``s and Inductor's output modules: their dump files hold exactly the source torch
  generated, so recompiling that text with the file's name gives the same bytecode; only
  ``co_filename`` (and hence where a debugger looks) changes.
"""
from __future__ import annotations

import textwrap
import types
from typing import Dict, Iterator, List, Optional, Tuple


def iter_code(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from iter_code(const)


def find_code(module_code: types.CodeType, name: str) -> Optional[types.CodeType]:
    for code in iter_code(module_code):
        if code.co_name == name and code is not module_code:
            return code
    return None


def wrap_for_layout(source: str, name: str, reference: types.CodeType) -> str:
    """Wrap a function definition so it gets the reference's free variables."""
    if not reference.co_freevars:
        return source
    lines = ["def __depyf_closure_for_" + name + "():"]
    lines.extend(f"    {var} = None" for var in reference.co_freevars)
    lines.append(textwrap.indent(source.rstrip("\n"), "    "))
    lines.append(f"    return {name}")
    return "\n".join(lines) + "\n"


def layout_problem(candidate: types.CodeType, reference: types.CodeType) -> Optional[str]:
    """Why ``candidate`` cannot stand in for ``reference``, or None when it can."""
    for attr in ("co_argcount", "co_kwonlyargcount", "co_freevars", "co_cellvars"):
        if getattr(candidate, attr) != getattr(reference, attr):
            return f"{attr} differs: {getattr(candidate, attr)!r} != {getattr(reference, attr)!r}"
    n = reference.co_argcount + reference.co_kwonlyargcount + bool(reference.co_flags & 0x04) + bool(reference.co_flags & 0x08)
    if candidate.co_varnames[:n] != reference.co_varnames[:n]:
        return "argument names differ"
    try:
        from depyf.verify import compare_code
    except Exception as e:  # verification unavailable: do not swap code we cannot vouch for
        return f"depyf.verify is unavailable ({e!r})"
    diff = compare_code(candidate, reference)
    return None if diff is None else f"bytecode differs: {diff}"


def compile_like(source: str, name: str, reference: types.CodeType, path: str) -> Tuple[Optional[types.CodeType], str]:
    """Compile ``source`` (defining ``name``) as file ``path``; return (code or None, why not)."""
    try:
        module_code = compile(source, path, "exec")
    except SyntaxError as e:
        return None, f"does not compile: {e}"
    candidate = find_code(module_code, name)
    if candidate is None:
        return None, f"no function {name} in the source"
    problem = layout_problem(candidate, reference)
    if problem is not None:
        return None, problem
    return candidate.replace(co_name=reference.co_name, co_qualname=reference.co_qualname) if hasattr(reference, "co_qualname") else candidate.replace(co_name=reference.co_name), ""


def swap_function_codes(namespace: Dict[str, object], source: str, path: str) -> List[Tuple[types.FunctionType, types.CodeType]]:
    """Point the functions and methods defined by a module at code compiled from ``path``.

    ``source`` must be the exact text the module was compiled from, so each function is matched to
    its new code by name and first line. Returns the swaps made, as ``(function, previous code)``
    pairs, so they can be undone.
    """
    module_code = compile(source, path, "exec")
    by_key = {(c.co_name, c.co_firstlineno): c for c in iter_code(module_code) if c is not module_code}
    swaps: List[Tuple[types.FunctionType, types.CodeType]] = []
    seen = set()

    def visit(value: object) -> None:
        if isinstance(value, types.MethodType):
            value = value.__func__
        if isinstance(value, type):
            for attr in vars(value).values():
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                if isinstance(attr, types.FunctionType):
                    visit(attr)
            return
        if not isinstance(value, types.FunctionType) or id(value) in seen:
            return
        seen.add(id(value))
        old = value.__code__
        new = by_key.get((old.co_name, old.co_firstlineno))
        if new is None or new.co_freevars != old.co_freevars or new.co_code != old.co_code:
            return
        swaps.append((value, old))
        value.__code__ = new

    for value in list(namespace.values()):
        visit(value)
    return swaps


def swap_forward(gm_forward: types.FunctionType, source: str, path: str) -> Optional[Tuple[types.FunctionType, types.CodeType]]:
    """Point a GraphModule's ``forward`` function at code compiled from ``path``."""
    module_code = compile(source, path, "exec")
    new = find_code(module_code, "forward")
    if new is None or new.co_freevars != gm_forward.__code__.co_freevars:
        return None
    old = gm_forward.__code__
    gm_forward.__code__ = new
    return gm_forward, old
