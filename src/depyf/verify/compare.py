"""Comparing two code objects: what they compute, not how they are laid out.

The ``(opname, argument)`` stream of ``dis.get_instructions`` without layout and frame-setup
instructions, jumps as indices into that stream, constants by ``repr`` (code objects
recursively), the exception table in the same index space, the signature and the docstring.
"""
from __future__ import annotations

import bisect
import dis
import inspect
from dataclasses import dataclass, field
from types import CodeType
from typing import Dict, List, Optional, Set, Tuple

from .model import Difference
from .source import COMPREHENSION_NAMES, is_code


# Instructions that say nothing about what the code computes: padding, line events, frame setup.
_IGNORED_OPNAMES = frozenset(
    {"NOP", "EXTENDED_ARG", "CACHE", "RESUME", "PRECALL", "COPY_FREE_VARS", "MAKE_CELL"}
)
_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_CONST_OPCODES = frozenset(dis.hasconst)
_SIGNATURE_FLAGS = (
    ("varargs", inspect.CO_VARARGS),
    ("varkw", inspect.CO_VARKEYWORDS),
    ("generator", inspect.CO_GENERATOR),
    ("coroutine", inspect.CO_COROUTINE),
    ("iterable coroutine", inspect.CO_ITERABLE_COROUTINE),
    ("async generator", inspect.CO_ASYNC_GENERATOR),
)
# The flag of code whose first constant is its docstring, where the interpreter has one.
_HAS_DOCSTRING: Optional[int] = getattr(inspect, "CO_HAS_DOCSTRING", None)


@dataclass
class _Stream:
    """A code object's instructions as the comparison sees them."""

    items: List[Tuple[str, object]] = field(default_factory=list)  # (opname, normalized argument)
    shown: List[str] = field(default_factory=list)  # the same, readable
    offsets: List[int] = field(default_factory=list)
    nested: List[CodeType] = field(default_factory=list)  # code constants, in order of loading


def _const_key(value: object) -> object:
    """Constants compared by ``repr``; code objects by name here (recursively later)."""
    if is_code(value):
        return ("<code>", value.co_name)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_const_key(v)) for v in value)))
    if isinstance(value, tuple):
        return ("tuple", tuple(_const_key(v) for v in value))
    return repr(value)


def _show_const(value: object) -> str:
    if is_code(value):
        return f"<code {value.co_name}>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _stores_firstlineno(kept: List[dis.Instruction], position: int) -> bool:
    """Is the instruction at `position` the load of a class body's `__firstlineno__` (3.13+)?"""
    nxt = kept[position + 1] if position + 1 < len(kept) else None
    return nxt is not None and nxt.opname == "STORE_NAME" and nxt.argval == "__firstlineno__" \
        and kept[position].opname in ("LOAD_CONST", "LOAD_SMALL_INT")


def _stream(code: CodeType) -> _Stream:
    kept = [i for i in dis.get_instructions(code) if i.opname not in _IGNORED_OPNAMES]
    offsets = [i.offset for i in kept]
    stream = _Stream(offsets=offsets)
    seen_nested: Set[int] = set()
    for position, instr in enumerate(kept):
        arg: object
        if instr.opcode in _JUMP_OPCODES:
            target = bisect.bisect_left(offsets, instr.argval)
            arg = ("jump", target)
            shown = f"{instr.opname} to #{target}"
        elif _stores_firstlineno(kept, position):
            # A class body records its first line: layout, not computation (3.14 loads the
            # number by LOAD_SMALL_INT when it is below 256).
            arg, shown = "<firstlineno>", f"{instr.opname} <firstlineno>"
        elif instr.opcode in _CONST_OPCODES and instr.arg is not None:
            # From co_consts, not argval: some versions' dis leaves KW_NAMES unresolved.
            value = code.co_consts[instr.arg]
            arg, shown = _const_key(value), f"{instr.opname} {_show_const(value)}"
            if is_code(value) and id(value) not in seen_nested:
                seen_nested.add(id(value))
                stream.nested.append(value)
        elif instr.arg is None:
            arg, shown = None, instr.opname
        else:
            # argrepr carries flags that argval lacks (method loads, NULL pushes, bool()).
            arg = (repr(instr.argval), instr.argrepr)
            detail = instr.argrepr or repr(instr.argval)
            shown = f"{instr.opname} {detail}"
        stream.items.append((instr.opname, arg))
        stream.shown.append(shown)
    return stream


def _read_varint(table: bytes, pos: int) -> Tuple[int, int]:
    byte = table[pos]
    value = byte & 63
    while byte & 64:
        pos += 1
        byte = table[pos]
        value = (value << 6) | (byte & 63)
    return value, pos + 1


def _exception_entries(code: CodeType, offsets: List[int]) -> List[Tuple[int, int, int, int, bool]]:
    """The exception table as (start, end, handler, depth, lasti) in filtered-stream indices.

    Empty where the code object has no table (exceptions are then set up by instructions,
    which the instruction comparison already covers).
    """
    table = getattr(code, "co_exceptiontable", b"")
    entries: List[Tuple[int, int, int, int, bool]] = []
    pos = 0
    while pos < len(table):
        start, pos = _read_varint(table, pos)
        length, pos = _read_varint(table, pos)
        target, pos = _read_varint(table, pos)
        depth_lasti, pos = _read_varint(table, pos)
        first = bisect.bisect_left(offsets, start * 2)
        stop = bisect.bisect_left(offsets, (start + length) * 2)
        if first == stop:
            continue  # covers only ignored instructions
        entry = (first, stop, bisect.bisect_left(offsets, target * 2), depth_lasti >> 1, bool(depth_lasti & 1))
        if entries and entries[-1][1] == first and entries[-1][2:] == entry[2:]:
            entries[-1] = (entries[-1][0],) + entry[1:]  # split only by ignored instructions
        else:
            entries.append(entry)
    return entries


