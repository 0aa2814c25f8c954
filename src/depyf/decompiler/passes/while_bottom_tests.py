"""3.14's while loops, with their test repeated at the bottom as 3.10-3.13 lay them out
(capability `while_jumps_back_to_test`).

3.10-3.13 compile `while t: body` as the test, the body, then the test again, whose true outcome
jumps back to the body's start (`POP_JUMP_IF_FALSE exit; JUMP_BACKWARD body`); a `continue` jumps
to the test at the top. 3.14 ends the body with a jump back to the test at the top instead, like a
`continue`. The rules that read 3.10-3.13's loops lean on that bottom test (where the body ends,
which jumps are a `continue`), so this pass writes it back: the jump back that ends the body (the
last jump to the loop's head, right before where the test exits to) becomes a copy of the test.
The copy runs what the jump led to, in the same order, so the code computes the same.
"""
from bisect import bisect_right
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler.graph.flow import normal_predecessors
from depyf.decompiler.graph.positions import SourcePositions
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, OPPOSITE_JUMPS, TERMINAL, Bytecode, ExceptionRegion, \
    Instr, make_instr
from depyf.decompiler.passes.rewrite import Edits, Placed, Spot, copy_instr, rewrite

_COND_JUMPS = frozenset(OPPOSITE_JUMPS)
# Instructions that never belong to a loop's test (what a test computes is one value, tested).
_NOT_IN_TEST = frozenset({"RETURN_VALUE", "RAISE_VARARGS", "RERAISE", "FOR_ITER", "SEND",
                          "YIELD_VALUE", "GET_ITER", "PUSH_EXC_INFO", "POP_EXCEPT", "CHECK_EXC_MATCH"})
# What a `continue` runs before its jump, to leave the blocks it is in.
_UNWINDING = frozenset({"POP_TOP", "POP_EXCEPT", "LOAD_CONST", "CALL", "SWAP", "COPY"})
_Handler = Optional[Tuple[int, int, bool]]


class _Test(NamedTuple):
    """A while loop's test at the top: the tests [head, end), whose last jump goes to `exit`; the
    body starts at `body`. A chained comparison ends with `JUMP body`, then the `cleanup` of its
    middle operand (POP_TOP, then the way to the exit). Where the way out is a jump back to an
    enclosing loop's head, 3.14 tests the opposite over that jump (`threaded`, no `exit`): 3.13
    jumps forward to a jump back laid after the loop."""

    head: int
    end: int
    body: int
    exit: Optional[int]
    cleanup: Optional[int]
    threaded: Optional[int] = None


class _Jumps(NamedTuple):
    """The jumps of a code object, read once for the whole pass."""

    heads: Dict[int, List[int]]  # loop head -> the jumps back to it (a JUMP to itself or before)
    entries: Dict[int, List[int]]  # instruction -> the jumps to it


class _CopiedTest(NamedTuple):
    """The instructions of a loop's test copied for the bottom, before the blocks laid after it."""

    copy: List[Instr]  # the copied instructions, so far
    position: Dict[int, int]  # index in the test -> position of its copy
    pending: List[Tuple[int, object]]  # (a jump inside the copy, the index or label it goes to)


def _scan_jumps(instrs: List[Instr]) -> _Jumps:
    """Every jump's target, and the loops' heads: the targets of unconditional jumps backward
    (3.14 ends both a `while` body and a `continue` with one)."""
    heads: Dict[int, List[int]] = {}
    entries: Dict[int, List[int]] = {}
    for k, ins in enumerate(instrs):
        if ins.target is not None:
            entries.setdefault(ins.target, []).append(k)
            if ins.opname == "JUMP" and ins.target <= k:
                heads.setdefault(ins.target, []).append(k)
    return _Jumps(heads, entries)


