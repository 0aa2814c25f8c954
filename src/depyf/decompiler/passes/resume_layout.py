"""Tool-made bytecode laid out the way a compiler would, before it is read (Dynamo's resume
functions; `relayout`).

Dynamo's resume functions (3.11+) start with a prologue that re-enters the context managers that
were active at the graph break (`with torch.no_grad():` ...) and then jump into the middle of the
original function's code, most of which they keep but never run. Read as it is laid out, that is a
jump that belongs to no construct. With the code no path reaches dropped and the jumped-to part
moved up to where the jump was, the same bytecode reads as a compiler lays out a `with` statement:
enter, body, normal exit, jump over the handler, handler, the code after.

Dynamo ends the path it considers impossible (the re-entered context manager suppressing an
exception) with `raise None`. After a handler that suppressed the exception, such a path is
joined to where the normal exit goes, so the statement reads as the `with` it stands for; the
context managers Dynamo re-enters (grad modes, autocast) never suppress exceptions.

Only rewritten code (``decompile(..., rewritten=True)``) with exception tables goes through all of
it: code a compiler made has no unreachable stretches of this kind. Compiler-made code gets one
step, the pass `loop_exits_after_loops` (`passes.lay_out`), and the rest only when it cannot be
read as laid out (`Decompiler`'s retry, code_text.py). Which code is live, and its blocks, are the graph's.
"""
from typing import AbstractSet, Dict, List, Optional, Set

from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import ENDS_FLOW, Bytecode, ExceptionRegion, Instr
from depyf.decompiler.passes.loop_exits_after_loops import exits_after_loops
from depyf.decompiler.passes.reorder import (RegionOf, clone, moved_target, new_jump, regions_by_instruction,
                                             regions_in_order)


def relayout(bytecode: Bytecode, follow_loop_exits: bool = True) -> Bytecode:
    """`bytecode` itself when it reads as laid out, else a re-ordered copy.

    `follow_loop_exits`: after the jump back that closes a for loop, lay the loop's exit next
    (a loop that a resume function jumps into); without it, the block that came next before."""
    bytecode = exits_after_loops(bytecode)
    bytecode = _peel_jump_into_loop(bytecode)
    instrs = bytecode.instrs
    handler_of = regions_by_instruction(bytecode)
    live = _live(bytecode)
    if len(live) == len(instrs):
        return bytecode
    instrs, rejoined = _rejoin_suppressed_paths(instrs, bytecode.regions, live)
    if rejoined:
        bytecode = Bytecode(bytecode.code, bytecode.version, instrs, bytecode.regions)
        live = _live(bytecode)
    order = _thread_jumps(instrs, live_blocks(bytecode, live), live, rejoined, follow_loop_exits)
    return _renumber(bytecode, order, handler_of)


def _live(bytecode: Bytecode) -> AbstractSet[int]:
    """The instructions a path from the start reaches, handlers included."""
    return FlowGraph.of(bytecode).reachable_instructions()


def live_blocks(bytecode: Bytecode, live: AbstractSet[int]) -> List[List[int]]:
    """The graph's blocks that `live` holds, each as its instruction indices, in their original
    order. (The graph also cuts a straight run where only dead code jumps into it: the two
    parts are laid out one after the other all the same, since one falls into the other.)"""
    return [list(range(block.start, block.end)) for block in FlowGraph.of(bytecode).blocks if block.start in live]


def _rejoin_suppressed_paths(instrs: List[Instr], regions: List[ExceptionRegion],
                             live: AbstractSet[int]) -> "tuple[List[Instr], Set[int]]":
    """Before the blocks are ordered: the path after a with handler that suppressed the
    exception, when it can only end in Dynamo's `raise None` (through the exits of the context
    managers around it), becomes a jump to where that with statement's normal exit goes.

    Nested context managers re-entered by a resume function need it done here, not after the
    layout (`_join_impossible_paths`): the outer `with`'s normal exit must then follow the inner
    handler, as a compiler lays it out. Returns the instructions and the indices of the new jumps."""
    out: Optional[List[Instr]] = None
    made: Set[int] = set()
    for k in range(4, len(instrs) - 1):
        if k not in live or [x.opname for x in instrs[k - 4:k]] != ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP"]:
            continue
        if not _ends_in_raise_none(instrs, k):
            continue
        h = next((j for j in range(k - 5, -1, -1) if instrs[j].opname == "PUSH_EXC_INFO"), None)
        if h is None or instrs[h + 1].opname != "WITH_EXCEPT_START":
            continue
        exits = [r.end for r in regions if r.handler == h and r.end in live and _is_with_exit(instrs, r.end)]
        if len(set(exits)) != 1:
            continue
        after = exits[0] + 5
        if after < len(instrs) and instrs[after].opname == "JUMP" and instrs[after].target is not None:
            after = instrs[after].target
        if out is None:
            out = list(instrs)
        ins = instrs[k]
        out[k] = new_jump(ins, k, after, ins.line)
        made.add(k)
    return (out if out is not None else instrs), made


