"""A chained comparison's last `is None` test, unfused (capability `fuses_none_tests_into_jumps`).

3.11+ fuse a test of `x is None` into its jump (POP_JUMP_IF_NONE / POP_JUMP_IF_NOT_NONE), the last
link of a chained comparison too (`if a < b is None:`): right after the jump of the link before it
(to the chain's cleanup, the POP_TOP of the copied operand) comes the fused jump, the value it
tests being that link's copied right operand. The rules read each link as a comparison and its
jump; this pass writes the last one out as 3.10 compiles it, `LOAD_CONST None; IS_OP; POP_JUMP_IF_*`.

Which way the jump goes when it is spelled out depends on what it falls into. Normally the chain
jumps away when false (`is not None` ... POP_JUMP_IF_FALSE for POP_JUMP_IF_NONE); but where the
code it falls into is that after the cleanup, where a failing earlier link goes, the jump is the
chain's jump when true (`assert a is b is not None` jumps over the raise).
"""
from typing import List, Optional

from depyf.decompiler.instructions import TERMINAL, Bytecode, Instr, make_instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite

_COMPARISONS = frozenset({"COMPARE_OP", "IS_OP", "CONTAINS_OP"})
_FUSED = frozenset({"POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"})
_LINK_JUMPS = frozenset({"JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE"})
_LOOK_AHEAD = 8  # (how far the code after the fused jump is compared with that after the cleanup)


def canonicalize(bytecode: Bytecode) -> Bytecode:
    opnames = bytecode.opnames()
    if not opnames & _FUSED or "SWAP" not in opnames:
        return bytecode
    instrs = bytecode.instrs
    edits: Edits = {}
    for k, ins in enumerate(instrs):
        if ins.opname not in _FUSED:
            continue
        cleanup = _link_cleanup(instrs, k)
        if cleanup is None:
            continue
        when_true = _falls_like_cleanup(instrs, k, cleanup)
        # POP_JUMP_IF_NONE jumps where `x is None`: when that test is true, where `x is not None` is false
        negated = (ins.opname == "POP_JUMP_IF_NOT_NONE") == when_true
        test = make_instr(ins.offset, "IS_OP", "IS_OP", int(negated), int(negated), negated, ins.line, ins.index)
        jump = copy_instr(ins, opname="POP_JUMP_IF_TRUE" if when_true else "POP_JUMP_IF_FALSE")
        edits[k] = [make_instr(ins.offset, "LOAD_CONST", "LOAD_CONST", None, None, False, ins.line, ins.index),
                    test, jump]
    return rewrite(bytecode, edits)


def _link_cleanup(instrs: List[Instr], k: int) -> Optional[int]:
    """The cleanup the chain link right before the fused jump at `k` jumps to, where that link is one:
    `SWAP 2; COPY 2; <comparison>`, then its jump when false (JUMP_IF_FALSE_OR_POP, POP_JUMP_IF_FALSE,
    or 3.12+'s value spelling `COPY 1; [TO_BOOL]; POP_JUMP_IF_FALSE; POP_TOP`) to a POP_TOP."""
    j = k - 1
    if j >= 0 and instrs[j].opname == "POP_TOP":
        j -= 1  # (the value spelling: the jump, then the POP_TOP of the copied result)
        if j < 0 or instrs[j].opname != "POP_JUMP_IF_FALSE":
            return None
        c = j - 1
        if c >= 0 and instrs[c].opname == "TO_BOOL":
            c -= 1
        if c < 0 or instrs[c].opname != "COPY" or instrs[c].arg != 1:
            return None
        compare = c - 1
    else:
        compare = j - 1
    if j < 0 or instrs[j].opname not in _LINK_JUMPS or compare < 2 or instrs[compare].opname not in _COMPARISONS:
        return None
    swap, copy = instrs[compare - 2], instrs[compare - 1]
    if swap.opname != "SWAP" or swap.arg != 2 or copy.opname != "COPY" or copy.arg != 2:
        return None
    cleanup = instrs[j].target
    if cleanup is None or cleanup >= len(instrs) or instrs[cleanup].opname != "POP_TOP":
        return None
    return cleanup


def _falls_like_cleanup(instrs: List[Instr], k: int, cleanup: int) -> bool:
    """Does the code after the fused jump at `k` (up to a return or raise) repeat the code after
    the chain's cleanup: is falling through there where the chain goes when false?"""
    nxt = instrs[k + 1] if k + 1 < len(instrs) else None
    if nxt is not None and nxt.opname == "JUMP" and nxt.target == cleanup + 1:
        return True  # (3.11 jumps there instead)
    r = k + 1
    while r < len(instrs) and r < k + _LOOK_AHEAD and instrs[r].target is None and instrs[r].opname not in TERMINAL:
        r += 1
    if r >= len(instrs) or instrs[r].opname not in TERMINAL or cleanup + 1 + r - k > len(instrs):
        return False
    return all(_same(instrs[k + 1 + d], instrs[cleanup + 1 + d]) for d in range(r - k))


def _same(x: Instr, y: Instr) -> bool:
    if x.opname == "RERAISE" and x.arg == 0 and y.opname in ("RETURN_VALUE", "JUMP"):
        return True  # (as the rules compare copies: where one re-raises, a copy on a way out goes on out)
    if x.opname != y.opname:
        return False
    if x.target is not None or x.argval == y.argval or x.argval != x.argval:
        return True  # (no jump lies in the code compared, but its last instruction: a raise or return)
    return isinstance(x.argval, type(y.argval)) and repr(x.argval) == repr(y.argval)