def canonicalize(bytecode: Bytecode) -> Bytecode:
    instrs = bytecode.instrs
    heads, entries = _scan_jumps(instrs)
    if not heads:
        return bytecode
    positions = SourcePositions.of(bytecode.code, bytecode.version)
    handler_at = _handler_at(bytecode.regions, len(instrs))
    preds = _predecessors(bytecode)
    kept = {ins.offset for ins in instrs} | {ins.target_offset for ins in instrs if ins.target_offset is not None}
    edits: Edits = {}
    placed: Placed = {}
    ways_out: Dict[int, Spot] = {}  # a loop's jump back to an enclosing head -> where its copy is
    for head in sorted(heads, reverse=True):  # (inner loops first)
        backs = heads[head]
        if any(instrs[k].target_offset != instrs[head].offset for k in backs):
            continue  # (a jump back to the NOP of a `while True:` line: no test, whatever follows)
        loop = _loop_body(preds, head, backs)
        if head != 0 and 0 in loop:
            continue  # (code reaches the jumps back without passing `head`: no loop's head)
        test = _find_test(instrs, head, min(backs), loop, entries, positions)
        if test is None:
            continue
        broken = {k for k in backs if _breaks_inner_loop(instrs, k, head, handler_at)}
        ends = [k for k in backs if k not in edits
                and (k in broken or not _written_continue(instrs, k, positions, entries, kept))]
        if test.threaded is not None:
            _threaded_loop(instrs, bytecode.regions, test, ends, backs, handler_at, edits, placed, ways_out,
                           entries, loop)
            continue
        _threaded_breaks(instrs, test, loop, handler_at, edits, placed)
        way_out = next((ways_out[k] for k in backs if k in ways_out), None)
        if way_out is not None and way_out[0] == test.exit - 1 and handler_at[way_out[0]] == handler_at[head]:
            # (an inner loop's way out ends the body: this loop's bottom test takes its place)
            _test_at_way_out(instrs, test, way_out, ends, entries, edits, placed)
            continue
        where = _bottom_place(instrs, loop, ends, test.exit, handler_at, handler_at[head])
        if where is None:
            continue
        at, replaces = where
        copy, inner = _bottom_test(instrs, test, instrs[at], adjacent=at + 1 == test.exit)
        before = _last_break(instrs, test, at, replaces, loop, entries, edits, placed)
        shift = len(before) + (0 if replaces else 1)
        edits[at] = [*before, *copy] if replaces else [instrs[at], *before, *copy]
        placed.update(((at, k + shift), (at, to + shift)) for k, to in inner.items())
        for k in ends:
            if k in broken and k < at:  # (3.13's `break` jumps forward to the bottom test, as is)
                edits[k] = [copy_instr(instrs[k], raw_opname="JUMP_FORWARD")]
                placed[(k, 0)] = placed[k] = (at, shift)
            elif k != at or not replaces:
                _send_to(instrs, k, (at, shift), at, edits, placed, entries)
        _keep_inner_head_nop(instrs, test.body, entries, edits, placed)
    return rewrite(bytecode, edits, placed)


def _test_at_way_out(instrs: List[Instr], test: _Test, way_out: Spot, ends: List[int],
                     entries: Dict[int, List[int]], edits: Edits, placed: Placed) -> None:
    """Lay the bottom test of a loop whose body ends with an inner loop's way out (its jump back
    to this loop's head, already copied at `way_out`): 3.13 has the inner loop exit straight to
    this loop's bottom test, so the copy replaces that jump, and the loop's other ends go there."""
    at, base = way_out
    copy, inner = _bottom_test(instrs, test, instrs[at], adjacent=True)
    edits[at] = [*edits[at][:base], *copy]
    placed.update(((at, k + base), (at, to + base)) for k, to in inner.items())
    for k in ends:
        _send_to(instrs, k, way_out, at, edits, placed, entries)
    _keep_inner_head_nop(instrs, test.body, entries, edits, placed)


def _breaks_inner_loop(instrs: List[Instr], k: int, head: int, handler_at: List[_Handler]) -> bool:
    """Is the jump back at `k` a `break` of an inner loop that ends this loop's body (3.14 jumps
    straight back to the head from there)? It lies between an inner loop's head and a jump back
    to that head, in the same blocks: no `continue` there is this loop's (Python has none for an
    enclosing loop), whatever line the jump has."""
    return any(ins.opname == "JUMP" and ins.target is not None and head < ins.target < k
               and handler_at[j] == handler_at[k] for j, ins in enumerate(instrs[k + 1:], k + 1))


