"""3.14's borrowed local loads, read as a trace of the compiler's basic blocks (capability
`marks_borrowed_loads`).

3.14's last compiler step (`optimize_load_fast` in CPython's flowgraph.c) walks the basic blocks
that jumps and fall-through reach from the code's start (never a handler: the exception edges are
gone by then) and, in each, follows a stack of the values loaded. A LOAD_FAST becomes
LOAD_FAST_BORROW unless its value is still on the stack where the block ends, is stored into a
local, or outlives a store to its local. So, among code that compiles the same on 3.13:

- a local load left as the last value of a block (the arm of `return a if c else y` that falls
  into the shared RETURN_VALUE) stays LOAD_FAST, where `if c: return a` / `return y` borrows it;
- code after a try statement that no handler falls out of (the block after the handlers' code,
  where the statement ends) is not reached by that walk: its loads, and those of all code only it
  leads to, stay LOAD_FAST, while the same code in the try's else clause, in the block of the
  body's end, borrows them.

The decoder reads LOAD_FAST_BORROW as LOAD_FAST, and pass `older_raw_names` gives it 3.13's raw
name: these questions look at the code object's own bytes, at the instruction's offset.
"""
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Set, Tuple

from depyf.decompiler.instructions import Instr
from depyf.decompiler.opcode_tables import TABLES
from depyf.decompiler.passes.stack_effects import BY_ARGUMENT

# The most instructions of a block that ends the code which 3.14 copies in place of a jump to
# it (CPython's MAX_COPY_SIZE): such a copy lies in the jumping block, where the pass goes on.
COPIED_EXIT_SIZE = 4

# The stack effects of the instructions a simple statement is commonly made of (decoded names),
# beside those of `passes.stack_effects.BY_ARGUMENT`; any other instruction ends the reading.
_EFFECTS = {"LOAD_FAST": 1, "LOAD_CONST": 1, "LOAD_DEREF": 1, "LOAD_NAME": 1, "PUSH_NULL": 1,
            "NOP": 0, "TO_BOOL": 0, "UNARY_NOT": 0, "UNARY_NEGATIVE": 0, "UNARY_INVERT": 0,
            "FORMAT_SIMPLE": 0, "CONVERT_VALUE": 0, "FORMAT_WITH_SPEC": -1, "GET_ITER": 0,
            "MAKE_FUNCTION": 0, "SET_FUNCTION_ATTRIBUTE": -1,
            "COMPARE_OP": -1, "CONTAINS_OP": -1, "IS_OP": -1, "BINARY_OP": -1, "BINARY_SUBSCR": -1,
            "POP_TOP": -1, "RETURN_VALUE": -1, "STORE_FAST": -1, "STORE_ATTR": -2, "STORE_SUBSCR": -3,
            "STORE_GLOBAL": -1, "STORE_NAME": -1, "STORE_DEREF": -1, "DELETE_SUBSCR": -2,
            "DELETE_ATTR": -1, "POP_JUMP_IF_FALSE": -1, "POP_JUMP_IF_TRUE": -1,
            "POP_JUMP_IF_NONE": -1, "POP_JUMP_IF_NOT_NONE": -1}
# Instructions after which a load's fate is not plain to read (kept, reordered, stored).
_UNCLEAR = frozenset({"COPY", "SWAP", "STORE_FAST", "DELETE_FAST", "LOAD_FAST_AND_CLEAR", "RETURN_VALUE"})
# The simple instructions that push no value.
_PUSH_NOTHING = frozenset({"NOP", "POP_TOP", "RETURN_VALUE", "RAISE_VARARGS", "STORE_FAST", "STORE_ATTR",
                           "STORE_SUBSCR", "STORE_GLOBAL", "STORE_NAME", "STORE_DEREF", "DELETE_SUBSCR",
                           "DELETE_ATTR", "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE",
                           "POP_JUMP_IF_NOT_NONE"})
