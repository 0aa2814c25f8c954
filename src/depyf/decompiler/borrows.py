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
from typing import Optional, Sequence

from depyf.decompiler.instructions import Instr

# Instructions after which a simple statement has put its values away: a run of code from a
# block's start to one of these, without jumps, shows what the block did with its loads.
_STATEMENT_ENDS = frozenset({"POP_TOP", "RETURN_VALUE", "STORE_ATTR", "STORE_SUBSCR", "STORE_GLOBAL",
                             "STORE_NAME", "STORE_DEREF", "DELETE_SUBSCR", "DELETE_ATTR", "RAISE_VARARGS"})
# Instructions that keep or reorder values, after which the loads' fate is not plain to read.
_UNCLEAR = frozenset({"COPY", "SWAP", "DUP_TOP", "ROT_TWO", "ROT_THREE", "STORE_FAST", "DELETE_FAST",
                      "LOAD_FAST_AND_CLEAR", "GET_ITER", "FOR_ITER", "BEFORE_WITH", "LOAD_SPECIAL",
                      "YIELD_VALUE", "SEND", "END_SEND", "GET_AWAITABLE"})


def is_borrowed(code: object, version: object, ins: Instr) -> bool:
    """Whether the compiler wrote the local load `ins` as a borrowed load (of a pair too)."""
    raw = getattr(code, "co_code", b"")
    opmap = version.tables["opmap"]  # type: ignore[attr-defined]
    extended = opmap.get("EXTENDED_ARG")
    pos = ins.offset
    while 0 <= pos < len(raw) and raw[pos] == extended:
        pos += 2
    if not 0 <= pos < len(raw):
        return False
    return raw[pos] in (opmap.get("LOAD_FAST_BORROW"), opmap.get("LOAD_FAST_BORROW_LOAD_FAST_BORROW"))


def left_on_block_end(code: object, version: object, instrs: Sequence[Instr], k: int) -> bool:
    """The local load at `k` was the last value of its block when the compiler ran its borrow
    pass: a plain LOAD_FAST right before an instruction that would have consumed it in the same
    block (not a store into a local, which keeps a load plain anyway)."""
    if not 0 <= k < len(instrs) - 1 or instrs[k].opname != "LOAD_FAST":
        return False
    after = instrs[k + 1]
    return after.opname not in ("STORE_FAST", "STORE_FAST_STORE_FAST") and not is_borrowed(code, version, instrs[k])


def block_was_walked(code: object, version: object, instrs: Sequence[Instr], start: int,
                     stop: int, targets: object = ()) -> Optional[bool]:
    """Did the compiler's borrow pass reach the block that begins at `start`? Read from the first
    simple statement there (up to `stop`): True where one of its local loads is borrowed, False
    where it loads locals and consumes them all, none borrowed; None where nothing tells (no
    load, a jump or a jump target first, values kept or reordered, stored into locals)."""
    loads = []
    for k in range(start, min(stop, len(instrs))):
        ins = instrs[k]
        if k > start and k in targets:  # type: ignore[operator]
            return None
        if ins.target is not None or ins.opname in _UNCLEAR:
            return None
        if ins.opname == "LOAD_FAST":
            loads.append(ins)
        elif ins.opname in _STATEMENT_ENDS:
            if not loads:
                return None
            return any(is_borrowed(code, version, x) for x in loads)
    return None


def any_borrowed(code: object, version: object, instrs: Sequence[Instr], start: int, stop: int) -> bool:
    """Some local load in [start, stop) is borrowed: the borrow pass reached that code."""
    return any(instrs[k].opname == "LOAD_FAST" and is_borrowed(code, version, instrs[k])
               for k in range(start, min(stop, len(instrs))))