def _threaded_loop(instrs: List[Instr], regions: List[ExceptionRegion], test: _Test, ends: List[int],
                   backs: List[int], handler_at: List[_Handler], edits: Edits, placed: Placed,
                   ways_out: Dict[int, Spot], entries: Dict[int, List[int]], loop: Set[int]) -> None:
    """A loop whose test leaves by a jump back to an enclosing loop's head (`test.threaded`): its
    test jumps to a copy of that jump laid after the loop, at the end of the bottom test if there
    is one (where the body ends), else after the last jump back."""
    jump = test.threaded
    if jump in edits or test.end - 1 in edits:
        return
    # (3.12+ lay code that only exceptions reach at the end, the bottom test after it where only
    # such code reaches the body's end)
    cold = min((r.handler for r in regions), default=len(instrs))
    main = [k for k in ends if k < cold]
    if main:
        at = max(main)
    else:
        at = _cold_end(instrs, handler_at, loop, max(ends), instrs[jump].target, handler_at[test.head]) if ends \
            else max(backs)
    if at in edits or instrs[at].opname not in ENDS_FLOW or handler_at[at] != handler_at[test.head]:
        return
    replaces = at in ends
    shift = 0 if replaces else 1
    if ends:
        copy, inner = _bottom_test(instrs, test, instrs[at], adjacent=False)
        edits[at] = copy if replaces else [instrs[at], *copy]
        placed.update(((at, k + shift), (at, to + shift)) for k, to in inner.items())
        way_out = (at, shift + len(copy) - 1)
        for k in ends:
            if k != at or not replaces:
                _send_to(instrs, k, (at, shift), at, edits, placed, entries)
    else:
        edits[at] = [instrs[at], copy_instr(instrs[jump])]
        way_out = (at, 1)
    if ends and not main:
        return  # (3.13's test at the top keeps its jump back then: the exit is no jump forward)
    test_jump = instrs[test.end - 1]
    opposite = OPPOSITE_JUMPS[test_jump.opname]
    edits[test.end - 1] = [copy_instr(test_jump, opname=opposite, raw_opname=opposite)]
    edits[jump] = []
    placed[(test.end - 1, 0)] = placed[jump] = ways_out[jump] = way_out


def _threaded_breaks(instrs: List[Instr], test: _Test, loop: Set[int], handler_at: List[_Handler],
                     edits: Edits, placed: Placed) -> None:
    """A `break` of a loop that ends an enclosing loop's body: 3.14 jumps straight back to that
    loop's head (nothing else reaches the jump back after the loop, so it is dropped); 3.13 jumps
    forward to that jump back, laid after the loop's exit. Read as is, the jump was taken for no
    statement and the `break` lost. Where the exit is one instruction that ends the flow (an
    `else: break`, an `else: return`), the jump back goes after it and the `break` jumps there.
    (A jump from the body to before the loop's head leaves the loop: Python has no `continue`
    of an enclosing loop.)"""
    exit = test.exit
    if exit is None or exit >= len(instrs) or exit in edits or instrs[exit].opname not in ENDS_FLOW:
        return
    breaks = [k for k in range(test.body, exit) if k not in loop and k not in edits
              and instrs[k].opname == "JUMP" and instrs[k].target is not None
              and instrs[k].target < test.head and handler_at[k] == handler_at[test.head]]
    if not breaks:
        return
    edits[exit] = [instrs[exit], copy_instr(instrs[breaks[0]], raw_opname="JUMP_BACKWARD")]
    for k in breaks:
        edits[k] = [copy_instr(instrs[k], raw_opname="JUMP_FORWARD")]
        placed[(k, 0)] = (exit, 1)


def _last_break(instrs: List[Instr], test: _Test, at: int, replaces: bool, loop: Set[int],
                entries: Dict[int, List[int]], edits: Edits, placed: Placed) -> List[Instr]:
    """A written `break` right before the exit: 3.14 drops its jump (the NOP of its line stays,
    where the jumps to it land), since no bottom test lies between. 3.13 keeps it, a jump to the
    exit before the bottom test (the body's end jumping over it): the instructions that go in
    front of the copy at `at`, where the jumps that landed on that NOP go. (The test's own jumps
    may land on a NOP of the while's line.)"""
    exit = test.exit
    start = instrs[exit].offset if exit < len(instrs) else None
    if start is None or at + 1 != exit:
        return []
    breaks = [j for j in entries.get(exit, ()) if j < exit and j in loop and j not in edits
              and not test.head <= j < test.end
              and instrs[j].target_offset is not None and instrs[j].target_offset < start]
    if not breaks:
        return []
    jump = _jump(instrs[at], instrs[exit], "JUMP_FORWARD")
    jump.target_offset = instrs[breaks[0]].target_offset
    before = [jump]
    test_over = at - 1
    if replaces and test_over in breaks and instrs[test_over].opname in _COND_JUMPS and test_over not in edits:
        # (`if t: break` last: 3.14 jumps over the jump back to the `break`'s NOP; 3.13 tests the
        # opposite, to the bottom test, over the `break`'s jump. Read the 3.14 way, as a test
        # whose one branch is empty, the `break` could be lost.)
        opposite = OPPOSITE_JUMPS[instrs[test_over].opname]
        edits[test_over] = [copy_instr(instrs[test_over], opname=opposite, raw_opname=opposite)]
        placed[(test_over, 0)] = placed[at] = (at, 1)
        for j in breaks:
            if j != test_over:
                placed[(j, 0)] = (at, 0)
        return before
    if replaces:  # (what fell into the jump back now jumps over the `break`)
        placed[(at, 0)] = (at, 2)
        before.insert(0, _jump(instrs[at], instrs[exit], "JUMP_FORWARD"))
    for j in breaks:
        placed[(j, 0)] = (at, len(before) - 1 + (0 if replaces else 1))
    return before


