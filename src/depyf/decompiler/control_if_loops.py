"""`if` statements inside loops: a `continue` or `break` that closes a body, an else part threaded
to the loop's head, and `assert` told from `if`.
"""
from typing import List, Optional

from depyf.decompiler import nodes as n
from depyf.decompiler.expressions import AssertionErrorName, folds_under_not
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS, IfTest, LoopInfo, _may_complete, demorgan_not, short_circuits_value
from depyf.decompiler.structure.if_regions import else_end_after


class ControlIfLoops:
    """`if` statements inside loops; mixed into `control.ControlRules`."""

    def _if_or_assert(self, cond: n.Expr, body: List[n.Stmt]) -> n.Stmt:
        """`if cond: body` with no else, or the assert statement it stands for."""
        return _as_assert(cond, body, self.version.has_load_assertion_error) or n.If(cond, body, [])

    def _explicit_continue(self, jump: Instr, end: int) -> bool:
        """Does `jump`, back to the loop's head at the end of an if body, land somewhere other
        than the loop's own closing jump (at `end`, where the body ends)? A jump over an else
        part that ends the loop body is threaded to exactly that place; a `continue` may land on
        the `while` line's NOP. 3.12+ also keep a jump-if-false or a jump forward landing on the
        jump only when the jump is a statement of its own (with its own line), not the end of an
        if body."""
        if self.version.conditional_jumps_forward_only and any(
                self.instrs[k].opname in COND_JUMPS for k in self.jump_sources.get(jump.index, ())):
            return True
        if self.version.conditional_jumps_forward_only and any(
                self.instrs[k].opname == "JUMP" and k < jump.index for k in self.jump_sources.get(jump.index, ())):
            # (nor a jump forward: `if a: x / else: y` then `continue`, the jump over `else: y`
            # lands on the `continue`; 3.10/3.11 keep such a jump after a for loop's else part too)
            return True
        return self._lands_apart(jump.index, end) or self._jump_back_not_threadable(jump, end)

    def _jump_back_not_threadable(self, jump: Instr, end: int) -> bool:
        """3.8/3.9: could a jump over an else part (a JUMP_FORWARD to the loop's closing jump at
        `end`) not have become this JUMP_ABSOLUTE back? The peephole pass retargets a jump only
        where the new argument needs no more EXTENDED_ARG prefixes than the old one had."""
        if not self.version.threads_jumps_once or jump.raw_opname != "JUMP_ABSOLUTE" or jump.arg is None \
                or end >= len(self.instrs):
            return False
        forward = self.instrs[end].offset - (jump.offset + 2)
        return _prefixes_needed(jump.arg) > _prefixes_needed(max(forward, 0))

    def _lands_apart(self, k: int, closing_at: int) -> bool:
        """Do the jumps at `k` and `closing_at` reach the same instruction from different bytes
        (one of them through a dropped NOP)?"""
        if closing_at >= len(self.instrs):
            return False
        jump, closing = self.instrs[k], self.instrs[closing_at]
        raw = self.bc.raw_targets
        return jump.opname == closing.opname == "JUMP" and closing.target == jump.target \
            and raw.get(closing_at) != raw.get(k)

    def _jump_to_last_break_line(self, jump: Instr, loop: LoopInfo) -> bool:
        """Is `jump`, to the exit of a loop whose body falls into its exit at the end (a last
        `break` whose jump was dropped), the jump over an else part to that `break`: it lands on
        the dropped NOP that carries the `break`'s line, not on the exit itself? Read as a
        `break` of its own, both branches would end in one and the same code would run; this
        keeps the if statement the source had."""
        if not loop.falls_off_to_exit or jump.target != loop.exit or jump.target >= len(self.instrs):
            return False
        raw = self.bc.raw_targets.get(jump.index)
        return raw is not None and raw < self.instrs[jump.target].offset

    def _continue_then_break(self, fall: int, end: int, false_target: int, loop: LoopInfo) -> bool:
        """Does a test that jumps to `loop`'s exit fall into a body [fall, end) that ends the
        loop body at its closing jump, where a written `break` keeps its own jump (so the test
        is no `if not test: break`)?"""
        if not self.version.break_keeps_own_jump or not fall < end == loop.body_end \
                or false_target not in (loop.exit, loop.break_target) or end >= len(self.instrs):
            return False
        closing = self.instrs[end]
        return closing.opname == "JUMP" and closing.target in loop.continue_targets

    def _never_falls_through(self, last: Instr, loop: LoopInfo) -> bool:
        """Does the instruction that ends an if body inside `loop` leave it (return, raise, continue)?"""
        return last.opname in ("RETURN_VALUE", "RAISE_VARARGS") or \
            (last.opname == "JUMP" and last.target in loop.continue_targets)

    def _threaded_to_bare_return(self, jump: Instr) -> bool:
        """3.8/3.9: is `jump` a JUMP to a bare RETURN_VALUE? Those compilers turn a jump to a
        bare return into a copy of it, but not one threaded there through another jump: the
        join of a value's arms (`(e if c else c) if d else b` returned), no statement's."""
        return not self.version.copies_exit_blocks and jump.target < len(self.instrs) \
            and self.instrs[jump.target].opname == "RETURN_VALUE"

    def _threaded_else_end(self, fall: int, false_target: int, end: int, loop: Optional[LoopInfo]) -> Optional[int]:
        """The end of the else part of an if whose body [fall, false_target) ends in a raise,
        return, `break` or `continue` and has no jump over the else part: the compiler sent the
        ways out of the body's last statement (an assert, an inner if) straight past the else
        part, to one place."""
        loop_targets = (loop.continue_targets | {loop.break_target, loop.exit}) if loop is not None else set()
        last = self.instrs[false_target - 1]
        # (a `break` of a loop that ends an enclosing loop's body jumps to that loop's head)
        leaves_loop = last.opname == "JUMP" and loop is not None \
            and (last.target in loop_targets or self._continues_outer_loop(last.target))
        if last.opname not in ("RAISE_VARARGS", "RETURN_VALUE", "RERAISE") and not leaves_loop:
            return None
        if loop is not None and loop.top_test is not None:
            # (3.10+: a jump to the test copied at the bottom is no `continue`, which goes to the
            # top: it is where the body's last statement ends)
            loop_targets = loop_targets - {loop.body_end}
        # (a value's `and`/`or` jumps with its left operand to where the value is used, no way
        # out of the statement: `x = ((a and b) if c else c) ...`, the `and` into the else arm's tail)
        # 3.8/3.9: a JUMP to a bare return is one threaded on from a value's join (a statement's
        # jump there would have become a copy of the return): `return (e if c else c) if d else b`.
        targets = {ins.target for ins in self.jumps_in(fall, false_target)
                   if (ins.opname in COND_JUMPS and not short_circuits_value(self.instrs, ins.index)
                       or ins.opname == "JUMP" and not self._threaded_to_bare_return(ins))
                   and ins.target > false_target and ins.target not in loop_targets}
        if len(targets) > 1:
            targets = {self._first_of_copied_blocks(sorted(targets))}
        if len(targets) != 1 or None in targets:
            return None
        target = targets.pop()
        if target > end and else_end_after(self.graph, end) == target:
            # to where the else part of the enclosing if ends, past that else part (which starts at
            # the end of the range): the way out of the enclosing body, so this else part runs to
            # the range's end (`if a: {if b: {if c: x} else: continue} else: y`, then more code)
            return end
        if target > end:
            closing = self.instrs[target] if target < len(self.instrs) else None
            if loop is not None and target == loop.body_end and closing is not None \
                    and closing.opname == "JUMP" and closing.target in loop.continue_targets:
                return end  # to the loop's closing jump: the else part runs to the range's end
            over = self.instrs[end] if end < len(self.instrs) else None
            if loop is not None and target == loop.body_end and loop.top_test is not None and over is not None \
                    and over.opname == "JUMP" and over.target == target:
                return end  # to the bottom test, where the jump that ends the enclosing part goes
            return None
        length = target - false_target
        if target + length <= len(self.instrs) and self._same_code((false_target, target), (target, target + length)):
            return None  # two copies of the block that ends the function, not an else part
        if self._copies_of_block_at(false_target, target):
            return None  # (3.10: one copy for each jump of an `a and b` test, say)
        return target

    def _first_of_copied_blocks(self, targets: List[int]) -> Optional[int]:
        """The first of `targets` when they start back-to-back copies of one small block that
        ends the function (3.11/3.12 copy `return None` onto each jump of the inner ifs that end
        an if body, and lay them after the else part), else None."""
        first = targets[0]
        k = first
        while k < len(self.instrs) and k - first < 4 and self.instrs[k].opname not in TERMINAL \
                and self.instrs[k].target is None:
            k += 1
        if k >= len(self.instrs) or self.instrs[k].opname != "RETURN_VALUE":
            return None
        size = k + 1 - first
        for a, b in zip(targets, targets[1:]):
            if b != a + size or not self._same_code((first, first + size), (b, b + size)):
                return None
        return first

    def _ends_in_outer_way_out(self, body: List[n.Stmt], false_target: int) -> bool:
        """Does an if body end in a try or with statement whose ways out are copies of the way out
        of an enclosing block (recorded there as pending, `exception_blocks._outer_exit`), so that
        the code right before the false target (a return, the try's closing re-raise) never goes
        on to it?"""
        if not self.version.copies_exit_blocks or not body or not isinstance(body[-1], (n.Try, n.With)) \
                or self.instrs[false_target - 1].opname not in TERMINAL:
            return False
        blocks = self.__dict__.get("_open_blocks") or []
        return any("pending" in block.info for block in blocks)

    def _else_jump_to_bottom_test(self, fall: int, false_target: int, threaded: int,
                                  loop: Optional[LoopInfo]) -> Optional[int]:
        """The JUMP that ends an else part found by `_threaded_else_end` when both branches go
        to the test a while loop repeats at its bottom (3.10+): the else part stops there (the
        jump is its end, not a `continue`) and what follows it up to that test belongs to an
        enclosing statement (reached only from before the if)."""
        if loop is None or loop.top_test is None or threaded != loop.body_end:
            return None
        for k in range(threaded - 1, false_target - 1, -1):
            ins = self.instrs[k]
            if ins.opname == "JUMP" and ins.target == threaded:
                if any(not src < fall for p in range(k + 1, threaded) for src in self.jump_sources.get(p, ())):
                    return None
                return k
        return None

    def _if_leaving_loop(self, test: IfTest) -> int:
        """`if test: ...` whose false branch leaves the innermost loop or goes back to its head
        (`_test_leaves_loop`): `if not test: break/continue`, unless the body is the rest of the
        loop body or block that the compiler's jumps let the false branch skip."""
        stmt: n.Stmt = n.Continue() if test.false_target in test.loop.continue_targets else n.Break()
        done = self._if_closing_loop_body(test, stmt)
        if done is None:
            done = self._if_before_threaded_exit(test, stmt)
        if done is not None:
            return done
        self.emit(n.If(demorgan_not(test.cond), [stmt], []))
        return test.fall

    def _if_closing_loop_body(self, test: IfTest, stmt: n.Stmt) -> Optional[int]:
        """`if test: <rest of the loop body or block>`, whose false branch does `stmt` (the `break`
        or `continue` it jumps to) in place of running off the body's end: the compiler sends it
        straight to the loop's head or exit. Emits the if statement; None when it is no such if."""
        cond, fall, false_target, end, loop = test.cond, test.fall, test.false_target, test.end, test.loop
        if isinstance(stmt, n.Break) and self._continue_then_break(fall, end, false_target, loop):
            # `if test: ...; continue` then `break` (3.10+): the body falls into the loop's
            # closing jump, the `break` is no code before the exit.
            body = self.run_range(fall, end, list(self.stack))
            self.emit(self._if_or_assert(cond, body + [n.Continue()]))
            self.emit(stmt)
            return end
        if isinstance(stmt, n.Continue) and end == loop.body_end and fall < end \
                and false_target != loop.top_test and not loop.falls_off_to_exit:
            # `if test: <rest of the body>`: the compiler sends the false branch straight back.
            # (Not where falling off the body's end leaves the loop: then the rest of the
            # body ends in a `break`, and the test is `if not test: continue`.)
            stop = end - 1 if self._continue_after_if_body(fall, end, false_target) else end
            body = self.run_range(fall, stop, list(self.stack))
            self.emit(self._if_or_assert(cond, body))
            return stop
        if fall < end and (self._threaded_through(false_target, end)
                           or isinstance(stmt, n.Continue) and self._block_ends_going_back(end, false_target)):
            # `if test: <rest of the block>`: the false branch went to the jump that ends the
            # enclosing block (over its else part), and on to where that jump goes.
            body = self.run_range(fall, end, list(self.stack))
            self.emit(self._if_or_assert(cond, body))
            return end
        last = self.instrs[end - 1]
        if isinstance(stmt, n.Break) and end == loop.body_end and fall < end and self._never_falls_through(last, loop):
            # `if test: ...; continue` then `break`: the body never falls through.
            body = self.run_range(fall, end, list(self.stack))
            if _may_complete(body):
                # (an inner statement of the body goes on to the loop's closing jump back,
                # `if i > 9: return` then `continue`: read as the body's natural end, that
                # `continue` must show, or the body would fall into the `break`)
                body.append(n.Continue())
            self.emit(self._if_or_assert(cond, body))
            self.emit(stmt)
            return end
        if isinstance(stmt, n.Break) and end == loop.body_end and fall < end - 1 and last.opname == "JUMP" \
                and last.target == false_target and not self.jump_sources.get(end - 1) \
                and self._never_falls_through(self.instrs[end - 2], loop):
            # 3.8/3.9 keep that `break` as a jump nothing reaches (the test's jump was threaded
            # past it): the same statement.
            body = self.run_range(fall, end - 1, list(self.stack))
            self.emit(self._if_or_assert(cond, body))
            self.emit(stmt)
            return end
        return None

    def _if_before_threaded_exit(self, test: IfTest, stmt: n.Stmt) -> Optional[int]:
        """`if test: ...` whose false branch jumps straight to `stmt`'s target because the
        compiler threaded it there: through a closing `continue` the body keeps (`is` tests, which
        `not` would turn into `is not`), through an else part's jump (3.8/3.9), or through the
        `break`/`continue` the body falls into (3.8/3.9). Emits the if; None when it is none of these."""
        cond, fall, false_target, end, loop = test.cond, test.fall, test.false_target, test.end, test.loop
        if isinstance(stmt, n.Continue) and folds_under_not(cond):
            # `if a is b: ...; continue`, whose test jumps straight back when false: `if not
            # a is b: continue` would compile to `is not`, so the body keeps its test.
            closing = self._closing_continue(fall, end, false_target, loop)
            if closing is not None:
                body = self.run_range(fall, closing, list(self.stack))
                if closing == end:  # the enclosing block's own way back (a jump over its else)
                    self.emit(n.If(cond, body, []))
                    return end
                self.emit(n.If(cond, body + [n.Continue()], []))
                return closing + 1
        over = self._jump_over_threaded_else(fall, end, false_target, loop)
        if over is not None:
            # `if test: ... else: continue`: the test's jump was threaded through the else
            # part's jump, which nothing reaches any more.
            body = self.run_range(fall, over, list(self.stack))
            self.emit(n.If(cond, body, [stmt]))
            return over + 2
        closing = self._threaded_exit_statement(fall, end, false_target, loop)
        if closing is not None:
            # `if test: ...` then `break`/`continue`: the test's jump was threaded through
            # that statement's jump, which is left where the body falls into it.
            body = self.run_range(fall, closing, list(self.stack))
            self.emit(self._if_or_assert(cond, body))
            return closing
        return None

    def _copies_of_block_at(self, start: int, target: int) -> bool:
        """Is [start, target) made of copies of the small block at `target` that ends the
        function (3.10+ copy it in place of each jump there)?"""
        end = self._copy_end(target)  # exception_blocks: a small block ending the function
        if end is None or (target - start) % (end - target):
            return False
        length = end - target
        return all(self._same_code((k, k + length), (target, end)) for k in range(start, target, length))


