"""How a 3.11+ try/except ends (for `TableExcept._build_except`): its else part, where reading
goes on after it (the code after it, a `break` out of the loop, the rest of a range the
handlers reach alone), and the code after it that 3.12+ moved past the handler code.
"""
from typing import List, Optional, Tuple

from depyf.decompiler import borrows
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL
from depyf.decompiler.control import COND_JUMPS, LoopInfo
from depyf.decompiler.table_model import _ExceptBodyEnd, _ExceptElse, _ExceptWayOut


class TableExceptEnds:
    """The ends of try/except; mixed into `exception_table.ExceptionTableRules`."""

    def _except_else_part(self, s: int, t: int, ends: _ExceptBodyEnd, star: bool, x: Optional[int],
                          span_end: int, loop: Optional[LoopInfo]) -> _ExceptElse:
        """The else part of the try at `s` (handler `t`) and where the statement ends, by where
        its way on `x` lies: none, inside the range, or past it (or back to the loop's head)."""
        be, before_inner = ends.body_end, ends.before_inner
        # (3.12+: through the handler of an inner try laid inline, `_inline_inner_handler_at`)
        body_falls = self._falls_into(s, be) or (not self.version.handler_code_at_end or be != before_inner
                                                 or any(self._inline_inner_handler_at(k, t) for k in range(s + 1, be))) \
            and self._falls_into(s, be, through_inner_handlers=True)
        if x is None:
            return self._else_without_way_out(s, t, be, star, body_falls, loop)
        if s < x <= self.end:
            return self._else_before_way_out(s, t, be, ends.nested_exit, x, body_falls)
        return self._else_past_range(s, t, be, star, x, span_end, body_falls, loop)

    def _else_without_way_out(self, s: int, t: int, be: int, star: bool, body_falls: bool,
                              loop: Optional[LoopInfo]) -> _ExceptElse:
        """The handlers never go on after the try: what the body falls into is the else part
        where the compiler's layout tells so (3.14: its borrowed loads; the handler order; 3.13:
        the kept jump out of the else part; 3.11: the handlers follow it), else it follows."""
        instrs = self.instrs
        end = self.end
        else_end, cont = be, be
        else_kept = False
        if not star and body_falls and be < min(t, end) and self._rest_walked(s, be):
            # 3.14: the rest is the else part, up to what its borrowed loads leave out (`borrows.py`)
            else_end = cont = borrows.walked_part_end(self.code, self.version, instrs, be, min(t, end),
                                                      self.jump_sources)
            else_kept = True
        elif not star and body_falls and be < min(t, end) and self._rest_walked(s, be) is not False \
                and self._else_part_by_handler_order(s, be, min(t, end), t):
            else_end = cont = min(t, end)
            else_kept = True
        if not star and body_falls and loop is not None and not loop.is_while \
                and self.version.keeps_try_else_exit \
                and be < end < len(instrs) and self._kept_else_exit(be, end, instrs[end].target, t) \
                and instrs[end].target in loop.continue_targets:
            # 3.13: the handlers never finish, and the rest of the loop body leaves by the
            # kept jump out of an else part
            else_end = cont = end
            else_kept = True
        if t < end and t > be and self._falls_into(s, be) and not self._implicit_return_at(be, t) \
                and not self.version.handler_code_at_end:
            else_end = cont = t  # 3.11: the handlers follow the else part
        return _ExceptElse(None, be, else_end, cont, False, False, False, else_kept, None, None)

    def _else_before_way_out(self, s: int, t: int, be: int, nested_exit: Optional[int], x: int,
                             body_falls: bool) -> _ExceptElse:
        """The try goes on at `x` inside the range: the else part runs from the body's end (or
        from a nested handler's exit, or from where the body jumps to) up to there."""
        else_start = be
        else_end = self._before_loop_exit(be, min(x, t)) if body_falls else be
        if nested_exit is not None and nested_exit < min(x, t):
            else_start, else_end = nested_exit, min(x, t)
        elif not body_falls:
            jumped = self._jumped_else_part(s, be, min(x, t), t)
            if jumped is not None:
                else_start, else_end = jumped, self._before_loop_exit(jumped, min(x, t))
        return _ExceptElse(x, else_start, else_end, x, True, False, False, False, None, None)

    def _else_past_range(self, s: int, t: int, be: int, star: bool, x: int, span_end: int,
                         body_falls: bool, loop: Optional[LoopInfo]) -> _ExceptElse:
        """The try ends its range: it jumps past the range's end, or back to the loop's head.
        The handlers fall out of the range there, unless that jump is a `break` (past the loop)
        or a `continue` (back to its head, with the rest of the body after the try)."""
        instrs = self.instrs
        end = self.end
        else_end = self._before_loop_exit(be, min(t, end))
        cont = end if (t >= end or x > end) else max(span_end, else_end)
        body_ends = be > s and instrs[be - 1].opname in TERMINAL and else_end <= be
        loop_tail = self._handler_loop_tail(x, end, loop)
        only_tail = None
        if loop_tail is None and not self._unwinds_enclosing_clause(x):
            only_tail = self._handler_only_tail(x, end, t)
        leaves_loop = self._handlers_leave_loop(x, be, body_falls, loop, loop_tail, only_tail)
        # (code only the handlers reach, laid past a loop that also ends by its test or
        # iterator, is no code after that loop: it is the rest of the range after the try,
        # unless the body goes on after the try too, which would then run it)
        falls_out = (x > end and not leaves_loop) or (
            loop is not None and x in loop.continue_targets and not body_ends
            and self._falls_into(s, else_end) and self._goes_on_at_head(end, loop)
            and not self._closing_jump_at(end, x)
            # (the body's end falls into the copy of the test at the bottom: a jump to the
            # test at the top is a `continue`)
            and not (x == loop.top_test and end == loop.body_end and end != x))
        if not star and loop is not None and x in loop.continue_targets and not body_ends and body_falls \
                and else_end > be and (rest_walked := self._rest_walked(s, be)) is not True \
                and (rest_walked is False or not self._rest_is_else_part(be, else_end, t, x)):
            # the handlers' jumps back are `continue`s, the rest follows the try (3.14: as
            # its plain loads say, where 3.13 compiles both alike)
            falls_out = False
            else_end = cont = be
        # (the body's way on is a `break`; a handler that goes to the loop's test at the
        # bottom, the end of the body that the try ends, just falls out of the try)
        leaves_to_bottom = leaves_loop and loop is not None and end == loop.body_end \
            and end in loop.continue_targets and end != loop.exit
        part = _ExceptElse(x, be, else_end, cont, falls_out, leaves_to_bottom, False, False, loop_tail, only_tail)
        return self._else_leaving_loop(s, be, body_falls, loop, part) if leaves_loop else part

    def _handlers_leave_loop(self, x: int, be: int, body_falls: bool, loop: Optional[LoopInfo],
                             loop_tail: Optional[int], only_tail: Optional[Tuple[int, int]]) -> bool:
        """Is the handlers' jump past the range at `x` a `break` out of the loop? Not where the
        code there (`only_tail`, only the handlers reach it) rejoins the loop body: a stretch
        that jumps back to the range's end inside the loop is the rest of the loop body, even
        where only breaks leave the loop; so is one whose own code jumps back to the loop's
        head, a `continue` (no code after the loop goes back into it), or over the else part of
        the if whose body it ends (`_handler_only_tail`)."""
        instrs = self.instrs
        end = self.end
        rejoins = only_tail is not None and loop is not None and end < loop.exit \
            and (end in self.tail_else_joins
                 or any(instrs[k].target == end or instrs[k].opname == "JUMP" and k in self._reach(x)
                        and instrs[k].target in loop.continue_targets and instrs[k].target < x
                        for k in range(x, min(only_tail[1], len(instrs)))))
        return loop is not None and x > end and (x >= loop.exit or x == loop.break_target) \
            and loop_tail is None and x not in loop.continue_targets \
            and (only_tail is None or not rejoins and (
                loop.only_breaks_leave or body_falls and not self._goes_back_at_once(be, loop)))

    def _else_leaving_loop(self, s: int, be: int, body_falls: bool, loop: LoopInfo,
                           part: _ExceptElse) -> _ExceptElse:
        """The handlers' jump past the loop is a `break`, not the end of the try (3.12+: code
        only it reaches is read after the loop). The else part may end in a `break` too."""
        instrs = self.instrs
        x, else_end = part.way_on, part.else_end
        if self.version.handler_code_at_end and x in self.handler_only_code():
            loop.handler_break = x  # (read after the loop)
        elif self.version.handler_code_at_end and loop.handler_break_on is None:
            loop.handler_break_on = x  # (control: an enclosing if's else part ends there)
        part = part._replace(way_on=None)
        # (a break that a test in the else part jumps to is that if's else branch; a jump past
        # it from the else part makes it the body of an if: `if c: break`)
        if else_end > be and instrs[else_end - 1].opname == "JUMP" and instrs[else_end - 1].target > self.end \
                and not self.jump_sources.get(else_end - 1) \
                and not any(be <= src < else_end - 1 for src in self.jump_sources.get(else_end, ())):
            return part._replace(else_end=else_end - 1, else_break=True)
        if else_end > be and body_falls and part.loop_tail is None \
                and self._rest_walked(s, be) is False:
            # 3.14: the rest of the loop body follows the try (the code after a `while
            # True:` loop, which only the handler's `break` reaches, is no way on of it)
            return part._replace(else_end=be, cont=be, only_tail=None)
        return part

    def _note_except_range_way_on(self, s: int, be: int, part: _ExceptElse, star: bool) -> None:
        """Where the statement falls out of the range it ends, for an enclosing if whose else
        part ends there (control); 3.12+ clauses that go on through a finally copy laid past the
        range, whose jump goes back to the range's end, mark that jump as read."""
        instrs = self.instrs
        end = self.end
        x = part.way_on
        back = self.skip.get(x, -1) if x is not None and x > end and self.version.handler_code_at_end else -1
        if 0 <= back < len(instrs) and instrs[back].opname == "JUMP" and instrs[back].target == end \
                and back not in self.skip and not self.jump_sources.get(back):
            # 3.12+: the clauses go on through a copy of an enclosing finally body (already
            # registered), laid past the range, whose jump goes back to where the range ends
            # (the try/finally ends an if body: to the code after the if). They fall out of the
            # range, as the statement does; no else part of an enclosing if ends at the copy.
            self._mark_dead(back, back + 1)
        elif x is not None and part.falls_out and x > end and part.only_tail is None \
                and self.version.handler_code_at_end \
                and not (0 < back <= len(instrs) and instrs[back - 1].opname in TERMINAL):
            # (not where the clauses go on through such a copy that never finishes: it raises
            # or returns, and nothing falls out of the range)
            self.range_falls_to.setdefault(end, x)  # control: an enclosing if's else part ends there
        elif x is None and not star and not self.version.handler_code_at_end \
                and (way_on := self._body_jump_past_range(s, be, end)) is not None:
            self.range_falls_to.setdefault(end, way_on)  # control: an enclosing if's else part ends there

    def _except_else_bounds(self, s: int, be: int, part: _ExceptElse, way: _ExceptWayOut) -> _ExceptElse:
        """The else part's bounds as read: 3.11's except* else laid after the handlers, short of
        a copy of it the compiler placed after it, and of its closing jump to the way on."""
        instrs = self.instrs
        x, else_start, else_end, cont = part.way_on, part.else_start, part.else_end, part.cont
        n_jump, x_h = way.body_jump, way.handlers_to
        if way.star_else and n_jump is not None and x_h is not None:
            else_start, else_end = n_jump, self._star_else_end(n_jump, x_h, self.end)
            cont = max(cont, else_end)
        if else_end > else_start:
            copied = self._copied_else_part(s, be, else_start, else_end)
            if copied is not None:
                self._mark_dead(copied, copied + copied - else_start)
                else_end = copied
        if x is not None and (part.falls_out or x > s) and else_end > else_start \
                and instrs[else_end - 1].opname == "JUMP" and instrs[else_end - 1].target == x \
                and not any(else_start <= src < else_end - 1 and instrs[src].opname in COND_JUMPS
                            for src in self.jump_sources.get(else_end, ())):
            # (not when a test in the else part jumps over it: `if c: continue` ends the else part)
            else_end -= 1
        return part._replace(else_start=else_start, else_end=else_end, cont=cont)

    def _emit_except_moved_tails(self, s: int, t: int, end: int, part: _ExceptElse,
                                 base: List[n.Expr]) -> int:
        """Read the code after the try that 3.12+ moved past the handler code (the rest of the
        loop body, the code after the try past the range, or right after the handlers); where
        reading goes on."""
        x = part.way_on
        if part.loop_tail is not None and x is not None:
            # 3.12+: the rest of the loop body after the try, reached only from its handlers,
            # lies after the handler code and ends with the loop's jump back.
            for stmt in self.run_range(x, part.loop_tail, list(base)):
                self.emit(stmt)
            self._mark_dead(x, part.loop_tail + 1)
        if part.only_tail is not None and x is not None:
            self._emit_handler_only_tail(x, part.only_tail, end, base)
        if part.falls_out and t < x < end:
            # 3.12+: the code after the try is reached only from its handlers and was moved after
            # them. It is read here, then marked as read, so that no enclosing range that reaches
            # it by position (after a loop's exit, say) reads it again.
            for stmt in self.run_range(x, end, list(base)):
                self.emit(stmt)
            loop = self.loops[-1] if self.loops else None
            closing = loop is not None and end == loop.body_end and end < len(self.instrs) \
                and self.instrs[end].opname == "JUMP"
            self._mark_dead(t, end + 1 if closing else end)  # with the loop's jump back, if last
            return end
        return max(part.cont, s + 1)

    def _emit_handler_only_tail(self, x: int, only_tail: Tuple[int, int], end: int, base: List[n.Expr]) -> None:
        """3.12+: the code after the try, reached only from its handlers, was moved past the
        range that the try does not end (an if body whose try body returns): read here."""
        instrs = self.instrs
        self.tail_ways_on.setdefault(only_tail[0], end)
        for stmt in self.run_range(x, only_tail[0], list(base)):
            self.emit(stmt)
        self._mark_dead(x, only_tail[1])
        way_on = self.range_falls_to.get(only_tail[0])
        closing = instrs[only_tail[0]] if only_tail[1] == only_tail[0] + 1 else None
        if way_on is None and closing is not None and closing.opname == "JUMP" \
                and closing.target is not None and closing.target > only_tail[1] \
                and self._leaves_enclosing_finally(end, closing.target):
            # (its closing jump goes on past it, out of an enclosing try/finally, through
            # the finally body's copy: `try: if c: (try: raise / except E: pass); more`
            # `else: return / finally: ...` then more; the rest of the range, inside that
            # try, is not reached from there)
            way_on = closing.target
        if way_on is not None and way_on > only_tail[1]:
            # (that code's last statement goes on past it, to code only handlers reach
            # too: so does this statement, past the range, as far as an enclosing if is
            # concerned, whose else part then runs to the end of its range)
            self.range_falls_to.setdefault(end, way_on)
            self.tail_else_joins.add(end)
