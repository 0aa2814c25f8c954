"""3.14's written `continue` at the end of a `while True:` body, laid out as 3.8/3.9 keep it
(capability `copies_jumps_back_to_body_ends`).

3.14 ends a `while True:` body with a jump back that has no line of its own and copies it to each
place the body ends (`if t: break` at the end tests `t` and jumps over a copy). A `continue`
written there is a jump back with the `continue`'s line, which the ends jump (or fall) to, not
copied. 3.13 compiles both alike, so the rules take a jump back at the body's end for the implied
`continue` and drop it, and the text compiles on 3.14 to the copies (fuzz seed 107, shlex's
`read_token`: `if ...: break` / `else: continue`). 3.8/3.9 keep a loop's closing jump after a
written `continue` even where nothing reaches it, which the rules read as a `continue` written
out; this pass lays such a closing jump after the written one. Nothing reaches it: the code
computes the same.
"""
from typing import Callable, Dict, List

from depyf.decompiler.graph.positions import SourcePositions
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite


def canonicalize(bytecode: Bytecode) -> Bytecode:
    """`while True:` loops (3.14)."""
    return _lay_closing_jumps(bytecode, lambda instrs, head, ks, backs: all(_to_line_nop(instrs, k) for k in ks),
                              in_handlers=False)


def for_loops(bytecode: Bytecode) -> Bytecode:
    """For loops (3.12+, capability `copies_for_jumps_back_to_body_ends`): an `else: continue`
    (or `else: pass`) ending a for body is one jump back with a line of its own, which the test
    jumps to; without it the test jumps over a copy. Not a for loop holding another loop: 3.12+
    thread its `break` to the for loop's head, with the `break`'s line (fuzz seed 328)."""
    return _lay_closing_jumps(bytecode, lambda instrs, head, ks, backs: instrs[head].opname == "FOR_ITER"
                              and not any(head < h < max(ks) for h in backs), in_handlers=True)


def _lay_closing_jumps(bytecode: Bytecode, chosen: Callable[[List[Instr], int, List[int], Dict[int, List[int]]], bool],
                       in_handlers: bool) -> Bytecode:
    """A dead copy after the last jump back of each `chosen` loop that is a written `continue`
    (`in_handlers`: also in handler code, where the handler's copy of a finally body holds it)."""
    instrs = bytecode.instrs
    backs: Dict[int, List[int]] = {}  # loop head -> the jumps back to it
    entries: Dict[int, List[int]] = {}  # instruction -> the jumps to it
    for k, ins in enumerate(instrs):
        if ins.target is not None:
            entries.setdefault(ins.target, []).append(k)
            if ins.opname == "JUMP" and ins.target <= k:
                backs.setdefault(ins.target, []).append(k)
    heads = [head for head, ks in backs.items() if chosen(instrs, head, ks, backs)]
    if not heads:
        return bytecode
    positions = SourcePositions.of(bytecode.code, bytecode.version)
    protected = set()
    for r in bytecode.regions:
        if not (in_handlers and _handler_cleanup(instrs, r.handler)):
            protected.update(range(r.start, r.end))
    edits: Edits = {}
    for head in heads:
        last = max(backs[head])
        # (not in a try body: the 3.11+ rules that find where a try ends read no jump that
        # nothing reaches, which 3.8/3.9, without an exception table, keep. A for loop in
        # handler code, the handler's copy of a finally body, is laid out as in the normal copy.)
        if last not in protected and last not in edits and _written(instrs, last, positions, entries):
            edits[last] = [instrs[last], copy_instr(instrs[last])]
    return rewrite(bytecode, edits) if edits else bytecode


def _handler_cleanup(instrs: List[Instr], h: int) -> bool:
    """Is `h` the cleanup of handler code (`COPY 3; POP_EXCEPT; RERAISE 1`), which protects
    the code of an except clause or the handler's copy of a finally body?"""
    return h + 2 < len(instrs) and instrs[h].opname == "COPY" and instrs[h + 1].opname == "POP_EXCEPT" \
        and instrs[h + 2].opname == "RERAISE"


def _to_line_nop(instrs: List[Instr], k: int) -> bool:
    """Does the jump back at `k` land on a dropped NOP before its head (a `while True:` line's)?"""
    ins = instrs[k]
    return ins.target_offset is not None and ins.target < len(instrs) \
        and ins.target_offset < instrs[ins.target].offset


def _written(instrs: List[Instr], k: int, positions: SourcePositions, entries: Dict[int, List[int]]) -> bool:
    """Is the jump back at `k` a written `continue`: a line of its own, which neither a jump to
    it nor the code falling into it has, reached by a jump (3.14 copies the jump that ends the
    body to each jump's place instead)?"""
    jumps = entries.get(k, ())
    if not jumps or not positions.starts_line(instrs[k].offset):
        return False
    line = positions.line_at(instrs[k].offset)
    comes = list(jumps) + ([k - 1] if k > 0 and instrs[k - 1].opname not in ENDS_FLOW else [])
    return all(positions.line_at(instrs[j].offset) != line for j in comes)