def _prefixes_needed(arg: int) -> int:
    """How many EXTENDED_ARG prefixes an argument of this size takes (one per byte above one)."""
    return max(0, (arg.bit_length() - 1) // 8)


def _as_assert(cond: n.Expr, body: List[n.Stmt], assert_opcode: bool) -> Optional[n.Stmt]:
    """`if not test: raise AssertionError(msg)` from LOAD_ASSERTION_ERROR is `assert test, msg`."""
    if len(body) != 1 or not isinstance(body[0], n.Raise) or body[0].cause is not None:
        return None
    exc = body[0].exc
    if not assert_opcode and folds_under_not(cond):
        # 3.8 (AssertionError is a plain name): `if a is not b: raise AssertionError` tests with
        # `is not`; as `assert a is b` it would test with `is` and jump the other way.
        return None
    if isinstance(exc, AssertionErrorName) or (isinstance(exc, n.Name) and exc.id == "AssertionError"
                                               and not assert_opcode):
        return n.Assert(demorgan_not(cond), None)
    if isinstance(exc, n.Call) and isinstance(exc.func, n.Name) and exc.func.id == "AssertionError" \
            and len(exc.args) == 1 and _plain_argument(exc.args[0]) \
            and (isinstance(exc.func, AssertionErrorName) or not assert_opcode):
        return n.Assert(demorgan_not(cond), exc.args[0])
    return None


def _plain_argument(arg: n.Expr) -> bool:
    """An assert message is one expression: `AssertionError(*args)` or `(k=v)` is a call of its own."""
    return not isinstance(arg, (n.Starred, n.DoubleStarred, n.Keyword))
