"""Exit code that 3.11+ lay inside a loop's span, moved after the loop (capability
`lays_exits_inside_loops`).

A while loop's test at the top jumps to where the loop ends. 3.11+ place code that only a handler
reaches (a while loop's test at the bottom, when the body leaves only through its except clause)
after the handler, at the end of the code, past the code the loop exits to (`return`, the rest of
the function). The loop's span then holds code it never runs, which the structuring rules would
read as part of the loop: moved after the loop's last jump back, it sits where a loop's exit is
read. 3.12+ also lay the code after a `while True:` loop whose only jump back is handler code
inside the loop's span (`_after_loop_closed_by_handlers`).

This pass runs where a function's body is read (`passes.lay_out`), not in `passes.read`: a
reading that fails starts `resume_layout` again from the code before it.
"""
from typing import AbstractSet, Dict, List, Optional, Tuple

from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.instructions import ENDS_FLOW, OPPOSITE_JUMPS, Bytecode, Instr
from depyf.decompiler.passes.reorder import RegionOf, regions_by_instruction, reordered


def canonicalize(bytecode: Bytecode) -> Bytecode:
    """Exit code that lies inside a loop's span, reached only from outside it, moves after it."""
    return exits_after_loops(bytecode)


def _warm(bytecode: Bytecode) -> AbstractSet[int]:
    """The instructions a path from the start reaches without an exception."""
    return FlowGraph.of(bytecode).reachable_instructions(exceptions=False)


def _reached_from(bytecode: Bytecode, starts: List[int]) -> AbstractSet[int]:
    """The instructions a path from the handlers `starts` reaches, exceptions included."""
    labels = [k for k in starts if 0 <= k < len(bytecode.instrs)]
    return FlowGraph.of(bytecode).reachable_instructions(labels) if labels else frozenset()


def exits_after_loops(bytecode: Bytecode) -> Bytecode:
    """`bytecode` with the exit code of while loops tested at the top moved after the loop (see
    the module docstring), one loop at a time; a jump there that then reaches the next
    instruction is dropped."""
    instrs = bytecode.instrs
    graph = FlowGraph.of(bytecode)
    last_back: Dict[int, int] = {}  # loop head -> the last JUMP back to it
    for j in graph.jumps.backward:
        if instrs[j].opname == "JUMP" and instrs[j].target < j:
            last_back[instrs[j].target] = j
    # While loops tested at the top whose test exits into the loop's own span (not a jump back
    # after a with's handler, say); usually there are none, and nothing more is computed.
    loops = [(h, j) for h, j in sorted(last_back.items())
             if h and instrs[h - 1].opname in OPPOSITE_JUMPS and h < (instrs[h - 1].target or -1) < j]
    if not loops:
        return _after_loop_closed_by_handlers(bytecode, last_back)
    handler_of = regions_by_instruction(bytecode)
    # instruction -> where control comes from other than by falling in: the jumps, and the code
    # whose exceptions go to it
    entries: Dict[int, List[int]] = {target: list(sources) for target, sources in graph.jump_table.items()}
    for region in bytecode.regions:
        entries.setdefault(region.handler, []).extend(range(region.start, region.end))
    warm: Optional[AbstractSet[int]] = None
    for h, j in loops:
        test = instrs[h - 1]
        moved = _unrun_segments(instrs, entries, h, j)
        falls_in: Dict[int, int] = {}
        if warm is None:
            warm = _warm(bytecode)
        after = _exit_code_entered_by_breaks(instrs, warm, h, j, test.target)
        if test.target not in moved and not after:
            continue
        if after and set(after) > set(moved) or test.target not in moved:
            # (the breaks go on past the exit segments found so far: to code after the loop)
            moved = after
            moved_set = set(moved)
            # (a `break` that falls into the exit code gets a jump there of its own)
            falls_in = {k - 1: k for k in moved if k - 1 not in moved_set and k - 1 in warm
                        and instrs[k - 1].opname not in ENDS_FLOW}
        moved_set = set(moved)
        order = [k for k in range(j + 1) if k not in moved_set]
        rest = list(range(j + 1, len(instrs)))
        # A jump right after the loop to the first moved block now reaches it: dropped, and jumps
        # to it go to the block.
        alias: Dict[int, int] = {}
        if rest and instrs[j + 1].opname == "JUMP" and instrs[j + 1].target == moved[0]:
            alias[j + 1] = moved[0]
            rest = rest[1:]
        return exits_after_loops(reordered(bytecode, order + moved + rest, alias, handler_of, falls_in))
    return _after_loop_closed_by_handlers(bytecode, last_back)


