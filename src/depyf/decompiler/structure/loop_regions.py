"""The loops of a code object, found once per reading: each loop's header, the last instruction of
its body, the other headers merged into it, and why its body reaches past its last jump back.

A loop is found from its closing jump: the last backward jump to a header (not an `await` /
`yield from` loop's jump back to its SEND, nor an async for's way back through its handler), a
handler's jump back where only a handler closes the loop (3.11+), or a for loop's FOR_ITER, whose
body runs up to the loop's exit. Then, in order:

1. loops that overlap without nesting are merged (3.10+ `continue` jumps to the test at the top
   while the bottom copy of the test jumps to the body: two backward jumps, two headers, one
   loop; the later header is one of the loop's `other_headers`);
2. 3.8-3.10: a `while True:` closed by an except clause's `continue` runs on to the end of the
   try's handler code after that jump (`overrun`);
3. a body whose last jump back is a `continue` may go on past it with blocks that only the loop
   reaches and that end in a return or raise, or (3.12+) in a `break` sent on to an enclosing
   loop's next iteration (`returning_tail`).

The answer is a fact of the code as laid out, the same for every reading of it: `LoopRegion` and
`LoopTable` are frozen. Some questions it asks are about the exception model and the bottom copy
of a while test, which the reader answers (`LoopFacts`); they too read only the code.
"""
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Dict, FrozenSet, Mapping, Optional, Protocol, Sequence, Set, Tuple

from depyf.decompiler.control_model import COND_JUMPS, _BLOCK_SETUPS, _NOT_IN_ATOM
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.graph.jumps import SourceTable
from depyf.decompiler.structure.except_clauses import clause_chain
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.versions import BytecodeVersion

_STATEMENT_ENDS = ("RETURN_VALUE", "RAISE_VARARGS")


class LoopFacts(Protocol):
    """What finding the loops asks of the reader: questions about the exception model (3.8-3.10
    blocks, the 3.11+ table) and the bottom copy of a while loop's test."""

    instrs: Sequence[Instr]
    version: BytecodeVersion

    def handler_only_code(self) -> FrozenSet[int]: ...

    def async_for_way_back(self, src: int, target: int) -> bool: ...

    def handler_jump_closes_loop(self, src: int, target: int) -> bool: ...

    def handler_loop_end(self, header: int, jump: int) -> int: ...

    def _before_unwinding(self, j: int, hs: int) -> Optional[int]: ...

    def _bottom_test(self, test_start: int, test_end: int, j: int) -> Optional[int]: ...

    def _same_exit_block(self, a: int, b: int, reraise: bool = False) -> bool: ...

    def _end_of_block_try_begun_in_loop(self, h: int, j: int) -> Optional[int]: ...


@dataclass(frozen=True)
class LoopRegion:
    """One loop: `header` (where its body starts again), `last` (the last instruction of its
    body), `other_headers` (those of loops merged into it: where a `continue` may go too),
    `closed_by_handler` (3.11+: only a handler's jump back closes it), `overrun` (3.8-3.10: where
    the handler code after its closing `continue` ends, None if it does not run on) and
    `returning_tail` (its body goes on past its last jump back, in blocks that leave)."""

    header: int
    last: int
    other_headers: FrozenSet[int]
    closed_by_handler: bool
    overrun: Optional[int]
    returning_tail: bool


@dataclass(frozen=True)
class LoopTable:
    """The loops of one code object, by header, and the views of them the rules read (each
    made once, on first use: `cached_property` writes past the frozen dataclass's guard)."""

    regions: Mapping[int, LoopRegion]
    # Headers of loops only a handler's jump back closes, merged ones among them.
    handler_closed: FrozenSet[int]

    @cached_property
    def loop_end(self) -> Mapping[int, int]:
        return MappingProxyType({h: r.last for h, r in self.regions.items()})

    @cached_property
    def extra_headers(self) -> Mapping[int, FrozenSet[int]]:
        return MappingProxyType({h: r.other_headers for h, r in self.regions.items() if r.other_headers})

    @cached_property
    def handler_overrun(self) -> Mapping[int, int]:
        return MappingProxyType({h: r.overrun for h, r in self.regions.items() if r.overrun is not None})

    @cached_property
    def returning_tails(self) -> FrozenSet[int]:
        return frozenset(h for h, r in self.regions.items() if r.returning_tail)


