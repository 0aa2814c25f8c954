"""3.14's with statement, in the spelling of 3.13 (capability `with_enters_by_load_special`).

3.13 enters a with block by one BEFORE_WITH (BEFORE_ASYNC_WITH), which leaves the bound `__exit__`
and the value of `__enter__()` on the stack; leaving it calls that exit with `None, None, None`
(`LOAD_CONST None` three times, `CALL 2`), and the handler that calls it with the exception ends
`POP_EXCEPT; POP_TOP; POP_TOP`. 3.14 looks both methods up with LOAD_SPECIAL and keeps the exit
unbound, the manager beside it (one stack slot more):

    COPY 1; LOAD_SPECIAL __exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0
    ... LOAD_CONST None x3; CALL 3 ...            (the normal exit: the manager is the first argument)
    ... SWAP 3; SWAP 2; LOAD_CONST None x3 ...    (a value kept across the exit, 3.13's SWAP 2)
    ... POP_EXCEPT; POP_TOP; POP_TOP; POP_TOP     (the handler's end: one POP_TOP more)

This pass writes those back as 3.13 spells them. The exception table's depths stay as they are:
the structuring core does not read them as counts of with blocks.
"""
from typing import List, Optional, Set

from depyf.decompiler.instructions import Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, replaced, rewrite

_ENTER = {"__enter__": ("__exit__", "BEFORE_WITH"), "__aenter__": ("__aexit__", "BEFORE_ASYNC_WITH")}
# Instructions right before a call's arguments: the call of a callable loaded as such (PUSH_NULL
# after it, or a load that pushes NULL or self with it). A with's exit call has none of them.
_CALLABLE_MARKERS = frozenset({"PUSH_NULL"})
_FLAGGED_LOADS = frozenset({"LOAD_GLOBAL", "LOAD_ATTR", "LOAD_SUPER_ATTR"})


def canonicalize(bytecode: Bytecode) -> Bytecode:
    if "LOAD_SPECIAL" not in bytecode.opnames():
        return bytecode
    instrs = bytecode.instrs
    targets = {i.target for i in instrs if i.target is not None}
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        if ins.opname == "LOAD_SPECIAL" and ins.argval in _ENTER:
            _enter(instrs, k, targets, edits)
        elif ins.opname == "CALL" and ins.arg == 3:
            _exit_call(instrs, k, targets, edits)
        elif ins.opname == "WITH_EXCEPT_START":
            _handler_end(instrs, k, targets, edits)
    return rewrite(bytecode, edits)


def _enter(instrs: List[Instr], k: int, targets: Set[int], edits: Edits) -> None:
    """`COPY 1; LOAD_SPECIAL exit; SWAP 2; SWAP 3; LOAD_SPECIAL enter(k); CALL 0` -> BEFORE_WITH."""
    exit_name, opname = _ENTER[instrs[k].argval]
    start = k - 4
    if start < 0 or k + 1 >= len(instrs):
        return
    shape = [(i.opname, i.argval) for i in instrs[start:k + 2]]
    if shape != [("COPY", 1), ("LOAD_SPECIAL", exit_name), ("SWAP", 2), ("SWAP", 3),
                 ("LOAD_SPECIAL", instrs[k].argval), ("CALL", 0)]:
        return
    if not targets.isdisjoint(range(start + 1, k + 2)):
        return  # (never from the compiler: the sequence is one unit)
    edits[start] = [replaced(instrs[start], opname)]
    for j in range(start + 1, k + 2):
        edits[j] = []


def _exit_call(instrs: List[Instr], k: int, targets: Set[int], edits: Edits) -> None:
    """`LOAD_CONST None x3; CALL 3` of a with's exit -> `CALL 2`, as 3.13 calls the bound exit."""
    if k < 4 or any(instrs[j].opname != "LOAD_CONST" or instrs[j].argval is not None for j in range(k - 3, k)):
        return
    before = instrs[k - 4]
    if before.opname in _CALLABLE_MARKERS or (before.opname in _FLAGGED_LOADS and before.flag):
        return  # (a call of something loaded as a callable: `f(None, None, None)`)
    edits[k] = [copy_instr(instrs[k], arg=2, argval=2)]
    # A value kept across the exit (`return v` in the body) goes below both the exit and its
    # manager (`SWAP 3; SWAP 2`); 3.13 moves it below the bound exit (`SWAP 2`).
    if k >= 5 and [(i.opname, i.arg) for i in instrs[k - 5:k - 3]] == [("SWAP", 3), ("SWAP", 2)] \
            and k - 4 not in targets:
        edits[k - 5] = [copy_instr(instrs[k - 5], arg=2, argval=2)]
        edits[k - 4] = []


def _handler_end(instrs: List[Instr], k: int, targets: Set[int], edits: Edits) -> None:
    """The with handler that starts at WITH_EXCEPT_START `k`: drop the third POP_TOP after the
    POP_EXCEPT of its swallowing path (the unbound exit's manager, which 3.13 never pushed)."""
    swallow = _swallow_target(instrs, k)
    if swallow is None:
        return
    tail = [i.opname for i in instrs[swallow:swallow + 5]]
    if tail == ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP", "POP_TOP"] \
            and swallow + 4 not in targets:
        edits[swallow + 4] = []


def _swallow_target(instrs: List[Instr], k: int) -> Optional[int]:
    """Where the handler goes when the exit swallowed the exception: the first POP_JUMP_IF_TRUE
    after WITH_EXCEPT_START (past the awaiting of an async exit)."""
    for j in range(k + 1, min(len(instrs), k + 12)):
        if instrs[j].opname == "POP_JUMP_IF_TRUE":
            return instrs[j].target
    return None