def _keep_inner_head_nop(instrs: List[Instr], body: int, entries: Dict[int, List[int]], edits: Edits,
                         placed: Placed) -> None:
    """Where the body starts with `while True:` (its loop jumps back to the NOP of that line,
    which the decoder drops), put the NOP back: 3.13's bottom test jumps to it and the inner loop
    to what follows, as two heads (the decoder keeps such a NOP where it finds one)."""
    start = instrs[body].offset
    inner = [j for j in entries.get(body, ()) if j > body and j not in edits
             and instrs[j].target_offset is not None and instrs[j].target_offset < start]
    if not inner or body in edits:
        return
    nop = make_instr(instrs[inner[0]].target_offset, "NOP", "NOP", None, None)
    edits[body] = [nop, instrs[body]]
    for j in inner:
        placed[(j, 0)] = (body, 1)


def _written_continue(instrs: List[Instr], k: int, positions: SourcePositions, entries: Dict[int, List[int]],
                      kept: Set[int]) -> bool:
    """Could the jump back at `k` be a written `continue`? That has a line of its own, after the
    code before it, which the code that leaves the blocks it is in (a with's exit, an except
    clause's POP_EXCEPT) shares, or
    which a NOP keeps in front of the copy of a finally body it runs first; the jump that ends the
    body has the line of what comes before it. (Taken for a `continue` where unsure: read as one,
    the jump back means what it does.)"""
    starts = positions.starts
    at = bisect_right(starts, instrs[k].offset) - 1
    if at < 0:
        return False
    if starts[at] == instrs[k].offset:
        # (the jump starts a line of its own, unless it has the line of a jump to it: a block
        # that only jumps reach takes the line of where they come from)
        line = positions.line_at(instrs[k].offset)
        return all(positions.line_at(instrs[j].offset) != line for j in entries.get(k, ()))
    j = k - 1
    while j >= 0 and instrs[j].offset >= starts[at]:
        ins = instrs[j]
        if ins.opname not in _UNWINDING or (ins.opname == "LOAD_CONST" and ins.argval is not None):
            break
        j -= 1
    else:
        # (a with's exit has the with's line, before the body's: a `continue` there leaves its own
        # line on a NOP, below)
        if j < 0 or (positions.line_at(instrs[j].offset) or 0) <= (positions.line_at(instrs[k].offset) or 0):
            return True
    # (a line that starts at a dropped instruction, a NOP, in the straight-line code before `k`)
    first = k
    while first > 0 and not entries.get(first) and not instrs[first - 1].is_jump \
            and instrs[first - 1].opname not in ENDS_FLOW:
        first -= 1
    low = instrs[first - 1].offset if first > 0 else -1
    lo = bisect_right(starts, low)
    if any(offset not in kept for offset in starts[lo:at + 1]):  # (`kept`: also where jumps land)
        return True
    # (or a line whose code only leaves blocks, an except clause's `as` name's too, before the copy
    # of a finally body)
    by_offset = {instrs[j].offset: j for j in range(first, k)}
    for n in range(lo, at):
        j = by_offset.get(starts[n])
        if j is None:
            continue
        run = [ins for ins in instrs[j:k] if ins.offset < starts[n + 1]]
        if run and all(_leaves_block(ins) for ins in run):
            return True
    return False


def _leaves_block(ins: Instr) -> bool:
    """Is `ins` code that a `continue` runs to leave the blocks it is in?"""
    if ins.opname in ("STORE_FAST", "DELETE_FAST"):
        return True  # (`except E as e`: the name is cleared)
    return ins.opname in _UNWINDING and not (ins.opname == "LOAD_CONST" and ins.argval is not None)


