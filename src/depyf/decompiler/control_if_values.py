"""Conditional expressions: arms that are values (`a if c else b`), including those whose shared tail
(a return, a copied exit) the compiler copied into each arm, pure value readings of a range, and
where an if body ends at a copied fall-out or a dead jump (`_with_way_on_past_else`, `_dead_jump`).
"""
from typing import List, Optional

from depyf.decompiler import borrows
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.instructions import MAX_COPY, OPPOSITE_JUMPS, TERMINAL, Instr
from depyf.decompiler.control_model import StatementsInValue, _flatten, demorgan_not, short_circuits_value


class ControlIfValues:
    """Conditional expressions and pure values; mixed into `control.ControlRules`."""

    def _unfused_constant_return(self, k: int) -> bool:
        """3.12+ compile `return <constant>` to RETURN_CONST: a constant loaded, then returned by
        a separate RETURN_VALUE, is one arm of `return a if c else b` with the return copied."""
        return self.version.has_return_const and k > 0 and self.instrs[k].raw_opname == "RETURN_VALUE" \
            and self.instrs[k - 1].raw_opname == "LOAD_CONST"

    def _unfused_local_pair(self, k: int) -> bool:
        """3.13: two local loads at `k - 1` and `k` left apart, though nothing jumps to `k`: a
        block ended between them when they were fused, the join after an arm's value that the
        compiler then copied into the other arm (`self.x = a if c else b`; the statement written
        in each branch would load `b, self` with one LOAD_FAST_LOAD_FAST)."""
        instrs = self.instrs
        return self.version.fuses_local_pairs and 0 < k < len(instrs) and not self.jump_sources.get(k) \
            and instrs[k - 1].raw_opname == "LOAD_FAST" and instrs[k].raw_opname == "LOAD_FAST" \
            and instrs[k - 1].arg < 16 and instrs[k].arg < 16

    def _arm_load_left_on_block_end(self, k: int) -> bool:
        """3.14: the local load at `k`, right before the tail, stayed LOAD_FAST though the tail
        consumes it: it was the last value of a block that falls into the tail's, the else arm
        of `return a if c else y` (`if c: return a` / `return y` borrows it: `borrows.py`), in
        code the borrow pass reached (in code it never reaches, dead code say, every load is
        plain)."""
        return self.version.marks_borrowed_loads and not self.jump_sources.get(k + 1) \
            and borrows.left_on_block_end(self.code, self.version, self.instrs, k) \
            and borrows.walked_up_to(self.code, self.version, self.instrs, k, self.jump_sources)

    def _value_before_copied_exit(self, cond: n.Expr, fall: int, false_target: int) -> Optional[int]:
        """`return f(x, a if cond else b)` when 3.10+ copied the end of the return into both branches
        (3.8/3.9: `return a or (b if cond else c)`, a bare return copied in place of the jump).

        The branches then read `a; <tail>` and `b; <tail>`, the same tail ending the function. With
        values of the statement already on the stack (`f`, `x`), they are not an if statement
        (which would evaluate them after the test): the branches differ in one value. Pushes it
        and continues at the second copy of the tail.
        """
        instrs = self.instrs
        a_end = false_target
        if instrs[false_target - 1].opname == "POP_TOP" and self.skip.get(false_target - 1) == false_target \
                and false_target - 1 in self.jump_sources:
            # (the test is a chained comparison whose cleanup, read, falls into the else part:
            # the first arm's copy of the tail ends before it, `x = a and (e if 1 <= b < 2 else c)`)
            a_end = false_target - 1
        a_end = self._arm_end_before_skipped(fall, a_end)
        last = instrs[a_end - 1]
        if last.opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None
        longest = a_end - fall
        if not self.version.copies_exit_blocks:
            if last.opname != "RETURN_VALUE":
                return None
            longest = 1  # (before 3.10 only a jump to a bare return becomes a copy of it)
        # (a value being read, an operand of `and`/`or`, is never an if statement)
        pending = self.pure_mode or any(not isinstance(v, m.MARKER_TYPES) for v in self.stack)
        if not pending and self.version.copies_each_jump_to_small_exit:
            r = next((q for q in range(false_target, self.end) if instrs[q].opname in TERMINAL), None)
            pending = r is not None and instrs[r].opname == last.opname and self._jump_to_uncopied_exit(false_target, r)
        # Where an and/or of the first arm jumps past a copy of the tail, the arms are values
        # (`_tail_shared_by_short_circuit`); a value's own and/or in the else part, a chained
        # comparison's link say, may then reach a copy of the tail of its own before the else
        # part's end (`... else (1 <= a < 2), log`).
        shared = self._short_circuits_past_tail(fall, a_end)
        in_value = False
        for other in range(false_target, self.end):
            ins = instrs[other]
            if not pending and ins.target is not None:  # (a jump: `is_jump`, without the call)
                if not (shared and short_circuits_value(instrs, other)):
                    return None
                in_value = True
            if ins.opname != last.opname:
                continue  # (a value's else part may be `x if d else y`, its own copies inside)
            if ins.argval != last.argval:
                return None
            merged = self._value_arms(cond, fall, false_target, other, longest, pending, a_end)
            if merged is not None or not (pending or in_value):
                return merged
        return None

    def _jump_to_uncopied_exit(self, start: int, end: int) -> bool:
        """3.12/3.13: does the second arm [start, end] hold a JUMP forward to a small block
        ending at `end` that returns (`x if t else not (a < b < c)` then the rest of a return:
        the comparison's jump over its cleanup, to the `not` and the tail)? Those compilers
        replace each jump to such a block by a copy of it (`copies_each_jump_to_small_exit`);
        one left was laid before the tail was joined on, inside a value, as no return statement
        of a branch lays it."""
        if not self.version.copies_each_jump_to_small_exit:
            return False
        instrs = self.instrs
        return any(instrs[k].opname == "JUMP" and k < instrs[k].target <= end
                   and instrs[k].target + self._exit_block_length(instrs[k].target) == end + 1
                   and end + 1 - instrs[k].target <= MAX_COPY - 1 for k in range(start, end))

    def _not_left_apart(self, k: int) -> bool:
        """Is there a `not` of an `is`/`in` comparison, UNARY_NOT right after IS_OP or
        CONTAINS_OP, at the end of an arm that ends before `k` or at the start of the tail at
        `k`? Written, `not (a in b)` compiles to `not in` (up to 3.13): the `not` is over the
        whole conditional expression, its tail copied into each arm (`return not (x if t else
        a in b), log`), and an if statement with a return in each branch would fold it."""
        if self.version.keeps_not_over_is_in:
            return False
        instrs = self.instrs
        for q in (k, k - 1):
            if 0 < q < len(instrs) and instrs[q].opname == "UNARY_NOT":
                p = q - 1 if instrs[q - 1].opname != "TO_BOOL" else q - 2
                if p >= 0 and instrs[p].opname in ("IS_OP", "CONTAINS_OP") and not self.jump_sources.get(q):
                    return True
        return False

    def _cleanup_falls_into_arm(self, a_end: int, false_target: int) -> bool:
        """3.10+: does the test's chained comparison's cleanup at `a_end` fall into the second
        arm at `false_target`, a small block that ends the function, which the comparison's last
        test jumps to as well? An if statement's cleanup leaves by a jump to its else part, which
        3.10+ replace by a copy of such a block; a conditional expression's second arm goes on
        into the rest of the statement, no such block when that jump was laid: `return a if
        b < c < d else e`. (Only a block the compiler surely copies: up to four instructions,
        counted split, so at most four as compiled.)"""
        return self.version.copies_exit_blocks and a_end == false_target - 1 \
            and self.instrs[a_end].opname == "POP_TOP" and bool(self.jump_sources.get(false_target)) \
            and 0 < self._exit_block_length(false_target) <= MAX_COPY - 1

    def _arm_end_before_skipped(self, fall: int, a_end: int) -> int:
        """Where the first arm [fall, a_end) ends when its first return is followed only by
        code the reading skips up to `a_end`: a chained comparison's cleanup and a copy of
        the arm that the test's other jumps reached (`e if (c or a < c != c) else d` ending a
        return, 3.10+: `c` jumps to a copy of `e` and the rest of the return, laid after the
        cleanup). Else `a_end`."""
        instrs = self.instrs
        first = next((k for k in range(fall, a_end) if instrs[k].target is not None
                      or instrs[k].opname in TERMINAL), None)
        if first is None or first + 1 >= a_end or instrs[first].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return a_end
        k = first + 1
        while k < a_end and self.skip.get(k, k) > k:
            k = self.skip[k]
        return first + 1 if k == a_end else a_end

    def _value_then_copied_tail(self, cond: n.Expr, fall: int, false_target: int, copy: int) -> Optional[int]:
        """`return f(k=a if cond else b, ...)` on 3.10: the first arm's jump goes to a copy of the
        rest of the statement (which ends the function) laid after the original, which the second
        arm falls into. Pushes the value, marks the copy read, and goes on at the original."""
        if not self.version.copies_exit_blocks or not any(not isinstance(v, m.MARKER_TYPES) for v in self.stack):
            return None
        instrs = self.instrs
        r = copy
        while r < len(instrs) and not instrs[r].is_jump and instrs[r].opname not in TERMINAL:
            r += 1
        if r >= len(instrs) or instrs[r].opname != "RETURN_VALUE":
            return None
        length = r + 1 - copy
        tail = copy - length
        if tail <= false_target or not self._same_test(tail, copy, length) \
                or any(self.jump_sources.get(k) for k in range(copy + 1, r + 1)) \
                or self.jump_sources.get(copy) != (false_target - 1,):
            return None
        a = self.pure_value(fall, false_target - 1)
        b = self.pure_value(false_target, tail) if a is not None else None
        if b is None:
            return None
        self.stack.append(n.IfExp(cond, a, b))
        self.skip[copy] = r + 1
        return tail

    def _unfused_tail_copy_in_arm(self, start: int, end: int, tail: int, length: int) -> bool:
        """3.13: a copy of the tail at `tail` (`length` instructions) that ends the first arm
        (starting in (start, end]), left unfused from the local load before it (`_unfused_local_pair`): an
        inner conditional expression's arm falls into it, so the arm is one value of a statement
        whose tail the compiler copied (`return ((x if c else y) if t else z), log`), no statement
        of its own, where `return y, log` would load the pair with one instruction."""
        if not self.version.fuses_local_pairs:
            return False
        return any(self._unfused_local_pair(k) and self._same_test(k, tail, length)
                   for k in range(start + 1, end + 1))

    def _short_circuits_past_tail(self, fall: int, a_end: int) -> List[Instr]:
        """3.12+: the jumps of a value's `and`/`or` in the first arm [fall, a_end) that go past
        an end of the statement (a copy of its tail): the path through the right operand was
        given a copy of the tail, the jump lands on a tail that another path falls into."""
        if not self.version.copies_exit_blocks:
            return []
        instrs = self.instrs
        return [j for j in self.jumps_in(fall, a_end)
                if j.index < j.target and short_circuits_value(instrs, j.index)
                and any(instrs[q].opname in TERMINAL for q in range(j.index + 1, min(j.target, a_end)))]

    def _tail_shared_by_short_circuit(self, fall: int, a_end: int, false_target: int, other: int,
                                      common: int) -> Optional[int]:
        """3.12+: the length (up to `common`, the arms' common end) of the tail that a value's
        `and`/`or` in the first arm [fall, a_end) jumps to past a copy of that tail, in either
        arm (the second one [false_target, other]), or None. Its left operand then arrives at a
        tail the arms share, as their value: one statement, the arms values of it (`x = ((a and
        b) if c else c)`, the path through `b` given a copy of the tail). As two statements,
        each would have its own `and`, joined at its own tail. (A chained comparison's links
        jump inside the arm.)"""
        for j in self._short_circuits_past_tail(fall, a_end):
            t = j.target
            length = other + 1 - t if false_target < t <= other else a_end - t if t < a_end else 0
            if 0 < length <= common:
                return length
        if not self.version.copies_exit_blocks and self.instrs[other].opname == "RETURN_VALUE" \
                and any(self._threaded_to_bare_return(j) and j.target == other for j in self.jumps_in(fall, a_end)):
            return 1  # (3.8/3.9: a value's join threaded on to the second arm's return)
        return None

    def _value_arms(self, cond: n.Expr, fall: int, false_target: int, other: int, longest: int,
                    pending: bool, a_end: Optional[int] = None) -> Optional[int]:
        """`_value_before_copied_exit` with the else part's copy of the tail ending at `other`
        (the first arm ending at `a_end`, before a chained comparison's cleanup, else at
        `false_target`)."""
        instrs = self.instrs
        if a_end is None:
            a_end = false_target
        needs_value = pending or self._unfused_constant_return(a_end - 1) \
            or self._unfused_constant_return(other) or self._cleanup_falls_into_arm(a_end, false_target)
        common = 1
        while common < min(longest, other + 1 - false_target) and \
                not instrs[a_end - 1 - common].is_jump and \
                self._same_test(a_end - 1 - common, other - common, 1):
            common += 1
        # The arms may end alike too (`d + 1 if e else a + 1`): the tail is the longest common
        # end that leaves one value in each arm. Outside a value being read, only the whole
        # common end is tried (as an if statement, each branch would return on its own), and a
        # shorter one where 3.13 left the local loads apart that start it (`return (x if t else
        # c), log` with `x` ending in `c`: `c, log` unfused where the arm falls into the tail).
        shared = self._tail_shared_by_short_circuit(fall, a_end, false_target, other, common)
        for length in range(common, 0, -1):
            unfused = self._unfused_local_pair(other + 1 - length)
            if not pending and length < common and not unfused and length != shared:
                continue
            # (An expression statement `a if cond else b` drops its value first; a constant dropped
            # as a statement of its own is no code at all, so that value is the statement's.)
            dropped = instrs[a_end - length].opname == "POP_TOP"
            needs = needs_value or unfused or self._arm_load_left_on_block_end(other - length) \
                or self._unfused_tail_copy_in_arm(fall, a_end - length, other + 1 - length, length) \
                or self._not_left_apart(a_end - length) or self._not_left_apart(other + 1 - length) \
                or length == shared
            if not needs and not dropped:
                if pending or not self.version.fuses_local_pairs:
                    return None
                continue
            # (an arm that is itself `x if d else y` reads its own copies of the tail in view)
            a = self.pure_value(fall, a_end - length, view_end=a_end)
            b = self.pure_value(false_target, other + 1 - length, view_end=self.end) if a is not None else None
            if b is None or not needs and not (isinstance(a, n.Const) or isinstance(b, n.Const)):
                continue
            self.stack.append(n.IfExp(cond, a, b))
            return other + 1 - length
        return None

    def _constant_arms_before_copied_exit(self, cond: n.Expr, fall: int, false_target: int) -> Optional[int]:
        """`a if cond else b` as a statement, both arms constants, before a small block that ends
        the function: 3.10+ copy that block into the first arm in place of its jump, each arm
        drops its constant (3.12+ drop the first arm's load and POP_TOP together, the constant is
        lost), so the branches read `[a; POP_TOP;] <tail>` and `b; POP_TOP; <tail>`. No written
        statement drops a constant: `b` is an arm. Emits the statement; continues at the tail."""
        instrs = self.instrs
        if not self.version.copies_exit_blocks or len(self.stack) != self.base_depth \
                or false_target + 2 >= self.end or instrs[false_target].opname != "LOAD_CONST" \
                or instrs[false_target + 1].opname != "POP_TOP" or self.jump_sources.get(false_target + 1):
            return None
        first: n.Expr = n.Const(None)
        start = fall
        if instrs[fall].opname == "LOAD_CONST" and instrs[fall + 1].opname == "POP_TOP":
            first, start = n.Const(instrs[fall].argval), fall + 2
        length = false_target - start
        tail = false_target + 2
        if length < 1 or instrs[false_target - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS") \
                or tail + length > self.end or not self._same_code((start, false_target), (tail, tail + length)) \
                or any(instrs[k].is_jump for k in range(start, false_target)):
            return None
        self.emit(n.ExprStmt(n.IfExp(cond, first, n.Const(instrs[false_target].argval))))
        return tail

    def _with_way_on_past_else(self, body: List[n.Stmt], fall: int, false_target: int, end: int) -> Optional[int]:
        """The end of the else part of an if whose body [.., false_target) ends with a with
        statement whose body never falls through (3.11: its handler code ends the if body) and
        which, when its context manager suppresses an exception, goes on elsewhere than at the
        false target: to the code after the if statement (the end of the else part), back to
        the loop's head (the if ends the loop body), or to a copy of the code after the if
        statement that is not the code at the false target (3.12+ lay it with the handler
        code). None when the code at the false target follows the if. (3.11+: the with
        statement, and where its handler goes on, are the structure's.)"""
        if not body or not isinstance(body[-1], n.With) or not self.version.has_exception_table:
            return None
        statement = self.withs.last_in(fall, false_target)
        if statement is None:
            return None
        way_on = self._with_handler_exit(statement.handler.start, self._reach(statement.body_start))
        if way_on is None or way_on == false_target or not body or not isinstance(body[-1], n.With):
            return None
        loop = self.loops[-1] if self.loops else None
        if loop is not None and way_on in loop.continue_targets:
            if end == loop.body_end:
                return end
            if self.instrs[false_target - 1].opname != "JUMP":
                # (the if is no last statement of the loop body, and the with never ends
                # normally: a suppressed exception goes to the next iteration, not on at the
                # false target)
                body.append(n.Continue(required=True))
            return None
        handler_code = self.handler_only_code() if self.version.handler_code_at_end else frozenset()
        if false_target < way_on < end and way_on not in handler_code:
            return way_on
        if way_on < end and way_on not in handler_code:
            return None
        r = way_on
        while r < len(self.instrs) and r < way_on + 6 and self.instrs[r].target is None \
                and self.instrs[r].opname not in TERMINAL:
            r += 1
        if r < len(self.instrs) and self.instrs[r].opname in TERMINAL and false_target + r + 1 - way_on <= end \
                and self._same_instructions(way_on, false_target, r + 1 - way_on):
            return None  # (a copy of the code after the if, which starts at the false target)
        return end

    def _body_ends_in_copied_fall_out(self, fall: int, false_target: int, end: int, last_at: int) -> bool:
        """Does the if body [fall, false_target) end a handler body with a copy of the try's way
        out (3.12+ copy it onto each branch)? Then the body does not go on at the false target,
        the rest of the range is the if's else part. The copy is the last code that normal flow
        reaches (`last_at`): a try ending the body lays its handler code after it. Not when a
        jump in the body goes to the false target: the copy ended an inner if of the body, whose
        false branch goes on where the body does (`if a: (x = f(); if b: return None)` then
        `return x`, pydoc's `_getowndoc`)."""
        if not self.copied_fall_outs or false_target >= end \
                or self.instrs[last_at].opname not in ("RETURN_VALUE", "RAISE_VARARGS") \
                or any(fall <= src < false_target for src in self.jump_sources.get(false_target, ())):
            return False
        return self._copied_fall_out_in(fall, false_target, end) is not None

    def _else_before_dead_jump(self, false_target: int) -> bool:
        """3.8/3.9: an if whose body returns, then code that returns up to the end of the range,
        and there a jump nothing reaches (an enclosing if's jump over its else): the compiler
        removes such a jump after a return unless a label, the end of a compound statement, comes
        first; so the code after this if was its else part."""
        instrs, end = self.instrs, self.end
        if not false_target < end < len(instrs) or instrs[end].opname != "JUMP" or instrs[end].target <= end \
                or self.jump_sources.get(end) or self.loops and end >= self.loops[-1].body_end:
            return False  # (a loop's closing jump back is no jump over an else part)
        if any(instrs[src].opname == "SETUP_FINALLY" for src in self.jump_sources.get(end + 1, ())):
            # A try/finally's own jump over its handler, kept after the copy of the finally body
            # before a return (a label inside that copy stops the removal of dead code).
            return False
        # (a body that ends in a raise is followed by the jump over an else part: the peephole
        # pass removes dead code after a return only)
        return instrs[false_target - 1].opname == "RETURN_VALUE" \
            and instrs[end - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS")

    def _dead_jump(self, k: int) -> bool:
        """Is the JUMP at `k` unreachable: after a return or raise, and no jump's target?"""
        return k > 0 and self.instrs[k].opname == "JUMP" and not self.jump_sources.get(k) \
            and self.instrs[k - 1].opname in TERMINAL

    def _threaded_boolean(self, ins: Instr, i: int, value: n.Expr) -> Optional[int]:
        """`(a and b) or c` before 3.12: the jump of `and` is threaded past the `or`'s own jump."""
        through_end = self._threaded_through_end_test(ins, i, value)
        if through_end is not None:
            return through_end
        t = ins.target
        if t is None or t - 1 <= i or ins.opname not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE"):
            return None
        outer = self.instrs[t - 1]
        inner_op = "and" if ins.opname == "POP_JUMP_IF_FALSE" else "or"
        expected = "JUMP_IF_TRUE_OR_POP" if inner_op == "and" else "JUMP_IF_FALSE_OR_POP"
        if outer.opname != expected:
            return None
        right = self.pure_value(i + 1, t - 1)
        if right is None:
            return None
        left = _flatten(inner_op, value, right)
        if t - 1 >= self.end:  # a link of a longer chain: the caller finishes it
            self.stack.append(left)
            return t - 1
        return self._short_circuit("or" if inner_op == "and" else "and", left, t, outer.target)

    def _threaded_through_end_test(self, ins: Instr, i: int, value: n.Expr) -> Optional[int]:
        """`(d if b else (a and e)) or c` read as a value ending at a test that pops it (an
        enclosing `... and x`): the operand jump of `a and e` was threaded through that test,
        straight to its target (same sense) or just past it (opposite sense), so it shows here as
        a test jumping out of the value instead of to its end."""
        instrs, end = self.instrs, self.end
        if not self.pure_mode or not self.version.threads_value_jumps_into_tests or end >= len(instrs):
            return None
        test = instrs[end]
        if test.opname not in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") or ins.target is None:
            return None
        same_way = ins.opname == test.opname and ins.target == test.target
        past_test = OPPOSITE_JUMPS.get(ins.opname) == test.opname and ins.target == end + 1
        if not (same_way or past_test):
            return None
        right = self.pure_value(i + 1, end)
        if right is None:
            return None
        self.stack.append(_flatten("and" if ins.opname == "POP_JUMP_IF_FALSE" else "or", value, right))
        return end

    def _chain_then_value_jump(self, cond: n.Expr, fall: int, false_target: int) -> Optional[int]:
        """`(a or b) and x or y` before 3.12: a test chain (`_threaded_boolean` reads a single
        test) whose true exit computes `x` and whose false exit is the code right after x's own
        JUMP_IF_TRUE_OR_POP, `y`. With JUMP_IF_FALSE_OR_POP there, `(a and b or x) and y`: the
        chain is true where `x` is computed."""
        k = false_target - 1
        if not fall < k < len(self.instrs) \
                or self.instrs[k].opname not in ("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"):
            return None
        right = self.pure_value(fall, k)
        if right is None:
            return None
        if self.instrs[k].opname == "JUMP_IF_TRUE_OR_POP":
            left: n.Expr = _flatten("and", cond, right)
            op = "or"
        else:
            left = _flatten("or", demorgan_not(cond), right)
            op = "and"
        if k >= self.end:  # a link of a longer chain: the caller finishes it
            self.stack.append(left)
            return k
        return self._short_circuit(op, left, false_target, self.instrs[k].target)

    def try_value_branches(self, cond: n.Expr, a_start: int, a_end: int, b_start: int, b_end: int) -> Optional[n.Expr]:
        """`x if cond else y` when both branches only compute one value."""
        a = self.pure_value(a_start, a_end)
        if a is None:
            return None
        b = self.pure_value(b_start, b_end)
        if b is None:
            return None
        return n.IfExp(cond, a, b)

    def pure_value(self, start: int, end: int, view_end: Optional[int] = None) -> Optional[n.Expr]:
        """The single value [start, end) pushes without producing statements, or None.

        `view_end` lets the constructs read inside see code up to there (a block that ends the
        function, copied into the value's branches), though the value itself ends at `end`."""
        known = self.ranges_with_statements
        if known and (start, end, view_end, len(self.stack), len(self.loops)) in known:
            return None
        saved, saved_end = self.stack, self.end
        # (a reading tried here and given up must not leave code marked as read: a copy of an
        # exit block that a test chain inside skipped would be lost to the reading that follows,
        # fuzz-expr seed 980. Refilled in place: the reading's frames hold the dict.)
        saved_skip = dict(self.skip)
        self.stack = list(saved)
        self.end = end if view_end is None else view_end
        base = len(self.stack)
        self.pure_mode += 1
        value: Optional[n.Expr] = None
        try:
            i = start
            while i < end:
                i = self.step(i)
            if i != end or len(self.stack) != base + 1 or self.stack[:base] != saved[:base]:
                return None
            value = self.stack[-1]
            return value
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except StatementsInValue:
            # Statements in the range fail every later reading of it as a value, which nested
            # ifs ask again at each level (quadratic in the depth): remember.
            known.add((start, end, view_end, len(saved), len(self.loops)))
            return None
        except Exception:
            return None
        finally:
            self.pure_mode -= 1
            self.stack, self.end = saved, saved_end
            if value is None and self.skip != saved_skip:
                self.skip.clear()
                self.skip.update(saved_skip)
