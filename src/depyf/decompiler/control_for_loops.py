"""for loops, and the exit blocks (a `break`'s return, a clause's way out) that the compiler copies
into a loop body in place of the jump out.
"""
from typing import List, NamedTuple, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW
from depyf.decompiler.control_model import LoopInfo, _BLOCK_SETUPS, _drop_trailing_continue


class _ForBounds(NamedTuple):
    """Where a for loop's body lies and where it is left (`ControlForLoops._for_bounds`)."""
    exit: int  # the FOR_ITER's target: where the exhausted iterator goes (3.12+: END_FOR)
    real_exit: int  # where the code after the loop (or its else part) starts, past END_FOR (and POP_TOP)
    body_end: int  # where the body's reading stops: the closing jump back, or past the exit (3.12+)
    past_exit: Set[int]  # the body's code laid past the exit (3.12+ handler code), which it reaches
    break_target: Optional[int]  # where a `break` goes, None where no `break` shows it yet


class ControlForLoops:
    """for loops and copied loop exits; mixed into `control.ControlRules`."""

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

    def for_loop(self, h: int) -> int:
        """The for loop whose FOR_ITER is at `h`, with its else part; returns where the code after
        it starts."""
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
        bounds = self._for_bounds(h)
        exit, body_end, past_exit = bounds.exit, bounds.body_end, bounds.past_exit
        info = LoopInfo({h}, bounds.break_target, bounds.real_exit, body_end)
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
        orelse, after, copies_close_range = self._for_else(h, info, bounds)
        after = self.finish_for(n.For(target, iterable, body, orelse, is_async), after)
        self._place_copied_exit(info, after, copies_close_range)
        return after

    def _for_bounds(self, h: int) -> _ForBounds:
        """Where the body of the for loop at `h` ends and a `break` goes: the FOR_ITER's target is
        the exit (3.12+: END_FOR there, then 3.13's POP_TOP, before the code after the loop), the
        body runs up to it or past it to the loop's last jump back (3.12+ lay copies of exit
        blocks and handler code after the last jump back)."""
        ins = self.instrs[h]
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
            # (nor is the code a `break` past the else part jumps to, the iterator dropped first)
            breaks = {ins.target for ins in self.jumps_in(h + 1, exit) if ins.opname == "JUMP"
                      and ins.target > real_exit and self.instrs[ins.index - 1].opname == "POP_TOP"}
            past_exit = self.loop_body_reach(h, exit, real_exit, breaks) & set(range(exit, body_end))  # exception_regions
            exclude.update(set(range(exit, body_end)) - past_exit)
        break_target = self._break_target(h + 1, body_end, real_exit, exclude, past_exit)
        return _ForBounds(exit, real_exit, body_end, past_exit, break_target)

    def _for_else(self, h: int, info: LoopInfo, bounds: _ForBounds) -> Tuple[List[n.Stmt], int, bool]:
        """The else part of the for loop at `h` whose body was read (`info`), where the code after
        the loop starts, and whether that code exists only as the `break`s' copies of it: the
        else part runs from the exit up to where the `break`s go, which may be found only now
        from the exit blocks they ran copies of (3.10+)."""
        real_exit, break_target = bounds.real_exit, bounds.break_target
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
                h + 1, bounds.body_end, break_target)) is not None:
            orelse = self.run_range(real_exit, else_end, list(self.stack))
            after = else_end
        elif break_target is None and info.copied_exit is not None and self._else_ends_function(real_exit):
            # Every `break` ran a copy of the code after the loop (3.10+), which exists only as
            # those copies: the code at the loop's exit, which ends the function or the enclosing
            # block (an if body, say) with a return or raise, is its else part.
            orelse = self.run_range(real_exit, self.end, list(self.stack))
            after = self.end
            copies_close_range = True
        return orelse, after, copies_close_range

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


def _inside_outer_clause(above_accumulator: List[n.Expr]) -> bool:
    """Does a loop iterator sit above a comprehension's accumulator on the stack?

    Then the loop being finished is a later `for` clause of that comprehension, nested in the
    loop of an earlier clause, and not the whole comprehension.
    """
    return any(isinstance(v, m.Iterator) for v in above_accumulator)
