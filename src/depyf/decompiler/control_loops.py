"""Loops: a loop's header and closing jump (`loop_at`), while loops, and where a loop body ends when
its tail returns, breaks or ends inside a try (where that try ends: control_loop_tries.py).
"""
from typing import List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler import borrows
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS, LoopInfo, _drop_trailing_continue, _may_complete
from depyf.decompiler.structure.loop_regions import closed_by_inline_handler


class _WhileBounds(NamedTuple):
    """Where a while loop's body lies as its test and closing jump tell (`_while_body_bounds`)."""
    body_start: int  # the body's first instruction, past the test at the top
    body_end: int  # where the body's reading stops: the copy of the test at the bottom, the closing jump
    continue_targets: Set[int]  # where a jump is a `continue` of this loop: its heads and tests
    explicit_continue: bool  # the body ends in a `continue` of its own (no test at the bottom closes it)
    exclude: Set[int]  # the loop's own tests and closing jump: their jumps past the exit are no `break`


class _WhileShape(NamedTuple):
    """Where a while loop's body lies and how it is left (`_while_exits`), for reading its body,
    ending it and finding its else part."""
    exit: int  # where the loop is left: the test's false target, or past a body that never falls through
    body_start: int  # the body's first instruction, past the test at the top
    body_end: int  # where the body's reading stops
    real_exit: int  # where the code after the loop (or its else part) starts
    continue_targets: Set[int]  # where a jump is a `continue` of this loop
    exclude: Set[int]  # the loop's own tests and closing jump: their jumps past the exit are no `break`
    explicit_continue: bool  # the body ends in a `continue` of its own
    body_runs_on: bool  # 3.10+: the body never falls through, and goes on past its last jump back to the exit
    clipped: bool  # only a handler closes the loop: the body ends with the range, falling off it leaves
    else_break: bool  # the else part is a `break` (before a handler-closed test, 3.12+)
    exit_inside: bool  # the loop is left inside the body, before a handler-closed test (3.12+)
    breaking_tail: bool  # the body's rest past its last jump back ends in a `break`'s target


class _TopTest(NamedTuple):
    """The chain of tests at a loop's header read as a while loop's test (`_loop_top_test`)."""
    cond: n.Expr  # the test, true when the body runs
    fall: int  # where the body starts: past the test's last jump
    false_target: int  # where the test goes when false: the loop's exit, or a jump on to it


class _LoopElse(NamedTuple):
    """A loop's else part as read after its body (`_while_else`)."""
    stmts: List[n.Stmt]  # the else part's statements (none: no else part)
    after: int  # where the code after the loop statement starts
    handler_break_after_else: bool  # 3.12+: a handler's `break` goes past the else part, to the code after the loop
    copies_close_range: bool  # the code after the loop exists only as the breaks' copies


