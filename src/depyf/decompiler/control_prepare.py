"""Preparation of the control-flow tables: the loops (headers and closing jumps), the ranges a loop's
handler or returning tail extends to, and what starts at an instruction (`control_at`).
"""
from bisect import bisect_left
from types import MappingProxyType
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.graph import FlowGraph, JumpIndex
from depyf.decompiler.graph.jumps import SourceTable
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS, _BLOCK_SETUPS, _NOT_IN_ATOM


class _NotAValue(Exception):
    """A range parsed as a value turned out to hold statements."""


class ControlPrepare:
    """The control tables, prepared once per reading; mixed into `control.ControlRules`."""

    def prepare_control(self) -> None:
        """Set up this reading's control tables: the jump tables of the code's graph, the loops
        (each header's closing jump, merged where 3.10+ tests overlap, extended over handler code
        and returning tails), and the empty tables the rules fill as they read."""
        self._prepare_join_tables()
        # The jump tables come from the graph of the code as decoded (one per `Bytecode`,
        # shared by every reading of it; `redirect` re-points a jump only in this reading's
        # view, and no instruction becomes a jump or stops being one).
        graph = FlowGraph.of(self.bc)
        jumps = graph.jumps
        self.graph = graph
        # Target -> the jumps to it, in order: the graph's read-only table (`_fall_out`, the one
        # rule that re-points a jump, does not record it there).
        self.jump_sources: SourceTable = graph.jump_table
        # The indices of the jumps and of the conditional ones, in order, for `jumps_in`.
        self.jump_indices: Sequence[int] = jumps.indices
        self.cond_jump_indices: Sequence[int] = jumps.conditional
        handler_code = self.handler_only_code()  # exception_table: 3.12+ handler code at the end
        if jumps.backward or jumps.iterations:
            back = self._loop_back_jumps(jumps, handler_code)
            merged, extra_headers = self._merge_overlapping_loops(back)
        else:  # (no loop: most code objects)
            self.handler_closed = frozenset()
            merged, extra_headers = {}, {}
        # 3.8-3.10: a `while True:` closed by an except clause's `continue` runs on to the end of
        # the handler code after that jump back (see `_handler_overrun`).
        overrun: Dict[int, int] = {}
        if not self.version.has_exception_table:
            for h, j in list(merged.items()):
                x = self._handler_overrun(h, j)
                if x is not None:
                    merged[h] = x - 1
                    overrun[h] = x
        returning_tails: Set[int] = set()  # loops whose body ends in a returning block
        # Ends of ranges whose last statement, a loop, breaks to the enclosing loop's next
        # iteration (`_else_end_before_enclosing_continue`).
        self.breaks_to_next_iteration: Set[int] = set()
        # Ends of ranges whose last statement, a try, falls out past the range to the index given
        # (3.12+: an except clause's jump over the rest of an enclosing if statement).
        self.range_falls_to: Dict[int, int] = {}
        # The false targets among those whose if body's rest, read from handler code, jumps
        # there over the else part: that jump must be read as the else part's end.
        self.tail_else_joins: Set[int] = set()
        # 3.13: kept jumps out of try else parts, right after an else part being read (a test
        # in it that goes back to the loop's head stops there unless written as a `continue`).
        self.kept_else_exits: Set[int] = set()
        for h, j in list(merged.items()):
            end = self._returning_tail_end(h, j, handler_code)
            if end == j:
                end = self._next_iteration_tail_end(h, j, handler_code, merged)
            if end != j:
                merged[h] = end
                returning_tails.add(h)
        # (the loop tables are facts of the bytecode, fixed once prepared: "The reading's state")
        self.handler_overrun: Mapping[int, int] = MappingProxyType(overrun)
        self.returning_tails: FrozenSet[int] = frozenset(returning_tails)
        self.loop_end: Mapping[int, int] = MappingProxyType(merged)
        self.loop_extra_headers: Mapping[int, FrozenSet[int]] = MappingProxyType(
            {h: frozenset(others) for h, others in extra_headers.items()})
        self.active_loops: Set[int] = set()
        self.chain_copies: List[Tuple[int, int]] = []  # (copy, original) exits of the chain being built
        self.chain_jumps: FrozenSet[int] = frozenset()  # the conditional jumps of the chain being built
        self.no_copied_exits = False  # (patterns: reading a guard, whose tests never leave by copies)
        self.copied_fall_outs: Set[int] = set()  # exception_table: handler exits that are copies of the way out

    def _prepare_join_tables(self) -> None:
        """The empty tables of skipped code and of where the statements being read join or go on,
        which the rules fill as they read (the first thing `prepare_control` sets up)."""
        self.skip: Dict[int, int] = {}
        # 3.11+: copies of a finally body that never finishes on a way out of the try body, with
        # the stack of the try: the way out is emitted there (`exit_into_dead_end`).
        self.dead_end_exits: Dict[int, Tuple[List[n.Expr], int]] = {}
        self.value_only_dead_ends: Set[int] = set()  # (of those, the ones past the protected code)
        # The end of code only handlers reach, moved past the range it ends -> where that range goes on.
        self.tail_ways_on: Dict[int, int] = {}
        self.fall_override: Dict[int, int] = {}

    def _loop_back_jumps(self, jumps: JumpIndex, handler_code: Set[int]) -> Dict[int, int]:
        """Each loop header -> the last jump back to it that closes the loop: a backward jump
        (not a `yield from`/`await` loop's, nor an async for's way back through its handler), a
        handler's jump back where only it closes the loop (3.11+; sets `handler_closed`), and a
        for loop's FOR_ITER, whose body runs up to the loop's exit."""
        instrs = self.instrs
        back: Dict[int, int] = {}
        handler_back: Dict[int, int] = {}
        for k in jumps.backward:
            t = instrs[k].target
            if not self.is_send_loop(t) and not self.async_for_way_back(k, t):
                into = handler_back if k in handler_code else back
                into[t] = max(into.get(t, -1), k)
        # Loops that only a handler closes: with 3.12+ handler code at the end, such a loop's
        # jump back lies past any loop around it, which it must not be merged with.
        closed: Set[int] = set()
        for t, j in handler_back.items():
            if self.handler_jump_closes_loop(j, t):  # exception_table
                if t not in back:
                    closed.add(t)
                back.setdefault(t, self.handler_loop_end(t, j))  # only a handler closes the loop
        self.handler_closed: FrozenSet[int] = frozenset(closed)
        for k in jumps.iterations:
            # A for loop's body runs from the FOR_ITER up to the loop's exit, even when it always
            # leaves (return, raise, break: no jump back) or its only jumps back are breaks of an
            # inner loop that the compiler sent straight to this head.
            back[k] = max(back.get(k, -1), instrs[k].target - 1)
        return back

    def _merge_overlapping_loops(self, back: Dict[int, int]) -> Tuple[Dict[int, int], Dict[int, Set[int]]]:
        """The loops (header -> closing jump) with those that overlap without nesting merged
        (3.10+ `continue` jumps to the top test while the bottom test jumps to the body), and
        each merged loop's other headers."""
        headers = sorted(back)
        merged: Dict[int, int] = {}
        extra_headers: Dict[int, Set[int]] = {}
        for h in headers:
            j = back[h]
            outer = next((h0 for h0 in merged if h0 in self.handler_closed and h0 < h <= j < merged[h0]
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
                closed = h in self.handler_closed and self.version.handler_code_at_end
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
        for h0, hs in extra_headers.items():
            for h in hs:
                merged.pop(h, None)
        return merged, extra_headers

    def jumps_in(self, start: int, end: int) -> List[Instr]:
        """The jumps among the instructions [start, end), in order: what a scan of the range for
        instructions with a target finds (most of a range's instructions are no jump; the list
        of those, taken once, answers without looking at the others)."""
        indices, instrs = self.jump_indices, self.instrs
        return [instrs[k] for k in indices[bisect_left(indices, start):bisect_left(indices, end)]]

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
        return self._bottom_test(h0, h, j) is not None

    def _returning_tail_end(self, h: int, j: int, handler_code: Set[int]) -> int:
        """Where the loop [h, j] really ends when its last jump back `j` is a `continue` inside
        it and blocks of its body that end in a return (or raise) follow that jump:
        `while True: x = get(); if x is None: if a: continue; return False` then `use(x)`. The
        body leaves the loop [h, j] for several places; only the last one can be the loop's way
        out (its `break`s, or the test's exit), so the blocks before it, which only the loop
        reaches and which never fall into it, belong to the body. j when there are none."""
        instrs = self.instrs
        # (3.11: a `while True:` closed only by an except clause's `continue` runs to the end of
        # that clause's inline handler code, `handler_loop_end`; blocks of its body that return
        # may follow that code just the same)
        closed_inline = self._closed_by_inline_handler(h, j, handler_code)
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
        end = self._end_of_block_try_begun_in_loop(h, j)
        if end is None:
            return None
        k = end
        while k < len(instrs) and not instrs[k].is_jump and instrs[k].opname not in ENDS_FLOW \
                and instrs[k].opname not in _BLOCK_SETUPS:
            k += 1
        if k >= len(instrs) or instrs[k].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        if not all(h <= src <= k for p in range(j + 1, k + 1) for src in self.jump_sources.get(p, ())):
            return None
        return k

    def _closed_by_inline_handler(self, h: int, j: int, handler_code: Set[int]) -> bool:
        """Is the loop [h, j] a `while True:` closed only by an except clause's `continue`, which
        3.11 runs to the end of that clause's inline handler code (`handler_loop_end`), its last
        instruction `j`? Its body may go on after that code as after any last jump back."""
        return h in self.handler_closed and not self.version.handler_code_at_end \
            and self.instrs[h].opname != "FOR_ITER" and self.instrs[j].opname in TERMINAL and j in handler_code

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
        return self.version.removes_dead_code_to_label_only and instrs[last - 1].opname in ("RETURN_VALUE",
                                                                                           "RAISE_VARARGS")

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
        bottom = self._bottom_test(h, max(tests) + 1, j) if self.version.while_condition_duplicated else None
        if bottom is not None and bottom > max(tests):
            tests.update(k for k in range(bottom, j + 1) if instrs[k].opname in COND_JUMPS)
        first = min(exits)
        return len(tests) >= len(exits) and all(
            set(self.jump_sources.get(x, ())) <= tests and (x == first or self._same_exit_block(first, x))
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

    def _next_iteration_tail_end(self, h: int, j: int, handler_code: Set[int], loops: Dict[int, int]) -> int:
        """Where the `while True:` loop [h, j] really ends when it is the last statement of an
        enclosing loop's body, its `break`s go straight on to that loop's next iteration, and its
        last jump back `j` is a `continue` that blocks of its body follow, the last of them ending
        in such a `break`: `while True: if a: x(); break; if b: continue; y(); break`. A jump from
        inside the loop to the enclosing loop's head can only be a `break` sent on there, so code
        after `j` that only the loop reaches, up to another such jump, is not code after the
        loop (which a `break` would reach) but the rest of its body. j when there is none."""
        instrs = self.instrs
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

    def _handler_overrun(self, h: int, j: int) -> Optional[int]:
        """Where the loop [h, j] really ends when its last jump back `j` is an except clause's
        `continue` (`POP_EXCEPT [e = None; del e]; JUMP h`) and the try's handler code goes on
        past it: the other clauses' code and the closing re-raise lie after that jump (block
        stack, 3.8-3.10 layout `while True: try: ... except E: if c: continue; raise` then
        `break`). The try ends where its body's way out (`POP_BLOCK; JUMP`) goes; that code is
        part of the loop when only the loop reaches it and nothing falls out of it. None when the
        loop ends at `j`."""
        instrs = self.instrs
        if instrs[j].opname != "JUMP" or self._before_unwinding(j, h) is None:
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
            elif way_out.opname in ("RETURN_VALUE", "RAISE_VARARGS"):
                # A body that never finishes (`try: return f()`): the try ends with its clauses.
                chain_end = self._except_chain_end(t)
                if chain_end is not None and chain_end > j + 1:
                    ends.append((chain_end, t))
        if not ends:
            return None
        x, t = min(ends)
        if instrs[x - 1].opname not in ENDS_FLOW and self._reached_from(h, j + 1, x):
            # The try's way on is joined by code falling into it (the else part of an if whose
            # body the try is) and goes straight on to a return or raise: the rest of the body,
            # when the loop's exit, where a `break` in it jumps, lies right after that
            # (`while True: if c: (try: ...; break / except E: continue) / else: g()` then
            # `return x`).
            k = x
            while k < len(instrs) and not instrs[k].is_jump and instrs[k].opname not in ENDS_FLOW \
                    and instrs[k].opname not in _BLOCK_SETUPS:
                k += 1
            if k + 1 < len(instrs) and instrs[k].opname in ("RETURN_VALUE", "RAISE_VARARGS") \
                    and any(h <= src < j and instrs[src].opname == "JUMP" for src in self.jump_sources.get(k + 1, ())) \
                    and all(h <= src <= k for p in range(j + 1, k + 1) for src in self.jump_sources.get(p, ())):
                return k + 1
            return None
        if instrs[x - 1].opname not in ENDS_FLOW or not self._reached_from(h, j + 1, x):
            return None
        # With an else part the body's way out goes to it, and the clauses that finish jump past
        # it, to where the try ends. (Falling off the try leaves the loop either way.)
        later = [ins.target for ins in instrs[t:x] if ins.opname == "JUMP" and ins.target is not None
                 and ins.target > x]
        if later and self._reached_from(h, x, max(later)):
            return max(later)
        return x

    def _except_chain_end(self, t: int) -> Optional[int]:
        """The end of the except clauses at `t` (3.8-3.10, each testing its type): after the
        re-raise (END_FINALLY on 3.8) that the last clause's failed match jumps to."""
        instrs = self.instrs
        k = t
        while k < len(instrs) and instrs[k].opname == "DUP_TOP":
            # The clause's first jump is its type test's (the type is a pure expression).
            match = next((p for p in range(k + 1, len(instrs)) if instrs[p].is_jump), None)
            if match is None or instrs[match].target <= k or not (
                    instrs[match].opname == "JUMP_IF_NOT_EXC_MATCH"
                    or (instrs[match].opname == "POP_JUMP_IF_FALSE" and instrs[match - 1].opname == "COMPARE_OP"
                        and instrs[match - 1].argval == "exception match")):
                return None
            k = instrs[match].target
        if k < len(instrs) and instrs[k].opname in ("RERAISE", "END_FINALLY"):
            return k + 1
        return None

    def _reached_from(self, h: int, start: int, end: int) -> bool:
        """Do jumps into [start, end) come only from [h, end)?"""
        return all(h <= src < end for k in range(start, end) for src in self.jump_sources.get(k, ()))

    def _inlined_comprehension_at(self, i: int) -> bool:
        """Does a 3.12+ inlined comprehension's loop start at `i` (its accumulator, still empty,
        right below the iterator)?"""
        if not self.version.comprehensions_inlined or self.instrs[i].opname != "FOR_ITER" or len(self.stack) < 2:
            return False
        acc = self.stack[-2]
        return isinstance(acc, (n.List_, n.Set_)) and not acc.elts or isinstance(acc, n.Dict_) and not acc.keys

    def _pure_comprehension(self, i: int) -> int:
        """An inlined comprehension inside a value being parsed (`[x for x in y] if c else d`): its
        loop runs as usual and must become the comprehension, emitting nothing."""
        saved_pure, saved_out = self.pure_mode, self.out
        self.pure_mode, self.out = 0, []
        try:
            after = self.loop_at(i)
            emitted = self.out
        finally:
            self.pure_mode, self.out = saved_pure, saved_out
        if emitted:
            raise _NotAValue()  # a real loop: the value being parsed is not pure
        return after

    def is_send_loop(self, target: int) -> bool:
        """3.11+ `await`/`yield from` loop back to their SEND; that is not a source loop."""
        return self.instrs[target].opname == "SEND"

    def control_at(self, i: int) -> Optional[int]:
        """The index after the construct that starts at `i` (a loop, a try block, a match
        statement, or a range registered to be skipped), or None for a plain instruction."""
        if i in self.skip:
            if i in self.dead_end_exits and not self.pure_mode:
                self.exit_into_dead_end(i)  # exception_table
            return self.skip[i]
        if i in self.loop_end and i not in self.active_loops and not self.pure_mode:
            if self.version.has_exception_table and self.try_holds_loop(i, self.loop_end[i]):
                found = self.try_at(i)  # `try: while True:` (exception_table), the loop inside
            else:
                found = self.loop_at(i)
        elif i in self.loop_end and i not in self.active_loops and self._inlined_comprehension_at(i):
            found = self._pure_comprehension(i)
        elif self.version.has_exception_table and not self.pure_mode:
            found = self.try_at(i)  # exception_table
        else:
            found = None
        if found is None and i in self.match_starts and not self.pure_mode and not self.spill_mode:
            # (code that needs temporaries was not written as source: no match statement)
            return self.match_at(i)  # patterns
        return found
