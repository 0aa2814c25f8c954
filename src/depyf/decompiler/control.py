"""Conditions, `if`, loops, `break`/`continue`, and the value-level short circuits.

Structures are recognised from jump targets, which are instruction indices:

* a conditional jump starts a *condition chain*: consecutive pure expressions each ending in a
  conditional jump. Where each one jumps (the body, the else part, or a later member of the chain)
  decides how they combine with `and`/`or`/`not`;
* a loop is the range between a *header* (the target of a backward jump) and the last backward jump
  to it; 3.10+ repeats a while loop's test at the bottom, which is recognised and dropped;
* a forward jump out of a loop is a `break`; a jump to a loop's header or test is a `continue`.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler import borrows
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, OPPOSITE_JUMPS, TERMINAL, Instr
from depyf.decompiler.control_model import (COND_JUMPS, LoopInfo, _BLOCK_SETUPS, _drop_trailing_continue,
    _may_complete)
from depyf.decompiler.control_prepare import ControlPrepare
from depyf.decompiler.control_conditions import ControlConditions
from depyf.decompiler.control_chain_build import ControlChainBuild
from depyf.decompiler.control_ifs import ControlIfs
from depyf.decompiler.control_if_loops import ControlIfLoops
from depyf.decompiler.control_if_values import ControlIfValues
from depyf.decompiler.control_jumps import ControlJumps
from depyf.decompiler.control_values import ControlValues

# imported from here by other modules (builder, api, definitions, exception_table, block_*)
from depyf.decompiler.control_model import StatementsInValue, demorgan_not  # noqa: F401
from depyf.decompiler.control_ifs import fold_tail_into_else  # noqa: F401


class ControlRules(ControlPrepare, ControlConditions, ControlChainBuild, ControlIfs, ControlIfLoops,
    ControlIfValues, ControlJumps, ControlValues):
    """Control-flow recognition; mixed into `builder.CodeBuilder`."""

    # --- loops ------------------------------------------------------------------------------

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
        self.active_loops.add(h)
        try:
            # (a try that starts at the head protects the test: `while True: try: if not t: ...`)
            tried = self.version.has_exception_table and self.try_starts_at(h)
            atom = None if tried else self.parse_atom(h, j + 1)
        finally:
            self.active_loops.discard(h)
        if atom is not None:
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
                cond = None
            finally:
                self.end = saved_end
                self.stack = stack_before
            if cond is not None and false_target > j:
                return self.while_loop(h, cond, false_target, top_test=(h, fall))
            if cond is not None and self._threaded_through(false_target, j + 1):
                # (the loop's exit is a jump, e.g. an enclosing loop's way back: the test goes there)
                return self.while_loop(h, cond, j + 1, top_test=(h, fall))
            if cond is not None and false_target < h and self.version.while_condition_duplicated \
                    and self._bottom_test(h, fall, j) is not None:
                # 3.10+: a while loop that ends an enclosing loop's body, whose `continue` makes its
                # top test a loop head too: that test's exit went straight to the enclosing head.
                return self.while_loop(h, cond, j + 1, top_test=(h, fall))
        return self.while_loop(h, None, j + 1, top_test=None)

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
                # The body ends in a block that returns (`_returning_tail_end`), past its last
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
            # The body ends in a block that returns (`_returning_tail_end`): no jump closes it.
            body_end = j + 1
            explicit_continue = True
        if h != body_start:
            continue_targets.add(body_start)
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
            body_end = real_exit = self.end
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
        break_target = self._break_target(body_start, body_end, real_exit, exclude)
        # (3.10+: the body's last instruction is never the loop's closing jump, which keeps the
        # loop's line; a jump back there is a `continue` of its own.)
        closing_apart = self.version.while_back_jump_has_line
        info = LoopInfo(continue_targets, break_target, real_exit, body_end,
                        natural_end=-1 if explicit_continue or closing_apart else None)
        info.is_while = True
        info.only_breaks_leave = cond is None
        if top_test is not None and body_end != j and not explicit_continue:
            info.top_test = top_test[0]
        info.falls_off_to_exit = clipped or body_runs_on
        self.loops.append(info)
        self.active_loops.add(h)
        try:
            body = self.run_range(body_start, body_end, list(self.stack))
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
        if not explicit_continue:
            _drop_trailing_continue(body)
        elif top_test is None and back.opname in COND_JUMPS:
            body.append(n.Break())
        # (3.11 lays a try's handler code inline: when it ends the body, the try's ways out jump
        # over it to the exit)
        inline_last = body_runs_on and self.version.has_exception_table and not self.version.handler_code_at_end \
            and exit - 1 in self.handler_only_code()
        if body_runs_on and (self.instrs[exit - 1].opname not in ENDS_FLOW
                             or (breaking_tail or inline_last) and _may_complete(body)):
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
        elif (clipped or exit_inside) and self._falls_into(body_start, body_end) and _may_complete(body):
            body.append(n.Break())
        orelse: List[n.Stmt] = []
        after = real_exit
        handler_break_after_else = False
        copies_close_range = False  # the code after the loop exists only as the breaks' copies
        if break_target is not None and break_target > real_exit and break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        elif break_target is not None and real_exit < self.end and self._copy_of_range_end(break_target):
            # (the breaks skip the rest of the range: the else part)
            orelse = self.run_range(real_exit, self.end, list(self.stack))
            after = self.end
        elif cond is not None and real_exit < self.end and (else_end := self._else_end_before_enclosing_continue(
                body_start, body_end, break_target)) is not None:
            orelse = self.run_range(real_exit, else_end, list(self.stack))
            after = else_end
        elif cond is not None and info.handler_break is not None and info.handler_break > real_exit \
                and (returning_end := self._returning_block_end(real_exit)) is not None:
            # 3.12+: a handler's `break` jumps past the handler code, to the code after the loop
            # moved there; the block at the loop's exit, where the test goes, is its else part.
            orelse = self.run_range(real_exit, returning_end, list(self.stack))
            after = returning_end
            handler_break_after_else = True
        elif info.break_tail is not None:
            # The code after the loop lies in its body (`_exit_code_after_exit_call`): the block
            # at the loop's exit, where the test goes, is its else part, which returns or raises.
            returning_end = self._returning_block_end(real_exit) if cond is not None else None
            if returning_end is None:
                raise self.fail(self.instrs[h], "code after the loop laid in its body, with no else part before it")
            orelse = self.run_range(real_exit, returning_end, list(self.stack))
            after = returning_end
        elif cond is None and real_exit == self.end and self._ends_range_breaking_to_next_iteration(
                body_start, j + 1, real_exit):
            # `if c: while True: ... break` then `else: ...` as the enclosing loop's last
            # statement: the breaks go on to its next iteration, never to this range's end.
            self.breaks_to_next_iteration.add(self.end)
        elif cond is not None and real_exit == self.end and exit > self.end and self._goes_to_next_iteration(exit):
            # `if c: while t: ...; continue` then `else: ...` as the enclosing loop's last
            # statement: the body never falls into a copy of the test, and the test's exit went
            # straight on to the enclosing loop's next iteration, past the else part.
            self.breaks_to_next_iteration.add(self.end)
        if cond is None and break_target is not None and break_target > self.end == real_exit:
            # A `while True:` that ends an if body is left only by its `break`s, which go
            # on where the if statement does, past its else part (laid at the false target with
            # no jump over it, as the loop never falls out): that is the else part's end.
            self.range_falls_to.setdefault(self.end, break_target)  # (see `if_statement`)
        elif cond is None and break_target is None and info.handler_break_on is not None \
                and info.handler_break_on > self.end == real_exit:
            # (... so is a `break` in an except clause, its jump laid with the handler code)
            self.range_falls_to.setdefault(self.end, info.handler_break_on)
        if else_break:
            orelse = [n.Break()]
        elif not orelse and cond is not None and after == real_exit and info.copied_exit is not None:
            # 3.10+: the breaks ran a copy of the code after the loop; where that code stands,
            # ending the range, the loop's exit block before it is the else part they skipped.
            rest = self._copied_exit_original(info.copied_exit, real_exit)
            if rest is not None:
                orelse = self.run_range(real_exit, rest, list(self.stack))
                after = rest
            elif break_target is None and self._else_ends_function(real_exit) \
                    and not self._copy_stands_in(info.copied_exit, real_exit, self.end):
                # Every `break` ran a copy of the code after the loop, which exists only as those
                # copies (the compiler dropped it, only the breaks reaching it): the code at the
                # loop's exit, which ends the range with a return or raise, is its else part
                # (as for a for loop).
                orelse = self.run_range(real_exit, self.end, list(self.stack))
                after = self.end
                copies_close_range = True
        self.emit(n.While(cond if cond is not None else n.Const(True), body, orelse))
        if info.break_tail is not None:
            start, end = info.break_tail
            hidden = self.skip.pop(start, None)  # (skipped as the break's, in the body)
            for stmt in self.run_range(start, end, list(self.stack)):
                self.emit(stmt)
            if hidden is not None:
                self.skip[start] = hidden
        if info.handler_break is not None and (cond is None or handler_break_after_else):
            self.read_handler_break_tail(info, after)  # exception_table
        self._place_copied_exit(info, after, copies_close_range)
        if exit > j + 1 and after == real_exit and not body_runs_on:
            # 3.10+ copies a small exit block for the test at the top; read it once.
            self._skip_copy(exit, j + 1)
            after = j + 1
        return after

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
                and not self._closed_by_inline_handler(h, j, self.handler_only_code()):
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

    def _end_of_try_begun_in_loop(self, h: int, j: int) -> Optional[int]:
        """3.11+: where the try protecting `j + 1` ends, when that try starts inside the loop
        [h, j] (its body's `continue` is the loop's last jump back, and the rest of its body
        follows): on 3.11 the target of the first jump in [j + 1, handler) over the handler
        code, the try's way on; on 3.12+ past the finally body's copy, or where the except
        clauses go on. None for code no such try protects. (A loop that ends only in a `break`
        falling into the code after it ends anywhere from there on with the same bytecode:
        right after the try is as good as later.)"""
        if not self.version.has_exception_table or not self.bc.regions:
            return None
        self._xt()
        after = j + 1
        chain = self._chain(after)
        if not chain:
            # (unprotected, it may be the try's else part, or its finally body's copy, where its
            # body's test skipping the `continue` jumps: `try: if c: continue / except E: ...
            # else: ...`)
            chain = tuple({self._chain(src)[0] for src in self.jump_sources.get(after, ())
                           if h <= src < j and self._chain(src)})
            if len(chain) != 1:
                chain = ()
        # (the outermost such try: `try: ... except E: ... finally: ...` ends past its finally;
        # one that starts at `j + 1` or later lies in the rest of its body)
        begun = [t for t in chain if h <= self._try_start_of(t) < after]
        if not begun and not self.version.handler_code_at_end:
            # 3.11: the try's else part, unprotected, follows the body that ends in the
            # `continue` at `j` and comes before the handler code inline
            # (the nearest handler past `after` of a try started in the loop)
            ts = [t for s, hs in self._xt().try_starts.items() if h <= s < after for t in hs if t > after]
            begun = [min(ts)] if ts else []
        if not begun:
            return None
        t = begun[-1]
        if self.version.handler_code_at_end:
            # (3.12+: no jump over the handler code, which lies at the end of the function; the
            # rest of the body is reached from the try's start, never only through a handler)
            s = self._try_start_of(t)
            x = self.try_end_past_protected(s, t) if after in self._reach(s) else None  # exception_table
            return x if x is not None and x > after else None
        for ins in self.instrs[after:t]:
            if ins.opname == "JUMP" and ins.target is not None and ins.target > t:
                return ins.target
        return None

    def _end_of_block_try_begun_in_loop(self, h: int, j: int) -> Optional[int]:
        """3.10: where the try that protects `j + 1` ends, when that try starts inside the loop
        [h, j]: a `continue` in its body is the loop's last jump back, and the rest of its body,
        its handler code (the block stack's handler lies after the body's ways on) and what
        follows the try are the rest of the loop body. The try ends where its body's way on
        jumps over the handler code (and past an else part, where its clauses jump), or, when
        that way on is a copied return, after the handler code. None for code no such try
        protects."""
        instrs = self.instrs
        if self.version.has_exception_table:
            return None
        after = j + 1
        # (3.10: or right after `j`, the try body's `continue` its only way on, the handler code
        # ending the body after the copied exit of a `break` before the try)
        first = after if self.version.copies_exit_blocks else after + 1
        handlers = [ins.target for ins in instrs[h:j] if ins.opname in ("SETUP_FINALLY", "SETUP_WITH",
                                                                        "SETUP_ASYNC_WITH")
                    and ins.target is not None and ins.target >= first]
        if not handlers:
            return None
        t = max(handlers)  # (the outermost such try)
        if instrs[t].opname == "WITH_EXCEPT_START":
            # A with: its cleanup's way on when the exception is swallowed (`POP_EXCEPT;
            # POP_TOP` after a test that re-raises otherwise) goes where the with goes on.
            test = instrs[t + 1]
            if [ins.opname for ins in instrs[t + 1:t + 4]] == ["GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM"]:
                test = instrs[t + 4]  # (an async with: the test follows the awaited __aexit__ call)
            if test.opname != "POP_JUMP_IF_TRUE" or test.target is None:
                return None
            k = test.target
            while k < len(instrs) and instrs[k].opname in ("POP_TOP", "POP_EXCEPT"):
                k += 1  # (the unwinding of the swallowed exception)
            if k == len(instrs):
                return None
            if instrs[k].opname == "JUMP":
                return instrs[k].target if instrs[k].target > k else None
            # (no jump: the code after the with follows; the walk on to its end would take in
            # the code after the loop too, past a `break` in the with body)
            return k
        way_on: Optional[Instr] = instrs[t - 1]
        if t == after:
            way_on = None  # (the body's way on is the `continue` at `j`)
        elif way_on.opname == "BEGIN_FINALLY":
            way_on = None  # (3.8: the body's way on falls into the finally body, to its END_FINALLY)
        elif way_on.opname == "JUMP" and way_on.target is not None and way_on.target > t:
            end = way_on.target
            if instrs[t].opname in ("DUP_TOP", "POP_TOP"):
                # (an else part at `end`: the clauses that finish jump past it)
                later = [ins.target for ins in instrs[t:end] if ins.opname == "JUMP"
                         and ins.target is not None and ins.target > end]
                if later:
                    end = max(later)
                else:
                    # (... or run a copy of the small block that ends the function, where the
                    # else part falls (a `break` to it after the try): the try ends there)
                    end = self._clause_copied_way_on(t, end)
            return end
        if way_on is not None and way_on.opname not in TERMINAL:
            return None
        if instrs[t].opname in ("DUP_TOP", "POP_TOP"):
            end = self._except_chain_end(t)
            if end is None:
                return None
            later = [ins.target for ins in instrs[t:end] if ins.opname == "JUMP"
                     and ins.target is not None and ins.target > end]
            return max(later) if later else end
        # A finally body's exceptional copy: up to the re-raise it reaches.
        k = t
        while k < len(instrs) and instrs[k].opname not in ("RERAISE", "END_FINALLY"):
            if instrs[k].opname in ("RETURN_VALUE", "RAISE_VARARGS") or instrs[k].opname in _BLOCK_SETUPS:
                return None  # (a finally body with a construct or an exit of its own: not read here)
            k += 1
        return k + 1 if k < len(instrs) else None

    def _clause_copied_way_on(self, t: int, end: int) -> int:
        """3.10: where the else part at `end` of the try whose except clauses start at `t` goes
        on, when a clause's way on, after its POP_EXCEPT, is a copy of the small block that ends
        the function there (the code after the loop, reached by a `break` after the try): the
        start of that block, which the else part falls into; `end` when there is none."""
        instrs = self.instrs
        p = end
        while p < len(instrs) and not instrs[p].is_jump and instrs[p].opname not in ENDS_FLOW \
                and instrs[p].opname not in _BLOCK_SETUPS \
                and (p == end or not any(src < end for src in self.jump_sources.get(p, ()))):
            p += 1
        if p >= len(instrs) or instrs[p].opname not in TERMINAL:
            return end
        for q in range(t, end):
            if instrs[q].opname != "POP_EXCEPT":
                continue
            c = q + 1
            if c + 3 <= end and instrs[c].opname == "LOAD_CONST" and instrs[c].argval is None \
                    and instrs[c + 1].opname.startswith("STORE_") and instrs[c + 2].opname.startswith("DELETE_") \
                    and instrs[c + 1].argval == instrs[c + 2].argval:
                c += 3  # (`except E as e:` drops its name first: `e = None; del e`)
            for s in range(max(end + 1, p + 1 - MAX_COPY), p + 1):
                length = p + 1 - s
                if c + length <= end and self._same_code((c, c + length), (s, p + 1)) \
                        and self._is_copy(c, c + length):
                    return s
        return end

    def _try_start_of(self, t: int) -> int:
        """Where the try (or with) statement whose handler is `t` starts; -1 when none does."""
        st = self._xt()
        for s, ts in st.try_starts.items():
            if t in ts:
                return s
        if st.kinds.get(t) == "with":
            return self._first_protected().get(t, -1)  # (its body's first instruction)
        return -1

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

    def copied_loop_break(self, iterator: n.Expr, i: int) -> Optional[int]:
        """A for loop's iterator dropped at `i`, then a small block that returns: a `break` whose
        exit block the compiler copied in place of the jump (a `return` inside the loop computes
        its value before dropping the iterator). Returns where the copy ends."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or self.pure_mode or not self._drops_iterator(loop, iterator):
            return None
        end = self.copied_break_end(loop, i)
        if end is None:
            return None
        self.emit(n.Break())
        self.note_copied_break(i + 1, end)
        return end

    def copied_break_end(self, loop: LoopInfo, i: int) -> Optional[int]:
        """Where the copy of the for loop's exit block that a `break` runs after dropping the
        iterator at `i` ends; None when the code after `i` is no such copy."""
        if i + 1 == loop.exit:
            return None  # (the break falls into the loop's exit itself: no copy of it)
        end = self._copy_end(i + 1)  # exception_blocks: a small block ending the function
        original = self._exit_original(loop, i + 1, end) if end is not None else None
        if original is None and (end is None or self.instrs[i + 1].opname == "LOAD_CONST" and end == i + 3
                                 or not self._else_ends_function(loop.exit, loop.outer_end)) \
                and not (end is not None and (self._copy_at_range_end(loop, i + 1, end)
                                              or self._copy_of_vanished_exit(loop, i + 1, end))):
            return None  # (`return const` also drops the iterator first: no block after the loop)
        # (with no original, the code at the loop's exit never goes on to the code after the
        # loop: that code exists only as the breaks' copies, and a `return` of a value computes
        # it before dropping the iterator)
        if original is not None and original == loop.exit and loop.break_target is not None \
                and loop.break_target > loop.exit:
            # The block at the loop's exit is its else part (the breaks jump past it), which no
            # `break` runs: this copy of it is a `return` written in the body.
            return None
        if original is not None and original > loop.exit and end == i + 3 and self.instrs[i + 1].opname == "LOAD_CONST":
            # `return CONST` reads the same as a break past code after the loop to a copied
            # `return CONST`; as a break, that code would have to be the loop's else part.
            return None
        return end

    def _copy_of_vanished_exit(self, info: LoopInfo, start: int, end: int) -> bool:
        """Is the small block [start, end), run after a loop's iterator was dropped, the code
        after a loop that ends the function, which exists only as the breaks' copies (the loop's
        else part never finishes)? Only when it computes a value that is no constant (see
        `_copy_at_range_end`). Not where 3.11+ have an exception table: a `break` that leaves a
        try body is read by that table's rules."""
        length = end - start
        return not self.bc.regions and info.outer_end >= len(self.instrs) and length >= 2 \
            and not (length == 2 and self.instrs[start].opname == "LOAD_CONST")

    def _copy_at_range_end(self, info: LoopInfo, start: int, end: int) -> bool:
        """Is the small block [start, end), run after a loop's iterator was dropped, a copy of the
        code right after the range the loop is read in (the statement that follows an enclosing
        if or try, 3.10+)? Only when it computes a value that is no constant: a `return` inside
        the loop computes its value before dropping the iterator."""
        length, after = end - start, info.outer_end
        if length < 2 or length == 2 and self.instrs[start].opname == "LOAD_CONST":
            return False
        return after + length <= len(self.instrs) and self._same_code((start, end), (after, after + length))

    def falls_out_of_loop(self, iterator: n.Expr, i: int) -> bool:
        """Is the POP_TOP at `i` a `break` whose jump is gone: it drops the for loop's iterator
        and falls into the loop's exit (3.10+ lay a last `break` of the body right before the
        exit; nothing else there leaves the iterator to drop)."""
        loop = self.loops[-1] if self.loops else None
        return loop is not None and not self.pure_mode and loop.iterator is iterator and i + 1 == loop.exit

    def breaks_out_through_clause_exit(self, iterator: n.Expr, i: int) -> bool:
        """Is the POP_TOP at `i` a `break` of a for loop that ends an except clause, the loop's
        else part never finishing (`else: continue`)? The code after the loop, the clause's way
        out (POP_EXCEPT, then a jump on), follows the dropped iterator in place of a jump to it,
        and the loop's exit is the else part (3.13+)."""
        loop = self.loops[-1] if self.loops else None
        instrs = self.instrs
        return loop is not None and not self.pure_mode and loop.iterator is iterator \
            and i + 2 < loop.exit and instrs[i + 1].opname == "POP_EXCEPT" and instrs[i + 2].opname == "JUMP" \
            and not self.jump_sources.get(i + 1)

    def _drops_iterator(self, loop: LoopInfo, popped: n.Expr) -> bool:
        """Is the value a POP_TOP drops the loop's iterator? The `__exit__` calls of the with
        statements a break leaves are stepped over, so their markers may still lie above it."""
        if loop.iterator is None:
            return False
        above = [popped] + self.stack[::-1]
        for value in above:
            if value is loop.iterator:
                return True
            if not isinstance(value, m.WithExit):
                return False
        return False

    def _exit_original(self, info: LoopInfo, start: int, end: int) -> Optional[int]:
        """Where the exit block a `break` copied to [start, end) starts after the loop: the
        break's target."""
        length = end - start
        for c in range(info.exit, info.outer_end - length + 1):
            if self._same_code((start, end), (c, c + length)) and not self._inside_later_loop(info.exit, c):
                # (the first copy found inside a later statement: the break's block was a return)
                inside = self._inside_later_block(info.exit, c) or self._jumps_beyond(info.exit, c, info.outer_end)
                return None if inside else c
        c = info.outer_end
        if info.exit < c <= len(self.instrs) - length and self._same_code((start, end), (c, c + length)) \
                and self.instrs[c - 1].opname not in ENDS_FLOW and not self._jumps_beyond(info.exit, c - 1, c):
            # The loop ends an enclosing block (an if body, a try's else part) whose code after it
            # falls into the code after that block: the break's copy is of that code.
            return c
        return None

    def _jumps_beyond(self, start: int, c: int, end: int) -> bool:
        """Does code in [start, c) jump past `c` (but not out of the range)? Then it is no else
        part that ends where the break's exit block starts: the block at `c` is another
        statement, a `return` inside an if after the loop say (`for ...: if a: return` then
        `if b: return`), and the block at the loop's `break` was a return too."""
        return any(c < ins.target <= end for ins in self.instrs[start:c] if ins.target is not None)

    def _inside_later_block(self, after: int, c: int) -> bool:
        """Is `c` inside a statement that starts at or after `after`: the body of a try or with
        (3.8-3.10: SETUP_* up to its handler) or a branch that a jump from there goes past? A copy
        of the function's end there (3.10+ copy it onto every way out) is not where a `break` goes,
        and the loop's else part cannot end there."""
        return any((ins.opname in _BLOCK_SETUPS or ins.is_jump) and ins.target > c
                   for ins in self.instrs[after:c])

    def _inside_later_loop(self, after: int, c: int) -> bool:
        """Is `c` inside the body of a loop that starts at or after `after`? The code after a loop
        (what a `break` copies) is not: the same statement there, such as a `return True`
        inside the next loop, is another statement."""
        return any(after <= h < c <= last for h, last in self.loop_end.items())

    def note_copied_break(self, start: int, end: int) -> None:
        """A `break` of the innermost loop ran the exit block the compiler copied to [start, end)."""
        if self.loops and self.loops[-1].copied_exit is None:
            self.loops[-1].copied_exit = (start, end)

    def _place_copied_exit(self, info: LoopInfo, after: int, closes_range: bool = False) -> None:
        """A loop left only by breaks whose exit block was copied has no code after it: the
        statements after the loop exist only as those copies, so they are read from one.
        `closes_range`: the loop's else part ends the range being read with a return or raise
        (nothing after the loop there but those copies), even where the range is not the function's end."""
        if info.copied_exit is None:
            return
        handler_only = self.handler_only_code()
        if after < len(self.instrs) and not closes_range and (
                after not in handler_only or any(t in handler_only for t in info.continue_targets)):
            # (code after the loop that only handlers reach is no sign of a loop with no code
            # after it when the loop itself is reached only so: the code after a try whose body
            # returns, say)
            return
        start, end = info.copied_exit
        # (a copy in handler code is marked as read once its handler is: read it all the same)
        hidden = {k: self.skip.pop(k) for k in range(start, end) if k in self.skip}
        try:
            stmts = self.run_range(start, end, list(self.stack))
        finally:
            self.skip.update(hidden)
        for stmt in stmts:
            self.emit(stmt)

    def _copy_stands_in(self, copy: Tuple[int, int], start: int, end: int) -> bool:
        """Does the code copied to `copy` stand in [start, end) too?"""
        size = copy[1] - copy[0]
        return any(self._same_code(copy, (c, c + size)) for c in range(start, end - size + 1))

    def _copied_exit_original(self, copy: Tuple[int, int], exit: int) -> Optional[int]:
        """Where the block copied to `copy` stands past the loop's `exit`, as the last code of
        the range being read (the code after the loop, which ends the function); None if it is
        not there, or starts at `exit` itself (then the loop has no else part)."""
        start, end = copy
        size = end - start
        p = self.end - size
        if p <= exit or start >= exit and start < self.end or size <= 0:
            return None
        instrs = self.instrs
        if any(ins.is_jump for ins in instrs[start:end]) or any(instrs[p + d].opname != instrs[start + d].opname
                                                                or repr(instrs[p + d].argval) != repr(instrs[start + d].argval)
                                                                for d in range(size)):
            return None
        if instrs[p - 1].opname in ENDS_FLOW:
            return None  # (the block before must fall into it: the else part's end)
        return p

    def _skip_copy(self, copy: int, original: int) -> None:
        """Mark [copy, ...) as skipped if it repeats the block at `original` up to its return."""
        k = 0
        while copy + k < len(self.instrs) and original + k < copy:
            a, b = self.instrs[original + k], self.instrs[copy + k]
            if a.opname != b.opname or (a.argval != b.argval and not a.is_jump):
                return
            k += 1
            if a.opname in ENDS_FLOW:
                self.skip[copy] = copy + k
                return

    def _bottom_test(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """Where the copy of the test [test_start, test_end) that closes the loop at `j` starts."""
        body = test_end
        test_end = self._chain_test_end(test_start, test_end)
        length = test_end - test_start
        back = self.instrs[j]
        bottom = j - length + 1 if back.opname in COND_JUMPS else j - length
        if bottom >= test_end and self._same_test(test_start, bottom, length):
            return bottom  # (right at the test's end when the body is empty)
        inverted = self._inverted_bottom_test(test_start, test_end, j, body)
        if inverted is not None:
            return inverted
        chained = self._chained_compare_bottom_test(test_start, test_end, j)
        if chained is not None:
            return chained
        return self._bottom_test_with_copied_exits(test_start, test_end, j)

    def _chain_test_end(self, test_start: int, test_end: int) -> int:
        """The end of the tests of a loop test [test_start, test_end) that is a chained comparison:
        3.11 ends it with `JUMP body; POP_TOP; JUMP exit` (the jump into the body, then the
        cleanup of the comparison's middle operand), which the copy at the bottom lays out after
        its jump back instead. Any other test ends where it ends."""
        c = test_end - 3
        instrs = self.instrs
        if c <= test_start or instrs[c - 1].opname not in COND_JUMPS or not self._chain_cleanup(c, test_end):
            return self._chain_test_end_copied_exit(test_start, test_end)
        return c

    def _chain_test_end_copied_exit(self, test_start: int, test_end: int) -> int:
        """3.12+: the chained comparison's cleanup at the end of a loop test [test_start,
        test_end) is `JUMP body; POP_TOP; <copy of the exit block>` (the copy ends the flow,
        e.g. `return x`): where the JUMP is, or `test_end` for any other test."""
        instrs = self.instrs
        if not self.version.conditional_jumps_forward_only:
            return test_end
        last = instrs[test_end - 1]
        if last.opname == "JUMP" and last.target < test_start:
            # `POP_TOP; JUMP back` (the exit is an enclosing loop's head), and then the last
            # comparison's jump when false is `jump-if-true over a JUMP back` too: the test ends
            # with that JUMP back, like the copy at the bottom's jump when false.
            c = test_end - 3
            if c - 2 <= test_start or instrs[c - 1].opname != "JUMP" or instrs[c - 1].target != last.target \
                    or instrs[c - 2].opname != "POP_JUMP_IF_TRUE" or instrs[c - 2].target != c:
                return test_end
            end = c
        elif last.opname in TERMINAL:
            c = next((k for k in range(test_end - 3, test_start, -1)
                      if instrs[k].opname == "JUMP" and instrs[k].target == test_end), None)
            if c is None or instrs[c - 1].opname not in COND_JUMPS:
                return test_end
            end = c
        else:
            return test_end
        if instrs[c].opname != "JUMP" or instrs[c].target != test_end or instrs[c + 1].opname != "POP_TOP" \
                or not self.jump_sources.get(c + 1) or any(src >= c for src in self.jump_sources[c + 1]) \
                or any(self.jump_sources.get(k) or instrs[k].is_jump for k in range(c + 2, test_end - 1)):
            return test_end
        return end if last.opname in TERMINAL else end - 1

    def _chain_cleanup(self, c: int, body: int) -> bool:
        """Is [c, c + 3) `JUMP body; POP_TOP; JUMP` with the POP_TOP reached only by a jump from
        before `c` (a chained comparison's cleanup after its last test)?"""
        instrs = self.instrs
        if c + 2 >= len(instrs):
            return False
        jump, pop, out = instrs[c], instrs[c + 1], instrs[c + 2]
        return jump.opname == "JUMP" and jump.target == body and pop.opname == "POP_TOP" \
            and out.opname == "JUMP" and out.target > c and bool(self.jump_sources.get(c + 1)) \
            and all(src < c for src in self.jump_sources[c + 1])

    def _bottom_chain_cleanup(self, bottom: int, j: int) -> bool:
        """Is the bottom test [bottom, j] a chained comparison followed by `JUMP exit; POP_TOP`
        (the way out when the last comparison is false, which 3.12+ jump to, then the cleanup of
        the middle operand that only the bottom test's earlier comparisons reach)?"""
        instrs = self.instrs
        if j + 2 >= len(instrs):
            return False
        cleanup = self._bottom_chain_copied_exit(bottom, j)
        if cleanup is not None:
            self.skip[cleanup] = cleanup + 1  # (the copy before it is read as the loop's exit)
            return False
        jump, pop = instrs[j + 1], instrs[j + 2]
        if self.version.conditional_jumps_forward_only and j + 3 < len(instrs) and jump.opname == "JUMP" \
                and jump.target < bottom and instrs[j + 3].opname == "JUMP" and instrs[j + 3].target == jump.target \
                and pop.opname == "POP_TOP" and self.jump_sources.get(j + 2) \
                and all(bottom <= src < j for src in self.jump_sources.get(j + 1, []) + self.jump_sources[j + 2]):
            # (3.12+: both ways out go back to an enclosing loop's head: read the last one)
            self.skip[j + 1] = j + 3
            return False
        return jump.opname == "JUMP" and jump.target == j + 3 and pop.opname == "POP_TOP" \
            and bool(self.jump_sources.get(j + 2)) \
            and all(bottom <= src < j for src in self.jump_sources.get(j + 1, []) + self.jump_sources[j + 2])

    def _bottom_chain_copied_exit(self, bottom: int, j: int) -> Optional[int]:
        """3.12+: after a bottom test [bottom, j] that is a chained comparison, the way out when
        the last comparison is false is a copy of the exit block (e.g. `return x`), then the
        POP_TOP that only the bottom test's earlier comparisons reach, then the exit block
        itself. Where that POP_TOP is, or None."""
        instrs = self.instrs
        if not self.version.conditional_jumps_forward_only:
            return None
        p = next((k for k in range(j + 1, min(len(instrs), j + 12)) if instrs[k].opname in TERMINAL), None)
        if p is None:
            return None
        p += 1
        length = p - (j + 1)
        if p + length >= len(instrs) or instrs[p].opname != "POP_TOP" or not self.jump_sources.get(p) \
                or any(not bottom <= src < j for src in self.jump_sources[p]) \
                or any(self.jump_sources.get(k) for k in range(j + 2, p)):
            return None
        for k in range(length):
            a, b = instrs[j + 1 + k], instrs[p + 1 + k]
            if a.opname != b.opname or a.argval != b.argval or a.is_jump:
                return None
        return p

    def _skip_bottom_compare_cleanup(self, bottom: int, j: int) -> None:
        """The POP_TOP after the loop where the earlier jumps of a chained comparison in the bottom
        test go (`_chained_compare_bottom_test`): the exit itself follows it."""
        instrs = self.instrs
        if instrs[j].opname != "POP_JUMP_IF_TRUE":
            return
        # (the first jump of the last chained comparison: the one whose cleanup follows the loop)
        f = next((k for k in range(j - 1, bottom + 2, -1) if instrs[k].opname in COND_JUMPS
                  and instrs[k].target > j and self.chain_compare_start(k - 3)), None)
        if f is None:
            return
        cleanup = instrs[f].target
        if instrs[f].opname != "POP_JUMP_IF_FALSE" or cleanup <= j + 1 or instrs[cleanup].opname != "POP_TOP" \
                or instrs[cleanup - 1].opname not in ENDS_FLOW:
            return
        self.skip[cleanup] = cleanup + 1
        # Where the last comparison is false, the loop is left by a jump to the exit (or to where
        # the jump there goes): the same way out as the cleanup's.
        leave, after = instrs[j + 1], instrs[cleanup + 1] if cleanup + 1 < len(instrs) else None
        if cleanup == j + 2 and leave.opname == "JUMP" and (leave.target == cleanup + 1 or (
                after is not None and after.opname == "JUMP" and after.target == leave.target)):
            self.skip[j + 1] = cleanup + 1

    def _chained_compare_bottom_test(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """3.10: where the bottom copy of a test that ends in a chained comparison starts.

        At the top, the comparison's last jump leaves the loop and a JUMP over the cleanup of its
        earlier jumps (POP_TOP, then maybe a copy of the exit block) enters the body; at the
        bottom the last jump goes back into the body and the cleanup follows the loop's end.
        Without the JUMP and the cleanup, the two are the same test."""
        instrs = self.instrs
        back = instrs[j]
        if not self.version.copies_exit_blocks or back.opname != "POP_JUMP_IF_TRUE" or back.target != test_end:
            return None
        last = next((k for k in range(test_start + 1, test_end) if instrs[k].opname == "JUMP"), None)
        if last is None or instrs[last].target != test_end or instrs[last + 1].opname != "POP_TOP" \
                or instrs[last - 1].opname != "POP_JUMP_IF_FALSE":
            return None
        length = last - test_start
        bottom = j - length + 1
        if bottom < test_end or not self._same_test(test_start, bottom, length):
            return None
        return bottom

    def _bottom_test_with_copied_exits(self, test_start: int, test_end: int, j: int) -> Optional[int]:
        """Where the bottom copy of a test that leaves the loop from the middle of it starts.

        3.10+: when a way out of the copy is not its last jump (`while (a if b else c):`), the
        compiler puts a copy of the small block after the loop at that way out, so the copy is
        longer than the test. Compared without those copies and without the jumps into the body,
        the two read the same instructions with the same number of conditional jumps.
        """
        if not self.version.copies_exit_blocks:
            return None
        exits = {ins.target for ins in self.instrs[test_start:test_end]
                 if ins.target is not None and ins.target > test_end}
        if len(exits) != 1:
            return None
        exit = exits.pop()
        if self.instrs[test_end - 1].opname not in COND_JUMPS and not self._ends_in_cleanup_copy(test_start, test_end, exit):
            return None
        wanted = self._test_tokens(test_start, test_end, test_end, None, cleanup_exit=exit)
        if wanted is None:
            return None
        lowest = max(test_end, j - 4 * (test_end - test_start) - 16)
        # (each token is one instruction or more, and the top test may be the longer: its
        # chained comparisons' cleanups are laid after the loop at the bottom)
        for b in range(j + 1 - len(wanted), lowest - 1, -1):
            if self._test_tokens(b, j + 1, test_end, exit, wanted=wanted) == wanted:
                return b
        return None

    def _ends_in_cleanup_copy(self, start: int, end: int, exit: int) -> bool:
        """Does the loop test [start, end) end in a chained comparison's cleanup (a POP_TOP that
        only the test's jumps reach) followed by a copy of the exit block at `exit` (3.10+: the
        cleanup's JUMP to the exit, when the comparison is false, became that copy)?"""
        for c in range(end - 2, max(start, end - 2 - MAX_COPY) - 1, -1):
            if self._test_cleanup_pop(c, start) and self._exit_copy_length(c + 1, exit, end) == end - c - 1:
                return True
        return False

    def _test_cleanup_pop(self, k: int, start: int) -> bool:
        """Is the POP_TOP at `k` a chained comparison's cleanup in a test starting at `start`:
        reached only by jumps from the test, never by falling into it?"""
        return k > start and self._pop_reached_only_from(k, start, k) and self.instrs[k - 1].opname in ENDS_FLOW

    def _pop_reached_only_from(self, k: int, low: int, high: int) -> bool:
        """Is `k` a POP_TOP that jumps reach, all of them from [low, high)? (The shape of a
        chained comparison's cleanup: the comparison's early exits jump to it with the left-over
        operand on the stack.)"""
        sources = self.jump_sources.get(k)
        return bool(sources) and self.instrs[k].opname == "POP_TOP" and all(low <= src < high for src in sources)

    def _test_tokens(self, start: int, end: int, body: int, exit: Optional[int],
                     cleanup_exit: Optional[int] = None, wanted: Optional[List[object]] = None
                     ) -> Optional[List[object]]:
        """The instructions of a loop test in [start, end) as compared by
        `_bottom_test_with_copied_exits`: conditional jumps as one token whatever their target,
        unconditional jumps into the body left out, and (with `exit`) copies of the block at
        `exit` that follow a jump, and jumps to `exit`, left out. A chained comparison's cleanup
        and the copy of the block at `cleanup_exit` (the top test) or `exit` after it are left
        out: where the comparison ends the test, the bottom copy lays its cleanup after the loop
        and the block after that. With `wanted`, None as soon as the tokens differ from those
        (the caller compares with them: most tries fail at once)."""
        out: List[object] = []
        k = start
        while k < end:
            ins = self.instrs[k]
            cleanup_copy_of = cleanup_exit if cleanup_exit is not None else exit
            if cleanup_copy_of is not None and self._test_cleanup_pop(k, start):
                copy = self._exit_copy_length(k + 1, cleanup_copy_of, end)
                if copy:
                    k += 1 + copy
                    continue
            if ins.opname in COND_JUMPS:
                out.append("jump")
            elif ins.opname == "JUMP":
                if start < ins.target < end:
                    out.append("jump over")  # (over a conditional expression's other arm)
                elif ins.target != body and (exit is None or ins.target != exit):
                    return None  # (a jump to the exit stands for a copy of the block there)
            elif ins.is_jump:
                return None
            else:
                out.append((ins.opname, ins.argval))
            if wanted is not None and out and (len(out) > len(wanted) or out[-1] != wanted[len(out) - 1]):
                return None
            k += 1
            if exit is not None and ins.is_jump:
                k += self._exit_copy_length(k, exit, end)
        return out

    def _exit_copy_length(self, k: int, exit: int, end: int) -> int:
        """The length of a copy at `k` (before `end`) of the block at `exit` that ends the
        function; 0 when there is none."""
        length = 0
        while k + length < end and exit + length < len(self.instrs):
            x, y = self.instrs[exit + length], self.instrs[k + length]
            if x.is_jump or x.opname != y.opname or x.argval != y.argval:
                return 0
            length += 1
            if x.opname in ("RETURN_VALUE", "RAISE_VARARGS"):
                return length
        return 0

    def _inverted_bottom_test(self, test_start: int, test_end: int, j: int, body: int) -> Optional[int]:
        """3.12+: where the bottom copy of the test [test_start, test_end) ending at `j` starts.

        With no backward conditional jump, each jump of the test into the body becomes the
        opposite jump over a JUMP back, and the copy ends with a JUMP back to the body.
        """
        if not self.version.conditional_jumps_forward_only:
            return None
        for b in range(j - 1, test_end, -1):
            if self._matches_inverted_test(test_start, test_end, b, j, body):
                return b
        return None

    def _matches_inverted_test(self, a: int, a_end: int, b: int, j: int, body: int) -> bool:
        """Is [b, j] the bottom copy of the top test [a, a_end) of the loop whose body starts at
        `body`? (`body` is after `a_end` when the top test ends in a chained comparison's
        `JUMP body; POP_TOP; JUMP exit`: `_chain_test_end`.)"""
        instrs = self.instrs
        p, q = a, b
        exits: Set[int] = set()  # (where the top test's jumps leave the loop)
        while p < a_end:
            if p == a_end - 1 and q == j + 1 and self._threaded_exit_of_test(instrs[p], instrs[q]):
                return instrs[j].opname == "JUMP" and instrs[j].target == a_end
            if q >= j:
                return False
            x, y = instrs[p], instrs[q]
            if x.opname in COND_JUMPS and (x.target == body or instrs[x.target].opname == "JUMP"
                                           and instrs[x.target].target == body and x.target < a_end):
                # (3.13 sends a jump of the top test into the body to the JUMP there that ends a
                # conditional expression's first arm: the same way into the body)
                back = instrs[q + 1]
                if OPPOSITE_JUMPS.get(x.opname) != y.opname or y.target != q + 2 or back.opname != "JUMP" \
                        or back.target != body:
                    return False
                p, q = p + 1, q + 2
                continue
            if x.is_jump != y.is_jump or x.opname != y.opname:
                return False
            if x.is_jump:
                if (x.target > a_end or y.target > j) and x.target != y.target \
                        and self._follow_jumps(x.target) != self._follow_jumps(y.target) \
                        and not self._same_exit_block(x.target, y.target) \
                        and not (a_end <= x.target < body and self._bottom_cleanup_pop(y.target, b, j)):
                    # A way out of the loop goes to the same place (or through the JUMP over the
                    # bottom's chained comparison cleanup, right after the loop, to it, or to a
                    # copy of the block there that replaced that JUMP: 3.12+); a jump
                    # to the top's cleanup of a chained comparison goes to the bottom's.
                    return False
            elif x.argval != y.argval:
                return False
            p, q = p + 1, q + 1
            if x.opname == "JUMP" and x.target == body and p < a_end and q < j and exits \
                    and (instrs[p].opname != instrs[q].opname or instrs[p].argval != instrs[q].argval) \
                    and (any(self._same_exit_block(q, e) for e in exits)
                         or instrs[q].opname == "JUMP" and self._follow_jumps(q) in exits):
                # The JUMP into the body that ends a conditional expression's first arm, then in
                # the bottom copy the JUMP out of the loop that ends that arm there, or a copy of
                # the block after the loop in its place (3.12+ copy small exit blocks).
                q += self._exit_block_length(q) if instrs[q].opname != "JUMP" else 1
            if x.is_jump and x.target > body:
                exits.add(x.target)
        return q == j and instrs[j].opname == "JUMP" and instrs[j].target == body

    def _bottom_cleanup_pop(self, k: int, b: int, j: int) -> bool:
        """Is `k`, after the loop's closing jump at `j`, a chained comparison's cleanup in the
        bottom test [b, j]: a POP_TOP that only that test's jumps reach?"""
        return j < k < len(self.instrs) and self._pop_reached_only_from(k, b, j)

    @staticmethod
    def _threaded_exit_of_test(top: Instr, exit: Instr) -> bool:
        """Is `top`, the last instruction of a while loop's top test, a JUMP back to an enclosing
        loop's head, and `exit`, the instruction right after the loop's closing jump, the same
        JUMP? 3.12+: a while loop that ends an enclosing loop's body exits to that loop's head;
        the top test jumps into the body when true and falls into that jump back, and the copy at
        the bottom jumps out to the loop's exit, which is the same jump back."""
        return top.opname == exit.opname == "JUMP" and top.target is not None and top.target < top.index \
            and top.target == exit.target

    def _same_test(self, a: int, b: int, length: int) -> bool:
        for k in range(length):
            x, y = self.instrs[a + k], self.instrs[b + k]
            x_jumps, y_jumps = x.target is not None, y.target is not None  # (`is_jump`, without the call)
            if x_jumps or y_jumps:
                if x_jumps != y_jumps:
                    return False
                continue
            if x.opname != y.opname or x.argval != y.argval:
                return False
        return True

    def for_loop(self, h: int) -> int:
        ins = self.instrs[h]
        iterator = self.pop()
        is_async = False
        if not isinstance(iterator, m.MARKER_TYPES):
            iterator = m.Iterator(iterator)
        if isinstance(iterator, m.Iterator):
            is_async = iterator.is_async
            iterable = iterator.value
        else:
            iterable = iterator
        j = self.loop_end[h]
        exit = ins.target
        # 3.12+ FOR_ITER lands on END_FOR (3.13: END_FOR, POP_TOP).
        real_exit = exit
        while real_exit < len(self.instrs) and self.instrs[real_exit].opname in ("END_FOR",) :
            real_exit += 1
            if self.version.end_for_then_pop_top and real_exit < len(self.instrs) \
                    and self.instrs[real_exit].opname == "POP_TOP":
                real_exit += 1
        # The body runs up to the exit: 3.12+ may place copies of exit blocks after the last jump back.
        last = self.instrs[exit - 1]
        body_end = exit - 1 if last.opname == "JUMP" and last.target == h else max(exit, j + 1)
        body_end = self._before_outside_tail(h, body_end)
        exclude = {h}
        past_exit: Set[int] = set()  # the body's code laid past the loop's exit
        if body_end > exit and self.version.handler_code_at_end:
            # The body runs past the loop's exit (3.12+: a jump back from handler code closes the
            # loop); the code in between that the body never reaches (the code after the loop,
            # an earlier try's handler code) holds no `break`.
            # (a `break` jumps past END_FOR to `real_exit`: what it reaches from there is the
            # code after the loop, not the body's)
            past_exit = self.loop_body_reach(h, exit, real_exit) & set(range(exit, body_end))  # exception_regions
            exclude.update(set(range(exit, body_end)) - past_exit)
        break_target = self._break_target(h + 1, body_end, real_exit, exclude, past_exit)
        info = LoopInfo({h}, break_target, real_exit, body_end)
        info.iterator, info.outer_end = iterator, self.end
        self.loops.append(info)
        self.active_loops.add(h)
        target_marker = m.Sentinel("for-target")
        self.for_targets.append(None)
        # (nor does it run into the loop's exit when a statement ends it by a return: the body's
        # code past the exit is only what the body reaches there)
        hides_exit = bool(past_exit) and exit not in self.skip
        if hides_exit:
            self.skip[exit] = min(past_exit)
        try:
            body = self.run_range(h + 1, body_end, list(self.stack) + [iterator, target_marker])
            target = self.for_targets[-1]
        finally:
            if hides_exit:
                del self.skip[exit]
            self.loops.pop()
            self.active_loops.discard(h)
            self.for_targets.pop()
        if target is None:
            raise self.fail(ins, "for loop without a target")
        # (read: the code after the loop, read next, runs up to it by position)
        self._mark_dead_code({k for k in past_exit if k not in self.skip})  # exception_regions
        _drop_trailing_continue(body)
        if break_target is None and info.copied_exit is not None:
            break_target = self._exit_original(info, *info.copied_exit)
            if break_target is None and self._copy_at_range_end(info, *info.copied_exit):
                # (the breaks ran copies of the code after the range: they skip the rest of it)
                break_target = self.end
        orelse: List[n.Stmt] = []
        after = real_exit
        copies_close_range = False  # the code after the loop exists only as the breaks' copies
        if break_target is not None and break_target > real_exit and break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        elif break_target is not None and real_exit < self.end and self._copy_of_range_end(break_target):
            # (the breaks skip the rest of the range: the else part)
            orelse = self.run_range(real_exit, self.end, list(self.stack))
            after = self.end
        elif real_exit < self.end and (else_end := self._else_end_before_enclosing_continue(
                h + 1, body_end, break_target)) is not None:
            orelse = self.run_range(real_exit, else_end, list(self.stack))
            after = else_end
        elif break_target is None and info.copied_exit is not None and self._else_ends_function(real_exit):
            # Every `break` ran a copy of the code after the loop (3.10+), which exists only as
            # those copies: the code at the loop's exit, which ends the function or the enclosing
            # block (an if body, say) with a return or raise, is its else part.
            orelse = self.run_range(real_exit, self.end, list(self.stack))
            after = self.end
            copies_close_range = True
        after = self.finish_for(n.For(target, iterable, body, orelse, is_async), after)
        self._place_copied_exit(info, after, copies_close_range)
        return after

    def _before_outside_tail(self, h: int, body_end: int) -> int:
        """Where the body of the for loop at `h` ends when code only jumps from before the loop
        reach lies at its end: 3.11 lays a try's handlers inline after the loop's last jump back,
        and the code an enclosing if's false branch jumps to (a copied `return None`) may
        follow them, before the loop's exit. Read in the body, it ends the loop early."""
        instrs = self.instrs
        k = body_end - 1
        while k > h + 1 and not self.jump_sources.get(k) and instrs[k - 1].opname not in ENDS_FLOW:
            k -= 1
        sources = self.jump_sources.get(k, ())
        if k <= h + 1 or not sources or any(src >= h for src in sources) \
                or instrs[k - 1].opname not in ENDS_FLOW \
                or any(instrs[q].target is not None or self.jump_sources.get(q) for q in range(k + 1, body_end)):
            return body_end
        return k

    def _else_ends_function(self, start: int, end: Optional[int] = None) -> bool:
        """Is [start, end) the rest of the range being read (the function, or a block such as
        an if body; `self.end` by default), reached only from `start` on, ending in a return or
        raise? (Then the statements after a loop exiting at `start` can only be copies.)"""
        if end is None:
            end = self.end
        if self.version.handler_code_at_end and end == len(self.instrs):
            handler_code = self.handler_only_code()  # (laid after the function's last statement)
            k = start
            while k < end and k not in handler_code:
                k += 1
            end = k
        if not start < end:
            return False
        if self.instrs[end - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS") \
                and not self._stays_inside(start, end):
            return False
        return all(start <= src for k in range(start + 1, end) for src in self.jump_sources.get(k, ()))

    def _stays_inside(self, start: int, end: int) -> bool:
        """Does the code [start, end), run from `start`, only return or raise, never leaving the
        range? (It ends with a loop left only by returns: `while True:` whose breaks ran copies of
        a return; the last instruction is then the loop's jump back.)"""
        seen: Set[int] = set()
        todo = [start]
        while todo:
            k = todo.pop()
            if k in seen:
                continue
            if not start <= k < end:
                return False
            seen.add(k)
            todo.extend(self._successors(k))  # exception_regions
        return True

    def finish_for(self, loop: n.For, after: int) -> int:
        """Emit a finished for loop, or turn it into the comprehension it implements (3.12+ inlined)."""
        comprehension = self.comprehension_from_loop(loop) if not loop.orelse else None
        if comprehension is not None and comprehension[0] is not None:
            acc, expr = comprehension
            for k in range(len(self.stack) - 1, -1, -1):
                if self.stack[k] is acc:
                    if _inside_outer_clause(self.stack[k + 1:]):
                        break  # a later `for` clause: the outer loop builds the comprehension
                    self.stack[k] = expr
                    return after
        self.emit(loop)
        return after

    # --- chained comparisons ----------------------------------------------------------------

    def chain_compare_start(self, i: int) -> bool:
        instrs = self.instrs
        if i + 2 >= len(instrs):
            return False
        a, b, c = instrs[i], instrs[i + 1], instrs[i + 2]
        if a.opname == "DUP_TOP" and b.opname == "ROT_THREE" and c.opname == "COMPARE_OP":
            return True
        if a.opname == "SWAP" and a.arg == 2 and b.opname == "COPY" and b.arg == 2 and \
                c.opname in ("COMPARE_OP", "IS_OP", "CONTAINS_OP"):
            return True
        if a.opname == "DUP_TOP" and b.opname == "ROT_THREE" and c.opname in ("IS_OP", "CONTAINS_OP"):
            return True
        return False

    def _spill_copied(self, value: n.Expr) -> None:
        """A value used twice is computed once, into a temporary (rewritten code only)."""
        if not isinstance(value, (n.Name, n.Const)) and not isinstance(value, m.MARKER_TYPES):
            self.spill_value(value)

    def op_DUP_TOP(self, ins: Instr, i: int) -> Optional[int]:
        if self.chain_compare_start(i):
            return self.chained_compare(i)
        if self.spill_mode and not self.pure_mode:
            self._spill_copied(self.stack[-1])
        self.stack.append(self.stack[-1])
        return None

    def op_SWAP(self, ins: Instr, i: int) -> Optional[int]:
        if ins.arg == 2 and self.chain_compare_start(i):
            return self.chained_compare(i)
        if ins.arg in (2, 3) and self.parallel_assignment(i + 1, ins.arg):
            return None
        s = self.stack
        s[-1], s[-ins.arg] = s[-ins.arg], s[-1]
        return None

    def _compare_parts(self, ins: Instr) -> str:
        if ins.opname == "IS_OP":
            return "is not" if ins.flag else "is"
        if ins.opname == "CONTAINS_OP":
            return "not in" if ins.flag else "in"
        return ins.argval

    def _falls_like_cleanup(self, k: int, cleanup: int) -> bool:
        """Does the code after the jump at `k` (up to a return or raise) repeat the code after
        a chained comparison's cleanup at `cleanup` (its POP_TOP): is falling through there
        where the chain goes when false?"""
        instrs = self.instrs
        if k + 1 < len(instrs) and instrs[k + 1].opname == "JUMP" and instrs[k + 1].target == cleanup + 1:
            return True  # (3.11 jumps there instead)
        r = k + 1
        while r < len(instrs) and r < k + 8 and instrs[r].target is None and instrs[r].opname not in TERMINAL:
            r += 1
        if r >= len(instrs) or instrs[r].opname not in TERMINAL or cleanup + 1 + r - k > len(instrs):
            return False
        return self._same_instructions(k + 1, cleanup + 1, r - k)

    def chained_compare(self, i: int) -> int:
        instrs = self.instrs
        right = self.pop()
        left = self.pop()
        ops = [self._compare_parts(instrs[i + 2])]
        comparators = [right]
        k = i + 3
        cleanup: Optional[int] = None
        while True:
            j = instrs[k]
            if j.opname == "COPY" and j.arg == 1:
                self.chain_compare_jumps.add(k)
                k += 1
                if instrs[k].opname == "TO_BOOL":
                    k += 1
                jump = instrs[k]
                k += 2  # the jump and its POP_TOP
            else:
                jump = j
                k += 1
            if jump.opname not in ("JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE"):
                raise self.fail(jump, "unrecognised chained comparison")
            cleanup = jump.target
            fused = instrs[k]
            if fused.opname in ("POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE"):
                # 3.11+: `... is None` last, its comparison fused into the jump. Read as the
                # chain's own jump when false, which it is unless the code it falls into is
                # that after the cleanup, where an earlier comparison that fails goes: then it
                # is the jump when the chain holds (`assert a is b is not None`).
                comparators.append(n.Const(None))
                when_true = self._falls_like_cleanup(k, cleanup)
                ops.append("is" if (fused.opname == "POP_JUMP_IF_NOT_NONE") != when_true else "is not")
                self.redirect(k, opname="POP_JUMP_IF_TRUE" if when_true else "POP_JUMP_IF_FALSE")
                break
            # The next operand, up to its comparison.
            saved, expr_start = self.stack, self.expr_start
            self.stack = list(saved)
            base = len(self.stack)
            self.pure_mode += 1
            try:
                p = k
                while not (instrs[p].opname in ("COMPARE_OP", "IS_OP", "CONTAINS_OP") and len(self.stack) == base + 1) \
                        and not self.chain_compare_start(p):
                    p = self.step(p)
                operand = self.stack[-1]
            finally:
                self.pure_mode -= 1
                # (the operand starts from the stack the chain's own start had: the chain's value
                # began there, not at the operand)
                self.stack, self.expr_start = saved, expr_start
            comparators.append(operand)
            if self.chain_compare_start(p):
                ops.append(self._compare_parts(instrs[p + 2]))
                k = p + 3
                continue
            ops.append(self._compare_parts(instrs[p]))
            k = p + 1
            break
        expr = n.Compare(left, ops, comparators)
        self.stack.append(expr)
        after = instrs[k] if k < len(instrs) else None
        assert cleanup is not None
        if after is not None and after.opname == "JUMP" and after.target > k and cleanup == k + 1:
            nxt_jump = instrs[cleanup + 2] if cleanup + 2 < len(instrs) else None
            if self.end == cleanup + 2 and nxt_jump is not None and nxt_jump.opname == "JUMP" \
                    and nxt_jump.target == after.target:
                # The chain ends the first arm of a conditional expression (`(a < b < c) if d
                # else e`, 3.8/3.9/3.11): its jump over the cleanup went to the arm's own JUMP
                # over the other arm, right after the cleanup, and was threaded on to where that
                # one goes. The arm ends at that JUMP, the end of the range being read.
                return self.end
            length = self.end - (cleanup + 2)
            if 0 < length <= 8 and after.target + length <= len(instrs) \
                    and instrs[self.end - 1].opname == "RETURN_VALUE" \
                    and self._same_test(cleanup + 2, after.target, length):
                # ... or that JUMP became a copy of the block it went to, which ends the function
                # (3.8/3.9 a bare return, `return b or (a < b < c if d else e)`).
                return cleanup + 2
            return after.target  # value form: skip the cleanup
        if after is not None and after.opname in COND_JUMPS:
            nxt = instrs[k + 1] if k + 1 < len(instrs) else None
            branch_end = self._compare_ends_branch(k, cleanup)
            if branch_end is not None:
                # The chain ends the first branch of a conditional expression used as a test
                # (`if (0 < a < 2 if c else b) or d:`): the JUMP after it goes over the other
                # branch, and the cleanup leaves by its own JUMP (its false way). The JUMP stays
                # for the condition chain to read as that branch's end; the cleanup is skipped.
                self.skip[cleanup] = branch_end
            elif nxt is not None and nxt.opname == "JUMP" and nxt.target > k + 1 and cleanup == k + 2:
                self.fall_override[k] = nxt.target
                self.skip[k + 1] = nxt.target
            elif after.opname == "POP_JUMP_IF_TRUE" and after.target > k and self._copied_jump_over_cleanup(k, cleanup):
                # The same when that JUMP over the cleanup (a lone POP_TOP: a test that jumps when
                # true falls from its cleanup into where the chain goes on) became a copy of the
                # small exit block it went to (3.10, 3.12+), right before the cleanup and the block.
                # (Not a loop's bottom test, which jumps back: `_bottom_chain_copied_exit`.)
                self.fall_override[k] = cleanup + 1
                self.skip[k + 1] = cleanup + 1
            else:
                over = instrs[k + 2] if k + 2 < len(instrs) else None
                false_dest = k + 1 if after.opname == "POP_JUMP_IF_TRUE" else after.target
                if after.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE") and after.target == k + 2 \
                        and nxt is not None and nxt.opname == "JUMP" and nxt.target < k and over is not None \
                        and over.opname == "JUMP" and cleanup == k + 3 \
                        and (over.target > cleanup if after.opname == "POP_JUMP_IF_TRUE" else over.target == cleanup + 1):
                    # 3.12+ spell a backward jump-if-false as a jump over a JUMP back; the jump
                    # over the cleanup then follows that pair. A jump-if-false over the JUMP back
                    # (the chain's true way goes back: `not (a < b < c)` as a comprehension's
                    # filter) is a backward jump-if-true: the JUMP after the pair goes where a
                    # false chain goes, where the cleanup falls into.
                    self.skip[k + 2] = over.target
                    self.fall_override[k + 1] = over.target  # (read by `_normalised_atom`)
                    if after.opname == "POP_JUMP_IF_FALSE":
                        false_dest = over.target
                self.skip[cleanup] = cleanup + 1
                # 3.10+ may follow the cleanup with a copy of where a false comparison goes
                # (a `raise` or `return` block) instead of a jump there: the text has it once.
                copy = cleanup + 1
                if false_dest is not None and not self.jump_sources.get(copy) and false_dest < copy:
                    self._skip_copy(copy, false_dest)
                elif false_dest is not None and not self.jump_sources.get(copy) and false_dest > copy \
                        and self.instrs[false_dest - 1].opname in ENDS_FLOW \
                        and self._same_test(copy, false_dest, false_dest - copy):
                    self.skip[copy] = false_dest  # (the copy right before the block it repeats)
            return k
        copied = self._copied_return_tail(k, cleanup)
        if copied and self.jump_sources.get(cleanup + 2) and cleanup + 2 <= self.end:
            # The chain ends a value whose other ways join at the block after the cleanup (`x = d
            # and (a < b < c)`, `return b or (d if d else a < b < c)`): the jump over the cleanup
            # to that join became a copy of it (3.10+; 3.8/3.9 a bare return). Going to the join
            # is the same code; the value ends there, like the other ways into it.
            return cleanup + 2
        if copied and cleanup + 2 + copied == self.end:
            # The same when the copy after the cleanup ends the range being read: the chain ends
            # the first arm of a conditional expression whose way out (its jump to the join) was
            # copied too (`return b or (a < b < c if d else e)`): the arm ends at that copy.
            return cleanup + 2
        if copied:
            # 3.10+ copies a short tail that returns into the cleanup path: the text has it once.
            self.skip[cleanup] = cleanup + 2 + copied
            return k
        self.skip[cleanup] = cleanup + 2
        return k

    def _compare_ends_branch(self, k: int, cleanup: int) -> Optional[int]:
        """Where the code after the cleanup at `cleanup` starts, when the chained comparison
        whose last jump is at `k` ends the first branch of a conditional expression used as a
        test: right after the jump comes the branch's way on (a JUMP over the other branch, or
        3.10+ a copy of the block it reached), then the cleanup, whose way out is a JUMP to where
        a false comparison goes (or a copy of that block), then the other branch, which an
        earlier test jumps to. 3.8/3.9 leave the JUMP they threaded to its target after it."""
        instrs = self.instrs
        after, on = instrs[k], k + 1
        if cleanup <= on or after.opname not in COND_JUMPS or cleanup + 2 >= len(instrs):
            return None
        false_dest = on if after.opname == "POP_JUMP_IF_TRUE" else after.target
        back = instrs[on]
        if self.version.conditional_jumps_forward_only and after.opname == "POP_JUMP_IF_TRUE" \
                and after.target == on + 1 and back.opname == "JUMP" and back.target < k \
                and not self.jump_sources.get(on) and cleanup == on + 2:
            # 3.12+ spell a backward jump-if-false (the chain's false way in a loop, a
            # comprehension's filter: back to the loop's head) as a jump-if-true over a JUMP back;
            # the branch's way on follows that pair (`_normalised_atom` reads the pair as one).
            false_dest, on = back.target, on + 1
        way_on = instrs[on]
        if way_on.opname == "JUMP" and cleanup == on + 1:
            branch_target = way_on.target
            if false_dest == on:
                false_dest = branch_target
        elif self.version.copies_exit_blocks and after.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") \
                and self._exit_block_length(on) and on + self._exit_block_length(on) == cleanup:
            # (`_copied_branch_exit` finds the block it copies. A test that jumps when true, as an
            # assert's, falls when false into the JUMP over its cleanup: a copy of where the
            # branch goes when false, a small exit block, the `raise`, which the cleanup reaches
            # through the branch's own JUMP after it, to another copy of that block: 3.13)
            branch_target = None
        else:
            return None
        if instrs[cleanup + 1].opname == "JUMP":
            out = instrs[cleanup + 1].target
            if out != false_dest and self._follow_jumps(out) != self._follow_jumps(false_dest) \
                    and not (after.opname == "POP_JUMP_IF_TRUE" and self._same_exit_block(out, false_dest)):
                # (3.8/3.9 may thread the cleanup's JUMP one step further, or each of the two
                # one step through a different JUMP of the chain of JUMPs out of nested
                # conditional expressions: where they end up is the same)
                return None
            end = cleanup + 2
        else:
            length = self._exit_block_length(cleanup + 1) if self.version.copies_exit_blocks else 0
            if not length or false_dest <= cleanup + 1 or not self._same_test(cleanup + 1, false_dest, length) \
                    or instrs[false_dest + length - 1].opname not in TERMINAL:
                return None
            end = cleanup + 1 + length
        if instrs[end].opname == "JUMP" and not self.jump_sources.get(end) and self.version.threads_jumps_once:
            end += 1  # (the JUMP threaded through: dead)
        sources = self.jump_sources.get(end, ())
        if not sources or any(src >= k for src in sources):
            return None
        if branch_target is not None and branch_target <= end:
            return None
        return end

    def _copied_jump_over_cleanup(self, k: int, cleanup: int) -> bool:
        """3.10/3.12+: is the code between the chained comparison's last jump at `k` and its
        cleanup (a lone POP_TOP at `cleanup`) a copy of the small exit block the cleanup falls
        into, standing for the JUMP over the cleanup to it?"""
        length = cleanup - (k + 1)
        if not self.version.copies_exit_blocks or length <= 0 or self.jump_sources.get(k + 1) \
                or self._exit_block_length(k + 1) != length or cleanup + 1 + length > len(self.instrs):
            return False
        return self._exit_block_length(cleanup + 1) == length and self._same_test(k + 1, cleanup + 1, length)

    def _exit_block_length(self, start: int) -> int:
        """The length of the small block at `start` that ends in a return or raise with no jump
        on the way and no jump into it after its start (what 3.10+ copy), else 0."""
        for length in range(1, MAX_COPY + 2):
            k = start + length - 1
            if k >= len(self.instrs) or self.instrs[k].is_jump or (length > 1 and self.jump_sources.get(k)):
                return 0
            if self.instrs[k].opname in TERMINAL:
                return length
        return 0

    def _copied_return_tail(self, start: int, cleanup: int) -> int:
        """The length of [start, cleanup) when it ends in a return and the chain's cleanup (two
        instructions at `cleanup`) is followed by a copy of it; else 0."""
        length = cleanup - start
        end = cleanup + 2 + length
        if length <= 0 or end > len(self.instrs) or self.instrs[cleanup - 1].opname != "RETURN_VALUE":
            return 0
        return length if self._same_test(start, cleanup + 2, length) else 0


def _inside_outer_clause(above_accumulator: List[n.Expr]) -> bool:
    """Does a loop iterator sit above a comprehension's accumulator on the stack?

    Then the loop being finished is a later `for` clause of that comprehension, nested in the
    loop of an earlier clause, and not the whole comprehension.
    """
    return any(isinstance(v, m.Iterator) for v in above_accumulator)