class ControlLoops:
    """Loops and while loops; mixed into `control.ControlRules`."""

    def loop_at(self, h: int) -> int:
        """A loop whose header is `h`: a for loop, a while loop tested at the top, or `while True`."""
        ins = self.instrs[h]
        if ins.opname == "FOR_ITER":
            return self.for_loop(h)
        if ins.opname == "SEND":
            return h  # not a loop
        if ins.opname == "SETUP_FINALLY" and self.instrs[h + 1].opname == "GET_ANEXT":
            return self.async_for_loop(h)  # 3.8-3.10 `async for` (exception_blocks)
        if ins.opname == "GET_ANEXT":
            return self.async_for_table_loop(h)  # 3.11+ `async for` (exception_table)
        # A test at the header that leaves the loop: `while test:`.
        j = self.loop_end[h]
        test = self._loop_top_test(h, j)
        if test is not None:
            cond, fall, false_target = test
            if false_target > j:
                return self.while_loop(h, cond, false_target, top_test=(h, fall))
            if self._threaded_through(false_target, j + 1):
                # (the loop's exit is a jump, e.g. an enclosing loop's way back: the test goes there)
                return self.while_loop(h, cond, j + 1, top_test=(h, fall))
            if false_target < h and self.version.while_condition_duplicated \
                    and self._bottom_test(h, fall, j) is not None:
                # 3.10+: a while loop that ends an enclosing loop's body, whose `continue` makes its
                # top test a loop head too: that test's exit went straight to the enclosing head.
                return self.while_loop(h, cond, j + 1, top_test=(h, fall))
        return self.while_loop(h, None, j + 1, top_test=None)

    def _loop_top_test(self, h: int, j: int) -> Optional[_TopTest]:
        """The chain of tests at the header `h` of the loop [h, j], read as a while loop's test
        at the top, with nothing emitted: where its body starts and where it goes when false.
        None where no test starts there (or a try does, 3.11+, which protects the test:
        `while True: try: if not t: ...`), or where the tests form no chain."""
        self.active_loops.add(h)
        try:
            # (a try that starts at the head protects the test: `while True: try: if not t: ...`)
            tried = self.version.has_exception_table and self.try_starts_at(h)
            atom = None if tried else self.parse_atom(h, j + 1)
        finally:
            self.active_loops.discard(h)
        if atom is None:
            return None
        value, q = atom
        saved_stack = self.stack
        self.stack = list(saved_stack)
        self.active_loops.add(h)
        self.pure_mode += 1
        try:
            k = h
            while k < q:
                k = self.step(k)
        finally:
            self.pure_mode -= 1
            self.active_loops.discard(h)
        self.stack = saved_stack
        # Re-run the chain from q to see where it exits.
        stack_before = self.stack
        self.stack = list(stack_before)
        saved_end = self.end
        self.end = j + 1
        try:
            cond, fall, false_target, _ = self.condition_chain(q, value)
            last_test = self._test_of_else_break(h, j, fall, false_target)
            if last_test is not None:
                self.end = last_test
                self.stack = list(stack_before)
                cond, fall, false_target, _ = self.condition_chain(q, value)
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            return None
        finally:
            self.end = saved_end
            self.stack = stack_before
        return _TopTest(cond, fall, false_target)

    def _test_of_else_break(self, h: int, j: int, fall: int, exit: int) -> Optional[int]:
        """3.8/3.9: where the last test of the chain at the top of the loop [h, j] starts when it
        is the test of an if that ends the body with `else: break`: the if body's jump over the
        else part became a jump back to the head, and the `break` is a jump to the loop's exit
        that nothing reaches (the test's jump was threaded through it). The loop's own test is
        the rest of the chain (where it splits compiles the same). None for any other loop."""
        instrs = self.instrs
        if not self.version.threads_jumps_once or not fall < j - 1 or instrs[j - 1].opname != "JUMP" \
                or instrs[j - 1].target != exit or self.jump_sources.get(j - 1) \
                or instrs[j - 2].opname != "JUMP" or instrs[j - 2].target != h:
            return None
        tests = [k for k in range(h, fall) if instrs[k].opname in COND_JUMPS]
        if len(tests) < 2 or tests[-1] != fall - 1 or instrs[tests[-1]].target != exit:
            return None
        return tests[-2] + 1

    def _break_target(self, start: int, end: int, exit: int, exclude: Set[int],
                      past_exit: Optional[Set[int]] = None) -> Optional[int]:
        """The first place past the loop's `exit` that a jump of the body goes to. A jump
        inside the body's code laid past the exit (`past_exit`, 3.12+: a with's handler going
        on to the rest of the body) is no break."""
        inside = past_exit or set()
        targets = [ins.target for ins in self.jumps_in(start, end)
                   if ins.target >= exit and ins.index not in exclude
                   and not (ins.index in inside and ins.target in inside)]
        return min(targets) if targets else None

    def while_loop(self, h: int, cond: Optional[n.Expr], exit: int, top_test: Optional[Tuple[int, int]]) -> int:
        """Build `while cond:` (cond None for `while True`) whose loop region starts at `h`."""
        j = self.loop_end[h]
        bounds = self._while_body_bounds(h, j, top_test)
        back = self.instrs[j]
        shape = self._while_exits(h, j, exit, top_test, bounds)
        exit, body_start, body_end, real_exit = shape.exit, shape.body_start, shape.body_end, shape.real_exit
        explicit_continue, body_runs_on = shape.explicit_continue, shape.body_runs_on
        break_target = self._break_target(body_start, body_end, real_exit, shape.exclude)
        # (3.10+: the body's last instruction is never the loop's closing jump, which keeps the
        # loop's line; a jump back there is a `continue` of its own.)
        closing_apart = self.version.while_back_jump_has_line
        info = LoopInfo(shape.continue_targets, break_target, real_exit, body_end,
                        natural_end=-1 if explicit_continue or closing_apart else None)
        info.is_while = True
        info.only_breaks_leave = cond is None
        if top_test is not None and body_end != j and not explicit_continue:
            info.top_test = top_test[0]
        info.falls_off_to_exit = shape.clipped or body_runs_on
        self.loops.append(info)
        self.active_loops.add(h)
        try:
            body = self.run_range(body_start, body_end, list(self.stack))
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
        self._close_while_body(body, back, top_test, shape, info.clauses_fall_back)
        orelse = self._while_else(h, j, cond, info, shape)
        after = orelse.after
        self.emit(n.While(cond if cond is not None else n.Const(True), body, orelse.stmts))
        if info.break_tail is not None:
            start, end = info.break_tail
            hidden = self.skip.pop(start, None)  # (skipped as the break's, in the body)
            for stmt in self.run_range(start, end, list(self.stack)):
                self.emit(stmt)
            if hidden is not None:
                self.skip[start] = hidden
        if info.handler_break is not None and (cond is None or orelse.handler_break_after_else):
            self.read_handler_break_tail(info, after)  # exception_table
        self._place_copied_exit(info, after, orelse.copies_close_range)
        if exit > j + 1 and after == real_exit and not body_runs_on:
            # 3.10+ copies a small exit block for the test at the top; read it once.
            self._skip_copy(exit, j + 1)
            after = j + 1
        return after

    def _while_body_bounds(self, h: int, j: int, top_test: Optional[Tuple[int, int]]) -> _WhileBounds:
        """Where the body of the while loop [h, j] starts and ends as its test and closing jump
        tell (a copy of the test at the bottom ends it, 3.10+; it is read with the loop, so it is
        skipped here), and the heads a `continue` may jump to."""
        body_start = top_test[1] if top_test else h
        continue_targets = {h} | self.loop_extra_headers.get(h, set())
        if top_test is None and h > 0 and self.instrs[h - 1].opname == "NOP":
            # A kept NOP (the line of this `while True:`, an enclosing loop's head) runs straight
            # into this loop: from inside it, a jump there is a `continue` of this loop.
            continue_targets.add(h - 1)
        if top_test is not None:
            continue_targets.add(top_test[0])
        back = self.instrs[j]
        body_end = j
        explicit_continue = False
        exclude: Set[int] = {j}
        if top_test is not None:
            bottom = self._bottom_test(top_test[0], top_test[1], j)
            if bottom is not None and bottom >= body_start:
                body_end = bottom
                exclude.update(range(bottom, j + 1))
                continue_targets.add(bottom)
                if self.version.handler_code_at_end and bottom >= self.end:
                    # 3.12+: only the body's except clause falls into the copy of the test, so it
                    # lies with the handler code at the end, past the enclosing block: read here.
                    self.skip[bottom] = j + 1
                    if j + 1 < len(self.instrs) and self.instrs[j + 1].opname == "JUMP" \
                            and all(bottom <= src <= j for src in self.jump_sources.get(j + 1, ())):
                        self.skip[bottom] = j + 2  # (and its way out, a jump to an outer loop's head)
                if self._bottom_chain_cleanup(bottom, j):
                    self.skip[j + 1] = j + 3
                else:
                    self._skip_bottom_compare_cleanup(bottom, j)
            elif back.opname in COND_JUMPS:
                raise self.fail(back, "loop test at the bottom does not match the top")
            elif h in self.returning_tails:
                # The body ends in a block that returns (`LoopRegion.returning_tail`), past its last
                # jump back (a `continue`): that return is the body's last statement.
                body_end = j + 1
                explicit_continue = True
            elif self.version.while_condition_duplicated:
                # No copy of the test at the bottom: the body ends in an explicit `continue`.
                body_end = j + 1
                explicit_continue = True
            exclude.update(range(top_test[0], top_test[1]))
        elif back.opname in COND_JUMPS:
            # A conditional jump back with no test at the top to match: the body reads it as
            # `if test: continue`, and then the loop is left.
            body_end = j + 1
            explicit_continue = True
        elif h in self.returning_tails:
            # The body ends in a block that returns (`LoopRegion.returning_tail`): no jump closes it.
            body_end = j + 1
            explicit_continue = True
        if h != body_start:
            continue_targets.add(body_start)
        return _WhileBounds(body_start, body_end, continue_targets, explicit_continue, exclude)

    def _while_exits(self, h: int, j: int, exit: int, top_test: Optional[Tuple[int, int]],
                     bounds: _WhileBounds) -> _WhileShape:
        """Where the while loop [h, j] is left, and so where its body really ends: past the
        closing jump when the body never falls through, at the end of the range or the handler
        code when only a handler closes the loop, before a handler-closed test (3.12+)."""
        body_start, body_end, explicit_continue = bounds.body_start, bounds.body_end, bounds.explicit_continue
        real_exit = exit if exit <= j + 2 else j + 1
        real_exit = max(real_exit, j + 1)
        body_runs_on = explicit_continue and top_test is not None and self._body_runs_past_back_jump(h, j, exit)
        # 3.12+: a `while True:` that only its handler's `continue` closes, inside an if branch
        # or another loop: its jump back lies in the handler code at the end, past the range;
        # the body ends with the range, and falling off it leaves the loop.
        clipped = top_test is None and self.version.handler_code_at_end and h in self.handler_closed \
            and j >= self.end
        overrun = self.handler_overrun.get(h) if top_test is None else None
        if clipped:
            body_end = real_exit = self._handler_closed_body_end(h, body_start)
        elif overrun is not None:
            # (the loop's other ways out are `break`s; falling off the try leaves it too)
            body_end = real_exit = overrun
            clipped = True
        else_break = exit_inside = breaking_tail = False
        if top_test is not None and self.version.handler_code_at_end and h in self.handler_closed \
                and body_end < j:
            exit_at, else_break = self._exit_before_handler_closed_test(body_start, body_end, exit)
            if exit_at is not None:
                body_end = real_exit = exit_at
                exit_inside = not else_break
        if top_test is None and not clipped and not explicit_continue and self.version.has_exception_table \
                and (past := self.handler_break_past_loop(h, j, self.end)) is not None:
            # (the rest of the body, past the last jump back, ends where an except clause's
            # `break` goes: falling into there is a `break` too)
            exit, body_runs_on = past, True
        elif top_test is None and not clipped and not explicit_continue \
                and (past := self._breaking_tail_end(h, j)) is not None:
            exit, body_runs_on, breaking_tail = past, True, True
        elif top_test is None and not clipped and not explicit_continue \
                and (past := self._break_past_inline_handler(h, j)) is not None:
            exit, body_runs_on, breaking_tail = past, True, True
        elif top_test is None and not clipped and not explicit_continue \
                and (past := self._walked_return_past_loop(h, j)) is not None:
            exit, body_runs_on = past, True
        if body_runs_on:
            # 3.10+: a body that never falls through has no test at the bottom; its last jump back
            # is a `continue`, and the body goes on after it up to where the test leaves the loop.
            body_end = real_exit = exit
        return _WhileShape(exit, body_start, body_end, real_exit, bounds.continue_targets, bounds.exclude,
                           explicit_continue, body_runs_on, clipped, else_break, exit_inside, breaking_tail)

    def _handler_closed_body_end(self, h: int, body_start: int) -> int:
        """Where the body of a `while True:` at `h` that only its handler code closes (laid past
        the range being read, 3.12+) ends: at the range's end, or where the code after the loop
        starts before it, the blocks from there to the range's end being none of the loop's
        (they cannot reach its jump back: `if n: (while True: if c: break / try: f(); break /
        except E: ...) / g()`, where the try body falls into `g()`), and a `break` jumping there."""
        graph, end = self.graph, self.end
        loop = next((found for found in graph.loops if found.header == h), None)
        if loop is None:
            return end
        starts = [b for b in graph.table.starts if body_start <= b < end]
        inside = [b for b in starts if b in loop.body]
        after = [b for b in starts if b not in loop.body and (not inside or b > max(inside))]
        if not after or after[-1] != starts[-1]:
            return end
        exit = min(after)
        head = self.instrs[graph.table.ends[graph.table.number_of(h)] - 1]
        if head.opname in COND_JUMPS and head.target == exit:
            return end  # (a test at the head that leaves for there: `while test:`, read so on a retry)
        if not any(body_start <= src < exit for src in self.jump_sources.get(exit, ())):
            return end  # (no `break` jumps there: the end of a statement of the body, a with's return)
        return exit

    def _close_while_body(self, body: List[n.Stmt], back: Instr, top_test: Optional[Tuple[int, int]],
                          shape: _WhileShape, clauses_fall_back: bool = False) -> None:
        """End the while loop's `body` as the code does: a `continue` the closing jump stands
        for is dropped; where the body's end falls into the loop's exit (no jump back or test
        at the bottom closes it), that is a `break`."""
        exit, body_start, body_end = shape.exit, shape.body_start, shape.body_end
        explicit_continue, body_runs_on, exit_inside = shape.explicit_continue, shape.body_runs_on, shape.exit_inside
        if not explicit_continue:
            _drop_trailing_continue(body)
        elif top_test is None and back.opname in COND_JUMPS:
            body.append(n.Break())
        # (3.11 lays a try's handler code inline: when it ends the body, the try's ways out jump
        # over it to the exit)
        inline_last = body_runs_on and self.version.has_exception_table and not self.version.handler_code_at_end \
            and exit - 1 in self.handler_only_code()
        if body_runs_on and (self.instrs[exit - 1].opname not in ENDS_FLOW
                             or (shape.breaking_tail or inline_last) and _may_complete(body)):
            # The body's end falls into the loop's exit: a `break` there. (A try ending the body
            # may have its handler code last, 3.11: its ways out jump to the exit.)
            body.append(n.Break())
        elif explicit_continue and top_test is not None and body_end == exit and not body_runs_on \
                and self.version.while_condition_duplicated and self._jumps_to(body_start, body_end, exit) \
                and _may_complete(body):
            # 3.10+: with no copy of the test at the bottom the body never falls off its end, so a
            # jump from it to the exit is a `break`; one that ended the body's last statement (a
            # try's body jumping over its handlers) was read as that statement's end.
            body.append(n.Break())
        if exit_inside and body and isinstance(body[-1], n.Try) and body[-1].handlers \
                and not body[-1].finalbody and self._falls_into(body_start, body_end):
            # Only the try's normal way out falls into the exit; its handlers go on to the test.
            last = body[-1]
            (last.orelse if last.orelse else last.body).append(n.Break())
        elif (shape.clipped or exit_inside) and self._falls_into(body_start, body_end) and _may_complete(body) \
                and not clauses_fall_back:
            body.append(n.Break())

    def _while_else(self, h: int, j: int, cond: Optional[n.Expr], info: LoopInfo, shape: _WhileShape) -> _LoopElse:
        """The else part of the while loop [h, j], read once the body was: the code from the
        loop's exit up to where its `break`s go, where the tables of the body's reading say the
        else part lies; and the ways on past the range that the loop's breaks take."""
        real_exit, break_target = shape.real_exit, info.break_target
        orelse, after, handler_break_after_else = self._while_else_to_breaks(h, j, cond, info, shape)
        if cond is None and break_target is not None and break_target > self.end == real_exit:
            # A `while True:` that ends an if body is left only by its `break`s, which go
            # on where the if statement does, past its else part (laid at the false target with
            # no jump over it, as the loop never falls out): that is the else part's end.
            self.range_falls_to.setdefault(self.end, break_target)  # (see `if_statement`)
        elif cond is None and break_target is None and info.handler_break_on is not None \
                and info.handler_break_on > self.end == real_exit:
            # (... so is a `break` in an except clause, its jump laid with the handler code)
            self.range_falls_to.setdefault(self.end, info.handler_break_on)
        elif cond is not None and break_target is None and shape.exit > self.end == real_exit \
                and not shape.body_runs_on and self.instrs[j].opname == "JUMP":
            # (... so is the test of a loop that ends an if body, its exit threaded past the
            # else part when the body ends in a `continue`, 3.12)
            self.range_falls_to.setdefault(self.end, shape.exit)
        copies_close_range = False  # the code after the loop exists only as the breaks' copies
        if shape.else_break:
            orelse = [n.Break()]
        elif not orelse and cond is not None and after == real_exit and info.copied_exit is not None:
            skipped = self._else_skipped_by_copied_breaks(info, real_exit)
            if skipped is not None:
                orelse, after, copies_close_range = skipped
        return _LoopElse(orelse, after, handler_break_after_else, copies_close_range)

    def _while_else_to_breaks(self, h: int, j: int, cond: Optional[n.Expr], info: LoopInfo,
                              shape: _WhileShape) -> Tuple[List[n.Stmt], int, bool]:
        """The else part of the while loop [h, j] up to where its `break`s go, where the code
        after the loop starts, and whether a handler's `break` goes past the else part (3.12+);
        notes a loop whose breaks go on to the enclosing loop's next iteration."""
        exit, body_start, body_end, real_exit = shape.exit, shape.body_start, shape.body_end, shape.real_exit
        break_target = info.break_target
        if break_target is not None and break_target > real_exit and break_target <= self.end:
            return self.run_range(real_exit, break_target, list(self.stack)), break_target, False
        if break_target is not None and real_exit < self.end and self._copy_of_range_end(break_target):
            # (the breaks skip the rest of the range: the else part)
            return self.run_range(real_exit, self.end, list(self.stack)), self.end, False
        if cond is not None and real_exit < self.end and (else_end := self._else_end_before_enclosing_continue(
                body_start, body_end, break_target)) is not None:
            return self.run_range(real_exit, else_end, list(self.stack)), else_end, False
        if cond is not None and info.handler_break is not None and info.handler_break > real_exit \
                and (returning_end := self._returning_block_end(real_exit)) is not None:
            # 3.12+: a handler's `break` jumps past the handler code, to the code after the loop
            # moved there; the block at the loop's exit, where the test goes, is its else part.
            return self.run_range(real_exit, returning_end, list(self.stack)), returning_end, True
        if info.break_tail is not None:
            # The code after the loop lies in its body (`_exit_code_after_exit_call`): the block
            # at the loop's exit, where the test goes, is its else part, which returns or raises.
            returning_end = self._returning_block_end(real_exit) if cond is not None else None
            if returning_end is None:
                raise self.fail(self.instrs[h], "code after the loop laid in its body, with no else part before it")
            return self.run_range(real_exit, returning_end, list(self.stack)), returning_end, False
        if cond is None and real_exit == self.end and self._ends_range_breaking_to_next_iteration(
                body_start, j + 1, real_exit):
            # `if c: while True: ... break` then `else: ...` as the enclosing loop's last
            # statement: the breaks go on to its next iteration, never to this range's end.
            self.breaks_to_next_iteration.add(self.end)
        elif cond is not None and real_exit == self.end and exit > self.end and self._goes_to_next_iteration(exit):
            # `if c: while t: ...; continue` then `else: ...` as the enclosing loop's last
            # statement: the body never falls into a copy of the test, and the test's exit went
            # straight on to the enclosing loop's next iteration, past the else part.
            self.breaks_to_next_iteration.add(self.end)
        return [], real_exit, False

    def _else_skipped_by_copied_breaks(self, info: LoopInfo,
                                       real_exit: int) -> Optional[Tuple[List[n.Stmt], int, bool]]:
        """3.10+: the else part of a while loop whose `break`s ran a copy of the code after the
        loop (`info.copied_exit`), where the code after it starts, and whether that code exists
        only as those copies; None where the loop's exit block is no else part."""
        # Where that code stands, ending the range, the loop's exit block before it is the else
        # part they skipped.
        rest = self._copied_exit_original(info.copied_exit, real_exit)
        if rest is not None:
            return self.run_range(real_exit, rest, list(self.stack)), rest, False
        if info.break_target is None and self._else_ends_function(real_exit) \
                and not self._copy_stands_in(info.copied_exit, real_exit, self.end):
            # Every `break` ran a copy of the code after the loop, which exists only as those
            # copies (the compiler dropped it, only the breaks reaching it): the code at the
            # loop's exit, which ends the range with a return or raise, is its else part
            # (as for a for loop).
            return self.run_range(real_exit, self.end, list(self.stack)), self.end, True
        return None

    def _break_past_inline_handler(self, h: int, j: int) -> Optional[int]:
        """Where the `while True:` loop [h, j] really ends when the jump right after its last
        jump back `j` is the way out of a try body, followed by that try's handler code (3.11
        lays it inline), which never falls out: a try that ends the loop body after a
        `continue` in it (`try: if c: continue; break` then `except E: return`). Handler code
        of a try in the loop is part of the loop's body, so the way out over it is too; it is
        a `break` when another jump of the body before `j` goes there too, past that code (a
        `break` of its own): then that is the loop's exit. None for any other loop."""
        instrs = self.instrs
        first = j + 1
        if self.version.handler_code_at_end or not self.version.has_exception_table \
                or first + 1 >= min(self.end, len(instrs)) or instrs[first].opname != "JUMP":
            return None
        handler_code = self.handler_only_code() - self._reach(h)  # (the loop's own handler code)
        x = instrs[first].target
        if x is None or x <= first + 1 or x > self.end \
                or any(k not in handler_code for k in range(first + 1, x)):
            return None
        if not all(h <= src <= j for src in self.jump_sources.get(first, ())):
            return None
        if not any(h <= src < j and instrs[src].opname == "JUMP" for src in self.jump_sources.get(x, ())):
            return None
        if any(ins.target is not None and first < ins.target < x and ins.index in handler_code
               and ins.opname == "JUMP" for ins in instrs[first + 1:x]):
            return None  # (a handler that falls out, to code of its own)
        return x

    def _exit_before_handler_closed_test(self, body_start: int, bottom: int, exit: int
                                          ) -> Tuple[Optional[int], bool]:
        """3.12+: a while loop whose body leaves only through a try's except clause (a `break` in
        the try body) has its bottom test with the handler code at the end. Where the loop ends,
        and whether it ends with `else: break`, when its top test's exit is not after that test:

        * the exit lies inside the body's span (the code after the loop is laid out between the
          try body and the handler code): the body ends there, and falling into it (a `break`
          whose jump was dropped) leaves the loop;
        * the exit is past the enclosing range and is the enclosing loop's break target: the
          loop's else part is a `break` the compiler sent straight there, and the loop ends with
          the enclosing range (where its own `break`s go).

        (None, False) otherwise."""
        if body_start < exit < bottom:
            return exit, False
        if exit >= self.end and self.loops and exit == self.loops[-1].break_target \
                and body_start < self.end < bottom:
            return self.end, True
        return None, False

    def _jumps_to(self, start: int, end: int, target: int) -> bool:
        """Does an instruction in [start, end) jump to `target`?"""
        return any(start <= src < end for src in self.jump_sources.get(target, ()))

    def _walked_return_past_loop(self, h: int, j: int) -> Optional[int]:
        """3.14: where the `while True:` loop [h, j] ends when the block right after its last
        jump back, which only the body's tests jump to and which returns or raises, is one the
        borrow pass reached (`borrows.py`): the code after such a loop that its last `break`
        falls into is never reached by that pass, so this is a `return` written in the loop's
        last if statement (`if c: return v`), not the code after the loop. (Not a small block:
        the compiler copies one into the `break` in place of its jump, which the pass reaches.)
        None otherwise."""
        instrs = self.instrs
        after = j + 1
        if not self.version.borrows_stop_at_empty_blocks or instrs[j].opname != "JUMP" \
                or instrs[j].target != h or after >= self.end:
            return None
        sources = self.jump_sources.get(after, ())
        if not sources or not all(h <= src < j and instrs[src].opname in COND_JUMPS for src in sources):
            return None
        k = after
        while k < self.end and instrs[k].target is None and instrs[k].opname not in TERMINAL \
                and (k == after or not self.jump_sources.get(k)):
            k += 1
        if k >= self.end or instrs[k].opname not in ("RETURN_VALUE", "RAISE_VARARGS") or self.jump_sources.get(k) \
                or k + 1 - after <= borrows.COPIED_EXIT_SIZE \
                or not borrows.block_was_walked(self.code, self.version, instrs, after, k + 1, self.jump_sources):
            return None
        return k + 1

    def _breaking_tail_end(self, h: int, j: int) -> Optional[int]:
        """Where the `while True:` loop [h, j] really ends when the rest of its body follows its
        last jump back `j` (a `continue`) and ends in a `break` whose jump was dropped, since it
        lands on the next instruction (3.10+): `while True: if a: break; if b: continue; x = 1;
        break`. The earlier `break`s jump over that rest, to where it falls. A `break` that
        leaves at `j + 1` could not jump past code after the loop either, so when the body
        jumps both to `j + 1` (the test skipping the `continue`) and further on, the code between,
        reached only from the loop and jumping nowhere else, is the rest of the body. None when
        the loop ends at `j`."""
        instrs = self.instrs
        if not self.version.while_condition_duplicated or (instrs[j].opname != "JUMP" or instrs[j].target != h) \
                and not closed_by_inline_handler(self, self.handler_closed, h, j, self.handler_only_code()):
            return None
        after = j + 1
        # (3.11: the handler code of a try in the body, laid inline after its last `continue`,
        # which only an exception enters: the rest of the body goes on from its except clauses)
        own_handler = not self.version.handler_code_at_end and after < len(instrs) \
            and after in self.handler_only_code() and after not in self._reach(h)
        if after >= self.end or instrs[after].opname == "JUMP" \
                or not all(h <= src < j for src in self.jump_sources.get(after, ())) \
                or not (self.jump_sources.get(after) or own_handler):
            return None  # (a jump there is an exit: with a jump to thread through, no break stops short)
        further = [ins.target for ins in instrs[h:j] if ins.target is not None and ins.target > after]
        # (3.12+: the clauses of tries in the rest of the body, laid at the end, jump back into it)
        inner: Set[int] = set()
        try_end = self._end_of_block_try_begun_in_loop(h, j)
        if try_end is not None:
            # (3.10: its handler code is the body's, no way out of the loop; the body goes on
            # through the try to where an earlier `break` goes, else where the try goes on)
            breaks = [t for t in further if t >= try_end]
            # (a `break` in the rest of the try body, past the `continue`, goes there too: its
            # jump, after the unwinding, leaves the try's end behind)
            breaks += [ins.target for ins in instrs[after:try_end] if ins.target is not None and ins.target > try_end]
            x = min(breaks) if breaks else try_end
        elif further:
            x = min(further)
        elif (past_try := self._end_of_try_begun_in_loop(h, j)) is not None:
            x = past_try
            beyond = [ins.target for ins in instrs[after:x] if ins.target is not None and ins.target > x]
            if beyond:
                x = min(beyond)  # (a `break` in the rest of the try body: the loop's exit is further)
            else:
                x = self._walked_rest_before_break(x)
            if self.version.handler_code_at_end:
                inner = self.loop_body_reach(h, x) & self.handler_only_code()
        elif self.version.copies_exit_blocks:
            found = self._copied_exit_after_tail(h, j)
            if found is None:
                return None
            x = found
        else:
            return None
        if x > self.end:
            return None
        for k in range(after, x):
            ins = instrs[k]
            if not all(h <= src < x or src in inner for src in self.jump_sources.get(k, ())) \
                    or (ins.target is not None and not h <= ins.target <= x):
                return None
        return x

    def _walked_rest_before_break(self, x: int) -> int:
        """3.14: where a `while True:` loop whose body ends in a `break` falling into `x`, the code
        right after a try, really ends: the code from `x` that the borrow pass reached
        (`borrows.py`) is the rest of the body, up to the first statement it did not reach (the
        `break` jumped to the next instruction, its jump dropped), or up to a jump forward, that
        `break` (the jump may be that of the if part the loop ends, where the range ends): the
        code after such a loop that its last `break` falls into is never reached by the pass.
        `x` itself otherwise."""
        instrs = self.instrs
        if not self.version.borrows_stop_at_empty_blocks:
            return x
        k = x
        while k < len(instrs) and instrs[k].target is None and instrs[k].opname not in TERMINAL \
                and (k == x or not self.jump_sources.get(k)):
            k += 1
        if k == x or k >= len(instrs) \
                or not borrows.block_was_walked(self.code, self.version, instrs, x, k, self.jump_sources):
            return x
        walked_end = borrows.walked_part_end(self.code, self.version, instrs, x, k, self.jump_sources)
        if walked_end < k:
            return walked_end
        if instrs[k].opname != "JUMP" or instrs[k].target is None or instrs[k].target <= k \
                or self.jump_sources.get(k):
            return x
        return k

    def _copied_exit_after_tail(self, h: int, j: int) -> Optional[int]:
        """`_breaking_tail_end` when the earlier `break`s left no jump: they went to a small block
        that ends the function, which the compiler copied in their place (3.10+). Where the
        code after `j` reaches the start of such a block, a copy of which lies in the body; None
        when there is none. The rest of the body, a `break` and that block, and the same code
        after the loop read as the same instructions: the copies decide."""
        instrs = self.instrs
        # (a copy starts a block of its own: where a test's false branch or a jump lands)
        starts = [p for p in range(h + 1, j) if instrs[p - 1].opname in COND_JUMPS
                  or instrs[p - 1].opname in ENDS_FLOW or self.jump_sources.get(p)]
        for k in range(j + 1, self.end):
            ins = instrs[k]
            if (ins.opname == "JUMP" and ins.target < h) or any(src < h for src in self.jump_sources.get(k, ())):
                return None  # (code that more than the loop reaches)
            if ins.opname not in TERMINAL:
                continue
            for c in range(max(j + 1, k + 1 - MAX_COPY), k + 1):
                length = k + 1 - c
                for p in starts:
                    if p + length <= j and self._same_code((p, p + length), (c, k + 1)) and self._is_copy(c, k + 1):
                        return c
        return None

    def _body_runs_past_back_jump(self, h: int, j: int, exit: int) -> bool:
        """Is [j + 1, exit) the rest of a loop body that ends without falling through: reached only
        from inside the loop (the jump back at `j` never falls into it), and leaving it by a return,
        a raise, a jump, or a `break` that falls into the loop's exit (3.11+ drop the jump of a
        break that lands on the next instruction)? Code after a loop is reached by the loop's
        test too, which jumps to `exit` itself, never before it."""
        if not self.version.while_condition_duplicated or not j + 1 < exit <= self.end:
            return False
        sources = [src for k in range(j + 1, exit) for src in self.jump_sources.get(k, ())]
        return bool(sources) and all(h <= src < exit or self._own_handler_jump(h, exit, src) for src in sources)

    def _own_handler_jump(self, h: int, exit: int, src: int) -> bool:
        """3.12+: is `src` handler code, laid at the end, of a construct whose protected code
        starts inside [h, exit) (a with whose manager swallowed the exception jumps back to the
        code after the with statement)? Such a jump comes from inside that code."""
        if not self.version.handler_code_at_end or src < exit or src not in self.handler_only_code():
            return False
        first_protected = self._first_protected()
        return any(h <= first_protected[t] < exit and src in self._reach(t, None, t)
                   for t in self._xt().kinds)
