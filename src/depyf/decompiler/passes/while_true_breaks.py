"""3.14's `break` of a `while True:` loop that ends an enclosing `while True:` loop's body, laid out
as 3.10-3.13 lay it (capability `threads_breaks_to_while_true_heads`).

3.10-3.13 end a `while True:` body with a jump back that carries the `while` line, so the
optimiser does not thread jumps through it: the `break` of an inner `while True:` loop that ends
the body jumps forward to that jump back, laid right after the inner loop. 3.14 jumps back to the
NOP of the `while` line instead, so the `break` is threaded straight to the outer loop's head and
the jump back after the inner loop, which nothing else reaches, is dropped. Read as is, the
`break` looks like a `continue` of the outer loop written in the inner loop's body and the inner
loop is lost (fuzz seed 618, a silent wrong result). This pass puts the jump back after the inner
loop again and sends the `break` to it. The jump it adds runs what the `break` ran, in the same
order, so the code computes the same.
"""
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler.graph.flow import normal_predecessors
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode, ExceptionRegion, Instr
from depyf.decompiler.passes.rewrite import Edits, Placed, copy_instr, rewrite

_Handler = Optional[Tuple[int, int, bool]]
_Place = Tuple[int, bool]  # an old index, and whether code goes in front of it (else after the one before)


def canonicalize(bytecode: Bytecode) -> Bytecode:
    instrs = bytecode.instrs
    backs: Dict[int, List[int]] = {}  # loop head -> the jumps back to it
    for k, ins in enumerate(instrs):
        if ins.opname == "JUMP" and ins.target is not None and ins.target <= k:
            backs.setdefault(ins.target, []).append(k)
    if sum(all(_to_line_nop(instrs, k) for k in ks) for ks in backs.values()) < 2:
        return bytecode  # (no `while True:` inside another)
    handler_at: List[_Handler] = [None] * len(instrs)
    for r in bytecode.regions:  # (where each instruction's exceptions go: the last region holding it)
        handler_at[r.start:min(r.end, len(instrs))] = [(r.handler, r.depth, r.lasti)] * (min(r.end, len(instrs)) - r.start)
    # head -> what it reaches without an exception, and the old index in front of which the
    # last jump back so reached ends (k < end: inside its loop; a handler laid at the end,
    # jumping back, holds none of the code before it)
    reached: Dict[int, Set[int]] = {}
    end_at: Dict[int, int] = {}
    for head in list(backs):
        every = _reach(instrs, head, handler_at)
        backs[head] = [k for k in backs[head] if k in every]  # (a jump back into code that loops not)
        reached[head] = _reach(instrs, head, None)
        normal = [k for k in backs[head] if k in reached[head]]
        if normal:
            end_at[head] = max(normal) + 1
    line_heads = {head for head, ks in backs.items() if ks and all(_to_line_nop(instrs, k) for k in ks)}
    preds = normal_predecessors(instrs)
    # (old index, whether in front of it) -> the heads of the jumps back added there, in order
    added: Dict[_Place, List[int]] = {}
    sent: Dict[int, Tuple[_Place, int]] = {}  # a `break` -> (where its jump back goes, which one)
    for head in sorted(line_heads, reverse=True):  # (inner loops first: their jumps back count)
        body: Optional[Set[int]] = None
        for k in backs[head]:
            inner = _innermost_loop(end_at, head, k)
            if inner is None or inner not in line_heads or k not in reached[inner]:
                continue  # (a `continue`, the body's end, or a loop with a test or a for loop)
            at = end_at[inner]
            body = _loop_body(preds, reached[head], backs[head]) if body is None else body
            if at in body:
                continue  # (the body goes on after the inner loop, an else part: 3.13 jumps to its end)
            place = _place(bytecode.regions, instrs, at, handler_at[head], sent)
            if place is None:
                continue  # (the jump back would land in other blocks than the head's)
            heads = added.setdefault(place, [])
            if head not in heads:
                heads.append(head)
            sent[k] = (place, heads.index(head))
            end_at[head] = max(end_at.get(head, 0), at)
    if not sent:
        return bytecode
    return _laid_out(bytecode, backs, added, sent)


