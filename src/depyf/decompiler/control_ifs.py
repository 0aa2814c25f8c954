"""`if` statements: a conditional jump's body and else part, where they end and join, and the
compiler's copies of the blocks they share.
"""
from typing import List, NamedTuple, Optional, Set

from depyf.decompiler import borrows
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.graph.breaks import stray_break
from depyf.decompiler.structure.if_regions import break_skipping_code, if_region, in_exact_else_part, \
    skipping_jumps
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS, IfTest, LoopInfo, StatementsInValue, _may_complete


class _ElseJump(NamedTuple):
    """The jump that ends an if body over its else part, as `_else_jump` reads it."""
    last_at: int  # the body's last instruction before the false target (past 3.11's inline handler code)
    last: Optional[Instr]  # that instruction, None when the body is only the test's own jump
    else_end: Optional[int]  # where the else part ends; None when no jump over an else part ends the body
    continue_ends_body: bool  # the jump back is an inner if's `continue`, read as part of the body
    past_join: bool  # the jump goes past where the enclosing if statement goes on (a copied way out)
    empty_else: bool  # 3.8/3.9: the jump over an empty `else: pass`


def _never_back_loop(head: int, exit: int) -> LoopInfo:
    """The `while` loop around code that never jumps back to `head`: its `break`s go to `exit`,
    and so does running off the body's end."""
    info = LoopInfo({head}, exit, exit, exit, natural_end=-1)
    info.is_while = True
    info.falls_off_to_exit = True
    return info


