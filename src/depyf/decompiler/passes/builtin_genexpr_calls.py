"""3.14's inlined `all(...)`, `any(...)`, `tuple(...)` (3.15: `list`, `set`) of a generator
expression, in the spelling of 3.13 (capability `inlines_builtin_genexpr_calls`).

3.14 compiles `all(x for x in xs)` as a test that the name still means the builtin, then a fast
path that runs the generator in a loop of its own, then the plain call for any other `all`:

    LOAD_GLOBAL all; COPY 1; LOAD_COMMON_CONSTANT all; IS_OP 0; POP_JUMP_IF_FALSE L
    POP_TOP; <the generator>; FOR_ITER ... (the fast path)
    L: PUSH_NULL; <the generator>; CALL 0; CALL 1

The plain call alone is what the source says and what 3.13 compiles: this pass keeps only it.
"""
from typing import List, Optional

from depyf.decompiler.instructions import Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite


def canonicalize(bytecode: Bytecode) -> Bytecode:
    if "LOAD_COMMON_CONSTANT" not in bytecode.opnames():
        return bytecode
    instrs = bytecode.instrs
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        if ins.opname == "LOAD_COMMON_CONSTANT" and k not in edits:
            _plain_call(instrs, k - 2, edits)
    return rewrite(bytecode, edits)


def _plain_call(instrs: List[Instr], k: int, edits: Edits) -> None:
    """Where the guard starts at `k` (the name's load), keep the load and the plain call."""
    end = _guard_end(instrs, k)
    if end is None:
        return
    load = instrs[k]
    if load.opname == "LOAD_GLOBAL":  # (3.13: the load pushes the NULL of the call)
        edits[k] = [copy_instr(load, flag=True)]
        end += 1  # (and the PUSH_NULL goes)
    for j in range(k + 1, end):
        edits[j] = []


def _guard_end(instrs: List[Instr], k: int) -> Optional[int]:
    """The index of the plain call's PUSH_NULL, where `k` starts the builtin guard."""
    if k < 0 or k + 4 >= len(instrs):
        return None
    load, copy, common, is_op, jump = instrs[k:k + 5]
    if copy.opname != "COPY" or copy.arg != 1 or common.opname != "LOAD_COMMON_CONSTANT" \
            or common.argval != load.argval or is_op.opname != "IS_OP" or is_op.arg != 0 \
            or jump.opname != "POP_JUMP_IF_FALSE" or load.flag:
        return None
    end = jump.target
    if end is None or end <= k + 5 or end >= len(instrs) or instrs[end].opname != "PUSH_NULL":
        return None
    # (no jump from outside the fast path lands inside it)
    inside = range(k + 1, end + 1)
    if any(ins.target in inside for j, ins in enumerate(instrs) if not k <= j < end and ins.target is not None):
        return None
    return end
