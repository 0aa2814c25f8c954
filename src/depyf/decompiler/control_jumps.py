"""Unconditional jumps: `break`, `continue`, the jump over an else part, and the ends of ranges that
a jump leaves.
"""
from typing import Optional

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.control_model import LoopInfo
from depyf.decompiler.structure.if_regions import skipping_jumps


class ControlJumps:
    """Unconditional jumps; mixed into `control.ControlRules`."""

    def op_JUMP(self, ins: Instr, i: int) -> int:
        target = ins.target
        if self.version.comprehensions_inlined and target is not None and target > i + 1 \
                and self.skip.get(i + 1) == target and not self.jump_sources.get(i + 1):
            # A jump over handler code already read or never run (3.12+: an inlined
            # comprehension's cleanup): no statement, even in handler code past a loop's exit.
            return target
        for loop in reversed(self.loops):
            if target in loop.continue_targets:
                if loop is self.loops[-1] and self.loop_end.get(target) == i + 1 and self._same_jump(i, i + 1) \
                        and not self.jump_sources.get(i + 1):
                    # right before the loop's own closing jump, which nothing reaches (3.8/3.9
                    # keep it): only a `continue` written out puts a second jump back there
                    self.emit(n.Continue(required=True))
                elif loop is self.loops[-1] and i < target and self._read_until(i + 1, target):
                    pass  # (a jump over handler code already read, to the test at the bottom: the body's end)
                elif i != loop.natural_end or loop is not self.loops[-1]:
                    self.emit(n.Continue(loop.is_while and self.version.while_back_jump_has_line))
                elif self._lands_apart(i, loop.body_end):
                    self.emit(n.Continue(required=True))
                return self.end if self.end <= i + 1 or self._dead_until_end(i) else i + 1
            if self._is_break_target(loop, target) \
                    or (loop.break_target is None and target >= loop.exit
                        and not (self._keeps_iterator(loop) and self._goes_on_past(target, strict=True))) \
                    or self._continues_outer_loop(target) \
                    or loop.break_target is not None and self._threaded_through(target, loop.break_target):
                # (a break whose loop ends the enclosing loop's body jumps straight to its head;
                # 3.8/3.9 thread a break through a jump at the loop's exit to where that goes)
                self.emit(n.Break())
                return self.end if self._dead_until_end(i) else i + 1
            break
        if target > i and target >= self.end:
            if self._stray_break(i, target):
                raise self.fail(ins, "break or continue of a loop that never jumps back")
            if not self._goes_on_past(target, strict=True) or i + 1 == self.end and i in skipping_jumps(self.graph):
                copy = self._terminal_block_copy(i, target)
                if copy is None:
                    raise self.fail(ins, "jump past where the enclosing if statement goes on")
                for stmt in copy:
                    self.emit(stmt)
            return self.end
        if target > i and not any(src != i for t in range(i + 1, target) for src in self.jump_sources.get(t, ())):
            return target  # unreachable code the compiler left behind
        if target > i and self._read_until(i + 1, target):
            return target
        raise self.fail(ins, "jump that does not belong to any construct")

    def return_into_dead_end(self, end: int) -> None:
        """At the end of a range [.., end) being read: when `end` is where a `return value` leaves
        a try whose finally body never finishes (3.11+: that body's copy past the protected code,
        `exit_into_dead_end`; 3.10: the POP_BLOCK before it), the compiler dropped the
        RETURN_VALUE after the copy as dead; a value the range left above its own stack is that
        return's (`if c: return f()`, `else: return f()` ending the try body). Dropped, its
        computation (a call's side effects) would be lost."""
        if self.pure_mode or len(self.stack) != self.base_depth + 1 \
                or isinstance(self.stack[-1], m.MARKER_TYPES):
            return
        if end in self.value_only_dead_ends or self._popped_block_dead_end(end) \
                or (self.version.has_exception_table and self._return_into_dead_end_copy(end)):
            # (3.11+: also the exit call of a with around the range, `with m: try: return f()`,
            # on the way to such a copy)
            self.emit(n.Return(self.pop()))

    def _popped_block_dead_end(self, k: int) -> bool:
        """3.10: is `k` the POP_BLOCK of a `return value` leaving a try whose finally body's copy
        after it never finishes (its RETURN_VALUE dropped as dead; 3.8/3.9 keep it)?"""
        instrs = self.instrs
        if self.version.has_exception_table or self.version.keeps_code_after_raise \
                or k >= len(instrs) or instrs[k].opname != "POP_BLOCK":
            return False
        r = k + 1
        while r < len(instrs) and r - k < 64 and instrs[r].opname not in TERMINAL:
            r += 1
        return r < len(instrs) and instrs[r].opname in TERMINAL and self._never_finishes(k + 1, r + 1)

    def _stray_break(self, i: int, target: int) -> bool:
        """Is the jump at `i` past the range being read, which no loop claimed, sure to be a
        `break` or `continue` (of a loop that never jumps back, `while test: ... break`, read
        as an if)? So when it follows a finally call (3.8: only those leave a try body through
        its finally block by a jump), or when the jump after it, the end of the range, is one
        that nothing reaches to elsewhere (3.8/3.9 keep an if body's jump over its else part
        after a statement that jumps). Taken as the range's way out, the code it skips would
        run: fail instead."""
        instrs = self.instrs
        if i > 0 and instrs[i - 1].opname == "CALL_FINALLY":
            return True
        nxt = instrs[i + 1] if i + 1 < len(instrs) else None
        return i + 1 == self.end and nxt is not None and nxt.opname == "JUMP" and nxt.target != target \
            and not self.jump_sources.get(i + 1)

    def _read_until(self, k: int, target: int) -> bool:
        """Is everything from `k` up to `target` code already read or stepped over (`skip`)?

        3.11+: the normal exit of a with statement that is reached only from the handler of a
        try in its body lies after that handler code (3.12+: after the enclosing function's
        code); it jumps over the with's own handler, read by then, to the exit of the enclosing
        with. Such a jump only goes on where the code after the skipped part goes on."""
        skip = self.skip
        while k < target:
            nxt = skip.get(k)
            if nxt is None or nxt <= k:
                return False
            k = nxt
        return True

    def _same_jump(self, k: int, other: int) -> bool:
        a, b = self.instrs[k], self.instrs[other]
        return a.opname == b.opname == "JUMP" and a.target == b.target

    def _copy_of_range_end(self, target: int) -> bool:
        """Is the block at `target`, past the range being read, a copy of the block where the
        range goes on (3.10 copies a with's exit and the `return x` after it to each `break` of
        a loop that ends the with body: `with c: for ...: break ... else: ...`)? Then a loop's
        breaks that jump there skip the rest of the range, which is the loop's else part."""
        return self.end < target and self.end < len(self.instrs) and self._same_exit_block(self.end, target)

    def _keeps_iterator(self, loop: LoopInfo) -> bool:
        """Is the for loop's iterator still on the stack? Every `break` of a for loop drops it
        first (POP_TOP): a jump past the loop that keeps it, to where the range being read may
        go on, is no `break` of it, but a construct's way on laid past the loop (3.12+: the
        code after a try that only its handlers reach, `try: raise / except E: ... / finally:
        ...` then `raise`)."""
        iterator = loop.iterator
        return iterator is not None and not loop.is_while and any(v is iterator for v in self.stack)

    def _is_break_target(self, loop: LoopInfo, target: int) -> bool:
        """Is a jump to `target` from the loop's body one of its `break`s by where it goes: the
        loop's break target, or another copy of the block there (3.10 copies the small block
        after a loop, a with's exit and `return x`, to each `break`: `with c: while t: if a:
        break ... if b: break ... else: ...` jumps to two copies; the same code, entered under
        the same block stack, does the same)."""
        b = loop.break_target
        # (a copy inside the loop's own region, which a `while True:` may stretch over, is code
        # of the body: only one past the loop's exit is where a `break` goes)
        return b is not None and (target == b or target >= loop.exit and self._same_exit_block(b, target))

    def _past_loop(self, loop: LoopInfo, i: int, target: int) -> bool:
        """Does a jump at `i` to `target` leave the loop by going past its end?

        Handler code of a try inside the loop lies after the loop (3.11+); its jumps forward stay
        in the handler (to its closing re-raise), they do not leave the loop. Nor do jumps in the
        rest of the body that 3.12+ lay past the exit (the code after a try reached only from its
        handlers) to code before the loop's last jump back: `if not c: for ...` in an if branch
        there jumps over the inner loop to the code after the if, beyond the branch.
        """
        if target < loop.exit:
            return False
        if i < loop.exit:
            return True
        return target > self.end and not self._before_last_jump_back(loop, i, target)

    def _before_last_jump_back(self, loop: LoopInfo, i: int, target: int) -> bool:
        """3.12+: does `target`, past the loop's exit like the jump at `i`, lie before the last
        jump back to the loop's head, laid past the exit too (code of the body there)?"""
        if not self.version.handler_code_at_end:
            return False
        last = max((src for c in loop.continue_targets for src in self.jump_sources.get(c, ())
                    if self.instrs[src].opname == "JUMP"), default=-1)
        return i < target <= last

    def _else_end_before_enclosing_continue(self, start: int, end: int, break_target: Optional[int]
                                            ) -> Optional[int]:
        """Where the else part of the loop whose body is [start, end) ends when its `break`s go
        straight on to the enclosing loop's next iteration, or None. The compiler threads a
        break that way when nothing follows the loop statement up to the end of the enclosing
        loop's body (it may be the last statement of an if branch there): the break jumps to the
        enclosing loop's head or test (3.8: to a jump there past the range being read). From
        inside this loop's body such a jump can only be its own `break` (no statement continues
        an outer loop), so what lies between this loop's exit and the range's way out to the
        next iteration (`_end_before_next_iteration`) is its else part.

        Likewise when the breaks jump past the range being read (an if branch) to where its way
        out goes (the code after the if statement): the loop is the range's last statement."""
        if break_target is not None and break_target > self.end:
            past = self._end_before_join(break_target)
            if past is not None:
                if past == self.end:
                    self.range_falls_to.setdefault(self.end, break_target)  # (see `if_statement`)
                return past
        if not self.loops:
            return None
        instrs = self.instrs
        heads = self.loops[-1].continue_targets

        def to_next_iteration(t: int) -> bool:
            return t in heads or (t >= self.end and t < len(instrs) and instrs[t].opname == "JUMP"
                                  and instrs[t].target in heads)

        if break_target is not None and not (break_target >= self.end and to_next_iteration(break_target)):
            return None
        if not any(ins.opname == "JUMP" and ins.target is not None and to_next_iteration(ins.target)
                   for ins in instrs[start:end]):
            return None
        else_end = self._end_before_next_iteration()
        if else_end is not None and else_end == self.end and self.end != self.loops[-1].body_end:
            # (the statements of the range, an if branch say, go on to that next iteration: the
            # enclosing if needs its else part written, see `if_statement`)
            self.breaks_to_next_iteration.add(self.end)
        return else_end

    def _returning_block_end(self, start: int) -> Optional[int]:
        """The end of the straight block at `start` that returns or raises inside the range being
        read, which nothing jumps into past its start; None when there is none."""
        instrs = self.instrs
        k = start
        while k < self.end and instrs[k].target is None and instrs[k].opname not in TERMINAL:
            k += 1
        if k >= self.end or instrs[k].opname not in ("RETURN_VALUE", "RAISE_VARARGS") \
                or any(self.jump_sources.get(q) for q in range(start + 1, k + 1)):
            return None
        return k + 1

    def _ends_range_breaking_to_next_iteration(self, start: int, end: int, exit: int) -> bool:
        """Is the `while True:` loop [start, end), the last statement of the range being read (an
        if branch, not the end of the enclosing loop's body), left only by `break`s that the
        compiler sent straight on to the enclosing loop's next iteration: nothing in it jumps to
        its exit, which only the code before the loop (an if's false branch) reaches?"""
        if not self.loops or self.end == self.loops[-1].body_end or self._jumps_to(start, end, exit):
            return False
        return any(ins.opname == "JUMP" and ins.target is not None and self._goes_to_next_iteration(ins.target)
                   for ins in self.instrs[start:end])

    def _goes_to_next_iteration(self, target: int) -> bool:
        """Is `target`, past the range being read (an if branch, not the end of the enclosing
        loop's body), the enclosing loop's head or its closing jump there?"""
        if not self.loops or self.end == self.loops[-1].body_end:
            return False
        heads = self.loops[-1].continue_targets
        instrs = self.instrs
        return target in heads or (self.end <= target < len(instrs) and instrs[target].opname == "JUMP"
                                   and instrs[target].target in heads)

    def _end_before_join(self, join: int, start: Optional[int] = None) -> Optional[int]:
        """Where the statements of the range being read stop when its way out goes on to `join`
        past it: the jump there that ends the range, the range's end when it ends in a return or
        raise or when a jump there follows it. None when the range goes on elsewhere. (With
        `start`, 3.11: the range's last instruction that normal flow from there reaches, not the
        handler code of a try laid inline after it.)"""
        instrs = self.instrs
        last = instrs[self.end - 1]
        if start is not None and self.version.has_exception_table:
            last = instrs[self.last_normal_index(start, self.end)]
        if last.opname == "JUMP" and last.target == join:
            return last.index
        if last.opname in TERMINAL and not self._ends_skipped_copy() or (self.end < len(instrs) and instrs[self.end].opname == "JUMP"
                                       and instrs[self.end].target == join):
            return self.end
        return None

    def _ends_skipped_copy(self) -> bool:
        """Does the range being read end inside code it steps over (a copy of an exit block)?"""
        return any(s < self.end <= e for s, e in self.skip.items())

    def _end_before_next_iteration(self) -> Optional[int]:
        """Where the statements of the range being read, the last ones of the enclosing loop's
        body or of an if branch that ends it, stop when the code after them is the way on to
        that loop's next iteration: the range's end, or the jump there that ends the range (an
        if branch's way out or a `continue`). None when the range goes on elsewhere."""
        instrs = self.instrs
        loop = self.loops[-1]
        if self.end == loop.body_end:
            return self.end
        if self.end < len(instrs) and instrs[self.end].opname == "JUMP" \
                and instrs[self.end].target in loop.continue_targets:
            return self.end
        last = instrs[self.end - 1]
        if last.opname == "JUMP" and last.target in loop.continue_targets:
            return self.end - 1
        if last.opname in TERMINAL:
            return self.end
        return None

    def loop_claims(self, target: int) -> bool:
        """Does a loop being read take a jump to `target` for its own: a `continue` (to a head),
        a `break` (to its break target), or a jump past its exit? Code of a body laid past the
        exit (3.12+) counts too: only a jump inside the loops' bodies, to none of those, is
        surely none of their statements."""
        return any(target in loop.continue_targets or target >= loop.exit or self._is_break_target(loop, target)
                   for loop in self.loops)

    def _continues_outer_loop(self, target: int) -> bool:
        return any(target in outer.continue_targets for outer in self.loops[:-1])

    def _dead_until_end(self, i: int) -> bool:
        """After a break/continue, is the rest of the range reachable only by falling through?"""
        for t in range(i + 1, self.end):
            if self.jump_sources.get(t):
                return False
        return True