def _bottom_place(instrs: List[Instr], loop: Set[int], ends: List[int], exit: int, handler_at: List[_Handler],
                  handler: _Handler) -> Optional[Tuple[int, bool]]:
    """Where 3.13 puts the bottom test: (index, whether it takes that instruction's place).

    Right before the test's exit (the jump there that ends the body, if any), where code reaches
    the body's end; where only exception handlers do, after the loop's code that only
    exceptions reach (3.12+ move that code to the end, in order)."""
    if not ends:
        return None
    if exit - 1 in ends and handler_at[exit - 1] == handler:
        return exit - 1, True
    at = exit - 1 if any(k < exit for k in ends) else _cold_end(instrs, handler_at, loop, max(ends), exit, handler)
    if instrs[at].opname not in ENDS_FLOW or handler_at[at] != handler:
        return None
    return at, at in ends


def _cold_end(instrs: List[Instr], handler_at: List[_Handler], loop: Set[int], start: int,
              exit: Optional[int], outer: _Handler) -> int:
    """The last instruction of the run, from `start` on, of code that the loop reaches (normally or
    by exceptions) before its exit: where 3.13 lays the bottom test that only such code reaches
    (3.12+ move code that only exceptions reach to the end, in order). The handler of the blocks
    around the loop (`outer`, where the head's exceptions go) is no part of it: 3.13 lays the
    bottom test before it."""
    reached = set(loop)
    todo = list(loop)
    while todo:
        k = todo.pop()
        ins = instrs[k]
        nexts = [ins.target] if ins.target is not None else []
        if ins.opname not in ENDS_FLOW and k + 1 < len(instrs):
            nexts.append(k + 1)
        if handler_at[k] is not None and (outer is None or handler_at[k][0] != outer[0]):
            nexts.append(handler_at[k][0])
        for j in nexts:
            if j != exit and j not in reached and j < len(instrs):
                reached.add(j)
                todo.append(j)
    at = start
    while at + 1 < len(instrs) and at + 1 in reached:
        at += 1
    return at


def _send_to(instrs: List[Instr], k: int, start: Spot, at: int, edits: Edits, placed: Placed,
             entries: Dict[int, List[int]]) -> None:
    """Make the jump back at `k` (and every jump to it) go to the bottom test at `start`. A test
    right before it that jumps over it (3.14's `if t: ...` whose false way is the jump back)
    becomes the opposite test jumping there, as 3.13 compiles it."""
    ins = instrs[k]
    before = instrs[k - 1] if k > 0 else None
    if before is not None and before.opname in _COND_JUMPS and before.target == k + 1 \
            and not entries.get(k) and k - 1 not in edits:
        opposite = OPPOSITE_JUMPS[before.opname]
        edits[k - 1] = [copy_instr(before, opname=opposite, raw_opname=opposite)]
        edits[k] = []
        placed[(k - 1, 0)] = start
        return
    if k < at:
        raw = "JUMP_FORWARD"
    elif before is not None and before.opname == "POP_EXCEPT":
        raw = "JUMP_BACKWARD_NO_INTERRUPT"  # (an except clause's way out, as 3.13 jumps back)
    else:
        raw = ins.raw_opname
    edits[k] = [copy_instr(ins, raw_opname=raw)]
    placed[(k, 0)] = start
    placed[k] = start


def _predecessors(bytecode: Bytecode) -> List[List[int]]:
    """Per instruction, those control may come from: the one before (where it goes on), the
    jumps to it, and for a handler, the instructions its regions protect."""
    instrs = bytecode.instrs
    preds = normal_predecessors(instrs)
    for region in bytecode.regions:
        if region.handler < len(instrs):
            preds[region.handler].extend(range(region.start, min(region.end, len(instrs))))
    return preds


def _loop_body(preds: List[List[int]], head: int, backs: List[int]) -> Set[int]:
    """The instructions of the natural loop at `head`: those that reach a jump back to it without
    passing it."""
    body = {head}
    todo = [k for k in backs if k not in body]
    body.update(todo)
    while todo:
        k = todo.pop()
        for j in preds[k]:
            if j not in body:
                body.add(j)
                todo.append(j)
    return body