def _ends_in_raise_none(instrs: List[Instr], k: int) -> bool:
    """Whether the straight path from `k` only drops stand-in values, runs the normal exits of
    enclosing `with`s and jumps, to end in `raise None` (Dynamo's path it considers impossible)."""
    for _ in range(32):
        if k + 1 >= len(instrs):
            return False
        ins = instrs[k]
        if ins.opname == "LOAD_CONST" and ins.argval is None and instrs[k + 1].opname == "RAISE_VARARGS" \
                and instrs[k + 1].arg == 1:
            return True
        if ins.opname == "LOAD_CONST" and ins.argval is None and instrs[k + 1].opname in ("POP_TOP", "JUMP"):
            k += 1
        elif ins.opname == "POP_TOP":
            k += 1
        elif _is_with_exit(instrs, k):
            k += 5
        elif ins.opname == "JUMP" and ins.target is not None and ins.target > k:
            k = ins.target
        else:
            return False
    return False


def _is_with_exit(instrs: List[Instr], k: int) -> bool:
    """Whether a `with` statement's normal exit starts at `k`: `__exit__(None, None, None)`."""
    window = instrs[k:k + 5]
    return len(window) == 5 and all(ins.opname == "LOAD_CONST" and ins.argval is None for ins in window[:3]) \
        and window[3].opname == "CALL" and window[3].arg == 2 and window[4].opname == "POP_TOP"


def _peel_jump_into_loop(bytecode: Bytecode) -> Bytecode:
    """A forward jump into the middle of a loop body (3.12+ resume functions continue a `while`
    loop where it broke) gets its own copy of the rest of that iteration, which then jumps to the
    loop's head: the first, partial iteration is written before the loop, and the loop itself is
    entered only at its head, as source loops are."""
    instrs = bytecode.instrs
    covered = {k for region in bytecode.regions for k in range(region.start, region.end)}
    for j, ins in enumerate(instrs):
        if ins.opname != "JUMP" or ins.target is None or ins.target <= j + 1:
            continue
        t = ins.target
        for e in range(t, len(instrs)):
            back = instrs[e]
            if back.opname == "JUMP" and back.target is not None and j < back.target < t <= e:
                if covered.intersection(range(back.target, e + 1)) or j in covered:
                    break
                return _with_copy(bytecode, j, t, e)
    return bytecode


def _with_copy(bytecode: Bytecode, j: int, t: int, e: int) -> Bytecode:
    """`bytecode` with the jump at `j` replaced by a copy of instructions `t..e`."""
    old = bytecode.instrs
    size = e - t + 1

    def moved(k: int) -> int:
        return k if k < j else k - 1 + size  # k == j (the jump) is never a target kept apart

    instrs: List[Instr] = []
    for k in range(j):
        instrs.append(clone(old[k], len(instrs), None if old[k].target is None else moved(old[k].target)))
    for k in range(t, e + 1):
        target = old[k].target
        if target is not None:
            target = j + (target - t) if t <= target <= e else moved(target)
        instrs.append(clone(old[k], len(instrs), target))
    for k in range(j + 1, len(old)):
        instrs.append(clone(old[k], len(instrs), None if old[k].target is None else moved(old[k].target)))
    regions = [ExceptionRegion(moved(r.start), moved(r.end), moved(r.handler), r.depth, r.lasti)
               for r in bytecode.regions]
    return Bytecode(bytecode.code, bytecode.version, instrs, regions)