def _show_entry(entry: Optional[Tuple[int, int, int, int, bool]], shown: List[str]) -> str:
    if entry is None:
        return "<none>"
    start, stop, target, depth, lasti = entry

    def at(index: int) -> str:
        return f"#{index} {shown[index]}" if index < len(shown) else f"#{index} <end>"

    return f"[{at(start)} .. #{stop}) -> {at(target)}, depth {depth}{', lasti' if lasti else ''}"



def code_docstring(code: CodeType) -> Optional[str]:
    """A function's docstring: no instruction loads it, so the streams alone would not see it.

    For a function the compiler always puts the docstring, or None, first among the constants;
    an interpreter that flags code with a docstring (``inspect.CO_HAS_DOCSTRING``) puts None
    there only where the flag is set, any constant otherwise.
    """
    if not code.co_flags & inspect.CO_NEWLOCALS or code.co_name == "<lambda>" or code.co_name in COMPREHENSION_NAMES:
        return None
    if _HAS_DOCSTRING is not None and not code.co_flags & _HAS_DOCSTRING:
        return None
    first = code.co_consts[0] if code.co_consts else None
    return first if isinstance(first, str) else None


def _parameters(code: CodeType) -> Tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


def _signature_difference(a: CodeType, b: CodeType, where: str) -> Optional[Difference]:
    fields = [
        ("name", a.co_name, b.co_name),
        ("argcount", a.co_argcount, b.co_argcount),
        ("posonlyargcount", getattr(a, "co_posonlyargcount", 0), getattr(b, "co_posonlyargcount", 0)),
        ("kwonlyargcount", a.co_kwonlyargcount, b.co_kwonlyargcount),
        ("parameters", _parameters(a), _parameters(b)),
    ]
    fields += [(label, bool(a.co_flags & flag), bool(b.co_flags & flag)) for label, flag in _SIGNATURE_FLAGS]
    for label, left, right in fields:
        if left != right:
            return Difference(where, "signature", None, f"{label}={left!r}", f"{label}={right!r}",
                              category=("signature", label))
    return None


def _shape(item: Tuple[str, object]) -> Tuple[str, object]:
    opname, arg = item
    return (opname, "jump") if isinstance(arg, tuple) and arg[:1] == ("jump",) else item


def _instruction_difference(left: _Stream, right: _Stream, where: str) -> Difference:
    """Where two different instruction streams first diverge.

    A jump whose target index differs is usually a symptom: something was added or lost after
    it.  So the first difference in the streams with jump targets left out is reported when
    there is one; only streams that differ in nothing but targets report a target.
    """
    index = None
    for i, (x, y) in enumerate(zip(left.items, right.items)):
        if _shape(x) != _shape(y):
            index = i
            break
    if index is None and len(left.items) != len(right.items):
        index = min(len(left.items), len(right.items))
    if index is None:
        index = next(i for i, (x, y) in enumerate(zip(left.items, right.items)) if x != y)
    ours = left.shown[index] if index < len(left.items) else "<end>"
    theirs = right.shown[index] if index < len(right.items) else "<end>"
    context = left.shown[index - 1] if index else ""
    return Difference(where, "instruction", index, ours, theirs, context,
                      category=(ours.split()[0], theirs.split()[0]))


def code_difference(a: CodeType, b: CodeType, where: str, check_exceptions: bool) -> Optional[Difference]:
    found = _signature_difference(a, b, where)
    if found:
        return found
    left, right = _stream(a), _stream(b)
    if left.items != right.items:
        return _instruction_difference(left, right, where)
    doc_a, doc_b = code_docstring(a), code_docstring(b)
    if doc_a != doc_b:
        return Difference(where, "docstring", None, _show_const(doc_a), _show_const(doc_b),
                          category=("docstring", "docstring"))
    if check_exceptions:
        ex_left, ex_right = _exception_entries(a, left.offsets), _exception_entries(b, right.offsets)
        for index in range(max(len(ex_left), len(ex_right))):
            x = ex_left[index] if index < len(ex_left) else None
            y = ex_right[index] if index < len(ex_right) else None
            if x != y:
                return Difference(where, "exception table entry", index, _show_entry(x, left.shown),
                                  _show_entry(y, right.shown),
                                  category=("exception table", "exception table"))
    # The streams agree, so the nested code objects are loaded in the same order with the same
    # names; compare each pair.  Repeated names get a #n suffix in the path.
    counts: Dict[str, int] = {}
    for x, y in zip(left.nested, right.nested):
        n = counts.get(x.co_name, 0)
        counts[x.co_name] = n + 1
        suffix = f"#{n + 1}" if n else ""
        inner = f"{where}.{x.co_name}{suffix}" if where else x.co_name
        found = code_difference(x, y, inner, check_exceptions)
        if found:
            return found
    return None


def first_difference(original: CodeType, decompiled: CodeType, *, exception_table: bool = True) -> Optional[Difference]:
    """The first difference between two code objects, or None if they are bytecode-equal."""
    return code_difference(original, decompiled, original.co_name, exception_table)


def compare_code(original: CodeType, decompiled: CodeType, *, exception_table: bool = True) -> Optional[str]:
    """None if the code objects are bytecode-equal, else their first difference, readable."""
    found = first_difference(original, decompiled, exception_table=exception_table)
    return None if found is None else str(found)