def _find_test(instrs: List[Instr], head: int, limit: int, loop: Set[int],
               entries: Dict[int, List[int]], positions: SourcePositions) -> Optional[_Test]:
    """The test at `head`, if the loop there starts with one: code whose jumps go on forward
    inside it or out of the loop (the instructions `loop`), no jump from elsewhere landing inside
    it, that ends with a jump out where the body's first line starts (or a chained comparison's
    cleanup follows). The longest such; none where the code stops being a test before the body's
    lines start (an await in the test)."""
    end = None
    last_line = test_line = 0  # (the last line seen, and the test's up to `end`)
    k = head
    while k < limit:
        ins = instrs[k]
        if k > head and any(not head <= j < k for j in entries.get(k, ())):
            break  # (a jump from elsewhere lands here: the test, if any, ended before)
        line = positions.line_at(ins.offset) or 0
        if ins.opname in _COND_JUMPS:
            if end is not None and ins.target_offset is not None and ins.target < len(instrs) \
                    and ins.target_offset < instrs[ins.target].offset:
                break  # (past the test, a jump to the NOP of a written `break`'s line)
            if ins.target not in loop:
                if _starts_body(instrs, k + 1, max(last_line, line), positions) \
                        or _chain_cleanup(instrs, head, k + 1, entries) is not None:
                    end, test_line = k + 1, max(last_line, line)
            elif end is None and _jumps_over_way_out(instrs, k, head, loop, entries) \
                    and not positions.starts_line(instrs[k + 1].offset):  # (a written `break` has a line)
                if any(instrs[j].target not in loop for j in range(head, k) if instrs[j].opname in _COND_JUMPS):
                    return None  # (and a chained comparison's cleanup: 3.13 keeps such a test)
                return _Test(head, k + 1, k + 2, None, None, k + 1)
            elif not k < ins.target:
                break
        elif ins.opname == "JUMP":
            if not (k < ins.target and ins.target in loop) and not _cleanup_way_out(instrs, head, k, entries):
                break  # (the cleanup of a chained comparison that ends the test, or no test)
        elif ins.target is not None or ins.opname in _NOT_IN_TEST or _stores(instrs, k) \
                or (ins.opname == "POP_TOP" and not any(head <= j < k for j in entries.get(k, ()))):
            if line <= test_line and not _in_way_out(instrs, head, end, k, entries):
                return None  # (the test goes on here, in a way the pass does not copy)
            break  # (the body, or the way out of a chained comparison's cleanup that ends the test)
        last_line = max(last_line, line)
        k += 1
    if end is None:
        return None
    body, cleanup = end, _chain_cleanup(instrs, head, end, entries)
    if cleanup is not None:
        body = instrs[end].target
    # (a jump of the test to past its end but inside the loop: no test ends at `end`)
    if any(instrs[j].target >= end and instrs[j].target in loop and instrs[j].target != body
           for j in range(head, end) if instrs[j].target is not None):
        return None
    return _Test(head, end, body, instrs[end - 1].target, cleanup)


def _in_way_out(instrs: List[Instr], head: int, end: Optional[int], k: int, entries: Dict[int, List[int]]) -> bool:
    """Is `k` in the way out of the cleanup of a chained comparison that ends the test at `end`
    (3.12+: a copy of the exit block, on the test's line)?"""
    cleanup = _chain_cleanup(instrs, head, end, entries) if end is not None else None
    return cleanup is not None and cleanup < k < instrs[end].target


def _cleanup_way_out(instrs: List[Instr], head: int, k: int, entries: Dict[int, List[int]]) -> bool:
    """Is the JUMP at `k` the way out of a chained comparison's cleanup in the middle of a test
    (`POP_TOP` that only the test reaches, then this jump, then more of the test)?"""
    if k - 1 <= head or instrs[k - 1].opname != "POP_TOP" or not entries.get(k - 1) \
            or any(not head <= j < k - 1 for j in entries[k - 1]):
        return False
    after = entries.get(k + 1, ())
    return bool(after) and all(head <= j < k for j in after)


def _starts_body(instrs: List[Instr], k: int, last_line: int, positions: SourcePositions) -> bool:
    """Does the code at `k` stand on a line after the test's (`last_line`), as a body does?"""
    return k < len(instrs) and (positions.line_at(instrs[k].offset) or 0) > last_line


def _jumps_over_way_out(instrs: List[Instr], k: int, head: int, loop: Set[int],
                        entries: Dict[int, List[int]]) -> bool:
    """Does the test's jump at `k` go over a jump back to an enclosing loop's head, which only the
    test reaches (3.14's spelling of a test that leaves the loop for that head)?"""
    if instrs[k].target != k + 2 or k + 2 >= len(instrs):
        return False
    jump = instrs[k + 1]
    return jump.opname == "JUMP" and jump.target < head and jump.target not in loop \
        and all(head <= j <= k for j in entries.get(k + 1, ()))