def _reach(instrs: List[Instr], head: int, handler_at: Optional[List[_Handler]]) -> Set[int]:
    """What `head` reaches without passing it again: by jumps and falling through, and by
    exceptions too where `handler_at` is given."""
    seen = {head}
    todo = [head]
    while todo:
        k = todo.pop()
        ins = instrs[k]
        nexts = [ins.target] if ins.target is not None else []
        if ins.opname not in ENDS_FLOW:
            nexts.append(k + 1)
        if handler_at is not None and handler_at[k] is not None:
            nexts.append(handler_at[k][0])
        for j in nexts:
            if j < len(instrs) and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def _to_line_nop(instrs: List[Instr], k: int) -> bool:
    """Does the jump back at `k` land on a dropped NOP before its head (a `while True:` line's)?"""
    ins = instrs[k]
    return ins.target_offset is not None and ins.target < len(instrs) \
        and ins.target_offset < instrs[ins.target].offset


def _innermost_loop(end_at: Dict[int, int], head: int, k: int) -> Optional[int]:
    """The head of the innermost loop inside the loop at `head` whose code holds the jump at `k`."""
    inside = [h for h, end in end_at.items() if head < h < k < end]
    return max(inside) if inside else None


def _handler_of(regions: List[ExceptionRegion], k: int) -> _Handler:
    """Where the exceptions of instruction `k` go (the last region that covers it)."""
    found: _Handler = None
    for r in regions:
        if r.start <= k < r.end:
            found = (r.handler, r.depth, r.lasti)
    return found


def _place(regions: List[ExceptionRegion], instrs: List[Instr], at: int, handler: _Handler,
           sent: Dict[int, Tuple[_Place, int]]) -> Optional[_Place]:
    """Where code laid between old indices `at - 1` and `at` sends its exceptions where `handler`
    says: after `at - 1`, inside the regions that hold it, or in front of `at`, outside the
    regions that start there (True); None where neither does."""
    if at - 1 not in sent and _handler_of(regions, at - 1) == handler:
        return at, False
    if at >= len(instrs):
        return None
    found: _Handler = None
    for r in regions:
        if r.start < at < r.end:
            found = (r.handler, r.depth, r.lasti)
    return (at, True) if found == handler else None


def _loop_body(preds: List[List[int]], reached: Set[int], backs: List[int]) -> Set[int]:
    """The instructions that the head reaches (`reached`) and that reach a jump back to it,
    without passing the head or an exception (a handler's code is none of them)."""
    back = set(backs)
    todo = list(backs)
    while todo:
        for j in preds[todo.pop()]:
            if j not in back and j in reached:
                back.add(j)
                todo.append(j)
    return back


def _laid_out(bytecode: Bytecode, backs: Dict[int, List[int]], added: Dict[_Place, List[int]],
              sent: Dict[int, Tuple[_Place, int]]) -> Bytecode:
    """The code with the jumps back of `added` laid where they go and each `break` of `sent`
    jumping forward to its own."""
    instrs = bytecode.instrs
    edits: Edits = {}
    placed: Placed = {}
    ahead: Dict[int, int] = {}
    spot: Dict[_Place, int] = {}  # where the first added jump goes: old index, position there
    for (at, in_front), heads in added.items():
        before = instrs[at - 1]  # (the inner loop's last jump back: the added jumps take its line)
        jumps = []
        for head in heads:
            model = instrs[min(k for k in backs[head] if k in sent)]
            jumps.append(copy_instr(model, raw_opname="JUMP_BACKWARD", offset=before.offset, line=before.line))
        if in_front:
            edits[at] = [*jumps, instrs[at]]
            ahead[at] = len(jumps)
            spot[(at, in_front)] = 0
        else:
            edits[at - 1] = [before, *jumps]
            spot[(at, in_front)] = 1
    for k, (place, position) in sent.items():
        edits[k] = [copy_instr(instrs[k], raw_opname="JUMP_FORWARD")]
        at, in_front = place
        placed[(k, 0)] = (at if in_front else at - 1, spot[place] + position)
    return rewrite(bytecode, edits, placed, ahead=ahead)