class ControlIfs:
    """`if` statements; mixed into `control.ControlRules`."""

    def _test_after_empty_block(self, test_start: int, i: int) -> bool:
        """3.14: was the test [test_start, i] written `__debug__ and test`? The compiler folds
        `__debug__` away but leaves its empty block where the test starts, and the borrow pass
        stops there (`borrows.py`): the test's loads are plain where the code that leads to it
        was walked (an assert's jump over its raise, a while loop's exit, the test of an if
        whose body it starts, an if statement's parts that join there). Not where the test
        starts the code after a try statement, whose body's end leaves such a block too (a jump
        out of a try body, the end of its else part), nor after a `while True:` loop's `break`,
        nor in code that only handlers reach."""
        instrs = self.instrs
        if not self.version.borrows_stop_at_empty_blocks or not 0 < test_start < i \
                or len(self.stack) != self.base_depth:
            return False  # (a statement's test, not a value's)
        sources = list(self.jump_sources.get(test_start, ()))
        falls_in = instrs[test_start - 1].opname not in ENDS_FLOW
        if falls_in:
            # (an enclosing test's body starts there, or an if statement's else part, whose if
            # part jumps there, falls into it; not the else part or the code after a try)
            sources.append(test_start - 1)
            if instrs[test_start - 1].opname not in COND_JUMPS and (
                    not any(instrs[src].opname == "JUMP" for src in sources) or self._straight_from_try(test_start)):
                return False
        if not sources or any(src >= test_start or instrs[src].opname not in COND_JUMPS
                              and not (instrs[src].opname == "JUMP" or src == test_start - 1) for src in sources):
            return False
        if any(instrs[src].opname == "JUMP" and self._straight_from_try(src) for src in sources):
            return False
        if test_start in self.handler_only_code() \
                or any(r.end == test_start or r.start == test_start for r in self.bc.regions):
            return False
        if borrows.block_was_walked(self.code, self.version, instrs, test_start, i + 1, self.jump_sources) is not False:
            return False
        regions = self.bc.regions

        def handlers_at(k: int) -> Set[int]:
            return {r.handler for r in regions if r.start <= k < r.end}

        return all(self._block_has_borrowed_load(src) and self._jump_in_from_before(src, test_start)
                   and handlers_at(src) <= handlers_at(test_start)
                   for src in sources)

    def _straight_from_try(self, k: int) -> bool:
        """Does straight code (no jump target, jump or return) run from where a protected range
        starts or ends up to `k`? (The else part of a try, or the code after it: 3.14 ends a
        block there that no instruction shows.)"""
        instrs = self.instrs
        bounds = {r.start for r in self.bc.regions} | {r.end for r in self.bc.regions}
        j = k - 1
        while j >= 0:
            if j + 1 in bounds:
                return True
            if j + 1 in self.jump_sources or instrs[j].target is not None or instrs[j].opname in TERMINAL:
                return False
            j -= 1
        return False

    def _block_has_borrowed_load(self, k: int) -> bool:
        """Was the block of the test that jumps at `k` walked by 3.14's borrow pass, as its local
        load nearest to `k` tells (borrowed)? None before `k` up to a jump target, a jump or a
        return, or where a protected range starts or ends: nothing tells. (Blocks may also end
        where no instruction shows it, after a try's else part: only the test's own load counts.)"""
        instrs = self.instrs
        bounds = {r.start for r in self.bc.regions} | {r.end for r in self.bc.regions}
        j = k - 1
        while j >= 0 and not (instrs[j].opname == "LOAD_FAST" and borrows.is_candidate(self.code, self.version, instrs[j])):
            if j in self.jump_sources or j in bounds or instrs[j].target is not None or instrs[j].opname in TERMINAL:
                return False
            j -= 1
        return j >= 0 and borrows.is_borrowed(self.code, self.version, instrs[j])

    def _jump_in_from_before(self, src: int, k: int) -> bool:
        """Does the jump at `src` to `k` lead from the code before `k` itself: no loop that `k`
        follows holds it, but as that loop's test at the top (a while loop's exit)? (A `break`
        of a `while True:` loop leads to code the borrow pass never reaches.)"""
        instrs = self.instrs
        backs = [b for b in range(src + 1, k) if instrs[b].target is not None and instrs[b].target <= src]
        if not backs:
            return True
        if backs != [k - 1]:
            return False
        head = instrs[k - 1].target
        if src == k - 2 and k - 1 not in self.jump_sources and head - 1 in self.jump_sources.get(k, ()):
            return True  # (the test's copy at the bottom, whose jump back skips the test at the top)
        _, test_end = borrows.first_statement(self.code, self.version, instrs, head, src + 1, self.jump_sources)
        return test_end == src + 1

    def _written_apart(self, a: int, b: int) -> bool:
        """Do the blocks at `a` and `b` have different lines, one of them its own? 3.12+ copy
        an exit block that has a line with that line; one without (an implicit `return None`,
        the only kind 3.10/3.11 copy) takes the line of what comes before each copy, so only a
        line that no predecessor of the block has is the block's own. A block with a line of its
        own and one with another line are no copies of one block: every copy of the first has
        its line (a written `return` beside the implicit one that a test jumps to)."""
        positions = self.bc.graph.positions
        line_a, line_b = positions.line_at(self.instrs[a].offset), positions.line_at(self.instrs[b].offset)
        if line_a is None or line_b is None or line_a == line_b:
            return False
        return not self._line_inherited(a, line_a) or not self._line_inherited(b, line_b)

    def _line_inherited(self, k: int, line: int) -> bool:
        positions, instrs = self.bc.graph.positions, self.instrs
        before = [k - 1] if k > 0 and instrs[k - 1].opname not in TERMINAL else []
        return any(positions.line_at(instrs[j].offset) == line
                   for j in before + list(self.jump_sources.get(k, ())))

    def op_POP_JUMP_IF_FALSE(self, ins: Instr, i: int) -> int:
        test_start = self.expr_start
        value = self.pop()
        if self.spill_mode and not self.pure_mode and self._live_values():
            self.spill_stack()  # values that outlive the branch are computed before it
        threaded = self._threaded_boolean(ins, i, value)
        if threaded is not None:
            return threaded
        test = self._if_test(ins, i, test_start, value)
        chained = self._chain_then_value_jump(test.cond, test.fall, test.false_target)
        if chained is not None:
            return chained
        join = self._join_a_break_reaches(test)
        if join is not None:
            return self._never_back_while_around(test, join)
        return self._read_if(test)

    def _read_if(self, test: IfTest) -> int:
        """The if statement (or while loop, assert, conditional value) that `test` begins, read
        and emitted; where the reading goes on."""
        ins, i, test_start = test.ins, test.i, test.test_start
        fall, false_target, loop = test.fall, test.false_target, test.loop
        # 3.10+: the test in front of a while loop whose body starts right here (its exit may be
        # the head of an enclosing loop).
        if fall in self.loop_end and fall not in self.active_loops and self.version.while_condition_duplicated \
                and (false_target > i or loop is not None):
            if self._bottom_test(test_start, fall, self.loop_end[fall]) is not None:
                return self.while_loop(fall, test.cond, false_target, top_test=(test_start, fall))
        if self._test_leaves_loop(test):
            return self._if_leaving_loop(test)
        if false_target <= i and self.tail_ways_on.get(self.end) == false_target and test.end == self.end:
            # 3.12+: code that only handlers reach, moved past the range it ends (`_handler_only_tail`),
            # leaves by jumps back to where that range goes on: such a test's false branch falls
            # out of the code being read, as the rest of the range
            test = test._replace(false_target=test.end)
        if test.false_target <= i:
            raise self.fail(ins, "backward conditional jump outside a loop")
        if test.false_target > test.end:
            return self._if_past_range(test)
        jump = self._else_jump(test)
        if jump.past_join:
            return self._if_with_copied_way_out(test, jump)
        if jump.empty_else:
            # 3.8/3.9 keep the jump over an empty `else: pass` (later versions drop it).
            body = self.run_range(test.fall, test.false_target - 1, list(self.stack))
            self.emit(n.If(test.cond, body or [n.Pass()], [n.Pass()]))
            return test.false_target
        if jump.else_end is None and jump.last is not None and jump.last_at == test.false_target - 1 \
                and not self.pure_mode:
            # (an if statement, never part of a value being read)
            threaded_end = self._if_threaded_else(test)
            if threaded_end is not None:
                return threaded_end
        if jump.else_end is not None:
            return self._if_else(test, jump)
        return self._if_without_else_jump(test, jump)

    op_POP_JUMP_IF_TRUE = op_POP_JUMP_IF_NONE = op_POP_JUMP_IF_NOT_NONE = op_POP_JUMP_IF_FALSE

    def _if_test(self, ins: Instr, i: int, test_start: int, value: n.Expr) -> IfTest:
        """The test of the if statement whose (last) conditional jump is `ins` at `i`, with its
        whole chain of and/or jumps read (`condition_chain`). 3.14 folds a `__debug__ and` in front
        of it away, leaving only an empty block where the test starts (`_test_after_empty_block`)."""
        loop = self.loops[-1] if self.loops else None
        cond, fall, false_target, _ = self.condition_chain(i, value)
        if self._test_after_empty_block(test_start, i):
            cond = n.BoolOp("and", [n.Name("__debug__"), cond])
        return IfTest(ins, i, test_start, cond, fall, false_target, self.end, loop)

    def _test_leaves_loop(self, test: IfTest) -> bool:
        """Does the test's false branch leave the innermost loop or go back to its head (`if ...:
        break/continue`), rather than to an else part or the code after the if inside the body?"""
        loop, false_target, fall, end = test.loop, test.false_target, test.fall, test.end
        leaves = loop is not None and (false_target in loop.continue_targets or self._is_break_target(loop, false_target)
                                       or self._past_loop(loop, test.i, false_target)
                                       or self._continues_outer_loop(false_target))
        return leaves and not (fall < false_target < end or (false_target == end and end < loop.exit))

    def _if_past_range(self, test: IfTest) -> int:
        """`if test: ...` (or an assert) ending the range being read, whose false branch goes past
        the range's end: an assert that ends an enclosing block jumps to where that block goes."""
        cond, fall, false_target, end = test.cond, test.fall, test.false_target, test.end
        body = self.run_range(fall, end, list(self.stack))
        stmt = self._if_or_assert(cond, body)
        if not isinstance(stmt, n.Assert) and self._end_before_join(false_target, test.i) is None \
                and not (end < len(self.instrs) and self._same_exit_block(end, false_target, reraise=True)) \
                and (not body or not self.loops and not self._goes_on_past(false_target, strict=True)
                     and not self._same_reraise(end - 1, false_target)):
            # (a false branch that skips more than the rest of the range: the test's jump
            # goes on past where the range goes, which `if t: ...` would lose; unless it goes
            # to a copy of the block where the range goes on, 3.10+. With a body, only outside
            # loops: inside one such a jump may be a `continue` or `break` spelled through
            # the loop's own jumps, which the loop rules read)
            raise self.fail(test.ins, "conditional jump past the end of the enclosing block")
        if isinstance(stmt, n.Assert):
            # That is the block's way on, not `end`: an enclosing if whose false target is
            # `end` has an else part there (`assert (x if b else y)` read as `if b: assert x`
            # `else: assert y`; 3.10+ lay no jump over it after the raise).
            self.range_falls_to.setdefault(end, false_target)
        self.emit(stmt)
        return end

    def _else_jump(self, test: IfTest) -> _ElseJump:
        """The jump that ends the if body, right before the false target, read for the else part
        it jumps over: a JUMP past the false target (3.11 lays inline handler code in between,
        `last_normal_index` skips it); the jump back to the loop's head that ends the loop body
        before the rest of it, which is the else part; 3.8/3.9's jump over an empty `else: pass`."""
        i, fall, false_target, end, loop = test.i, test.fall, test.false_target, test.end, test.loop
        last_at = self.last_normal_index(i, false_target)  # exception_table: skip inline handler code
        last = self.instrs[last_at] if last_at > i else None
        if last is not None and last.opname == "JUMP" and not self.end >= last.target >= false_target \
                and self._stray_handler_exit(last, false_target):
            raise self.fail(last, "break or continue of a loop that never jumps back")
        jump = _ElseJump(last_at, last, None, False, False, False)
        if last is None or last.opname != "JUMP":
            return jump
        if last.target > false_target and not (loop is not None and self._is_break_target(loop, last.target)
                                                and not self._jump_to_last_break_line(last, loop)):
            if loop is not None and last.target > end and end == loop.body_end \
                    and last.target != loop.break_target and self._past_loop(loop, last.index, last.target) \
                    and not self.version.threads_jumps_once:
                # A jump out of the loop's body past its exit that is no `break` (to the exit this
                # reading of the loop found): read as the jump over an else part up to the body's
                # end, the if body would fall into the next iteration instead of leaving (a
                # `while True` read where the loop's test at the bottom was not, 3.10+).
                raise self.fail(last, "jump out of the loop past its exit")
            if self._jumps_to_return_in_view(last.target, false_target, end):
                return jump._replace(else_end=end - 1)
            past_join = not self.pure_mode and not self._goes_on_past(last.target, at=last.index)
            return jump._replace(else_end=min(last.target, end), past_join=past_join)
        if loop is not None and last.target in loop.continue_targets and end == loop.body_end \
                and last.index != end - 1 and last.index > fall \
                and all(src < fall for src in self.jump_sources.get(false_target, ())) \
                and not self._explicit_continue(last, end) \
                and not (loop.is_while and self.version.while_back_jump_has_line):
            # (the rest of the loop body is an else part only if nothing else in the body goes there:
            # a `continue` ending an inner if sends that if's false branch to it too)
            else_end = self._join_after_else(fall, false_target - 1, false_target, end)
            # (read as part of the body: an inner if's continue)
            return jump._replace(else_end=else_end, continue_ends_body=else_end != end)
        if last.target == false_target and last_at == false_target - 1:
            return jump._replace(empty_else=True)
        return jump

    def _if_with_copied_way_out(self, test: IfTest, jump: _ElseJump) -> int:
        """An if whose body jumps over its else part past where the enclosing if statement goes
        on: only a straight block that returns or raises may be its way out (`_terminal_block_copy`,
        3.11+), written out at the body's end."""
        last = jump.last
        copy = self._terminal_block_copy(last.index, last.target) if last.index == test.false_target - 1 else None
        if copy is None:
            raise self.fail(last, "jump over an else part past where the enclosing if statement goes on")
        # (the body's way out is that block: written out at the body's end, the if
        # statement has no jump over its else part, which runs up to the range's end)
        body = self.run_range(test.fall, last.index, list(self.stack)) + copy
        orelse = self.run_range(test.false_target, test.end, list(self.stack))
        self.emit(n.If(test.cond, body, orelse))
        return test.end

    def _if_threaded_else(self, test: IfTest) -> Optional[int]:
        """An if whose body ends in a jump to a jump over an else part (`_threaded_else_end`): the
        else part runs up to where that jump goes, or to the loop's bottom test it jumps to."""
        fall, false_target = test.fall, test.false_target
        threaded = self._threaded_else_end(fall, false_target, test.end, test.loop)
        if threaded is None:
            return None
        body = self.run_range(fall, false_target, list(self.stack))
        closing = self._else_jump_to_bottom_test(fall, false_target, threaded, test.loop)
        orelse = self.run_range(false_target, threaded if closing is None else closing, list(self.stack))
        self.emit(n.If(test.cond, body, orelse))
        return threaded if closing is None else closing + 1

    def _if_else(self, test: IfTest, jump: _ElseJump) -> int:
        """`if test: ... else: ...` whose body's last jump goes over the else part up to
        `jump.else_end` (or a value's two branches, `a if test else b`)."""
        cond, fall, false_target, end, loop = test.cond, test.fall, test.false_target, test.end, test.loop
        last, else_end = jump.last, jump.else_end
        if last is not None and last.target == else_end:
            merged = self._value_then_copied_tail(cond, fall, false_target, else_end)
            if merged is not None:
                return merged
        value_if = self.try_value_branches(cond, fall, false_target - 1, false_target, else_end)
        if value_if is not None:
            self.stack.append(value_if)
            return else_end
        if self.pure_mode:
            # Read as statements, the if would only be emitted, which fails a value's reading.
            # Failing now keeps nested ifs from being read twice at each level (2**depth).
            raise StatementsInValue()
        body = self.run_range(fall, false_target if jump.continue_ends_body else false_target - 1, list(self.stack))
        if loop is not None and else_end == end and self.version.threads_jumps_once and body \
                and isinstance(body[-1], n.If) \
                and not body[-1].orelse and self.instrs[false_target - 1].target in loop.continue_targets \
                and self._jumps_stay_in_loop_body(fall, false_target - 1, loop):
            # `if t: ...; if u: ...; continue` and more of the loop body: u's false branch goes
            # straight to the loop's head. Written as an else part, it would stop at the jump
            # over it (that of an else part reaches the loop's closing jump instead).
            self.emit(n.If(cond, body + [n.Continue()], []))
            return false_target
        if self._dead_jump(false_target - 1):
            # 3.8/3.9 keep the jump over the else part after a body that cannot fall through
            # only when the body's last statement was compound: `if b: return x else: ...`.
            fold_tail_into_else(body)
        orelse = self.run_range(false_target, else_end, list(self.stack))
        if self.instrs[false_target - 1].target in (loop.continue_targets if loop else ()) and else_end != end \
                and not jump.continue_ends_body:
            body.append(n.Continue())
        self.emit(n.If(cond, body, orelse))
        if last.target > end and else_end == end:
            # The body's jump over the else part goes past the range: the if statement, the
            # range's last, goes on there. An enclosing if whose false target is `end` has an
            # else part there (3.13 places the original of a copied `return x` after a
            # middle else part: `if a: (if b: x = 0 / else: x = 1)` / `else: x = 2` then
            # `return x`, each other branch with its copy).
            self.range_falls_to.setdefault(end, last.target)
        return else_end

    def _if_without_else_jump(self, test: IfTest, jump: _ElseJump) -> int:
        """An if whose body ends in no jump over an else part: `if test: ...`, unless the body's
        way on skips the code at the false target, which is then the else part
        (`_else_up_to_body_join`, `_else_past_body_exit`)."""
        cond, fall, false_target, end = test.cond, test.fall, test.false_target, test.end
        merged = self._value_before_copied_exit(cond, fall, false_target)
        if merged is not None:
            return merged
        merged = self._constant_arms_before_copied_exit(cond, fall, false_target)
        if merged is not None:
            return merged
        # (the common case, a body that may run off its end, is no loop's; nor is one whose
        # false target only the test jumps to)
        if self.instrs[false_target - 1].opname in ENDS_FLOW and not self.pure_mode \
                and len(self.jump_sources.get(false_target, ())) > 1:
            stray = stray_break(self.graph, fall, false_target, self.jump_sources)
            if stray is not None:
                return self._never_back_while(cond, test.test_start, fall, false_target, stray)
        body = self.run_range(fall, false_target, list(self.stack))
        else_end = self._else_up_to_body_join(test, body)
        if else_end is None:
            else_end = self._else_past_body_exit(test, body, jump.last_at)
        if else_end is not None:
            return else_end
        copy = self._copied_fall_out_past_range(fall, false_target, end)
        if copy is not None:
            # The body ends in a copy of the try's way out, which goes past where this if's
            # false branch goes on: written as falling out of the body it would run that code
            # too, so it is the block written out (`if b: return None` then more of an
            # enclosing if body, and code after that: pydoc's `_getowndoc`, 3.12+).
            skipped_to = self.skip.pop(copy)
            try:
                body = body + self.run_range(copy, false_target, list(self.stack))
            finally:
                self.skip[copy] = skipped_to
        self.emit(self._if_or_assert(cond, body))
        return false_target

    def _else_up_to_body_join(self, test: IfTest, body: List[n.Stmt]) -> Optional[int]:
        """Where the else part of the if with `body` ends when the body's last statement goes on
        past the false target (`range_falls_to`: a try whose except clause, laid with the handler
        code at the end, 3.12+, jumps to the code after the if): the code in between is the else
        part. Emits the if statement; None when the body has no such way on."""
        cond, fall, false_target, end = test.cond, test.fall, test.false_target, test.end
        join = self.range_falls_to.get(false_target)
        if join is not None and false_target in self.tail_else_joins and join > end \
                and self.instrs[fall - 1].opname in COND_JUMPS:
            # The body's rest goes on past the enclosing block (to the code after an enclosing
            # try, which its handler reaches too): the rest of this block is the else part.
            join = end
        if join is not None and false_target in self.tail_else_joins and not false_target < join <= end:
            raise self.fail(test.ins, "if body whose rest jumps over an else part past the enclosing block")
        if join is not None and false_target < join <= end:
            # The body's last statement is a try whose except clause goes on past the false
            # target (3.12+: the body returns, and the clause's jump from the handler code at
            # the end goes to the code after the if): the code in between is the else part.
            orelse = self.run_range(false_target, join, list(self.stack))
            self.emit(n.If(cond, body, orelse))
            return join
        if join is not None and false_target < end < join:
            # ... past the range's end too (the normal exit of an enclosing with, laid after the
            # handler code, that only that clause reaches): the body's way on skips the rest of
            # the range, which is the else part (`if c: try: raise ... except E: ...` then
            # `elif d: raise ...`, ending the with body).
            orelse = self.run_range(false_target, end, list(self.stack))
            self.emit(n.If(cond, body, orelse))
            self.range_falls_to.setdefault(end, join)  # (and so does this if statement)
            return end
        return None

    def _else_past_body_exit(self, test: IfTest, body: List[n.Stmt], last_at: int) -> Optional[int]:
        """Where the else part of the if with `body` ends when the body's last statement leaves
        by a way that skips the false target: a loop's `break` to the enclosing loop's next
        iteration, a with's suppressed exception (3.11+), a copy of the enclosing try's way out
        (3.10), a dead jump over the else part. Emits the if statement; None for none of these."""
        cond, fall, false_target, end = test.cond, test.fall, test.false_target, test.end
        if false_target in self.breaks_to_next_iteration and test.loop is not None and false_target < end:
            # The body's last statement is a loop whose `break` goes on to the enclosing loop's
            # next iteration, not to the false target: the rest up to there is the else part.
            else_end = self._end_before_next_iteration()
            if else_end is None:
                raise self.fail(test.ins, "if body breaks to the next iteration of an enclosing loop")
        else:
            # `if c: with cm: return x` then `else: ...`: a suppressed exception goes on after
            # the if statement, not at the false target (3.11+ lay no jump over the else part)
            else_end = self._with_way_on_past_else(body, fall, false_target, end) if false_target < end else None
        if else_end is None and (false_target < end and self._ends_in_outer_way_out(body, false_target)
                                 or self._else_before_dead_jump(false_target)
                                 or self._body_ends_in_copied_fall_out(fall, false_target, end, last_at)):
            # The body's last statement left the enclosing try through its copied way out
            # (3.10), or the else part runs up to a dead jump, or the body ends in a copy of the
            # try's way out: it does not go on at the false target, which is the else part.
            else_end = end
        if else_end is None:
            return None
        orelse = self.run_range(false_target, else_end, list(self.stack))
        self.emit(n.If(cond, body, orelse))
        return else_end

    def _copied_fall_out_past_range(self, fall: int, false_target: int, end: int) -> Optional[int]:
        """The copy of a try's way out that ends the if body [fall, false_target) when the if
        goes on at the end of the range being read and the copy's way goes further (the code
        the range is followed by runs in between), else None."""
        if not self.copied_fall_outs or false_target != end or end in self.copied_fall_outs \
                or self.instrs[false_target - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        return self._copied_fall_out_in(fall, false_target, end + 1)

    def _copied_fall_out_in(self, start: int, stop: int, reaching: int) -> Optional[int]:
        """The first copy of a try's way out in [start, stop) that goes on at `reaching` or past."""
        return next((k for k in range(start, stop)
                     if k in self.copied_fall_outs and self.skip.get(k, k) >= reaching), None)

    def _stray_handler_exit(self, last: Instr, false_target: int) -> bool:
        """Is `last`, the jump that ends the body of an if in an except clause after the clause's
        unwinding (POP_EXCEPT, then maybe leaving an enclosing finally block), out of the range
        being read, a `break` or `continue` of a loop that was not seen (one that never jumps
        back, read as an if)? An if body that leaves the clause by a jump is no if/else: the
        jump is the clause's way out (copied into the body, it goes where the clause's own way
        out after `false_target` goes) or a loop's. One that no loop around claims going
        elsewhere, read as a jump over an else part, would drop the `break` and run the rest of
        the try's way on: fail instead (`_never_back_while` reads the loop)."""
        instrs = self.instrs
        if self.pure_mode or last.opname != "JUMP" or self.end >= last.target >= false_target \
                or self.loop_claims(last.target):
            return False
        # The clause's unwinding, then straight on to the jump (3.8: leaving an enclosing finally
        # block by its call, 3.9+: through its copied body), nothing else entering on the way.
        p = last.index - 1
        while p >= false_target - 1 - 64 and p > 0 and instrs[p].opname != "POP_EXCEPT":
            if instrs[p].target is not None and instrs[p].opname != "CALL_FINALLY" or self.jump_sources.get(p + 1) \
                    or instrs[p].opname in ("PUSH_EXC_INFO", "SETUP_FINALLY", "SETUP_WITH", "RERAISE"):
                return False
            p -= 1
        if instrs[p].opname != "POP_EXCEPT" or self.jump_sources.get(p + 1):
            return False
        k = false_target
        while k + 1 < len(instrs) and not (instrs[k].opname == "POP_EXCEPT" and instrs[k + 1].opname == "JUMP"):
            if instrs[k].opname in ("PUSH_EXC_INFO", "SETUP_FINALLY", "END_FINALLY") or k - false_target > 64:
                return False
            k += 1
        if k + 1 >= len(instrs):
            return False
        return self._follow_jumps(instrs[k + 1].target) != self._follow_jumps(last.target)

    def _never_back_while(self, cond: n.Expr, test_start: int, fall: int, false_target: int, stray: int) -> int:
        """`while test:` whose body never jumps back (it always returns, raises or breaks): the
        compiler leaves no trace of the loop but its `break`s, jumps to where the test's false
        branch goes. `graph.breaks.stray_break` found one (`stray`) where `if test:` could not
        take it as its own (from an except clause's `if k: break` with more of the body after
        the try), before the body was read. The reading is taken only when the body cannot run
        off its end (no jump back: it would go on at `false_target`, not at the test), so the
        loop runs its body at most once, as the if would. Where the loop's reading fails, the
        stray jump is the error (read as the if, the body fails there)."""
        self.loops.append(_never_back_loop(test_start, false_target))
        try:
            body = self.run_range(fall, false_target, list(self.stack))
        except DecompilationError:
            body = None
        finally:
            self.loops.pop()
        if body is None or _may_complete(body):
            # (the body of a loop that never jumps back never runs off its end: a reading that
            # may, 3.12+, has left out the rest of it, laid with the handler code)
            raise self.fail(self.instrs[stray], "break or continue of a loop that never jumps back")
        self.emit(n.While(cond, body, []))
        return false_target

    def _join_a_break_reaches(self, test: IfTest) -> Optional[int]:
        """Where the if statement that `test` begins goes on (the graph's join: its false target
        or past its else part), when a `break` of a loop that never jumps back leads there from
        inside it: a jump that ends an else part while the code after that part is the body's
        (`break_skipping_code`). No loop being read claims the join. Else None."""
        if self.pure_mode or test.false_target <= test.i \
                or not any(test.i < k < self.end for k in skipping_jumps(self.graph)):
            return None
        join = if_region(self.graph, test.i).join
        if join is None or join < test.false_target or join > self.end or self.loop_claims(join):
            return None
        return join if break_skipping_code(self.graph, test.i, join) is not None else None

    def _never_back_while_around(self, test: IfTest, join: int) -> int:
        """`while True:` around the if statement that `test` begins and the code after it up to
        `join`, a loop that never jumps back: the compiler left no trace of it but its `break`s,
        jumps to `join` (`_join_a_break_reaches`). Read inside that loop, they are its `break`s;
        read as the if statement's ways on, the code they skip would run. The body runs once
        (a `break` ends it where it could run off its end)."""
        self.loops.append(_never_back_loop(test.test_start, join))
        outer, self.out = self.out, []
        try:
            nxt = self._read_if(test)
            body = self.out
            if nxt < join:
                body += self.run_range(nxt, join, list(self.stack))  # (it keeps `self.out` as it is)
        finally:
            self.out = outer
            self.loops.pop()
        if _may_complete(body):
            body.append(n.Break())
        self.emit(n.While(n.Const(True), body, []))
        return join

    def _goes_on_past(self, target: int, strict: bool = False, at: int = -1) -> bool:
        """May a forward jump to `target`, at or past the end of the range being read, that no
        statement of the range claims, stand for the range's way out? Not when the range is (the
        tail of) an else part whose if statement goes on right at the range's end, since an
        earlier branch jumps there, unless the code there is a jump to `target` (the compiler
        threads a jump to a jump). Such a jump is a `break` or `continue` of a loop that was
        not seen (one that never jumps back, 3.11+: no trace of it is left) or the way out of
        a construct further out; read as the range's end, the code it skips would run."""
        end = self.end
        if target <= end or not strict and not (0 <= at < end and in_exact_else_part(self.graph, at, end)):
            return True
        instrs = self.instrs
        last = instrs[end - 1] if 0 < end <= len(instrs) else None
        if last is not None and last.opname == "JUMP" and last.target == target:
            return True  # (the range's own last jump goes there: its way out)
        k = self._follow_jumps(end, stop=target)
        if k == target or self._same_exit_block(k, target):
            return True
        if strict and k == self._follow_jumps(target):
            return True  # (both go on to one place through jumps: 3.8/3.9 thread them to a loop head)
        # (a copy of an enclosing loop's exit block, 3.10: the `break` of that loop)
        return any(self._same_exit_block(exit, target) for loop in self.loops
                   for exit in (loop.break_target, loop.exit) if exit is not None and exit < len(instrs))

    def _same_reraise(self, a: int, b: int) -> bool:
        """Are `a` and `b` both the closing re-raise of one finally body (3.11+ copy it into the
        branches that reach it: a range that ends in one goes on where the other does)?"""
        instrs = self.instrs
        return a < len(instrs) and b < len(instrs) and instrs[a].opname == instrs[b].opname == "RERAISE" \
            and instrs[a].arg == instrs[b].arg

    def _follow_jumps(self, k: int, stop: Optional[int] = None) -> int:
        """Where a jump to `k` ends up: `k`, or past the unconditional jumps that start there
        (up to `stop`, when they reach it)."""
        instrs, seen = self.instrs, set()
        while k != stop and k < len(instrs) and k not in seen and instrs[k].opname == "JUMP" \
                and instrs[k].target is not None:
            seen.add(k)
            k = instrs[k].target
        return k

    def _same_exit_block(self, a: int, b: int, reraise: bool = False) -> bool:
        """Are the blocks at `a` and `b` the same straight code ending in a return or raise (3.10
        and 3.12 copy a small exit block to each jump there: the with's exit and `return x`)?

        With `reraise`, before 3.11 a block ending in the re-raise of a finally body counts too
        (`finally: (try: if c: A / finally: B)`: the exceptional copy of the outer finally body
        copies `B; RERAISE` to the if's jump and to where its body falls): entered from the same
        range, both run under the same block stack, so the same code re-raises the same
        exception. (With an exception table, the copies may lie under different handlers.)"""
        if not self.version.copies_exit_blocks or a == b:
            return False
        instrs = self.instrs
        k = 0
        while a + k < len(instrs) and b + k < len(instrs):
            x, y = instrs[a + k], instrs[b + k]
            if x.opname != y.opname or x.argval != y.argval or x.is_jump:
                return False
            if x.opname in TERMINAL:
                return x.opname != "RERAISE" or reraise and not self.version.has_exception_table
            k += 1
        return False

    def _terminal_block_copy(self, k: int, target: int) -> Optional[List[n.Stmt]]:
        """The statements of the block at `target` when the jump at `k`, past where the range
        being read goes on (`_goes_on_past`), may be written as a copy of it: a straight block
        that ends in a return or raise, under the same exception handler as the jump, with
        nothing on the stack. Running that block is all the jump does (3.12 copies such blocks
        itself, 3.11 and 3.13 jump to them: the `break` of a loop that never jumps back, whose
        code after the loop returns or raises). None when the jump cannot be written so."""
        instrs = self.instrs
        if self.pure_mode or not self.version.has_exception_table or len(self.stack) != self.base_depth:
            return None
        e = target
        while e < len(instrs) and e - target < 40 and instrs[e].target is None \
                and instrs[e].opname not in TERMINAL:
            e += 1
        if e >= len(instrs) or instrs[e].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        regions = self.bc.regions

        def handler_at(q: int) -> Optional[int]:
            inner = None
            for r in regions:
                if r.start <= q < r.end and (inner is None or r.start >= inner.start):
                    inner = r
            return inner.handler if inner is not None else None

        at_jump = handler_at(k)
        if any(handler_at(q) != at_jump for q in range(target, e + 1)):
            return None
        try:
            return self.run_range(target, e + 1, list(self.stack))
        except DecompilationError:
            return None

    def _jumps_to_return_in_view(self, target: int, false_target: int, end: int) -> bool:
        """3.8/3.9, reading a value whose view ends in a copied bare return (`_value_arms`): does a
        jump past the view to a return stand for that copy? `a or ((b if d else e) if c else a)`
        threads the inner arm's jump to the end of the outer arm on to the shared return, while
        the outer arm's own jump there became a copy of it, which ends the inner else arm."""
        instrs = self.instrs
        return bool(self.pure_mode) and not self.version.copies_exit_blocks and target > end \
            and instrs[target].opname == "RETURN_VALUE" and false_target < end - 1 \
            and instrs[end - 1].opname == "RETURN_VALUE"

    def _continue_after_if_body(self, fall: int, end: int, head: int) -> bool:
        """3.8/3.9: is the JUMP back to `head` right before the loop's closing jump (at `end`) a
        `continue` written after the if body [fall, end - 1), which never falls into it? The test's
        false branch went there and was sent on to the head; the dead jump is kept because it was
        a jump target (dead code after a return inside the if body would have been removed)."""
        k = end - 1
        return self.version.threads_jumps_once and fall < k and self._same_jump(k, end) \
            and self.instrs[k].target == head and not self.jump_sources.get(k) \
            and self.instrs[k - 1].opname in ENDS_FLOW

    def _join_after_else(self, start: int, stop: int, else_start: int, end: int) -> int:
        """Where an else part [else_start, ...) that runs on up to `end` really ends: at the
        first place in it that the if body [start, stop) jumps to. An if body that ends in a
        `continue` (`if a: if not b: continue` then `else: ...`) has no jump over the else part,
        but its inner test's other way goes to the code after the if statement."""
        targets = [ins.target for ins in self.jumps_in(start, stop) if else_start < ins.target < end]
        return min(targets) if targets else end

    def _jumps_stay_in_loop_body(self, start: int, end: int, loop: LoopInfo) -> bool:
        """Does every jump in [start, end) land in [start, end] or go to the loop's head or exit?"""
        for k in range(start, end):
            t = self.instrs[k].target
            if t is not None and not start <= t <= end and t not in loop.continue_targets \
                    and t != loop.break_target:
                return False
        return True

    def _closing_continue(self, start: int, end: int, head: int, loop: LoopInfo) -> Optional[int]:
        """The JUMP back to `head` that ends a block starting at `start` (at the latest the one at
        `end`, which closes the enclosing block): the first one before which no jump leaves
        [start, it] except for the loop's head or exit, and into which no jump comes from outside."""
        leave_ok = set(loop.continue_targets) | {loop.break_target}
        for k in range(start, min(end + 1, len(self.instrs))):
            ins = self.instrs[k]
            if k > start and any(not start <= src < k for src in self.jump_sources.get(k, ())):
                return None  # something outside the block jumps into it
            if ins.opname == "JUMP" and ins.target == head:
                return k
            if ins.target is not None and not start <= ins.target <= k + 1 and ins.target not in leave_ok:
                return None
        return None

    def _jump_over_threaded_else(self, fall: int, end: int, target: int, loop: LoopInfo) -> Optional[int]:
        """3.8/3.9: the jump that ends the if body starting at `fall` and skips an else part
        that is only a `break` or `continue` (a jump to `target`) that nothing reaches."""
        if not self.version.threads_jumps_once:
            return None
        leave_ok = set(loop.continue_targets) | {loop.break_target}
        for k in range(fall, end - 1):
            ins, other = self.instrs[k], self.instrs[k + 1]
            if k > fall and any(not fall <= src < k for src in self.jump_sources.get(k, ())):
                return None  # something outside the body jumps into it
            if ins.opname == "JUMP" and (ins.target == k + 2 or self._threaded_through(ins.target, k + 2)) \
                    and other.opname == "JUMP" \
                    and other.target == target and not self.jump_sources.get(k + 1) and k > fall:
                return k
            if ins.target is not None and not fall <= ins.target <= k + 1 and ins.target not in leave_ok:
                return None
        return None

    def _threaded_exit_statement(self, fall: int, end: int, target: int, loop: LoopInfo) -> Optional[int]:
        """3.8/3.9: the `break` or `continue` (a JUMP to `target`) after the if body that starts
        at `fall`, whose test jumps straight to `target` when false. Written as `if not test:
        break`, the test would jump over a jump of its own; only the peephole pass's threading
        makes a conditional jump leave the loop directly."""
        if not self.version.threads_jumps_once or fall >= end - 1:
            return None
        closing = self._closing_continue(fall, end - 1, target, loop)
        if closing is None or closing == fall or closing == loop.natural_end:
            return None
        return closing


def fold_tail_into_else(stmts: List[n.Stmt]) -> None:
    """`if c: return a` + `return b` -> `if c: return a else: return b` (a compound last statement).

    Not into an if whose body ends in a raise: 3.8/3.9 keep the jump over an else part after a
    raise, so such an if/else would have been read as one already."""
    if not stmts or not isinstance(stmts[-1], (n.Return, n.Raise)):
        return
    for k in range(len(stmts) - 2, -1, -1):
        s = stmts[k]
        if isinstance(s, n.If) and not s.orelse and s.body and isinstance(s.body[-1], n.Return):
            s.orelse = stmts[k + 1:]
            del stmts[k + 1:]
            return
