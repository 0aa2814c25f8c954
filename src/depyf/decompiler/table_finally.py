"""try/finally on 3.11+ (`_build_finally`): the copies of the finally body on every way out,
registered and dropped, and the dead ends after them.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.structure.handler_kinds import CONSTRUCTS
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.table_model import _FinallyClose, _FinallyShape


class TableFinally:
    """try/finally; mixed into `exception_table.ExceptionTableRules`."""

    def _loop_closes_finally_body(self, t: int, closing: int, last: int) -> bool:
        """Is the last code the finally handler at `t` reaches (`last`, past its last re-raise
        `closing`) the jump back of a loop that ends the finally body and is left only by
        `break`s, each a copy of the closing re-raise (`while True: ... break`)?"""
        ins = self.instrs[last]
        return ins.opname == "JUMP" and t < ins.target < closing

    def _raising_last_branch(self, t: int, closing: int, last: int) -> bool:
        """3.12+: is (closing, last] a branch of the finally body at `t + 1` that raises: one
        straight stretch ending in a raise, entered only by jumps from the body before the
        closing re-raise at `closing` (`if c: A / else: raise E` last)?"""
        instrs = self.instrs
        if not self.version.handler_code_at_end or instrs[last].opname != "RAISE_VARARGS":
            return False
        start = closing + 1
        sources = self.jump_sources.get(start, ())
        if not sources or not all(t < src < closing for src in sources):
            return False
        return all(ins.target is None and ins.opname not in TERMINAL and not self.jump_sources.get(ins.index)
                   for ins in instrs[start + 1:last])

    def _build_finally(self, s: int, t: int) -> int:
        base = list(self.stack)
        shape = self._finally_shape(t)
        warm = self._reach(s)
        span_end = self._cold_span(t, warm)
        copies = self._finally_copies(s, t, shape, warm, span_end)
        be = self._past_unwound_exit(s, self._extend_for_return(self._protected_end(s, t, warm)), t)
        be = self._past_const_return_through_copies(s, self._past_unprotected_branch_exit(s, be, t), t,
                                                     own_copy=True)
        be = self._past_dead_end_return(s, be, t)
        be = self._past_swallowed_body(s, be, t)
        be = self._past_inner_clause_way_on(s, be, t, warm)
        self._skip_swallowed_copy_jumps(s, be, copies)
        body = self._read_protected_body(s, be, t, base, bool(shape.clause_ends))
        after = self.carry_out(body, base, self.last_stack)
        finalbody = self.run_range(shape.final_start, shape.final_end,
                                   list(base) + [m.Sentinel("previous-exception"), m.ExceptionValue()])
        finalbody = self.fold_end_copies(finalbody, shape.final_start)
        # (the span may hold code the body's normal flow reaches: `except E as e: try: A /
        # finally: B` then `return x` lies between the finally's cleanup and the clause's)
        self._mark_dead_code(set(range(t, span_end)) - self._entered_from_before(s, t, span_end, warm) - warm)
        cont = self._finally_way_on(be, t, span_end, body, after, [c for c in copies if not s <= c[0] < be])
        self.stack = after
        if len(body) == 1 and isinstance(body[0], n.Try) and not body[0].finalbody and body[0].handlers:
            inner = body[0]
            self.emit(n.Try(inner.body, inner.handlers, inner.orelse, finalbody or [n.Pass()], inner.star))
        else:
            self.emit(n.Try(body, [], [], finalbody))
        tail = self._after_clause_copies(s, be, copies, warm, t)
        if tail is not None:
            # 3.12+: the code after the statement, which only the except clauses reach (through
            # their copies of the finally body), was moved past the range being read.
            for stmt in self.run_range(tail[0], tail[1], list(base)):
                self.emit(stmt)
            self._mark_dead(tail[0], tail[2])
            way_on = self.range_falls_to.get(tail[1])
            if way_on is not None and way_on > tail[2]:
                self.range_falls_to.setdefault(self.end, way_on)  # (as `_build_except` does)
                self.tail_else_joins.add(self.end)
        return max(cont, s + 1)

    def _past_swallowed_body(self, s: int, be: int, t: int) -> int:
        """`try: (with a: raise E) / except F: ... / else: more` / `finally: ...`: only the
        manager that swallows the exception goes on, to the rest of the statement inside the
        finally's protection (its else part), laid after the with's handler: the body ends
        past it (`_past_swallowed_way_on`, as for a try/except). Only over code that only an
        exception reaches: never over the code after the statement (3.12+, an if around it)."""
        past = self._past_swallowed_way_on(s, be, t, outermost=True)
        if past > be and self.handler_only_code().issuperset(range(be, past)):
            return past
        return be

    def _finally_shape(self, t: int) -> _FinallyShape:
        """Where the handler's copy of the finally body at `t + 1` lies: from the handler to its
        closing re-raise, or on to the cleanup when it never ends; the copies of the closing
        re-raise in it are registered (`finally_end_copies`)."""
        instrs = self.instrs
        cleanup_region = self._xt_state.region_at[t]
        if cleanup_region is None:
            raise self.fail(instrs[t], "finally handler without its cleanup")
        cleanup = cleanup_region.handler
        flow, ends = self._finally_flow(t, cleanup)
        closing, reraise, raising_last = self._finally_close(t, cleanup, flow, max(ends) if ends else None)
        final_start = t + 1
        final_end = closing if closing is not None and instrs[reraise].opname == "RERAISE" else reraise
        clause_ends: List[int] = []
        if closing is None and not ends and not self.version.handler_code_at_end:
            clause_ends = self._finally_clause_ends(t, cleanup, final_end)
        # (the copies of its closing re-raise that only conditional jumps reached are that end
        # itself: pass `finally_reraises` sent the jumps to the last one, and they are stepped over)
        for k in self.merged_reraises:
            if t < k < final_end:
                self._mark_dead(k, k + 1)
        # 3.11+ copies the closing re-raise into the branches that reach it (`if c: A` last).
        self.finally_end_copies.update(k for k in ends if k < final_end)
        return _FinallyShape(final_start, final_end, closing, raising_last, clause_ends)

    def _finally_flow(self, t: int, cleanup: int) -> Tuple[List[int], List[int]]:
        """(what the finally handler at `t` reaches before its `cleanup`, the re-raises in it
        that end the finally body)."""
        instrs = self.instrs
        # The finally body ends with the RERAISE its normal flow reaches (handler code of tries
        # inside it may follow).
        flow = [k for k in self._reach(t + 1) if t < k < cleanup]
        ends = [k for k in flow if instrs[k].opname == "RERAISE" and instrs[k].arg == 0]
        if not ends and self.version.handler_code_at_end:
            # 3.12+: a finally body whose last statement is a with that never ends normally
            # (`finally: (with a: raise E)`) reaches its closing re-raise only through that
            # with's handler (the manager swallowed the exception), laid inline before it.
            # Only with handlers: when an except clause is what reaches it (`finally: (try:
            # raise E / except E: ...)`), the code after the statement lies past the copy's
            # handler code on the normal way out, which this reading would lose.
            through = [k for k in self._reach_through_handlers(t + 1, floor=t + 1, kinds=("with",))
                       if t < k < cleanup and self._cleanup_of(k) == cleanup]
            ends = [k for k in through if instrs[k].opname == "RERAISE" and instrs[k].arg == 0]
            if ends:
                flow = sorted(set(flow) | set(through))
        return flow, ends

    def _finally_close(self, t: int, cleanup: int, flow: List[int], closing: Optional[int]) -> _FinallyClose:
        """How the finally body at `t + 1`, reaching `flow`, ends: at its last re-raise `closing`
        before the handler's RERAISE at `cleanup - 1`, or (where the compiler dropped that
        RERAISE as dead) never, or in a raising last branch."""
        instrs = self.instrs
        reraise = cleanup - 1
        raising_last = False
        if instrs[reraise].opname == "RERAISE":
            return _FinallyClose(closing, reraise, raising_last)
        if closing is not None and max(flow) > closing and self._loop_closes_finally_body(t, closing, max(flow)):
            closing = None  # (the re-raises are the breaks' copies: read as `break`)
        elif closing is not None and max(flow) > closing and self._raising_last_branch(t, closing, max(flow)):
            # 3.12+: a finally body ending in an if whose last branch raises: the closing
            # re-raise is only copied into the other branch, and the raising branch follows
            # it. The body runs to that branch's end; the copy is one of its ends.
            reraise = max(flow) + 1
            raising_last = True
        elif not flow or closing is not None and max(flow) > closing:
            raise self.fail(instrs[t], "finally handler does not end with a re-raise")
        # A finally body that never ends (`finally: raise`); or one whose last statement is
        # a loop left by a `break` that falls into the closing re-raise, while a try in the
        # loop body has handler code that jumps back to the loop's head after it (3.12+:
        # `while True: try: f() / except E: pass / else: break`): the body is read with
        # that handler code, up to the cleanup.
        if closing is None:
            # (code that only handlers inside it reach, still under the finally's cleanup, is
            # part of the body too: `finally: (with a: raise E); more` runs `more` after the
            # manager swallowed the exception)
            last = max(k for k in self._reach_through_handlers(t + 1, floor=t + 1)
                       if t < k < cleanup and (k in flow or self._cleanup_of(k) == cleanup))
            reraise = max(flow) + 1 if last <= max(flow) else last + 1
        else:
            reraise = cleanup
        return _FinallyClose(closing, reraise, raising_last)

    def _finally_clause_ends(self, t: int, cleanup: int, final_end: int) -> List[int]:
        """3.11: a try in the finally body whose body never falls out, its except clauses
        ending the finally body: each of their ways out (after POP_EXCEPT, under the finally's
        cleanup) holds a copy of the closing re-raise, which has no original after them
        (`finally: (try: raise E / except E: while c: ...)`). The body is still read to
        `final_end`; the copies (registered here) only end the clauses. (Not 3.12+, where the
        code after the statement lies inside the normal copy's handler code, between its
        clauses' way out and their handler code: this reading would lose it.)"""
        instrs = self.instrs
        clause_ends = sorted(
            k for k in self._reach_through_handlers(t + 1, floor=t + 1, kinds=("except", "star"))
            if t < k < final_end and instrs[k].opname == "RERAISE" and instrs[k].arg == 0
            and instrs[k - 1].opname == "POP_EXCEPT" and self._cleanup_of(k) == cleanup)
        self.finally_end_copies.update(clause_ends)
        return clause_ends

    def _finally_copies(self, s: int, t: int, shape: _FinallyShape, warm: Set[int],
                        span_end: int) -> List[Tuple[int, int]]:
        """The copies [start, stop) of the finally body on the ways out of the try body at `s`,
        registered as read (`_register_copies`)."""
        instrs = self.instrs
        final_start, final_end, closing = shape.final_start, shape.final_end, shape.closing
        # (the copies on the ways out end where the closing re-raise stands: after that come
        # the code after the statement, then the copy's handler code)
        copy_end = final_end if closing is None or final_end <= closing or shape.raising_last else closing
        while copy_end - 1 > final_start and instrs[copy_end - 1].opname == "RERAISE" \
                and instrs[copy_end - 1].arg == 0:
            copy_end -= 1  # a copied closing re-raise: the normal copy jumps or falls out there
        copies = self._register_copies(s, t, final_start, copy_end, span_end, self._protected_end(s, t, warm))
        if shape.clause_ends and any(start < self._protected_end(s, t, warm) for start, _ in copies):
            # (a way out from inside the body, `break` or `continue`, goes on through its copy's
            # clauses: not read here)
            raise self.fail(instrs[t], "a way out through a finally body whose except clauses end it")
        return copies

    def _skip_swallowed_copy_jumps(self, s: int, be: int, copies: List[Tuple[int, int]]) -> None:
        """3.12+: a try body that never falls out (`with a: raise E`, the manager may swallow
        it) reaches its copy of the finally body only through that with's handler, laid after
        the code the statement goes on to (an if body the try ends: the code after the if): the
        copy's jump back to `be` there is the way on, read with it (skipped). (Not where an
        except clause reaches the copy: its way on is read elsewhere.)"""
        instrs = self.instrs
        swallows: Optional[Set[int]] = None
        for copy_start, copy_stop in copies:
            back = instrs[copy_stop] if copy_stop < len(instrs) else None
            if back is None or back.opname != "JUMP" or back.target != be or be >= copy_start \
                    or copy_stop in self.skip or self.jump_sources.get(copy_stop) \
                    or not self.version.handler_code_at_end or instrs[copy_start - 1].opname not in ENDS_FLOW:
                continue
            if swallows is None:
                swallows = {w.handler.way_on for w in self.withs.in_range(s, be)} - {None}
            sources = self.jump_sources.get(copy_start, ())
            if sources and all(src in swallows for src in sources):
                self.skip[copy_stop] = copy_stop + 1

    def _read_protected_body(self, s: int, be: int, t: int, base: List[n.Expr],
                       clause_ends: bool = False) -> List[n.Stmt]:
        """The try body [s, be) of a try/finally or try/except, with the `return value` whose
        RETURN_VALUE the compiler placed past the finally body's copy (or dropped as dead).
        `clause_ends`: the finally body's except clauses end it (`_finally_clause_ends`)."""
        instrs = self.instrs
        body = self.run_range(s, be, list(base))
        left = self.last_stack
        if len(left) == len(base) + 1 and be in self.skip and be < t and not isinstance(left[-1], m.MARKER_TYPES) \
                and (self._never_finishes(be, min(self.skip[be], t)) or self._only_returns_after(be, self.skip[be])):
            # The body ends in `return value` and the finally body (of this try, or of an
            # enclosing one, whose copy follows) never finishes: the value is computed before
            # the copy, and the compiler dropped the RETURN_VALUE after it as dead (left on the
            # stack, the value and its side effects would be lost).
            body.append(n.Return(left.pop()))
        elif clause_ends and len(left) == len(base) + 1 and not isinstance(left[-1], m.MARKER_TYPES):
            # `try: return value / finally: (try: raise E / except E: ...)` (3.11): the value is
            # computed before the copy, whose except clauses' ways out (after POP_EXCEPT) are
            # the RETURN_VALUE; the try body is that return.
            outs = [k for k in range(be, t) if instrs[k].opname == "POP_EXCEPT"
                    and instrs[k + 1].opname != "RERAISE"]
            if not outs or any(instrs[k + 1].opname != "RETURN_VALUE" for k in outs):
                raise self.fail(instrs[t], "a value left before a finally body whose except clauses end it")
            body.append(n.Return(left.pop()))
        return body

    def _only_returns_after(self, start: int, end: int) -> bool:
        """Does the skipped copy [start, end) of a finally body go on only to RETURN_VALUEs, where
        it falls out and where its jumps leave it (3.12+ copy the return into each branch of
        an `if` that ends the finally body)? Then the value left above the try's stack before
        it is a `return value` of the try body."""
        instrs = self.instrs
        if end >= len(instrs) or instrs[end].opname != "RETURN_VALUE" or instrs[end - 1].opname in ENDS_FLOW:
            return False
        outs = [ins.target for ins in instrs[start:end] if ins.target is not None and not start <= ins.target < end]
        return all(instrs[k].opname == "RETURN_VALUE" for k in outs)

    def _finally_way_on(self, be: int, t: int, span_end: int, body: List[n.Stmt], after: List[n.Expr],
                        copies: List[Tuple[int, int]]) -> int:
        """Where reading goes on after the try/finally: past the copy of the finally body on the
        try body's normal way out at `be` (and a `return CONST` after it, added to `body`), and
        past the jump over the handler code."""
        instrs = self.instrs
        cont = be
        while cont in self.skip and self.skip[cont] > cont and cont < span_end:
            cont = self.skip[cont]
        if cont not in self.body_const_returns and be < cont and self._const_return_after_copy(be, cont):
            # `try: ...; return CONST` (3.11+): the constant is loaded after the finally body's
            # copy; a return after the statement would be reached by a jump over the handler.
            body += self.run_range(cont, cont + 2, list(after))
            cont += 2
        if cont in self.body_const_returns:
            # (read as the `return CONST` of a try body inside, `_past_const_return_through_copies`,
            # or of a with body, `_with_const_return`)
            cont += 2
        over = instrs[cont] if cont < len(instrs) else None
        if over is not None and cont in self.with_break_ways:
            # (the same, in a for loop: the iterator popped, then a jump or a copy of the code
            # after the loop)
            cont = self.with_break_ways[cont]
        elif over is not None and cont in self.with_break_jumps:
            # The body's way out at `be` (the finally body's copy, then a jump out of the loop)
            # is the `break` ending a with body: only that with's handler, when the manager
            # swallowed the exception, goes on after the try, through its own copy.
            cont += 1
        elif over is not None and (past_break := self._body_break_past_handlers(cont, copies)) is not None:
            # The try body's way out, after the copy, is a `break` (the clauses go on in the loop
            # body through their own copies): it ends the body, or its else part.
            inner = body[0] if len(body) == 1 and isinstance(body[0], n.Try) and body[0].handlers else None
            ends = inner.orelse or inner.body if inner is not None else body
            if ends and isinstance(ends[-1], n.Continue) and not ends[-1].required:
                ends.pop()  # (the inner try's reading took that way out for the loop's next turn)
            ends.append(n.Break())
            if instrs[past_break - 1].opname in TERMINAL:
                # (the `break` ran a copy of the code after the loop, which may exist only so)
                self.note_copied_break(cont + (1 if instrs[cont].opname == "POP_TOP" else 0), past_break)
            cont = past_break
        elif over is not None and over.opname == "JUMP" and self._read_between(cont + 1, t) \
                and over.target >= span_end:
            # (the handlers of a try inside a finally copy, already read, may lie in between)
            cont = min(over.target, self.end) if over.target <= self.end else self.end
        if self._ends_loop_body_before_exit(cont):
            cont = self.end
        return cont

    def _after_clause_copies(self, s: int, be: int, copies: List[Tuple[int, int]], warm: Set[int],
                             t: int) -> Optional[Tuple[int, int, int]]:
        """3.12+ `try: ... return x / except E: ... / finally: ...` then more: the body never falls
        out, so only the except clauses go on after the statement, each through its copy of the
        finally body and a jump to the code after the statement (or falling into it). That code is handler-only code,
        laid after the handler code past the range being read (an enclosing try body): the rest
        of that range (`_handler_only_tail`). (start, end of its statements, end of the code to
        mark read), or None."""
        if not self.version.handler_code_at_end or self._falls_into(s, be):
            return None
        instrs = self.instrs
        targets = set()
        jumps = []
        for start, end in copies:
            if start in warm or end >= len(instrs):
                continue
            if end in self.skip or instrs[end - 1].opname in ENDS_FLOW:
                return None
            if instrs[end].opname == "JUMP":
                targets.add(instrs[end].target)
                jumps.append(end)
            else:
                targets.add(end)  # (the code after the statement laid right after the copy)
        if len(targets) != 1:
            return None
        x = targets.pop()
        if x <= self.end:
            return None
        # (the try inside fell out to its clauses' copy of the finally body, past the range: not
        # the way on of the whole statement, which is that code's)
        inner = self.range_falls_to.get(be)
        if inner in {start for start, _ in copies}:
            del self.range_falls_to[be]
        only_tail = self._handler_only_tail(x, self.end, t, (s, be))
        if only_tail is None:
            if inner is not None:
                self.range_falls_to[be] = inner
            return None
        for j in jumps:
            self._mark_dead(j, j + 1)
        return x, only_tail[0], only_tail[1]

    def _entered_from_before(self, s: int, t: int, span_end: int, warm: Set[int]) -> Set[int]:
        """The code inside the handler span [t, span_end) of a try/finally starting at `s` that is
        no handler code of it, but that a jump from before the handler code enters: 3.12+ lays
        the cleanup of an enclosing `except E as e` clause (`e = None; del e; RERAISE 1`) after
        the clause's way out, so when the try/finally ends one branch of an if in that clause
        (`if c: A / else: try: raise E / finally: B`), the other branch's way out (`POP_EXCEPT; e = None; del e`,
        then the code after the try) lies between the finally's cleanup and that clause's. The
        same way out follows the copy of the finally body on the try's own normal way out when
        the try/finally is the clause's whole body (`except E as e: try: A / finally: B`, then
        the code after the try), where the jump from the statement's own code goes to that
        POP_EXCEPT."""
        cold = self._cold_code(t, warm)
        found: Set[int] = set()
        for k in range(t, span_end):
            if k not in cold and k not in found \
                    and any(src < s or src < t and src not in cold and self.instrs[k].opname == "POP_EXCEPT"
                            for src in self.jump_sources.get(k, ())):
                found |= {q for q in self._reach_with_inner_handlers(k) if t <= q < span_end and q not in cold}
        return found

    def _cleanup_of(self, k: int) -> Optional[int]:
        region = self._xt_state.region_at[k]
        return region.handler if region is not None else None

    def _body_break_past_handlers(self, k: int, copies: List[Tuple[int, int]]) -> Optional[int]:
        """Where the `break` at `k` ends, right after the copy of the finally body on the try
        body's normal way out: a jump (a for loop's iterator popped first) to the innermost
        loop's break target, over the handler code or the code after the loop, while the other
        copies past the body (the clauses' ways out; `copies` holds no copy of a way out from
        inside the body) go on elsewhere. (Where they all go there, the `break` follows the
        statement: 3.11 threads their jumps to the loop's exit.) None where `k` is no such
        break."""
        loop = self.loops[-1] if self.loops else None
        instrs = self.instrs
        if loop is None or self.end > loop.body_end:
            return None
        at = k
        if loop.iterator is not None:
            if instrs[k].opname != "POP_TOP":
                return None
            k += 1
        if k >= len(instrs):
            return None
        jump = instrs[k]
        if jump.opname == "JUMP":
            if jump.target is None or not self._is_break_target(loop, jump.target):
                return None
            exit, past = self._follow_jumps(jump.target), k + 1
        else:
            # (3.12+ copy a small block after the loop, `return x`, in place of the jump)
            past = self._loop_exit_copy(k)  # table_clauses
            if past is None:
                return None
            exit = None
        others = [stop for _, stop in copies if stop != at and stop < len(instrs)]
        if not others or any(instrs[stop].opname == "JUMP" and self._follow_jumps(instrs[stop].target) == exit
                             or loop.iterator is not None and instrs[stop].opname == "POP_TOP"
                             or exit is None and self._same_code((k, past), (stop, stop + past - k))
                             for stop in others):
            return None
        return past

    def _ends_loop_body_before_exit(self, cont: int) -> bool:
        """3.12+: does a try statement whose code ends at `cont` end the body of the innermost for
        loop, which runs on past the loop's exit at `cont`? The try body never falls out (`for k
        in keys: try: return f(k) except E: pass finally: g()`): only the except clauses go on,
        through the copy of the finally body on their way out, which lies with the handler code
        after the loop and jumps back to the loop's head. That copy, already read, is the rest
        of the loop body; the code at the exit (END_FOR, then the code after the loop) is not."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or loop.is_while or not self.version.handler_code_at_end \
                or not cont < self.end == loop.body_end:
            return False
        if not any(self.instrs[h].opname == "FOR_ITER" and self.instrs[h].target == cont
                   for h in loop.continue_targets):
            return False
        handler_code = self.handler_only_code()
        return all(k in self.skip for k in range(cont, self.end) if k in handler_code)

    def _const_return_after_copy(self, copy: int, k: int) -> bool:
        """Is `k`, right after the finally body's copy [copy, k) on the body's normal way out, a
        `return CONST` that only that copy reaches?"""
        instrs = self.instrs
        if self.version.copies_exits_with_line_numbers:
            return False  # (3.12+ copy a written `return CONST` after the statement there too)
        return k + 1 < len(instrs) and instrs[k].opname == "LOAD_CONST" \
            and instrs[k + 1].opname == "RETURN_VALUE" and not self.jump_sources.get(k + 1) \
            and all(copy <= src < k for src in self.jump_sources.get(k, ()))

    def _read_between(self, start: int, end: int) -> bool:
        """Is all of [start, end) code already read (or none)?"""
        return all(k in self.skip for k in range(start, end))

    def _note_exit_break(self, k: int) -> None:
        """After the finally copy on a way out of the body, a small block that loads a variable
        and returns is a `break` to a copied exit block: a `return` computes its value before the
        finally body runs, and only a constant after it."""
        if not self.loops or k >= len(self.instrs) or self.instrs[k].opname == "LOAD_CONST" \
                or self.instrs[k].raw_opname == "RETURN_CONST":
            return
        end = self._copy_end(k)  # exception_blocks: a small block ending the function
        if end is not None:
            self._xt_state.exit_breaks[k] = end

    def _register_copies(self, s: int, t: int, fs: int, fe: int, span_end: int,
                         body_end: int) -> List[Tuple[int, int]]:
        """Mark the copies of the finally body the compiler put before each exit of the try
        (those before `body_end` leave from inside the body); the copies [start, stop) that
        are stepped over whole."""
        copies: List[Tuple[int, int]] = []
        length = fe - fs
        if length <= 0:
            return copies
        instrs = self.instrs
        first = instrs[fs]
        through_clauses = self._goes_on_through_clauses(fs, length, self._reach(fs, floor=fs))
        for k in range(s, len(instrs) - length + 1):
            if not self._may_start_copy(k, t, first, span_end):
                continue
            # (only the copy on the normal way out, after the body, may end in copied returns:
            # a way out from inside the body, a break say, reads them as its own statements)
            matched = self._match_copy(fs, length, k, returns=k >= body_end)
            if matched is not None:
                self._register_copy(s, k, matched, (fs, fe), body_end, through_clauses, span_end, copies)
        return copies

    def _may_start_copy(self, k: int, t: int, first: Instr, span_end: int) -> bool:
        """Can a copy of the finally body (starting with `first`) of the handler `t` start at
        `k`: outside the handler's code and the body it protects, where the body falls in, a
        skip ends, or a jump from the protected code goes?"""
        instrs = self.instrs
        if t <= k < span_end or instrs[k].opname != first.opname or instrs[k].argval != first.argval \
                and first.target is None:
            return False
        if t in self._chain(k) or k == 0:
            return False
        # (a body that raises or returns right before `k` does not fall into it: code there
        # that looks like the finally body is the code after the statement, `try: raise E`
        # / `finally: f()` then `f()`; 3.12+ drop the dead normal copy)
        falls_in = t in self._chain(k - 1) and instrs[k - 1].opname not in TERMINAL
        return falls_in or (k - 1 in self.skip) or self._ends_skip(k) \
            or any(t in self._chain(src) for src in self.jump_sources.get(k, ()))

    def _register_copy(self, s: int, k: int, matched: Tuple[int, Optional[int], List[Tuple[int, int]]],
                       final: Tuple[int, int], body_end: int, through_clauses: bool, span_end: int,
                       copies: List[Tuple[int, int]]) -> None:
        """Mark the copy at `k` (`_match_copy`'s (size, inner exit, returns)) of the finally
        body `final` [fs, fe) as read, with the handler code of the constructs in it; a copy
        stepped over whole goes into `copies`."""
        instrs = self.instrs
        size, exit, outs = matched
        pieces = self._copy_pieces(k, size)
        if len(pieces) > 1 and k < body_end:
            # (a way out from inside the body: the copy in place never finishes; its
            # handler code, with the way on, goes with the constructs inside it)
            size = pieces[0][1] - k
        elif len(pieces) > 1:
            # (the normal way out: its way on ends the last run; entering the copy steps
            # over all of it, the foreign code in between keeps its own reading)
            for start, end in pieces:
                self._mark_dead(start, end)
            self.skip[k] = k + size
            copies.append((k, k + size))
            for start, end in pieces:
                self._drop_handlers_of(start, end, through_clauses, span_end)
            return
        kept = self._return_inside_copy(k, k + size, outs)
        if kept is not None:
            # The copy's only way on is a return inside it (a loop in the finally body
            # left by a `break` straight to it): that return is the statement's own.
            self._mark_dead(k, kept[0])
            self._mark_dead(kept[1], k + size)
            self._drop_handlers_of(k, k + size)
            return
        self._mark_dead(k, k + size)
        copies.append((k, k + size))
        if k < body_end and instrs[k + size - 1].opname not in ENDS_FLOW:
            self._note_exit_break(k + size)  # (a copy that falls into what follows)
        self._note_dead_end_copy(s, k, size, final, body_end)
        if exit is not None and instrs[k + size - 1].opname in ENDS_FLOW:
            # The copy's only way on is a jump back inside it: that jump is the try
            # body's own `continue`, the rest of the copy is the finally body.
            self._mark_dead(k, exit)
            del self.skip[exit]
            self._mark_dead(exit + 1, k + size)
        self._drop_handlers_of(k, k + size, through_clauses, span_end)
        self._drop_copied_ways_on(k, k + size)

    def _copy_pieces(self, k: int, size: int) -> List[Tuple[int, int]]:
        """The runs [start, end) of the copy at `k` matched over [k, k + size). 3.12+: a copy whose
        with never ends normally (`finally: (with a: raise E); more`) goes on only through that
        with's handler code, laid at the end, past other code: the rest of the try body after a
        way out (`if c: return x` then more), other copies and their handler code, the except
        clauses' code. The match steps over that code. Runs start where the code before ends
        its flow: a run is the copy's when the copy reaches its start (through the handlers of
        the constructs in it) or it is the cleanup of handler code of the copy's; else foreign
        code, up to the next such start."""
        if not self.version.handler_code_at_end:
            return [(k, k + size)]
        instrs = self.instrs
        own = self._reach_through_handlers(k, floor=k)
        pieces: List[Tuple[int, int]] = []
        start: Optional[int] = k
        for g in range(k + 1, k + size):
            if instrs[g - 1].opname not in ENDS_FLOW:
                continue
            ours = g in own or any(r.handler == g and r.start in own for r in self.bc.regions)
            if ours and start is None:
                start = g
            elif not ours and start is not None:
                pieces.append((start, g))
                start = None
        if start is not None:
            pieces.append((start, k + size))
        return pieces

    def _return_inside_copy(self, start: int, end: int, outs: List[Tuple[int, int]]
                            ) -> Optional[Tuple[int, int]]:
        """The return block inside the copy [start, end) of a finally body that stands where the
        handler's copy re-raises, when it is the only way on of the copy (a `while True:` loop
        left by its `break`, which goes straight to the return after the copy): no return follows
        the copy, so that return is the statement's own, not a duplicate of one after it."""
        if len(set(outs)) != 1:
            return None
        q, e = outs[0]
        instrs = self.instrs
        if not start < q < e <= end or any(instrs[k].opname in TERMINAL and not start <= k < end
                                          for k in self._reach(start)):
            return None  # (the copy goes on elsewhere too: the return there is the real one)
        return q, e

    def _drop_copied_ways_on(self, start: int, end: int) -> None:
        """A branch of the copy [start, end) that jumps where the handler's copy re-raises goes on
        to a duplicate of the return that follows the copy (`return x` through a finally body
        whose last `if` has no else): that duplicate is part of the copy, read with the return.
        Each jump gets its own duplicate (`if a and b:` last: two), laid out one after the other."""
        after = self._copied_return_block(end)
        if after is None:
            return
        width = after - end
        dup = after
        while dup + width <= len(self.instrs) and dup not in self.skip:
            sources = self.jump_sources.get(dup, ())
            if not sources or not all(start <= src < end for src in sources) \
                    or self._copied_return_block(dup) != dup + width \
                    or not self._same_instructions(end, dup, width):
                return
            self._mark_dead(dup, dup + width)
            dup += width

    def _jumped_way_on(self, code: Set[int], past: int) -> Set[int]:
        """The code after a try statement that handler code inside a copy of its finally body
        jumps to, over the statement's own handler code (which ends before `past`): a copy whose
        way on is only through such handler code (`finally: (with a: raise E); more`, the
        manager swallowing the exception) goes on there, and that code is no handler code."""
        found: Set[int] = set()
        for k in code:
            ins = self.instrs[k]
            if ins.opname == "JUMP" and ins.target is not None and k < past <= ins.target:
                found |= {q for q in self._reach(ins.target) if q >= ins.target}
        return found

    def _drop_handlers_of(self, start: int, end: int, through_clauses: bool = False,
                          past: Optional[int] = None) -> None:
        """The handler code of constructs inside a skipped copy of a finally body is dead too.

        So are the handlers of constructs whose protected code is only such handler code: 3.12+
        protects the except clauses of a `try: ... except: ... finally:` (not its body, whose
        handler is the except's) by the finally's handler, which lies after them at the end."""
        st = self._xt_state
        dead: Set[int] = set(range(start, end))
        # (`through_clauses`: a try in the copy whose body never falls out goes on through its
        # except clauses, then out of the copy: the way on after it is no handler code)
        # (3.11: a copy whose match takes in the first instruction of the handler code laid
        # after it, a try's in it that its flow never enters, does not fall out there)
        # (so does one that ends past the handler of a with in it whose suppressed path falls
        # out there: `_past_suppressing_with_handler`)
        falls_out = through_clauses or self.withs.suppressed_path_ends_at(end)
        way_on = {k for k in self._reach(end) if k >= end} if falls_out and end < len(self.instrs) \
            and self.instrs[end - 1].opname not in ENDS_FLOW \
            and end - 1 in self._reach_through_handlers(start, floor=start) else set()
        found = True
        while found:
            found = False
            for region in self.bc.regions:
                h = region.handler
                if region.start in dead and st.kinds.get(h) in CONSTRUCTS and h not in st.handled:
                    st.handled.add(h)
                    code = self._cold_code(h, self._reach(region.start)) - way_on
                    if past is not None:
                        code -= self._jumped_way_on(code, past)
                    self._mark_dead_code(code)
                    dead |= code
                    found = True

    def _ends_skip(self, k: int) -> bool:
        return any(v == k for v in self.skip.values())
