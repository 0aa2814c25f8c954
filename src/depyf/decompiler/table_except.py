"""try/except on 3.11+ (`_build_except`): the body, the clauses, the else part and where the
statement ends.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler import borrows
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL
from depyf.decompiler.control import LoopInfo, _may_complete
from depyf.decompiler.table_model import (_BREAK, _FORWARD_JUMPS, _Clause, _ExceptBodyEnd, _ExceptClauses,
                                          _ExceptElse, _ExceptWayOut, _HandlerExit)


class TableExcept:
    """try/except; mixed into `exception_table.ExceptionTableRules`."""

    def _build_except(self, s: int, t: int) -> int:
        """The try/except (or except*) whose body starts at `s`, protected by the handler `t`;
        where reading goes on. In phases: the body's end, the clauses, where the statement goes
        on, the handler code, the else part (table_except_ends.py), then each part is read."""
        base = list(self.stack)
        ends = self._except_body_end(s, t)
        be, warm = ends.body_end, ends.warm
        star = self._xt_state.kinds[t] == "star"
        read = self._except_clauses(s, t, be, warm, base, star)
        clauses, exits = read.clauses, read.exits
        loop = self.loops[-1] if self.loops else None
        way = self._except_way_out(s, t, be, read, star, loop)
        x = way.way_on
        swallowed = self._swallowed_way_on(s, be, t, warm, jumped=x is None and way.handlers_to is None)
        break_tail = self._except_break_tail(clauses, exits) if not star else None
        if break_tail is None and x is None and not star and clauses and self.version.handler_code_at_end:
            x = self._except_fallthrough_tail(s, t, be, clauses, swallowed)
        after_loop = None  # the code after the loop, where a handler's `break` goes
        # (a body that never falls out has no else part: the code at `be` is not the try's, but
        # an enclosing if's else part, say)
        if x is not None and x > be and not star and self.version.handler_code_at_end \
                and self._falls_into(s, be) and self._later_construct_in(be, min(x, t), t):
            after_loop = self._handler_break_past_later_try(x, loop)
            x = None  # the handlers' returns are their own: what the body falls into follows the try
        # (the same for except*: the tail follows the recombination's POP_EXCEPT. It may lie
        # past this range, only the handlers reach it: it is the code after the try)
        star_tail = self._star_tail(read.exit_at) if x is None and star and self.version.handler_code_at_end \
            else None
        if x is not None and not star:
            clauses = [(typ, name, hs, x if hs < x < he else he) for typ, name, hs, he in clauses]
        cold = self._except_cold_code(s, t, warm, way.targets, {x, break_tail, after_loop}, loop)
        span_end = max(cold) + 1 if cold else t + 1
        end = self.end
        part = self._except_else_part(s, t, ends, star, x, span_end, loop)
        self._note_except_range_way_on(s, be, part, star)
        part = self._except_else_bounds(s, be, part, way)
        self._no_jump_past_else_part(s, be, part, way, warm)
        self._note_except_unprotected(s, be, t, part)
        breaks = self._except_exit_jumps(exits, part, end)
        swallowed_tail: List[n.Stmt] = []
        if part.way_on is None and not star and swallowed is not None:
            # Only a with that swallowed an exception goes on after the try: the compiler copied
            # that code (a small exit block) into the with's handler (read before the with marks
            # its handler as read).
            swallowed_tail = self.run_range(swallowed[0], swallowed[1], list(base))
            if swallowed[0] > t:
                self._mark_dead(swallowed[0], swallowed[2])  # (3.13+ lay it at the end: read here)
        body = self._read_protected_body(s, be, t, base)
        handlers = self._read_except_clauses(t, clauses, breaks, star, base)
        orelse = self._read_except_else(part, base)
        self._except_loop_way_out(s, be, end, part, loop, body, orelse, handlers)
        tail = self.run_range(read.exit_at, star_tail, list(base)) if star_tail is not None else swallowed_tail
        # (3.11: code that normal flow reaches from the code's start is no handler code, even where
        # only the handlers reach it from the try: the code after an if statement whose body the
        # try ends, which its else part falls into, when a clause's `break` of a loop that never
        # jumps back, read as that if, goes there)
        self._mark_dead_code(cold & self.handler_only_code() if not self.version.handler_code_at_end else cold)
        self.stack = base
        self.emit(n.Try(body, handlers, orelse, [], star, part.else_kept))
        for stmt in tail:
            self.emit(stmt)
        return self._emit_except_moved_tails(s, t, end, part, base)

    def _except_body_end(self, s: int, t: int) -> _ExceptBodyEnd:
        """Where the try body at `s`, protected by the handler `t`, ends: past the protected
        range, it may go on to a return after the exit copies the compiler placed there (an
        unwound exit, a with's return, a way on a swallowed exception takes, a `return CONST`
        through finally copies, a dead-end return), and to the way on of an inner try's clauses."""
        warm = self._reach(s)
        be = self._past_unwound_exit(s, self._extend_for_return(self._protected_end(s, t, warm)), t)
        be = self._past_unprotected_branch_exit(s, self._past_nested_const_return(s, be), t)
        be = self._past_swallowed_way_on(s, self._past_with_return(s, be, t), t)
        be = self._past_const_return_through_copies(s, be, t)
        be = self._past_dead_end_return(s, be, t)
        before_inner = be
        be = self._past_inner_clause_way_on(s, be, t, warm)
        nested_exit = self._nested_handler_exit(s, be, t)
        if nested_exit is not None:
            warm = warm | self._reach(nested_exit)
            past = self._past_nested_exit_const_return(nested_exit, t)
            if past is not None:
                be, nested_exit = past, None
        return _ExceptBodyEnd(be, before_inner, nested_exit, warm)

    def _past_nested_exit_const_return(self, nested_exit: int, t: int) -> Optional[int]:
        """`try: (try: raise E / except E: ...) / return 1`: where the inner clauses go on, past
        the exit calls laid there (an enclosing with's), is a `return <constant>`, which raises
        nothing and so lies unprotected: the end of the body (None where no such return)."""
        k = nested_exit
        while self.skip.get(k, k) > k:
            k = self.skip[k]
        return k + 2 if k + 2 <= t and self._constant_return_at(k) else None

    def _except_clauses(self, s: int, t: int, be: int, warm: Set[int], base: List[n.Expr],
                        star: bool) -> _ExceptClauses:
        """The clauses of the handler at `t` (under its cleanup, the handler that restores the
        previous exception) and their ways out. A clause going on to its own copy of the small
        block the body falls into (the compiler copies small exit blocks) goes where the body
        does."""
        st = self._xt_state
        instrs = self.instrs
        if st.region_at[t] is None:
            raise self.fail(instrs[t], "try handler without its cleanup")
        exits: List[_HandlerExit] = []
        exit_at: Optional[int] = None
        if star:
            clauses, exit_at = self._parse_star_clauses(t, base)
            exits.extend((j, j + 1, j, x) for j, x in self._star_exits(exit_at, be, warm))
        else:
            clauses = self._parse_clauses(t, base)
            for _, _, hs, he in clauses:
                exits.extend((hs, he, j, x) for j, x in self._clause_exits(hs, he, be, warm))
        stray = self._stray_clause_break(s, exits) if not star else None
        if stray is not None:
            raise self.fail(instrs[stray], "break or continue of a loop that never jumps back")
        if exits and self._falls_into(s, be):
            copies = {x for _, _, _, x in exits if x != _BREAK and self._duplicate_way_on(x, be)}
            for y in copies:
                self._mark_dead(y, self._block_end(y))
            exits = [(hs, he, j, be if x in copies else x) for hs, he, j, x in exits]
        return _ExceptClauses(clauses, exit_at, exits)

    def _except_way_out(self, s: int, t: int, be: int, read: _ExceptClauses, star: bool,
                        loop: Optional[LoopInfo]) -> _ExceptWayOut:
        """Where the handlers fall out to, and where the normal path jumps over them (3.11): the
        code after the try, unless the body's jump is a `break`, or (3.14) the clauses' copies
        of the code there are their own way out."""
        instrs = self.instrs
        exits = read.exits
        targets = [x for hs, _, j, x in exits if x != _BREAK and not self._written_jump_out(j, be, hs)]
        self._note_written_handler_breaks(be, exits)
        # (a jump back before the try, to a loop's head, is a `continue`, not the way out)
        targets = [x for x in targets if x >= be] or targets
        # A handler's jump goes where the try ends; a handler whose last block only looks like a
        # copy of code elsewhere (a `return` like the body's) while another jumps past it
        # returns on its own.
        jumped = {x for _, _, j, x in exits if instrs[j].opname == "JUMP" and instrs[j].target == x}
        targets = [x for x in targets if x in jumped] or targets
        if loop is not None and loop.break_target is not None and self.version.handler_code_at_end:
            # (a clause's jump to the loop's break target, the code after the loop, while
            # another clause goes on elsewhere, is a `break`: the other place is the try's end)
            targets = [x for x in targets if x != loop.break_target] or targets
        x_h = max(sorted(set(targets)), key=targets.count) if targets else None
        over = instrs[t - 1] if t - 1 >= be else None
        n_jump = over.target if over is not None and over.opname == "JUMP" and over.target > t else None
        if n_jump is not None and self._before_unwinding(t - 1, be) == be:
            # The body falls into the unwinding of an enclosing except clause (3.13 copies that
            # clause's way out into the try's): not the jump over the handlers. (A `break`
            # pops the loop's iterator first.)
            n_jump = None
        x = n_jump if n_jump is not None else x_h
        if x is not None and n_jump is None and x > be and x not in jumped and not star \
                and self._falls_into(s, be) and self._rest_walked(s, be) is False:
            x = None  # 3.14: the clauses' copies of the code at `x` are their own way out
        # 3.11 lays the else of an except* after its handlers: the body jumps over them to it, and
        # the handlers' way out jumps past it.
        star_else = star and n_jump is not None and x_h is not None and n_jump > read.exit_at \
            and n_jump != x_h
        if star_else:
            x = x_h
        if x is not None and x == n_jump and self._breaks_out_of_loop(t - 1):
            x = None  # the body's way on is a `break` (read from the jump), not the try's end
            if not self.version.handler_code_at_end and self._handlers_end_range(t, x_h):
                x = x_h  # (3.11: where the handlers go on, right after them, is the try's end)
        elif x is not None and x == n_jump and self._breaks_out_of_while(t - 1, x_h):
            # (the same in a while loop; 3.12+ lay the handlers' way on after them too, inside
            # the loop, where only they reach it)
            x = x_h if self._handlers_end_range(t, x_h) else None
        return _ExceptWayOut(x, x_h, n_jump, star_else, targets)

    def _handlers_end_range(self, t: int, x_h: Optional[int]) -> bool:
        """Is `x_h`, where the handlers at `t` go on, after them, the end of the try statement
        when the body's way on is a `break`: inside the range, or past it when the range ends
        at a finally body's copy (an enclosing try body's end: the handlers go on through their
        own copy of it, they fall out of the range and the rest of it is the else part)?"""
        return x_h is not None and t < x_h and (x_h <= self.end or self.end in self.skip)

    def _except_break_tail(self, clauses: List[_Clause], exits: List[_HandlerExit]) -> Optional[int]:
        """3.12+: where the last clause of a try inside a `while True:` runs on into the code
        after the loop, which only its `break` reaches (`_break_tail`): the clause ends there,
        and that way out is the break (`clauses` and `exits` changed); the code there is read
        after the loop, not handler code."""
        break_tail = self._break_tail(clauses, exits)
        if break_tail is not None:
            typ, name, hs, he = clauses[-1]
            clauses[-1] = (typ, name, hs, break_tail)
            exits.append((hs, break_tail, break_tail, _BREAK))
        return break_tail

    def _except_fallthrough_tail(self, s: int, t: int, be: int, clauses: List[_Clause],
                                 swallowed: Optional[Tuple[int, int]]) -> Optional[int]:
        """3.12+: code after the try that only the handlers reach follows the last one; where
        it is the code after the try (None where it is the handler's own return). Past the
        range, the last clause's tail may be a copy of the code the range goes on to (the
        clause ends there, `clauses` changed)."""
        x = self._fallthrough_tail(clauses[-1][2], clauses[-1][3])
        if x is not None and self._body_leaves_enclosing_clause(s, be, t):
            x = None  # the handler's tail (unwinding the enclosing clause too) is its own return
        if x is not None and x > be and self._falls_into(s, be) and self._rest_walked(s, be) is False:
            x = None  # 3.14: the rest follows the try (the clause's way out is its own)
        if x is not None and x >= self.end and not self._rest_of_enclosing_body(x, t) \
                and self._clause_may_return_here(x):
            copy_end = self._copied_way_on(x)
            if copy_end is not None:
                # the clause falls out: its tail is a copy of the code the range goes on to
                typ, name, hs, he = clauses[-1]
                clauses[-1] = (typ, name, hs, x)
                self._mark_dead(x, copy_end)
            # Beyond the range: a fall-out would jump to what follows; an explicit return. But
            # when the clause falls out to the range's end, the code the body falls into
            # before there is no code after the try (`if c: try: A; return True / except E:
            # pass`, then `return False`): it is the try's else part.
            x = self.end if copy_end is not None and be < self.end and self._falls_into(s, be) else None
        if x is not None and swallowed is not None \
                and not self._same_instructions(swallowed[0], x, swallowed[1] - swallowed[0]):
            x = None  # the handler's return is its own: the body falls into other code
        return x

    def _clause_may_return_here(self, x: int) -> bool:
        """Could the code at `x`, right after a clause's POP_EXCEPT, be a statement of the
        clause itself? Only `return <constant>` is loaded after the unwinding, and a `break`'s
        copy of the code after the loop runs there; any other value a clause returns is
        computed before it (then SWAP'd under the exception), and a clause's other statements
        (a `raise` included) run before it: such code after the POP_EXCEPT is the code after the
        try, which only the handlers reach."""
        instrs = self.instrs
        op = instrs[x].opname
        return op == "RETURN_CONST" or op == "LOAD_CONST" and x + 1 < len(instrs) \
            and instrs[x + 1].opname == "RETURN_VALUE" or self._loop_exit_copy(x) is not None  # table_clauses

    def _handler_break_past_later_try(self, x: int, loop: Optional[LoopInfo]) -> Optional[int]:
        """Where a handler's `break` goes when it jumps over a later try's handler code to the
        code after the `while` loop, which only it reaches (read after the loop:
        `loop.handler_break`); None if it is no such break."""
        if loop is not None and loop.is_while and loop.handler_break is None and x >= loop.exit \
                and x >= self.end and x in self.handler_only_code():
            loop.handler_break = x
            return x
        return None

    def _except_cold_code(self, s: int, t: int, warm: Set[int], targets: List[int],
                          ways_on: Set[Optional[int]], loop: Optional[LoopInfo]) -> Set[int]:
        """The handler code of the try at `t`: what only its handlers reach, short of where they
        go on (`ways_on`, the try's way on, a break tail, the code after the loop)."""
        # (where the handlers go on may be code that a jump from before the try reaches too, the
        # code after an enclosing if whose body the try ends with a `break`, or the code after
        # the loop that a handler's `break` leaves for: not handler code)
        shared = {y for y in targets if any(src < s for src in self.jump_sources.get(y, ()))
                  or loop is not None and y in (loop.exit, loop.break_target)}
        stops = {k for k in ways_on if k is not None}
        if loop is not None and (loop.is_while or not self.version.handler_code_at_end):
            # (3.11: a handler that goes on to the loop's test at the bottom, laid inline, falls
            # through it into the loop's exit, the loop's else part, say: not handler code. Nor
            # is the code after a for loop whose body never goes back to its head, which only
            # the FOR_ITER's first exit and the handler's `break` reach. 3.12+ lay a while
            # loop's test with the handler code, but when the test at the top goes to the exit
            # too, the exit was moved back after the loop: pass `loop_exits_after_loops`.)
            stops |= {k for k in (loop.exit, loop.break_target) if k is not None
                      and (not self.version.handler_code_at_end
                           or any(src < s for src in self.jump_sources.get(k, ())))}
        return self._cold_code(t, warm | shared | stops)

    def _note_except_unprotected(self, s: int, be: int, t: int, part: _ExceptElse) -> None:
        """Note the ways out of the body at `s` that its handler does not protect (the breaks;
        3.12+, where the handlers fall out, the copies of the code after the statement)."""
        self._note_unprotected_breaks(s, be, t)
        if part.way_on is not None and part.falls_out and self.version.handler_code_at_end:
            # (with an else part, the body's way out runs it first: a copy of the code after the
            # statement in the body is a `return` written there)
            self._note_unprotected_way_outs(s, be, t, part.else_start if part.else_end > part.else_start
                                            else part.way_on)

    def _except_exit_jumps(self, exits: List[_HandlerExit], part: _ExceptElse, end: int) -> Set[int]:
        """Register the clauses' ways out: a `break` (the clauses whose body starts are
        returned) is stepped over, a fall-out to the try's way on is no statement."""
        breaks: Set[int] = set()
        for hs, he, j, target in exits:
            if target == _BREAK:
                if j < he:
                    self.skip[j] = he
                breaks.add(hs)
            elif part.falls_out and target == part.way_on:
                self._fall_out(j, he)
            elif part.leaves_to_bottom and target == end:
                self._fall_out(j, he)
        return breaks

    def _read_except_clauses(self, t: int, clauses: List[_Clause], breaks: Set[int], star: bool,
                             base: List[n.Expr]) -> List[n.ExceptHandler]:
        """The except clauses of the handler at `t`, read above the previous exception; a
        clause that leaves the loop ends in `break`, one that goes on through a finally copy to
        the loop's head in `continue`. (`except E as e` cleans the name up on its normal ways
        out, `e = None; del e`: skipped.)"""
        handlers: List[n.ExceptHandler] = []
        unbindings = {} if star else {c.body_start: c.normal_unbindings for c in self.except_chain(t).clauses}
        for typ, name, hs, he in clauses:
            for a in unbindings.get(hs, ()):
                self.skip[a] = a + 3
            outer_clause = self._clause_read
            self._clause_read = (hs, he)
            try:
                stmts = self.run_range(hs, he, list(base) + [m.Sentinel("previous-exception")])
            finally:
                self._clause_read = outer_clause
            left = self.last_stack
            if len(left) == len(base) + 1 and not isinstance(left[-1], m.MARKER_TYPES) and not self.spill_mode:
                # A value the clause computed that no statement of it took: only a `return
                # value` leaves one, above the unwound handler, for the copy of a finally body
                # on its way out to run first, which this reading stepped over (its way on may
                # be the suppressed exception of a with in it, laid with the with's handler).
                stmts.append(n.Return(left.pop()))
            if hs in breaks:
                if not (stmts and isinstance(stmts[-1], n.Break)):  # (read already: a written one)
                    stmts.append(n.Break())
            elif self._continue_after_finally_copy(hs, he) and not (stmts and isinstance(stmts[-1], n.Continue)):
                stmts.append(n.Continue())
            handlers.append(n.ExceptHandler(typ, name, stmts))
        return handlers

    def _read_except_else(self, part: _ExceptElse, base: List[n.Expr]) -> List[n.Stmt]:
        """The else part [else_start, else_end) (3.13+ keeps the jump that leaves it)."""
        instrs = self.instrs
        else_start, else_end = part.else_start, part.else_end
        if else_end > else_start and self.version.keeps_try_else_exit and else_end < len(instrs) \
                and instrs[else_end].opname == "JUMP":
            self.kept_else_exits.add(else_end)  # (control: `_block_ends_going_back`)
        orelse = self.run_range(else_start, else_end, list(base)) if else_end > else_start else []
        if part.else_break and not (orelse and isinstance(orelse[-1], n.Break)):
            orelse.append(n.Break())  # (read already where the dropped iterator shows it)
        return orelse

    def _except_loop_way_out(self, s: int, be: int, end: int, part: _ExceptElse, loop: Optional[LoopInfo],
                             body: List[n.Stmt], orelse: List[n.Stmt], handlers: List[n.ExceptHandler]) -> None:
        """The `break` or `continue` that the try's normal way out is, in a loop whose rest only
        the handlers reach (3.12+), added to the else part (or the body)."""
        loop_tail, x = part.loop_tail, part.way_on
        if loop_tail is not None and loop_tail == x and loop is not None and loop.falls_off_to_exit \
                and end == loop.body_end and self._falls_into(s, end):
            # 3.12+: a `while True:` inside a with, closed only by this try's handlers: they go
            # straight to the loop's jump back (nothing follows the try in the body), while the
            # body's normal way out falls off the loop's end, which leaves the loop (the with's
            # exit call follows). That way out is a `break`; falling out of a clause, read
            # before a `break` that ends the loop body, is a `continue`.
            (orelse if orelse else body).append(n.Break())
            # (where the code after the loop lies in the range, the loop's jump back is a block of
            # its own that the clauses jump to: falling out of the try's last clause goes there)
            shared_back = x < len(self.instrs) and self.instrs[x].opname == "JUMP" \
                and self.instrs[x].target in loop.continue_targets
            loop.clauses_fall_back = shared_back
            for clause in handlers:
                if _may_complete(clause.body) and not shared_back:
                    clause.body.append(n.Continue(required=True))
        elif (loop_tail is not None or part.only_tail is not None and self._goes_back_at_once(end, loop)) \
                and self._falls_into(s, max(be, end)) and not self._breaks_through_exit_calls(end):
            # The normal way out of the try runs into the loop's own jump back, but the rest of
            # the body follows the try: that way out is a `continue`. (`for a in d: try: g(a);
            # continue / except E: pass` then more: the range ends at that jump back, and the
            # rest, which only the handler reaches, lies after the handler code.) Not where the
            # body reaches past the range, to its own `return CONST` after the copy of an
            # enclosing finally body (`_past_const_return_through_copies`).
            (orelse if orelse else body).append(n.Continue())

    def _rest_walked(self, s: int, be: int) -> Optional[bool]:
        """3.14: whether the code the try's body (from `s`) falls into at `be` lay in the block
        of the body's end (its else part: True) or after the statement (False), as its borrowed
        loads tell; None where they do not (`borrows.py`: the compiler's borrow pass never
        reaches the block after a try whose handlers all leave)."""
        if not self.version.borrows_stop_at_empty_blocks \
                or any(s <= src < be and self.instrs[src].opname == "JUMP" for src in self.jump_sources.get(be, ())):
            # (a jump from the body to the statement's end reaches it: walked either way; a test's
            # jump there goes to the empty block of the body's end, where the walk stops too)
            return None
        walked = borrows.block_was_walked(self.code, self.version, self.instrs, be, self.end, self.jump_sources)
        if walked is None:
            walked = self._break_target_walked(be)
        if walked is False and not borrows.walked_up_to(self.code, self.version, self.instrs, be,
                                                                 self.jump_sources):
            return None  # (the body's code was not reached either: nothing tells)
        return walked

    def _break_target_walked(self, be: int) -> Optional[bool]:
        """3.14: where the rest at `be` is a `break` (`else: break`, or one after the try; a for
        loop's pops its iterator first), what the code it leads to tells. Its jump forward: not
        reached there says the jump was not either; reached says it was where nothing else leads
        there (no other jump, no fall-through into it). A for loop's `break` may hold a copy of
        that code in place of the jump (a short `return`): its own loads tell."""
        instrs = self.instrs
        if be + 1 >= len(instrs):
            return None
        j = be + 1 if instrs[be].opname == "POP_TOP" else be  # (a for loop's iterator)
        if j > be and instrs[j].opname != "JUMP":
            return borrows.block_was_walked(self.code, self.version, instrs, j, len(instrs), self.jump_sources)
        if instrs[j].opname != "JUMP" or instrs[j].target is None or instrs[j].target <= j:
            return None
        target = instrs[j].target
        walked = borrows.block_was_walked(self.code, self.version, instrs, target, len(instrs), self.jump_sources)
        if walked is not False and (set(self.jump_sources.get(target, ())) - {j}
                                    or instrs[target - 1].opname not in ENDS_FLOW):
            return None  # (reached, but maybe by another way in)
        return walked

    def _leaves_enclosing_finally(self, k: int, target: int) -> bool:
        """Is `target` outside a try/finally whose body holds `k`?"""
        kinds = self._xt_state.kinds
        outside = self._chain(target)
        return any(kinds.get(h) == "finally" and h not in outside for h in self._chain(k))

    def _rest_of_enclosing_body(self, x: int, t: int) -> bool:
        """3.12+: is the code at `x`, past the range being read, where the clauses of the try
        with handler `t` fall out, the rest of an enclosing try's body, moved with the handler
        code (`try: try: return f() / except E: pass` then `raise X`, inside the outer try)?"""
        return bool(self._xt_state.table.handler_chain(t)[1:]) and self._handler_only_tail(x, self.end, t) is not None

    def _jumped_else_part(self, s: int, be: int, end: int, t: int) -> Optional[int]:
        """3.11: where the else part starts when the body never falls into `be`: its last
        statement, a try, jumps over its own handler code (laid inline, right after the body's
        range) to the else part, and so does its except clause (`try: (try: ... except E:
        pass) except F: ... else: return`). One target in (be, end), reached only from the body;
        None otherwise."""
        if self.version.handler_code_at_end:
            return None
        instrs = self.instrs
        # (or an if last in the body whose test jumps over the handler code of a try in its
        # body to the else part: `try: (if c: try: return x / finally: f()) except E: ...
        # else: ...`)
        # (not an inner clause's test, whose jump goes to the re-raise of an exception no
        # clause matched)
        targets = {instrs[k].target for k in range(s, be) if instrs[k].opname in _FORWARD_JUMPS
                   and instrs[k].target is not None and be < instrs[k].target < end
                   and instrs[instrs[k].target].opname != "RERAISE"}
        if not targets:
            # (or a with last in the body whose own body never ends normally: only a manager
            # that swallowed the exception goes on, past the with's handler code laid right
            # after the body, into the else part)
            tails = {w.handler.way_on for w in self.withs.in_range(s, be) if be <= w.handler.start < end}
            tails = {y for y in tails if y is not None and be < y < end and t not in self._chain(y)
                     and not self.jump_sources.get(y)}
            warm = self._reach(s)
            if len(tails) == 1 and not any(k in warm for k in range(be, min(tails))):
                return tails.pop()
        if len(targets) != 1:
            return None
        y = targets.pop()
        if any(not s <= src < be for src in self.jump_sources.get(y, ())):
            return None
        if instrs[y - 1].opname not in ENDS_FLOW and not self.withs.suppressed_path_ends_at(y):
            return None  # (only a with's suppressed path, its handler laid inline, may fall in)
        if any(instrs[src].opname != "JUMP" for src in self.jump_sources.get(y, ())):
            warm = self._reach(s)
            if any(k in warm for k in range(be, y)):
                return None  # (code in between that the body reaches: no handler code)
        return y

    def _copied_else_part(self, s: int, be: int, start: int, end: int) -> Optional[int]:
        """Where, inside [start, end), a copy of the else part [start, that point) begins: a small
        else part that returns is copied (3.12+) into each way the body reaches it, a test in
        the body whose false branch ends it (`if c: ...` last in the body) jumping to that copy,
        which is laid right after the original (3.12: `for`: `else: return` pops the iterator
        first)."""
        instrs = self.instrs
        if not self.version.copies_exit_blocks:
            return None
        for k in range(start + 1, end):
            size = k - start
            if k + size > end or instrs[k - 1].opname not in TERMINAL:
                continue
            sources = self.jump_sources.get(k, ())
            if sources and all(s <= src < be for src in sources) \
                    and self._same_instructions(start, k, size):
                return k
        return None

    def _before_loop_exit(self, be: int, else_end: int) -> int:
        """`else_end`, or the exit of the innermost for loop where that lies in [be, else_end):
        an else part that returns, in a for loop whose only jump back is in handler code (3.12+),
        is followed by the loop's exit (END_FOR) and the code after the loop, then the handler
        code (`for s in a: try: ... except E: pass else: return` then more of the body)."""
        if not self.loops or not self.version.handler_code_at_end:
            return else_end
        instrs = self.instrs
        for h in self.loops[-1].continue_targets:
            if instrs[h].opname == "FOR_ITER" and be <= instrs[h].target < else_end:
                return instrs[h].target
        return else_end

    def _continue_after_finally_copy(self, hs: int, he: int) -> bool:
        """3.12+: does the except clause ending at `he` end with a `continue` through an enclosing
        finally body? Its unwinding runs into the copy of the finally body (registered as read),
        and the clause's last instruction jumps back to the loop's head (the loop's last jump
        back, read as its natural end; `except E as e:` deletes `e` first). A clause that falls
        out instead jumps to such a copy, laid after the handler code: `except E: pass` as the
        last statement of the loop body reads the same, but compiles to that jump."""
        loop = self.loops[-1] if self.loops else None
        last = he - 1
        if loop is None or not self.version.handler_code_at_end or last in self.skip:
            return False
        ins = self.instrs[last]
        if ins.opname != "JUMP" or ins.target not in loop.continue_targets:
            return False
        start = last
        while self.skip.get(start - 1) == last:
            start -= 1
        pop = self._before_unwinding(start, hs) if start < last else None  # (after `e = None; del e`)
        if pop is None:
            return False
        region = self._xt_state.region_at[pop]  # (the unwinding is the finally's protected code)
        return region is not None and self._xt_state.kinds.get(region.handler) == "finally"

    def _body_leaves_enclosing_clause(self, s: int, be: int, t: int) -> bool:
        """Inside an except clause, does the try body [s, be) go on into that clause's unwinding
        (POP_EXCEPT, then its jump or return)? Then the try is the clause's last statement on
        the body's path, and a handler's tail that unwinds the clause as well is a statement of
        that handler (`except A: try: f(); return 1 / except B: return 2`), not code after the
        try reached only from the handlers."""
        return self._clause_read is not None and be < t and self.instrs[be].opname == "POP_EXCEPT" \
            and self._falls_into(s, be)

    def _block_end(self, k: int) -> int:
        """The end of the straight block at `k` that ends in its first return (or `k` when a jump
        or another way out comes first)."""
        instrs = self.instrs
        for q in range(k, min(k + 8, len(instrs))):
            if instrs[q].opname == "RETURN_VALUE":
                return q + 1
            if instrs[q].is_jump or instrs[q].opname in TERMINAL:
                break
        return k

    def _duplicate_way_on(self, y: int, x: int) -> bool:
        """Is the code at `y`, where a handler jumps, another copy of the small block at `x` where
        the try goes on, that only handler code reaches? 3.12 keeps a separate copy of a small
        exit block (`return None`) for each jump to it from handler code (`if c: try: try: ...
        except A: ... except B: ...` whose inner handlers go on through the outer try's end),
        between the if body and its else part."""
        end = self._block_end(y)
        if y == x or end == y or end - y != self._block_end(x) - x \
                or not self._same_instructions(y, x, end - y):
            return False
        handler_code = self.handler_only_code()
        return y in handler_code and not any(self.jump_sources.get(k) for k in range(y + 1, end)) \
            and all(src in handler_code for src in self.jump_sources.get(y, ()))

    def _unwinds_enclosing_clause(self, x: int) -> bool:
        """Is `x`, where a try inside an except clause goes on, that clause's own unwinding
        (its POP_EXCEPT, then its way out)? 3.12+ lays the unwinding after the clause's code, so
        a try that ends an if body whose else part ends in a `raise` (`except E: if c: try: f()
        except F: raise G / else: raise H`) jumps forward past the range to it: the try is the
        last statement of the clause on that path, and the unwinding is no code after it."""
        clause = self._clause_read
        if clause is not None and x == clause[1]:
            return True  # (its jump out, pointed at the clause's end: `_fall_out`, 3.13 copies it)
        return clause is not None and clause[0] <= x < clause[1] and self.instrs[x].opname == "POP_EXCEPT"

    def _breaks_out_of_loop(self, j: int) -> bool:
        """Is the JUMP at `j`, where the body's normal path jumps over the handlers, a `break` of
        the enclosing for loop: it drops the loop's iterator first (`try: f(); break`)? A try
        that only ends the loop body jumps back to the loop's head instead."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.iterator is None or j < 1 or self.instrs[j - 1].opname != "POP_TOP":
            return False
        if self._inside_clause_of(loop):
            # The try is inside an except clause inside the loop (3.12+ lays it after the loop): a
            # `break` would leave the clause (POP_EXCEPT) first; the jump goes where the try ends.
            return False
        target = self.instrs[j].target
        if loop.exit <= j < target <= self.end:
            # 3.12+: the try lies in the rest of the loop body that only an earlier try's
            # handlers reach, laid past the loop's exit; its jump stays in that code.
            return False
        return target >= loop.exit or target == loop.break_target

    def _no_jump_past_else_part(self, s: int, be: int, part: _ExceptElse, way: _ExceptWayOut,
                                warm: Set[int]) -> None:
        """Refuse a try body [s, be) with a jump from its normal code straight to where the
        statement goes on, past its else part (or past where the body's own jump over the
        handlers goes, to where the clauses go: 3.11): only a `break` (or `continue`,
        `return`) jumps so, of a loop that never jumps back (`while True: try: if c: break
        ...`), which the graph does not show. Read as the end of an if in the body, the else
        part would run after it too."""
        past: Set[int] = set()
        if part.way_on is not None and part.else_start < part.else_end <= part.way_on:
            past.add(part.way_on)
        if way.way_on is not None and way.handlers_to is not None and way.way_on < way.handlers_to:
            past.add(way.handlers_to)
        # (a loop around the try that the graph shows reads its own `break`s)
        past -= {x for loop in self.loops for x in past if x == loop.break_target or x >= loop.exit}
        for k in range(s, be) if past else ():
            ins = self.instrs[k]
            if ins.opname == "JUMP" and ins.target in past and k in warm and k not in self.skip:
                raise self.fail(ins, "jump past the else part of a try: a `break` of a loop that never loops")

    def _breaks_out_of_while(self, j: int, handlers_to: Optional[int]) -> bool:
        """Is the JUMP at `j`, where the body's normal path jumps over the handlers, a `break` of
        the enclosing while loop: it goes to the loop's exit while the handlers go on inside the
        loop (`try: f(); break / except E: g()`, then more of the body)?"""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.iterator is not None or handlers_to is None or self._inside_clause_of(loop):
            return False
        return self.instrs[j].target != handlers_to and j < handlers_to < loop.exit \
            and self._loop_break_jump(j)  # table_try_ends

    def _inside_clause_of(self, loop: LoopInfo) -> bool:
        """Is an except clause open inside `loop` (the previous exception, which a clause keeps on
        the stack, above the loop's iterator)?"""
        for k in range(len(self.stack) - 1, -1, -1):
            value = self.stack[k]
            if value is loop.iterator:
                return False
            if isinstance(value, m.Sentinel) and value.what == "previous-exception":
                return True
        return False

    def _handler_loop_tail(self, x: int, end: int, loop: Optional[LoopInfo]) -> Optional[int]:
        """Where the handlers of a try inside a loop fall out to code that only they reach (3.12+
        moves it after the handler code, past the loop), the index of that code's closing jump
        back to the loop's head: the code is the rest of the loop body, after the try."""
        if loop is None or not self.version.handler_code_at_end or x <= end \
                or x not in self.handler_only_code():
            return None
        last = self._handler_tail_last(x)
        if last is None or self.instrs[last].opname != "JUMP" or self.instrs[last].target not in loop.continue_targets:
            return None
        return last

    def _breaks_through_exit_calls(self, k: int) -> bool:
        """Does the code at `k`, past the exit calls stepped over there, leave the innermost
        loop (a `break` of a with body: `with m: try: f(); break / except E: ...` then more)?"""
        start, skip = k, self.skip
        while k in skip and skip[k] > k:
            k = skip[k]
        return k != start and self._leaves_loop_at(k)  # table_clauses

    def _goes_back_at_once(self, be: int, loop: Optional[LoopInfo]) -> bool:
        """Is the way out of a try body at `be` a `continue` (the jump back, left unprotected)?"""
        ins = self.instrs[be] if be < len(self.instrs) else None
        return loop is not None and ins is not None and ins.opname == "JUMP" and ins.target in loop.continue_targets
