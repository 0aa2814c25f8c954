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

import re
import textwrap
import types
from typing import Dict, Iterator, List, Optional, Tuple

from depyf.decompiler.instructions import Instr, decode
from depyf.decompiler.versions import host


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
    # Dynamo keeps the frame's name; the dumped file's function name is only for readers.
    renamed = {"co_name": reference.co_name}
    if hasattr(reference, "co_qualname"):
        renamed["co_qualname"] = reference.co_qualname
    candidate = candidate.replace(**renamed)
    problem = layout_problem(candidate, reference)
    if problem is not None:
        return None, problem
    return candidate, ""


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


# ------------------------------------------------------------------------------------------------
# Dynamo's own bytecode, with its lines mapped onto a dumped file
# ------------------------------------------------------------------------------------------------

_KEYED_OPS = {
    "STORE_FAST": "argval",
    "STORE_DEREF": "argval",
    "STORE_GLOBAL": "argval",
    "DELETE_FAST": "argval",
    "LOAD_GLOBAL": "argval",
    "LOAD_ATTR": "argval",
    "LOAD_METHOD": "argval",
    "STORE_ATTR": "argval",
}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


def _line_tokens(lines: List[str]) -> List[set]:
    out = []
    for line in lines:
        code = line.split("#", 1)[0]
        out.append(set(_IDENT.findall(code)))
    return out


def _instruction_key(ins: Instr) -> Optional[str]:
    if ins.opname in _KEYED_OPS and isinstance(ins.argval, str):
        return ins.argval
    if ins.opname == "RETURN_VALUE":
        return "return"
    if ins.opname == "RAISE_VARARGS":
        return "raise"
    return None


def instruction_lines(code: types.CodeType, source: str, first_line: int) -> Dict[int, int]:
    """Map each instruction offset of ``code`` to a line of ``source`` that shows it.

    The lines are found by aligning, in order, the names instructions store, delete, load as
    globals or attributes (and returns) with the first later source line that mentions them.
    Instructions without such a name stay on the line of the instruction before.
    """
    lines = source.splitlines()
    tokens = _line_tokens(lines)
    current = max(first_line, 1)
    out: Dict[int, int] = {}
    # The decompiler's decoder, not `dis`: several times faster, and it splits 3.13's paired
    # instructions (STORE_FAST_STORE_FAST) into one per name.
    for ins in decode(code, host()).instrs:
        key = _instruction_key(ins)
        if key is not None:
            for lineno in range(current, len(lines) + 1):
                if key in tokens[lineno - 1]:
                    current = lineno
                    break
        out[ins.offset] = current
    return out


def _svarint(value: int) -> bytes:
    value = (-value << 1) | 1 if value < 0 else value << 1
    out = bytearray()
    while True:
        chunk = value & 0x3F
        value >>= 6
        if value:
            out.append(chunk | 0x40)
        else:
            out.append(chunk)
            return bytes(out)


def encode_location_table(code: types.CodeType, offset_lines: Dict[int, int],
                          first_line: Optional[int] = None) -> bytes:
    """A location table (the format of Python 3.11+) giving each code unit a line, no columns,
    for a code object whose `co_firstlineno` is `first_line` (default: `code`'s own)."""
    base = code.co_firstlineno if first_line is None else first_line
    units = len(code.co_code) // 2
    starts = sorted(offset_lines)
    per_unit: List[int] = []
    idx = 0
    line = base
    for unit in range(units):
        offset = unit * 2
        while idx < len(starts) and starts[idx] <= offset:
            line = offset_lines[starts[idx]]
            idx += 1
        per_unit.append(line)
    table = bytearray()
    previous = base
    i = 0
    while i < units:
        line = per_unit[i]
        length = 1
        while i + length < units and length < 8 and per_unit[i + length] == line:
            length += 1
        table.append(0x80 | (13 << 3) | (length - 1))  # 13: "line only" entries
        table += _svarint(line - previous)
        previous = line
        i += length
    return bytes(table)


def remap_lines(reference: types.CodeType, source: str, path: str, first_line: int) -> Optional[types.CodeType]:
    """``reference`` unchanged but for its file name and line table, which point into ``path``.

    The bytecode is Dynamo's own, so the program computes exactly what it did; a debugger stops at
    the lines of ``source`` that show each step. Needs the 3.11+ location table (``co_positions``).
    """
    if not hasattr(reference, "co_positions"):
        return None
    # The file's `def` line becomes the first line: no line may come before it (3.14 reports
    # such lines wrongly to tracers, so breakpoints there were never hit).
    first = max(first_line, 1)
    mapping = instruction_lines(reference, source, first)
    table = encode_location_table(reference, mapping, first)
    candidate = reference.replace(co_filename=path, co_linetable=table, co_firstlineno=first)
    if candidate.co_code != reference.co_code:
        return None
    # The table must decode to the lines we meant; otherwise keep Dynamo's code as it is.
    if not _lines_agree(candidate, mapping):
        return None
    return candidate


def _lines_agree(code: types.CodeType, mapping: Dict[int, int]) -> bool:
    """Whether the line of each offset in ``mapping``, as ``code``'s line table says, is the one
    ``mapping`` gives (or none)."""
    offsets = sorted(mapping)
    k = 0
    for start, end, line in code.co_lines():
        while k < len(offsets) and offsets[k] < start:
            k += 1
        while k < len(offsets) and offsets[k] < end:
            if line is not None and line != mapping[offsets[k]]:
                return False
            k += 1
    return True