def _thread_jumps(instrs: List[Instr], blocks: List[List[int]], live: AbstractSet[int],
                  rejoined: AbstractSet[int] = frozenset(), follow_loop_exits: bool = True) -> List[int]:
    """Instruction indices in their new order, without the jumps that now reach the next one.

    A jump from a handler's rejoined path (`_rejoin_suppressed_paths`) also pulls its target up
    when every other way into the target is placed already: the handler then falls into the
    code after its with statement, as compiled code does."""
    first_of = {block[0]: b for b, block in enumerate(blocks)}
    preds: Dict[int, int] = {}
    pred_blocks: Dict[int, List[int]] = {}
    for b, block in enumerate(blocks):
        last = instrs[block[-1]]
        if last.target is not None and last.target in first_of:
            preds[first_of[last.target]] = preds.get(first_of[last.target], 0) + 1
            pred_blocks.setdefault(first_of[last.target], []).append(b)
        if last.opname not in ENDS_FLOW and block[-1] + 1 in first_of:
            preds[first_of[block[-1] + 1]] = preds.get(first_of[block[-1] + 1], 0) + 1
            pred_blocks.setdefault(first_of[block[-1] + 1], []).append(b)
    placed: Set[int] = set()
    order: List[int] = []

    def place_chain(b: int) -> None:
        while b < len(blocks) and b not in placed:
            placed.add(b)
            block = blocks[b]
            last = instrs[block[-1]]
            target_block = first_of.get(last.target) if last.opname == "JUMP" else None
            only_way_left = preds.get(target_block) == 1 or block[-1] in rejoined and all(
                p in placed for p in pred_blocks.get(target_block, []) if p != b)
            if target_block is not None and target_block not in placed and only_way_left \
                    and block[-1] + 1 not in live and _live_between(block[-1], last.target, live):
                order.extend(block[:-1])  # the jump now reaches the next instruction: drop it
                b = target_block
                continue
            order.extend(block)
            if last.opname in ENDS_FLOW or block[-1] + 1 not in first_of:
                after = _loop_exit_block(last) if follow_loop_exits else None
                if after is None:
                    return
                b = after  # (the loop stops at once if it was placed already)
                continue
            b = first_of[block[-1] + 1]

    def _loop_exit_block(last: Instr) -> Optional[int]:
        """After the jump back that closes a for loop, the block the loop exits to: a loop
        jumped into (a resume function's `for` inside a `with`) would otherwise be followed by
        whatever block came next in the old order (the `with`'s handler), not by its exit."""
        if last.opname != "JUMP" or last.target is None or instrs[last.target].opname != "FOR_ITER":
            return None
        exit_ = instrs[last.target].target
        return first_of.get(exit_) if exit_ is not None else None

    for b in range(len(blocks)):
        place_chain(b)
    return order


def _live_between(jump: int, target: int, live: AbstractSet[int]) -> bool:
    """Whether reachable code lies between a forward jump and its target: only then is the
    target moved up (a jump over dead code alone stays a jump, as the compiler would write it)."""
    return target > jump and any(k in live for k in range(jump + 1, target))


def _renumber(bytecode: Bytecode, order: List[int], handler_of: RegionOf) -> Bytecode:
    old = bytecode.instrs
    new_index = {k: i for i, k in enumerate(order)}
    instrs: List[Instr] = []
    for i, k in enumerate(order):
        src = old[k]
        instrs.append(clone(src, i, None if src.target is None else moved_target(src.target, new_index, old)))
    _join_impossible_paths(instrs)
    regions = regions_in_order(order, handler_of, lambda handler: moved_target(handler, new_index, old))
    return Bytecode(bytecode.code, bytecode.version, instrs, regions)


def _join_impossible_paths(instrs: List[Instr]) -> None:
    """After a with handler suppressed an exception (`POP_TOP; POP_EXCEPT; POP_TOP; POP_TOP`),
    `LOAD_CONST None; [LOAD_CONST None; POP_TOP;] RAISE_VARARGS 1` becomes a jump to where the
    with statement's normal exit goes (see the module docstring)."""
    for k in range(4, len(instrs) - 1):
        if [x.opname for x in instrs[k - 4:k]] != ["POP_TOP", "POP_EXCEPT", "POP_TOP", "POP_TOP"]:
            continue
        j = k
        while j + 1 < len(instrs) and instrs[j].opname == "LOAD_CONST" and instrs[j].argval is None \
                and instrs[j + 1].opname == "POP_TOP":
            j += 2
        tail = instrs[j:j + 2]
        if len(tail) < 2 or tail[0].opname != "LOAD_CONST" or tail[0].argval is not None \
                or tail[1].opname != "RAISE_VARARGS" or tail[1].arg != 1:
            continue
        after = _normal_exit_continuation(instrs, k)
        if after is None:
            continue
        ins = instrs[k]
        instrs[k] = new_jump(ins, k, after, ins.line)


def _normal_exit_continuation(instrs: List[Instr], k: int) -> Optional[int]:
    """The target of the `JUMP` that ends the normal exit (`__exit__(None, None, None)`) of the
    with statement whose handler ends before `k`: the last such jump before the handler."""
    for j in range(k - 1, -1, -1):
        ins = instrs[j]
        if ins.opname == "PUSH_EXC_INFO":
            before = instrs[j - 1] if j else None
            if before is not None and before.opname == "JUMP" and before.target is not None and before.target > k:
                return before.target
            return None
    return None