_NO_LOOPS = LoopTable(MappingProxyType({}), frozenset())


def loop_table(graph: FlowGraph, facts: LoopFacts) -> LoopTable:
    """The loops of the code `graph` is the graph of, as `facts` (its reader) sees them."""
    jumps = graph.jumps
    if not (jumps.backward or jumps.iterations):
        return _NO_LOOPS  # (most code objects)
    return _LoopFinder(graph, facts).table()


def closed_by_inline_handler(facts: LoopFacts, handler_closed: FrozenSet[int], h: int, j: int,
                             handler_code: FrozenSet[int]) -> bool:
    """Is the loop [h, j] a `while True:` closed only by an except clause's `continue`, which
    3.11 runs to the end of that clause's inline handler code (`handler_loop_end`), its last
    instruction `j`? Its body may go on after that code as after any last jump back."""
    instrs = facts.instrs
    return h in handler_closed and not facts.version.handler_code_at_end \
        and instrs[h].opname != "FOR_ITER" and instrs[j].opname in TERMINAL and j in handler_code


class _LoopFinder:
    """One finding of the loops (discarded after `table`): the steps of the module docstring."""

    def __init__(self, graph: FlowGraph, facts: LoopFacts) -> None:
        self.graph = graph
        self.facts = facts
        self.instrs = facts.instrs
        self.version = facts.version
        self.jump_sources: SourceTable = graph.jump_table
        self.handler_code = facts.handler_only_code()
        self.closed: FrozenSet[int] = frozenset()

    def table(self) -> LoopTable:
        back = self._loop_back_jumps()
        merged, extra_headers = self._merge_overlapping_loops(back)
        overrun: Dict[int, int] = {}
        if not self.version.has_exception_table:
            for h, j in list(merged.items()):
                x = self._handler_overrun(h, j)
                if x is not None:
                    merged[h] = x - 1
                    overrun[h] = x
        returning_tails: Set[int] = set()
        for h, j in list(merged.items()):
            end = self._returning_tail_end(h, j)
            if end == j:
                end = self._next_iteration_tail_end(h, j, merged)
            if end != j:
                merged[h] = end
                returning_tails.add(h)
        regions = {h: LoopRegion(header=h, last=j, other_headers=frozenset(extra_headers.get(h, ())),
                                 closed_by_handler=h in self.closed, overrun=overrun.get(h),
                                 returning_tail=h in returning_tails)
                   for h, j in merged.items()}
        return LoopTable(MappingProxyType(regions), self.closed)

    # -- step 0: the closing jumps

    def _loop_back_jumps(self) -> Dict[int, int]:
        """Each loop header -> the last jump back to it that closes the loop: a backward jump
        (not a `yield from`/`await` loop's, nor an async for's way back through its handler), a
        handler's jump back where only it closes the loop (3.11+; sets `closed`), and a for
        loop's FOR_ITER, whose body runs up to the loop's exit."""
        instrs, facts, jumps = self.instrs, self.facts, self.graph.jumps
        back: Dict[int, int] = {}
        handler_back: Dict[int, int] = {}
        for k in jumps.backward:
            t = instrs[k].target
            # (3.11+ `await`/`yield from` loop back to their SEND: that is not a source loop)
            if instrs[t].opname != "SEND" and not facts.async_for_way_back(k, t):
                into = handler_back if k in self.handler_code else back
                into[t] = max(into.get(t, -1), k)
        # Loops that only a handler closes: with 3.12+ handler code at the end, such a loop's
        # jump back lies past any loop around it, which it must not be merged with.
        closed: Set[int] = set()
        for t, j in handler_back.items():
            if facts.handler_jump_closes_loop(j, t):
                if t not in back:
                    closed.add(t)
                back.setdefault(t, facts.handler_loop_end(t, j))  # only a handler closes the loop
        self.closed = frozenset(closed)
        for k in jumps.iterations:
            # A for loop's body runs from the FOR_ITER up to the loop's exit, even when it always
            # leaves (return, raise, break: no jump back) or its only jumps back are breaks of an
            # inner loop that the compiler sent straight to this head.
            back[k] = max(back.get(k, -1), instrs[k].target - 1)
        return back

    # -- step 1: overlapping loops merged

    def _merge_overlapping_loops(self, back: Dict[int, int]) -> Tuple[Dict[int, int], Dict[int, Set[int]]]:
        """The loops (header -> closing jump) with those that overlap without nesting merged
        (3.10+ `continue` jumps to the top test while the bottom test jumps to the body), and
        each merged loop's other headers."""
        merged: Dict[int, int] = {}
        extra_headers: Dict[int, Set[int]] = {}
        for h in sorted(back):
            j = back[h]
            outer = next((h0 for h0 in merged if h0 in self.closed and h0 < h <= j <= merged[h0]
                          and self._handler_bottom_test_of(h0, h, j)), None)
            if outer is not None:
                # A while loop that only a handler's `continue` (to the test at the top) closes
                # as read so far: the jump back at `j`, to the body's start, ends the copy of
                # that test at the bottom. It is that loop's end, the handler's jump back a
                # `continue` past it (`while a and b: ...` then `try: ... / except E: continue`).
                merged[outer] = j
                extra_headers.setdefault(outer, set()).add(h)
                continue
            for h0 in list(merged):
                j0 = merged[h0]
                closed = h in self.closed and self.version.handler_code_at_end
                bottom_test = closed and self._handler_bottom_test_of(h0, h, j)
                if h0 < h <= j0 < j and not (closed and not self._continue_nop_of(h0, h) and not bottom_test):
                    if not closed or bottom_test:
                        # (a handler's jump back, at the end, does not end the body, unless it is
                        # the body's own end, the copy of the test)
                        merged[h0] = j
                    extra_headers.setdefault(h0, set()).add(h)
                    break
            else:
                for h0 in list(merged):
                    j0 = merged[h0]
                    if h0 < h <= j0 and j <= j0:
                        break
                merged.setdefault(h, j)
        # A header absorbed into another loop is not a loop of its own.
        for hs in extra_headers.values():
            for h in hs:
                merged.pop(h, None)
        return merged, extra_headers

    def _continue_nop_of(self, h0: int, h: int) -> bool:
        """Is the loop head `h0`, a kept NOP right before `h`, the `continue` target of the loop
        at `h`, which only a handler closes (3.12+)? A `while True:` is its line's NOP at the top
        (where a `continue` goes) and a jump back to the instruction after it at the bottom. If
        the body's end is reached only from a handler (a with that swallows the exception, a try
        whose body always `continue`s), the normal jumps back all go to the NOP. An enclosing
        loop whose body began with this loop would jump back to this loop's own NOP (its body's
        start) after it, which then closes this loop by a normal jump too."""
        return h0 + 1 == h and self.instrs[h0].opname == "NOP" and self.instrs[h].opname != "NOP"

    def _handler_bottom_test_of(self, h0: int, h: int, j: int) -> bool:
        """Is the handler code's jump back `j` to `h` the copy of the test [h0, h) at the top of
        the loop at `h0` (3.12+)? A while loop whose body's normal flow always `continue`s (to
        the top test) reaches its end only from a handler (a with that swallows the exception):
        the test copied at the bottom then lies in the handler code and jumps to the body."""
        instrs = self.instrs
        if not self.version.while_condition_duplicated or instrs[h - 1].opname not in COND_JUMPS \
                or instrs[h - 1].target <= h:
            return False
        return self.facts._bottom_test(h0, h, j) is not None

    # -- step 2: handler code after a closing `continue` (3.8-3.10)

    def _handler_overrun(self, h: int, j: int) -> Optional[int]:
        """Where the loop [h, j] really ends when its last jump back `j` is an except clause's
        `continue` (`POP_EXCEPT [e = None; del e]; JUMP h`) and the try's handler code goes on
        past it: the other clauses' code and the closing re-raise lie after that jump (block
        stack, 3.8-3.10 layout `while True: try: ... except E: if c: continue; raise` then
        `break`). The try ends where its body's way out (`POP_BLOCK; JUMP`) goes; that code is
        part of the loop when only the loop reaches it and nothing falls out of it. None when the
        loop ends at `j`."""
        instrs = self.instrs
        if instrs[j].opname != "JUMP" or self.facts._before_unwinding(j, h) is None:
            return None
        ends = []
        for k in range(h, j):
            ins = instrs[k]
            t = ins.target
            if ins.opname != "SETUP_FINALLY" or t is None or not k < t <= j:
                continue
            if instrs[t].opname not in ("DUP_TOP", "POP_TOP") or instrs[t - 2].opname != "POP_BLOCK":
                continue  # not an except clause, or a body that never finishes
            way_out = instrs[t - 1]
            if way_out.opname == "JUMP" and way_out.target > j + 1:
                ends.append((way_out.target, t))
            elif way_out.opname in _STATEMENT_ENDS:
                # A body that never finishes (`try: return f()`): the try ends with its clauses.
                chain_end = clause_chain(self.graph, t).end
                if chain_end is not None and chain_end > j + 1:
                    ends.append((chain_end, t))
        if not ends:
            return None
        x, t = min(ends)
        if instrs[x - 1].opname not in ENDS_FLOW and self._reached_from(h, j + 1, x):
            return self._overrun_to_joined_return(h, j, x)
        if instrs[x - 1].opname not in ENDS_FLOW or not self._reached_from(h, j + 1, x):
            return None
        # With an else part the body's way out goes to it, and the clauses that finish jump past
        # it, to where the try ends. (Falling off the try leaves the loop either way.)
        later = [ins.target for ins in instrs[t:x] if ins.opname == "JUMP" and ins.target is not None
                 and ins.target > x]
        if later and self._reached_from(h, x, max(later)):
            return max(later)
        return x

    def _overrun_to_joined_return(self, h: int, j: int, x: int) -> Optional[int]:
        """The try's way on `x` is joined by code falling into it (the else part of an if whose
        body the try is) and goes straight on to a return or raise: the rest of the body, when
        the loop's exit, where a `break` in it jumps, lies right after that (`while True: if c:
        (try: ...; break / except E: continue) / else: g()` then `return x`)."""
        instrs = self.instrs
        k = self._straight_code_end(x)
        if k + 1 < len(instrs) and instrs[k].opname in _STATEMENT_ENDS \
                and any(h <= src < j and instrs[src].opname == "JUMP" for src in self.jump_sources.get(k + 1, ())) \
                and all(h <= src <= k for p in range(j + 1, k + 1) for src in self.jump_sources.get(p, ())):
            return k + 1
        return None

    def _straight_code_end(self, k: int) -> int:
        """The first instruction from `k` on that jumps, ends the flow or opens a block."""
        instrs = self.instrs
        while k < len(instrs) and not instrs[k].is_jump and instrs[k].opname not in ENDS_FLOW \
                and instrs[k].opname not in _BLOCK_SETUPS:
            k += 1
        return k

    def _reached_from(self, h: int, start: int, end: int) -> bool:
        """Do jumps into [start, end) come only from [h, end)?"""
        return all(h <= src < end for k in range(start, end) for src in self.jump_sources.get(k, ()))

    # -- step 3: blocks of the body past its last jump back

    def _returning_tail_end(self, h: int, j: int) -> int:
        """Where the loop [h, j] really ends when its last jump back `j` is a `continue` inside
        it and blocks of its body that end in a return (or raise) follow that jump:
        `while True: x = get(); if x is None: if a: continue; return False` then `use(x)`. The
        body leaves the loop [h, j] for several places; only the last one can be the loop's way
        out (its `break`s, or the test's exit), so the blocks before it, which only the loop
        reaches and which never fall into it, belong to the body. j when there are none."""
        instrs, handler_code = self.instrs, self.handler_code
        # (3.11: a `while True:` closed only by an except clause's `continue` runs to the end of
        # that clause's inline handler code, `handler_loop_end`; blocks of its body that return
        # may follow that code just the same)
        closed_inline = closed_by_inline_handler(self.facts, self.closed, h, j, handler_code)
        if not closed_inline and (instrs[h].opname == "FOR_ITER" or instrs[j].opname != "JUMP"
                                  or instrs[j].target > j or j in handler_code
                                  or (j > 0 and instrs[j - 1].opname == "POP_EXCEPT")):
            return j  # (a handler's `continue`: its own rules)
        if closed_inline and instrs[h].opname == "FOR_ITER":
            return j
        if h > 0 and instrs[h - 1].opname in COND_JUMPS or any(src < h for src in self.jump_sources.get(h, ())):
            return j  # (a test in front enters the loop: 3.12+ may test at the bottom by a jump over `j`)
        if self.version.removes_dead_code_to_label_only and (end := self._returning_try_tail(h, j)) is not None:
            return end
        exits = {ins.target for ins in instrs[h:j + 1] if ins.target is not None and ins.target > j}
        if exits == {j + 1} and any(ins.is_jump and ins.target is not None and ins.target < h
                                    for ins in instrs[h:j + 1]):
            # (a while ending an enclosing loop's body leaves by a jump back to that loop's head,
            # 3.12+ by a jump over a jump back, 3.8/3.9 by a conditional jump back: the one exit
            # forward is the body's returning tail, up to its return)
            end = self._straight_code_end(j + 1)
            if end < len(instrs) and instrs[end].opname in _STATEMENT_ENDS:
                exits.add(end + 1)
        if len(exits) < 2 or self._else_part_of_top_test(h, j) or self._top_test_exit_copies(h, j, exits):
            return j
        last = max(exits)
        if instrs[last - 1].opname not in TERMINAL:
            return j
        if self.version.copies_exit_blocks and not self.version.has_exception_table \
                and any(ins.opname in _BLOCK_SETUPS and ins.target == last for ins in instrs[h:j]):
            # 3.10: `last` is the handler of a try begun in the loop, whose body's way on, past
            # `j`, is the copied exit block of a `break` after the try: the handler code is the
            # loop body's too (`_breaking_tail_end`)
            return j
        for k in range(j + 1, last):
            ins = instrs[k]
            if k in handler_code or not all(h <= src < last for src in self.jump_sources.get(k, ())) \
                    or (ins.target is not None and not h <= ins.target < last
                        and not (ins.target == last and self._tail_break(k, last))):
                return j
        return last - 1

    def _returning_try_tail(self, h: int, j: int) -> Optional[int]:
        """3.8/3.9: the last instruction of the `while True:` loop [h, j] when a try begun in it
        protects `j + 1` (a `continue` in its body is the loop's last jump back) and straight code
        after that try ends in a return or raise: the rest of the try, its handler code and that
        code are the rest of the body, whose closing jump back, dead after the return, was
        dropped. None for any other loop."""
        instrs = self.instrs
        end = self.facts._end_of_block_try_begun_in_loop(h, j)
        if end is None:
            return None
        k = self._straight_code_end(end)
        if k >= len(instrs) or instrs[k].opname not in _STATEMENT_ENDS:
            return None
        if not all(h <= src <= k for p in range(j + 1, k + 1) for src in self.jump_sources.get(p, ())):
            return None
        return k

    def _tail_break(self, k: int, last: int) -> bool:
        """Is the jump at `k`, in the blocks past a loop's last jump back, to `last` (the loop's
        exit) a `break`? So when it is the `break` of an `if test: break` (the test jumps over
        it). So too for any jump there when the code before `last` is a plain return or raise
        statement on 3.8/3.9: their compound statements never end in one (a try ends in the
        re-raise of its handlers, a with in its cleanup), so no statement's own way out (a try
        body's jump over its handlers) ends where the loop's exit starts."""
        instrs = self.instrs
        prev = instrs[k - 1] if k > 0 else None
        if instrs[k].opname == "JUMP" and prev is not None and prev.opname in COND_JUMPS \
                and prev.target is not None and prev.target > k:
            return True
        # (a test's jump there too: a loop's test, threaded through the `break` after that loop)
        return self.version.removes_dead_code_to_label_only and instrs[last - 1].opname in _STATEMENT_ENDS

    def _top_test_exit_copies(self, h: int, j: int, exits: Set[int]) -> bool:
        """3.12+: are the places past the loop [h, j] that its body leaves for copies of one exit
        block, each the exit of a test of the chain the loop starts with or of its copy at the
        bottom (`while a and b:`, each test jumping to its own copy of the `return None` after
        the loop)? Those are the loop's way out, not blocks of its body that return."""
        instrs = self.instrs
        tests: Set[int] = set()
        for k in range(h, j):
            ins = instrs[k]
            if ins.opname in COND_JUMPS:
                tests.add(k)
            elif ins.is_jump or ins.opname in _NOT_IN_ATOM:
                break
        if not tests:
            return False
        # (and those of its copy at the bottom, which has its own copies of the block)
        bottom = self.facts._bottom_test(h, max(tests) + 1, j) if self.version.while_condition_duplicated else None
        if bottom is not None and bottom > max(tests):
            tests.update(k for k in range(bottom, j + 1) if instrs[k].opname in COND_JUMPS)
        first = min(exits)
        return len(tests) >= len(exits) and all(
            set(self.jump_sources.get(x, ())) <= tests and (x == first or self.facts._same_exit_block(first, x))
            for x in exits)

    def _else_part_of_top_test(self, h: int, j: int) -> bool:
        """3.8/3.9: does the loop [h, j] start with a test (pure code, then a conditional jump)
        that jumps to `j + 1`? That is `while test:` with an else part there, never `while True:`
        with an if/else at its top: such an if's else part, even one that returns, is followed
        by its jump back to the head, which the optimiser keeps as dead code after the return."""
        if not self.version.removes_dead_code_to_label_only:
            return False
        for ins in self.instrs[h:j]:
            if ins.opname in COND_JUMPS:
                return ins.target == j + 1
            if ins.is_jump or ins.opname in _NOT_IN_ATOM:
                return False
        return False

    def _next_iteration_tail_end(self, h: int, j: int, loops: Dict[int, int]) -> int:
        """Where the `while True:` loop [h, j] really ends when it is the last statement of an
        enclosing loop's body, its `break`s go straight on to that loop's next iteration, and its
        last jump back `j` is a `continue` that blocks of its body follow, the last of them ending
        in such a `break`: `while True: if a: x(); break; if b: continue; y(); break`. A jump from
        inside the loop to the enclosing loop's head can only be a `break` sent on there, so code
        after `j` that only the loop reaches, up to another such jump, is not code after the
        loop (which a `break` would reach) but the rest of its body. j when there is none."""
        instrs, handler_code = self.instrs, self.handler_code
        if not self.version.conditional_jumps_forward_only:
            return j  # (read so from 3.12 on, where every jump back is a plain JUMP)
        if instrs[h].opname == "FOR_ITER" or instrs[j].opname != "JUMP" or instrs[j].target != h \
                or j in handler_code or (j > 0 and instrs[j - 1].opname == "POP_EXCEPT") \
                or (h > 0 and instrs[h - 1].opname in COND_JUMPS) \
                or any(src < h and instrs[src].opname == "JUMP" for src in self.jump_sources.get(h, ())):
            # (not a `while test:` whose test in front enters the body, by falling or by a jump
            # over a chained comparison's cleanup, and whose exit jumps on to the enclosing loop's
            # head)
            return j
        heads = {ins.target for ins in instrs[h:j] if ins.opname == "JUMP" and ins.target is not None
                 and ins.target < h and loops.get(ins.target, -1) > j}
        if len(heads) != 1:
            return j
        head = heads.pop()
        if not self.jump_sources.get(j + 1):
            return j
        for e in range(j + 1, min(loops[head] + 1, len(instrs))):
            ins = instrs[e]
            if e in handler_code or not all(h <= src <= e for src in self.jump_sources.get(e, ())):
                return j
            if ins.opname == "JUMP" and ins.target == head:
                # (that jump alone is the loop's exit, where a `break` first went: 3.8/3.9)
                return e if e > j + 1 else j
            if ins.target is not None and not h <= ins.target <= loops[head]:
                return j
        return j
