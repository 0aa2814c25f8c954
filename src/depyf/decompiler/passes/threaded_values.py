"""Short-circuit values whose jump 3.14 threads past a test it knows the outcome of, in the
spelling of 3.13 (capability `threads_known_value_tests`).

In `a and b or c` the value of a false `a` is tested again by `or`; 3.13 jumps to that test
(`COPY 1; TO_BOOL; POP_JUMP_IF_TRUE`), 3.14 straight to where the test falls through to (its
`POP_TOP`), since the outcome is known. Likewise a true value of `(a or b) and c`. This pass sends
such a jump back to the test, as 3.13 does: the same run, one way of reading it.
"""
from typing import List, Optional

from depyf.decompiler.instructions import OPPOSITE_JUMPS, Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite



def canonicalize(bytecode: Bytecode) -> Bytecode:
    instrs = bytecode.instrs
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        if ins.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") and _keeps_value(instrs, k):
            test = _test_before(instrs, ins.target, OPPOSITE_JUMPS[ins.opname])
            if test is not None:
                edits[k] = [copy_instr(ins, target=test, target_offset=instrs[test].offset)]
    return rewrite(bytecode, edits)


def _keeps_value(instrs: List[Instr], k: int) -> bool:
    """Is the jump at `k` the test of a short-circuit value (`COPY 1; TO_BOOL` before it)?"""
    return k >= 2 and instrs[k - 1].opname == "TO_BOOL" and instrs[k - 2].opname == "COPY" \
        and instrs[k - 2].arg == 1


def _test_before(instrs: List[Instr], target: int, opposite: str) -> Optional[int]:
    """The start of the value test `COPY 1; TO_BOOL; <opposite>` that falls through to the
    `POP_TOP` at `target`, if that is where the jump went."""
    if target is None or target < 3 or target >= len(instrs) or instrs[target].opname != "POP_TOP":
        return None
    if instrs[target - 1].opname == opposite and _keeps_value(instrs, target - 1):
        return target - 3
    return None