def _after_loop_closed_by_handlers(bytecode: Bytecode, last_back: Dict[int, int]) -> Bytecode:
    """3.12+: the code after a `while True:` loop whose only jumps back are handler code
    moves after the loop.

    3.12+ lay the code that only handlers reach at the end of the code. When the loop body goes
    on to its next turn only through an except clause (`try: raise E / except E: pass`, then the
    rest of the body), the loop's closing jump lies in that handler code, and the code after the
    loop, which the body's `break`s jump to, is laid before it, inside the loop's span. That code
    is the last normal code of the span: one stretch entered only by jumps from the body before
    it (not fallen into), that ends the flow with a return or raise, never jumps back into the
    span, and is followed only by handler code up to the closing jump. It moves right after that
    jump, where a loop's exit is read. (Not for a loop tested at the top, `exits_after_loops`,
    nor a for loop, whose breaks leave through its exit.)"""
    if not bytecode.version.handler_code_at_end:
        return bytecode
    instrs = bytecode.instrs
    graph = FlowGraph.of(bytecode)
    warm: Optional[AbstractSet[int]] = None
    handler_of: Optional[RegionOf] = None
    for h, j in sorted(last_back.items()):
        if instrs[h].opname in ("FOR_ITER", "END_SEND", "SEND") or h and instrs[h - 1].opname in OPPOSITE_JUMPS:
            continue
        if warm is None:
            warm = _warm(bytecode)
            handler_of = regions_by_instruction(bytecode)
        if h not in warm or any(h <= k <= j and k in warm for k in graph.jump_sources(h)):
            continue  # (a jump back that normal code reaches: the span is the loop's)
        assert handler_of is not None
        last = max((k for k in range(h, j) if k in warm), default=None)
        if last is None or instrs[last].opname not in ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS"):
            continue
        stretch = _code_after_loop_in_span(bytecode, warm, handler_of, h, last)
        if stretch is None:
            continue
        x, falls_in = stretch
        if any(ins.opname in ("FOR_ITER", "END_FOR") or ins.target is not None and ins.target <= k
               for k, ins in enumerate(instrs[h:last + 1], h)):
            continue  # (a loop inside: the stretch may be the code after it, which its breaks reach)
        if j not in _reached_from(bytecode, [r.handler for r in bytecode.regions if h <= r.start < x]):
            continue  # (a jump back from the handler of a try before `h`: its way on, no loop)
        moved = list(range(x, last + 1))
        order = [k for k in range(j + 1) if not x <= k <= last] + moved + list(range(j + 1, len(instrs)))
        return reordered(bytecode, order, {}, handler_of, {x - 1: x} if falls_in else None)
    return bytecode


def _code_after_loop_in_span(bytecode: Bytecode, warm: AbstractSet[int], handler_of: RegionOf, h: int,
                             last: int) -> Optional[Tuple[int, bool]]:
    """Where the code after the `while True:` loop headed at `h` starts, when it is the stretch
    of normal code ending at `last` in a return or raise: (its start, does the code before it
    fall into it), or None.

    The stretch is straight code that no exception region protects, entered only by the
    `break`s of the body before it, each a JUMP of its own (what a test jumps to is an else
    branch). Usually the code before it ends the flow. A try body ending in `break` falls into
    it instead (3.12 keeps only the break's NOP): that fall is a `break` too when another
    statement's `break` jumps there, and the moved code needs a jump of its own."""
    instrs = bytecode.instrs
    graph = FlowGraph.of(bytecode)
    x = last
    while x - 1 > h and x - 1 in warm and instrs[x - 2].opname not in ENDS_FLOW:
        x -= 1
    if x - 1 <= h or instrs[x - 2].opname not in ENDS_FLOW or x - 1 not in warm:
        return None
    x -= 1
    if _breaks_enter(bytecode, warm, handler_of, h, x, last):
        return x, False
    # (the run from `x` on holds the body's last statements too: the stretch is its last part
    # that jumps enter, and the statement before it falls in)
    for y in range(x + 1, last + 1):
        if graph.jump_sources(y) and instrs[y - 1].opname not in ENDS_FLOW \
                and _breaks_enter(bytecode, warm, handler_of, h, y, last):
            return y, True
    return None