def _chain_cleanup(instrs: List[Instr], head: int, end: int, entries: Dict[int, List[int]]) -> Optional[int]:
    """Where the tests [head, end) end a chained comparison, `JUMP body; POP_TOP; <the way out>`
    (a JUMP, or a copy of the exit block): the POP_TOP, which only the tests reach."""
    if end + 2 >= len(instrs):
        return None
    jump, pop = instrs[end], instrs[end + 1]
    if jump.opname != "JUMP" or jump.target is None or jump.target <= end + 2 or pop.opname != "POP_TOP" \
            or not entries.get(end + 1) or any(not head <= j < end for j in entries[end + 1]):
        return None
    way_out = range(end + 2, jump.target)
    if any(entries.get(k) for k in way_out):
        return None
    last = instrs[jump.target - 1]
    if last.opname == "JUMP" and len(way_out) == 1:
        return end + 1
    if last.opname in TERMINAL and not any(instrs[k].is_jump for k in way_out):
        return end + 1
    return None


def _stores(instrs: List[Instr], k: int) -> bool:
    """Does instruction `k` store a name other than as an assignment expression's (`COPY 1` first)?"""
    name = instrs[k].opname
    if not (name.startswith("STORE_") or name.startswith("DELETE_")):
        return False
    return not (k > 0 and instrs[k - 1].opname == "COPY" and instrs[k - 1].arg == 1)


def _bottom_test(instrs: List[Instr], test: _Test, back: Instr, adjacent: bool) -> Tuple[List[Instr], Dict[int, int]]:
    """The copy of `test` that takes the place of the jump `back`, as 3.13 lays it out, and the
    jumps inside it (position -> position). A jump to the body becomes the opposite test over a
    jump back to it, and the last outcome jumps back too; a chained comparison's last jump out
    goes to a jump to the exit, then comes the cleanup. Where the exit does not follow the copy
    (`adjacent`), the jumps out go to jumps there after it (3.12+ has no backward conditional
    jump)."""
    copied = _copied_exits(instrs, test) if adjacent and test.threaded is None else {}
    copy, position, pending = _copy_test(instrs, test, back, adjacent, copied)
    copy.append(_jump(back, instrs[test.body], "JUMP_BACKWARD"))
    labels = _lay_blocks_after(instrs, test, back, adjacent, copied, copy, pending)
    inner: Dict[int, int] = {}
    for at, to in pending:
        inner[at] = at + 2 if to == "after" else position[to] if isinstance(to, int) else labels[to]
    return copy, inner


def _copy_test(instrs: List[Instr], test: _Test, back: Instr, adjacent: bool,
               copied: Dict[int, range]) -> _CopiedTest:
    """Copy the instructions of `test` for the bottom, each jump noted for `_lay_blocks_after`
    to resolve: 3.13's bottom test jumps back to the body where the top one falls into it, so a
    jump to the body becomes the opposite test over a jump back."""
    copy: List[Instr] = []
    position: Dict[int, int] = {}  # index in the test -> position of its copy
    pending: List[Tuple[int, object]] = []  # (a jump inside the copy, the index or label it goes to)

    def head_to(target: int) -> bool:
        return test.head <= target < test.end or target == test.body

    for k in range(test.head, test.end):
        ins = instrs[k]
        position[k] = len(copy)
        if ins.opname == "JUMP" and head_to(ins.target):
            # (a conditional expression's jump inside the test, or the one into the body)
            if ins.target == test.body:
                copy.append(_jump(back, instrs[test.body], "JUMP_BACKWARD"))
            else:
                pending.append((len(copy), ins.target))
                copy.append(copy_instr(ins))
        elif ins.opname not in _COND_JUMPS:
            copy.append(copy_instr(ins))
        elif test.threaded is not None and ins.target in (test.body, test.threaded):
            pending.append((len(copy), "threaded"))
            opposite = OPPOSITE_JUMPS[ins.opname] if ins.target == test.body else ins.opname
            copy.append(copy_instr(ins, opname=opposite, raw_opname=opposite))
        elif ins.target == test.body:
            pending.append((len(copy), "after"))
            opposite = OPPOSITE_JUMPS[ins.opname]
            copy.append(copy_instr(ins, opname=opposite, raw_opname=opposite))
            copy.append(_jump(back, instrs[test.body], "JUMP_BACKWARD"))
        elif ins.target < test.end:
            pending.append((len(copy), ins.target))
            copy.append(copy_instr(ins))
        elif ins.target == test.cleanup:
            pending.append((len(copy), "cleanup"))
            copy.append(copy_instr(ins))
        elif k == test.end - 1 and test.cleanup is not None:
            pending.append((len(copy), "out"))
            copy.append(copy_instr(ins))
        else:
            if ins.target in copied:
                pending.append((len(copy), ("copied", ins.target)))
            elif not adjacent:
                pending.append((len(copy), ("exit", ins.target)))
            copy.append(copy_instr(ins))
    return _CopiedTest(copy, position, pending)


