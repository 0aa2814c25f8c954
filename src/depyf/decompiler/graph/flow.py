"""What one decoded instruction does to the flow of control.

The decoder gives every version's jumps one vocabulary (instructions.py); this module sorts that
vocabulary into the kinds a control-flow graph needs. No version is named here: an opname that a
version's tables lack simply never occurs in its bytecode.
"""
from typing import FrozenSet, List, Sequence

from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr

# Instructions that push a block of the 3.8-3.10 block stack: their target is the block's handler,
# entered by an exception only (never a normal edge).
BLOCK_SETUPS: FrozenSet[str] = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
# The instruction that pops such a block on the normal way out of it.
BLOCK_POP = "POP_BLOCK"
# 3.8's call of a finally body: it jumps there and the body's END_FINALLY comes back after it.
SUBROUTINE_CALLS: FrozenSet[str] = frozenset({"CALL_FINALLY"})
# Conditional jumps whose test is a truth value: the value that makes them jump.
JUMPS_WHEN: dict = {
    "POP_JUMP_IF_TRUE": True, "JUMP_IF_TRUE_OR_POP": True,
    "POP_JUMP_IF_FALSE": False, "JUMP_IF_FALSE_OR_POP": False,
}


def ends_block(ins: Instr) -> bool:
    """Does a basic block end after `ins`? (jumps, the end of the flow, and the instructions that
    change the block stack, so that every block lies under one stack of handlers)"""
    return ins.target is not None or ins.opname in ENDS_FLOW or ins.opname == BLOCK_POP


def falls_through(ins: Instr) -> bool:
    return ins.opname not in ENDS_FLOW


def is_terminal(ins: Instr) -> bool:
    """Does `ins` leave the code (return, raise, re-raise)?"""
    return ins.opname in TERMINAL


def is_conditional(ins: Instr) -> bool:
    """A jump taken or not by what it tests (FOR_ITER and SEND included: they jump when the
    iterator is exhausted)."""
    return ins.target is not None and ins.opname != "JUMP" and ins.opname not in BLOCK_SETUPS \
        and ins.opname not in SUBROUTINE_CALLS


def normal_predecessors(instrs: Sequence[Instr]) -> List[List[int]]:
    """Per instruction, those control may come from without an exception: the one before it
    (where it goes on) and the jumps to it. (For the passes, which work on instruction lists
    before any graph is made.)"""
    preds: List[List[int]] = [[] for _ in instrs]
    for k, ins in enumerate(instrs):
        if k + 1 < len(instrs) and ins.opname not in ENDS_FLOW:
            preds[k + 1].append(k)
        if ins.target is not None and ins.target < len(instrs):
            preds[ins.target].append(k)
    return preds