def _breaks_enter(bytecode: Bytecode, warm: AbstractSet[int], handler_of: RegionOf, h: int, x: int,
                  last: int) -> bool:
    """Is [x, last] straight, unprotected code of the handler nesting at `h`, entered only by
    `break`s of the loop at `h`: JUMPs from the code before it that normal flow reaches (one at
    least), and from the code that only the handlers of the tries in that code reach (an
    except clause's `break`)?"""
    instrs = bytecode.instrs
    graph = FlowGraph.of(bytecode)
    sources = [k for k, target in zip(graph.jumps.indices, graph.jumps.targets) if x <= target <= last]
    body = [k for k in sources if h <= k < x and k in warm]
    if not body:
        return False
    if len(body) < len(sources):
        handlers = _reached_from(bytecode, [r.handler for r in bytecode.regions if h <= r.start < x])
        if any(k in warm or k not in handlers for k in sources if k not in body):
            return False
    return all(instrs[k].opname == "JUMP" for k in sources) \
        and all(instrs[k].opname == "JUMP" for k in sources) \
        and all(instrs[k].target is None and handler_of[k] is handler_of[h] for k in range(x, last + 1)) \
        and not any(r.start <= k < r.end for r in bytecode.regions for k in range(x, last + 1))


def _exit_code_entered_by_breaks(instrs: List[Instr], warm: AbstractSet[int], h: int, j: int, exit_: int) -> List[int]:
    """The code after the while loop spanning [h, j] that lies inside that span, when `break`s
    jump (or fall) into it from the body: nothing, unless it is closed.

    3.12+ lay code out in source order and only move the code that just handlers reach (the
    loop's test at the bottom, when only an except clause goes on to the next turn) to the end.
    So in the span, the code the loop's test exits to and everything normally reached after it
    up to that moved code is the code after the loop: the loop's else part, then the rest (which
    the breaks go to), to a return. It must not jump back into the rest of the span."""
    if not (j + 1 < len(instrs) and instrs[j + 1].opname == "JUMP" and instrs[j + 1].target == exit_
            and instrs[j - 1].opname in OPPOSITE_JUMPS and instrs[j - 1].target == j + 1):
        # (no copy of the test at the bottom leaving for `exit_`: the test before the loop's head
        # is an if's whose body holds a `while True:`, and `exit_` its else part)
        return []
    moved = [k for k in range(exit_, j + 1) if k in warm]
    if not moved or j in moved:
        return []
    moved_set = set(moved)
    for k in moved:
        target = instrs[k].target
        if target is not None and h <= target <= j and target not in moved_set:
            return []
    last = moved[-1]
    if instrs[last].opname not in ENDS_FLOW:
        return []  # (the code after the loop must end there, not run on into code left in the span)
    return moved


def _unrun_segments(instrs: List[Instr], entries: Dict[int, List[int]], h: int, j: int) -> List[int]:
    """The instructions of the loop spanning [h, j] that it never runs: segments [x, z) not
    fallen into, entered only from outside the span, and that never go back into it. (Each
    instruction keeps its exception region when moved.)"""
    moved: List[int] = []
    x = h + 1
    while x < j:
        if instrs[x - 1].opname not in ENDS_FLOW or x not in entries:
            x += 1
            continue
        z = x + 1
        found = None
        while z <= j:
            if instrs[z - 1].opname in ENDS_FLOW and _closed(instrs, entries, x, z, h, j):
                found = z
                break
            z += 1
        if found is None:
            x += 1
            continue
        moved.extend(range(x, found))
        x = found
    return moved


def _closed(instrs: List[Instr], entries: Dict[int, List[int]], x: int, z: int, h: int, j: int) -> bool:
    """Is [x, z) entered only from outside the loop's span [h, j], and does it never jump back
    into the span?"""
    for k in range(x, z):
        if any(h <= q <= j and not x <= q < z for q in entries.get(k, ())):
            return False
        t = instrs[k].target
        if t is not None and h <= t <= j and not x <= t < z:
            return False
    return True