def _lay_blocks_after(instrs: List[Instr], test: _Test, back: Instr, adjacent: bool, copied: Dict[int, range],
                      copy: List[Instr], pending: List[Tuple[int, object]]) -> Dict[object, int]:
    """Append to `copy` what 3.13 lays after its bottom test (a chained comparison's jump out
    and cleanup, the copied exit blocks, the threaded way out, jumps to exits that do not follow
    the copy: 3.12+ has no backward conditional jump), and say where each label lies."""
    labels: Dict[object, int] = {}
    if test.cleanup is not None:
        labels["out"] = len(copy)
        if test.exit in copied:  # (the copy's own copy of the exit block, then the cleanup's)
            copy.extend(copy_instr(instrs[k]) for k in copied[test.exit])
        else:
            copy.append(_jump(back, instrs[test.exit], "JUMP_FORWARD" if adjacent else "JUMP_BACKWARD_NO_INTERRUPT"))
        labels["cleanup"] = len(copy)
        copy.append(copy_instr(instrs[test.cleanup]))
        way_out = range(test.cleanup + 1, test.body)
        if copied or not (adjacent and _same_block(instrs, way_out, test.exit)):
            copy.extend(copy_instr(instrs[k]) for k in way_out)
    for target in sorted(copied):
        if test.cleanup is None or target != test.exit:
            labels[("copied", target)] = len(copy)
            copy.extend(copy_instr(instrs[k]) for k in copied[target])
    if test.threaded is not None:
        labels["threaded"] = len(copy)
        copy.append(copy_instr(instrs[test.threaded]))
    for _, to in pending:
        if isinstance(to, tuple) and to not in labels:
            labels[to] = len(copy)
            copy.append(_jump(back, instrs[to[1]], "JUMP_BACKWARD_NO_INTERRUPT"))
    return labels


def _copied_exits(instrs: List[Instr], test: _Test) -> Dict[int, range]:
    """The exit blocks of an and/or test, where each of its jumps out has a copy of its own of
    one small block that ends the flow (3.14 copies a `return` after the loop into every path
    to it): target -> its instructions. 3.13 lays the bottom test's own copies after it; shared
    with the test at the top, the rules read the first tests as an `if` around the loop."""
    targets = {instrs[k].target for k in range(test.head, test.end)
               if instrs[k].opname in _COND_JUMPS and instrs[k].target >= test.end
               and instrs[k].target not in (test.body, test.cleanup)}
    if len(targets) < 2:
        return {}
    blocks: Dict[int, range] = {}
    for target in targets:
        end = target
        while end < len(instrs) and end - target < MAX_COPY and instrs[end].opname not in TERMINAL \
                and instrs[end].target is None:
            end += 1
        if end >= len(instrs) or instrs[end].opname not in TERMINAL:
            return {}
        blocks[target] = range(target, end + 1)
    if len({tuple((instrs[k].opname, instrs[k].argval) for k in block) for block in blocks.values()}) != 1:
        return {}
    return blocks


def _same_block(instrs: List[Instr], way_out: range, exit: int) -> bool:
    """Does the way out of a chained comparison's cleanup lead where falling into `exit` does: a
    jump there, or the same exit block?"""
    if len(way_out) == 1 and instrs[way_out[0]].opname == "JUMP":
        return instrs[way_out[0]].target == exit
    for n, k in enumerate(way_out):
        if exit + n >= len(instrs):
            return False
        a, b = instrs[k], instrs[exit + n]
        if a.opname != b.opname or a.argval != b.argval or a.is_jump:
            return False
    return True


def _jump(back: Instr, to: Instr, raw: str) -> Instr:
    """A jump to `to` spelled `raw`, at the offset of `back`."""
    jump = make_instr(back.offset, "JUMP", raw, None, to.index, False, back.line)
    jump.target = to.index
    jump.target_offset = to.offset
    return jump


def _handler_at(regions: List[ExceptionRegion], size: int) -> List[_Handler]:
    """Per instruction, where its exceptions go (handler, depth, lasti), None where nowhere."""
    found: List[_Handler] = [None] * size
    for region in regions:
        for k in range(region.start, min(region.end, size)):
            found[k] = (region.handler, region.depth, region.lasti)
    return found