_CONDITIONAL = frozenset({"POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})


_BORROWED = ("LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW")
# The loads the borrow pass may change (LOAD_FAST_CHECK, of a local that may be unbound, it never does)
_CANDIDATES = ("LOAD_FAST", "LOAD_FAST_LOAD_FAST") + _BORROWED


def _raw_name(code: object, version: object, ins: Instr) -> Optional[str]:
    """The name of the instruction the compiler wrote at `ins`'s offset (past EXTENDED_ARGs)."""
    raw = getattr(code, "co_code", b"")
    extended = version.tables["opmap"].get("EXTENDED_ARG")  # type: ignore[attr-defined]
    pos = ins.offset
    while 0 <= pos < len(raw) and raw[pos] == extended:
        pos += 2
    if not 0 <= pos < len(raw):
        return None
    return _names(version.key).get(raw[pos])  # type: ignore[attr-defined]


@lru_cache(maxsize=None)
def _names(key: Tuple[int, int]) -> Dict[int, str]:
    return {op: name for name, op in TABLES[key]["opmap"].items()}


def is_borrowed(code: object, version: object, ins: Instr) -> bool:
    """Whether the compiler wrote the local load `ins` as a borrowed load (of a pair too)."""
    return _raw_name(code, version, ins) in _BORROWED


def is_candidate(code: object, version: object, ins: Instr) -> bool:
    """Whether `ins` is a local load the borrow pass may write as borrowed (not LOAD_FAST_CHECK)."""
    return ins.opname == "LOAD_FAST" and _raw_name(code, version, ins) in _CANDIDATES


def left_on_block_end(code: object, version: object, instrs: Sequence[Instr], k: int) -> bool:
    """The local load at `k` was the last value of its block when the compiler ran its borrow
    pass: a plain LOAD_FAST right before an instruction that would have consumed it in the same
    block (not a store into a local, which keeps a load plain anyway)."""
    if not 0 <= k < len(instrs) - 1 or not is_candidate(code, version, instrs[k]):
        return False
    after = instrs[k + 1]
    return after.opname not in ("STORE_FAST", "STORE_FAST_STORE_FAST") and not is_borrowed(code, version, instrs[k])


def block_was_walked(code: object, version: object, instrs: Sequence[Instr], start: int,
                     stop: int, targets: object = ()) -> Optional[bool]:
    """Did the compiler's borrow pass reach the block that begins at `start`? Read from the first
    simple statement there that loads locals (`first_statement`): True where one of its local
    loads is borrowed, False where none is; None where nothing tells."""
    k = start
    while k < stop:
        walked, end = first_statement(code, version, instrs, k, stop, targets)
        if walked is not None or end is None:
            return walked
        if end in targets:  # type: ignore[operator]
            return None  # (the block ends there)
        k = end
    return None


def first_statement(code: object, version: object, instrs: Sequence[Instr], start: int,
                    stop: int, targets: object = ()) -> Tuple[Optional[bool], Optional[int]]:
    """(walked, end) of the simple statement at `start` (before `stop`): the stack followed from
    empty until it is empty again, on past conditional jumps (the block that follows one is
    reached where its own is: a chained comparison's second test); `end` is where it ends (None
    where it cannot be followed: a jump target inside, an instruction outside the few simple
    ones), `walked` whether one of its local loads is borrowed: True where one is, False where
    one that its block consumed is plain, None otherwise (a load stored into a local, or left
    on the stack where a block ends, stays plain anyway). Where the statement cannot be followed
    to its end, the loads taken so far still tell (`for x in a.b:` stops at the loop's head,
    `a.b` consumed)."""
    loads: List[int] = []  # the candidate loads
    consumed: List[int] = []  # those an instruction other than a store took off the stack
    stack: List[Optional[int]] = []  # per value on the stack: the candidate load that put it there
    spoiled: Set[int] = set()  # loads kept plain anyway: left where a block ends, or their local stored
    for k in range(start, min(stop, len(instrs))):
        ins = instrs[k]
        if k > start and k in targets:  # type: ignore[operator]
            return _evidence(code, version, instrs, loads, consumed, spoiled | set(stack)), None
        if ins.opname in ("COPY", "SWAP") and ins.arg is not None and 0 < ins.arg <= len(stack):
            if ins.opname == "COPY":
                stack.append(stack[-ins.arg])
            else:
                stack[-1], stack[-ins.arg] = stack[-ins.arg], stack[-1]
            continue
        effect = _EFFECTS.get(ins.opname)
        if effect is None:
            formula = BY_ARGUMENT.get(ins.opname)
            if formula is None or ins.arg is None:
                return _evidence(code, version, instrs, loads, consumed, spoiled | set(stack)), None
            effect = formula(ins.arg)
        if ins.target is not None and ins.opname not in _CONDITIONAL:
            return _evidence(code, version, instrs, loads, consumed, spoiled | set(stack)), None
        pushed = _pushed(ins)
        popped = pushed - effect
        if popped > len(stack):
            return None, None
        taken = stack[len(stack) - popped:] if popped else []
        del stack[len(stack) - popped:]
        for j in taken:
            if j is None:
                continue
            if ins.opname == "STORE_FAST":
                spoiled.add(j)  # (stored as a local: plain in any block)
            else:
                consumed.append(j)
        if ins.opname == "STORE_FAST":
            spoiled.update(j for j in stack if j is not None and instrs[j].argval == ins.argval)
        is_load = ins.opname == "LOAD_FAST" and is_candidate(code, version, ins)
        if is_load:
            loads.append(k)
        stack.extend([k if is_load else None] * pushed)
        if not stack and ins.opname != "NOP":
            return _evidence(code, version, instrs, loads, consumed, spoiled), k + 1
        if ins.target is not None:
            spoiled.update(j for j in stack if j is not None)  # (left where the block ends)
    return _evidence(code, version, instrs, loads, consumed, spoiled | set(stack)), None


def _pushed(ins: Instr) -> int:
    """How many values `ins` (one of the simple instructions `first_statement` follows) pushes."""
    if ins.opname in _PUSH_NOTHING:
        return 0
    if ins.opname in ("LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR") and ins.arg is not None and ins.arg & 1:
        return 2  # (with its NULL or self)
    if ins.opname == "UNPACK_SEQUENCE" and ins.arg is not None:
        return ins.arg
    if ins.opname == "UNPACK_EX" and ins.arg is not None:
        return (ins.arg & 0xFF) + (ins.arg >> 8) + 1
    return 1


def _evidence(code: object, version: object, instrs: Sequence[Instr], loads: List[int],
              consumed: List[int], spoiled: Set[Optional[int]]) -> Optional[bool]:
    """What the loads of a statement (followed all or part of the way) tell: True where one is
    borrowed (its block was reached, however the statement goes on), False where one that its
    block consumed is plain, None otherwise."""
    if _borrowed_among(code, version, instrs, loads):
        return True
    # (the two loads of a LOAD_FAST_LOAD_FAST are one instruction: plain where either must be)
    kept_plain = {instrs[j].offset for j in spoiled if j is not None}
    return False if any(instrs[j].offset not in kept_plain for j in consumed) else None


def _borrowed_among(code: object, version: object, instrs: Sequence[Instr], loads: List[int]) -> Optional[bool]:
    """True where one of `loads` is borrowed (its block was reached, however the statement goes
    on); None otherwise (a plain one may be what its block left on the stack)."""
    return True if any(is_borrowed(code, version, instrs[j]) for j in loads) else None


def walked_part_end(code: object, version: object, instrs: Sequence[Instr], start: int,
                    stop: int, targets: object = ()) -> int:
    """Where the code from `start`, whose block the borrow pass reached, runs into the first
    simple statement that it did not reach (`stop` where none is seen). Past a statement that
    cannot be followed (an if statement's body that yields), the reading goes on at the next
    jump target, where a block and a statement start (the code after that if)."""
    k = start
    while k < stop:
        walked, end = first_statement(code, version, instrs, k, stop, targets)
        if walked is False and k > start:
            return k
        if end is None:
            end = next((j for j in range(k + 1, stop) if j in targets), None)  # type: ignore[operator]
            if end is None:
                return stop
        k = end
    return stop


def walked_up_to(code: object, version: object, instrs: Sequence[Instr], stop: int,
                 targets: object = ()) -> bool:
    """The code right before `stop` lay in blocks the borrow pass reached: the nearest local load
    before it that its block consumes is borrowed, or there is none (the code's start is always
    reached). (A load kept for a test, `a or b`, stored into a local, or right before a jump or
    a jump target may be what its block left on the stack: plain anyway.)"""
    for k in range(stop - 2, -1, -1):
        if instrs[k].opname == "LOAD_FAST" and is_candidate(code, version, instrs[k]):
            after = instrs[k + 1]
            if after.opname in _UNCLEAR or after.target is not None or k + 1 in targets:  # type: ignore[operator]
                continue
            return is_borrowed(code, version, instrs[k])
    return True
