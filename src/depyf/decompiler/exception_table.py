"""try/except/finally, except*, with and async for on 3.11+, built from the exception table.

`exception_regions` says which handler encloses which code; here each construct is cut into body,
handlers, else and finally parts. Code the compiler generates on its own (the copies of a finally
body before each exit, the `__exit__` call of a with statement, the `e = None; del e` after
`except E as e`, small exit blocks copied into handlers) is registered in `self.skip` so the
builder steps over it, and so is each handler's code once it has been read (3.12+ moves that code
to the end of the function).
"""
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.exception_regions import CONSTRUCTS, ExceptionRegionAnalysis
from depyf.decompiler.instructions import ENDS_FLOW, OPPOSITE_JUMPS, TERMINAL, Instr
from depyf.decompiler.control import COND_JUMPS, LoopInfo
from depyf.decompiler.mangling import CO_OPTIMIZED
from depyf.decompiler.table_model import _MAX_COPIED_EXIT, _MAX_RETURN_BLOCK
from depyf.decompiler.table_try_ends import TableTryEnds
from depyf.decompiler.table_except import TableExcept
from depyf.decompiler.table_handler_tails import TableHandlerTails
from depyf.decompiler.table_clauses import TableClauses


class ExceptionTableRules(TableTryEnds, TableExcept, TableHandlerTails, TableClauses, ExceptionRegionAnalysis):
    """Exception-table constructs (3.11+); mixed into `builder.CodeBuilder`."""

    # The except clause (body start, end) being read, innermost (set while its body is read).
    _clause_read: Optional[Tuple[int, int]] = None

    # --- entry point from control_at ------------------------------------------------------------

    def try_at(self, i: int) -> Optional[int]:
        if not self.bc.regions:
            return None
        st = self._xt()
        if i in st.exit_breaks and self.loops:
            self.emit(n.Break())
            self.note_copied_break(i, st.exit_breaks[i])  # control
            return st.exit_breaks[i]
        if i in st.unprotected and not self.pure_mode:
            end = self._loop_exit_copy(i)
            if end is not None:
                self.emit(n.Break())
                self.note_copied_break(i, end)  # control
                return end
        for t in st.try_starts.get(i, ()):
            if t not in st.handled:
                st.handled.add(t)
                kind = st.kinds[t]
                if kind == "finally":
                    return self._build_finally(i, t)
                return self._build_except(i, t)
        return None

    def try_starts_at(self, i: int) -> bool:
        """Does a try statement not yet read start at `i`? (A condition chain stops there: the
        test of an `if` that begins a try body belongs to the try.)"""
        if not self.bc.regions:
            return False
        st = self._xt()
        return any(t not in st.handled for t in st.try_starts.get(i, ()))

    def try_holds_loop(self, i: int, j: int) -> bool:
        """Does a try that starts at `i`, where a loop starts too, protect that loop's jump back
        at `j` (`try: while True:`)? Then the try is the outer statement."""
        if not self.bc.regions:
            return False
        st = self._xt()
        handlers = [t for t in st.try_starts.get(i, ()) if t not in st.handled]
        if self._inverted_loop_test(j):
            j -= 1  # (that JUMP, added after the table's ranges were drawn, is never protected)
        return any(r.handler in handlers and r.start <= j < r.end for r in self.bc.regions)

    def _inverted_loop_test(self, j: int) -> bool:
        """Is the jump back at `j` the second half of a while loop's test at the bottom, which
        3.12+ spells `jump-if-not L; JUMP back; L:`?"""
        instrs = self.instrs
        return self.version.conditional_jumps_forward_only and 0 < j < len(instrs) - 1 \
            and instrs[j].opname == "JUMP" and instrs[j - 1].opname in COND_JUMPS \
            and instrs[j - 1].target == j + 1

    # --- try/finally ------------------------------------------------------------------------------

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
        st = self._xt_state
        instrs = self.instrs
        base = list(self.stack)
        cleanup_region = st.region_at[t]
        if cleanup_region is None:
            raise self.fail(instrs[t], "finally handler without its cleanup")
        cleanup = cleanup_region.handler
        reraise = cleanup - 1
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
        closing = max(ends) if ends else None
        raising_last = False  # the body's last branch raises, laid after the closing re-raise
        if instrs[reraise].opname != "RERAISE":
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
        final_start = t + 1
        final_end = closing if closing is not None and instrs[reraise].opname == "RERAISE" else reraise
        clause_ends: List[int] = []
        if closing is None and not ends and not self.version.handler_code_at_end:
            # 3.11: a try in the finally body whose body never falls out, its except clauses
            # ending the finally body: each of their ways out (after POP_EXCEPT, under the
            # finally's cleanup) holds a copy of the closing re-raise, which has no original
            # after them (`finally: (try: raise E / except E: while c: ...)`). The body is still
            # read to `final_end`; the copies only end the clauses. (Not 3.12+, where the code
            # after the statement lies inside the normal copy's handler code, between its
            # clauses' way out and their handler code: this reading would lose it.)
            clause_ends = sorted(
                k for k in self._reach_through_handlers(t + 1, floor=t + 1, kinds=("except", "star"))
                if t < k < final_end and instrs[k].opname == "RERAISE" and instrs[k].arg == 0
                and instrs[k - 1].opname == "POP_EXCEPT" and self._cleanup_of(k) == cleanup)
            self.finally_end_copies.update(clause_ends)
        ends = self._merge_jumped_end_copies(ends, final_end)
        # 3.11+ copies the closing re-raise into the branches that reach it (`if c: A` last).
        self.finally_end_copies.update(k for k in ends if k < final_end)
        warm = self._reach(s)
        span_end = self._cold_span(t, warm)
        # (the copies on the ways out end where the closing re-raise stands: after that come
        # the code after the statement, then the copy's handler code)
        copy_end = final_end if closing is None or final_end <= closing or raising_last else closing
        while copy_end - 1 > final_start and instrs[copy_end - 1].opname == "RERAISE" \
                and instrs[copy_end - 1].arg == 0:
            copy_end -= 1  # a copied closing re-raise: the normal copy jumps or falls out there
        self._registered_copies: List[Tuple[int, int]] = []
        self._register_copies(s, t, final_start, copy_end, span_end, self._protected_end(s, t, warm))
        copies = self._registered_copies
        if clause_ends and any(start < self._protected_end(s, t, warm) for start, _ in copies):
            # (a way out from inside the body, `break` or `continue`, goes on through its copy's
            # clauses: not read here)
            raise self.fail(instrs[t], "a way out through a finally body whose except clauses end it")
        be = self._past_unwound_exit(s, self._extend_for_return(self._protected_end(s, t, warm)), t)
        be = self._past_dead_end_return(s, be, t)
        swallows: Optional[Set[int]] = None
        for copy_start, copy_stop in copies:
            back = instrs[copy_stop] if copy_stop < len(instrs) else None
            if back is None or back.opname != "JUMP" or back.target != be or be >= copy_start \
                    or copy_stop in self.skip or self.jump_sources.get(copy_stop) \
                    or not self.version.handler_code_at_end or instrs[copy_start - 1].opname not in ENDS_FLOW:
                continue
            if swallows is None:
                swallows = {self._swallowed_tail(r.handler) for r in self._with_regions(s, be)} - {None}
            sources = self.jump_sources.get(copy_start, ())
            if sources and all(src in swallows for src in sources):
                # 3.12+: a try body that never falls out (`with a: raise E`, the manager may
                # swallow it) reaches its copy of the finally body only through that with's
                # handler, laid after the code the statement goes on to (an if body the try ends:
                # the code after the if): the copy's jump back there is the way on, read with it.
                # (Not where an except clause reaches the copy: its way on is read elsewhere.)
                self.skip[copy_stop] = copy_stop + 1
        body = self.run_range(s, be, list(base))
        left = self.last_stack
        if len(left) == len(base) + 1 and be in self.skip and be < t and self._never_finishes(be, min(self.skip[be], t)) \
                and not isinstance(left[-1], m.MARKER_TYPES):
            # The body ends in `return value` and the finally body never finishes: the value is
            # computed before the copy, and the RETURN_VALUE after it was dropped as dead.
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
        after = self.carry_out(body, base, self.last_stack)
        finalbody = self.run_range(final_start, final_end,
                                   list(base) + [m.Sentinel("previous-exception"), m.ExceptionValue()])
        finalbody = self.fold_end_copies(finalbody, final_start)
        self._mark_dead_code(set(range(t, span_end)) - self._entered_from_before(s, t, span_end, warm))
        cont = be
        while cont in self.skip and self.skip[cont] > cont and cont < span_end:
            cont = self.skip[cont]
        if be < cont and self._const_return_after_copy(be, cont):
            # `try: ...; return CONST` (3.11+): the constant is loaded after the finally body's
            # copy; a return after the statement would be reached by a jump over the handler.
            body += self.run_range(cont, cont + 2, list(after))
            cont += 2
        if cont in self.body_const_returns:
            cont += 2  # (read as the `return CONST` of a try body inside: `_past_const_return_through_copies`)
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
        elif over is not None and over.opname == "JUMP" and self._read_between(cont + 1, t) \
                and over.target >= span_end:
            # (the handlers of a try inside a finally copy, already read, may lie in between)
            cont = min(over.target, self.end) if over.target <= self.end else self.end
        if self._ends_loop_body_before_exit(cont):
            cont = self.end
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
        no handler code of it, but that a jump from before the statement enters: 3.12+ lays the cleanup of an
        enclosing `except E as e` clause (`e = None; del e; RERAISE 1`) after the clause's way
        out, so when the try/finally ends one branch of an if in that clause (`if c: A / else:
        try: raise E / finally: B`), the other branch's way out (`POP_EXCEPT; e = None; del e`,
        then the code after the try) lies between the finally's cleanup and that clause's."""
        cold = self._cold_code(t, warm)
        found: Set[int] = set()
        for k in range(t, span_end):
            if k not in cold and k not in found \
                    and any(src < s for src in self.jump_sources.get(k, ())):
                found |= {q for q in self._reach_with_inner_handlers(k) if t <= q < span_end and q not in cold}
        return found

    def _cleanup_of(self, k: int) -> Optional[int]:
        region = self._xt_state.region_at[k]
        return region.handler if region is not None else None

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

    def _merge_jumped_end_copies(self, ends: List[int], final_end: int) -> List[int]:
        """3.11 gives each conditional jump to the end of a finally body its own copy of the closing
        re-raise (`if a and b:` last: two). A copy that only jumps reach is that end itself: those
        jumps are pointed at the closing re-raise, so that the condition reads as one."""
        instrs = self.instrs
        kept = []
        for k in ends:
            sources = self.jump_sources.get(k, [])
            if k < final_end and sources and instrs[k - 1].opname in ENDS_FLOW \
                    and all(instrs[src].opname in COND_JUMPS for src in sources):
                for src in sources:
                    self.redirect(src, final_end)
                    self.jump_sources.setdefault(final_end, []).append(src)
                del self.jump_sources[k]
                self._mark_dead(k, k + 1)
                self.merged_end_copies.add(k)
                continue
            kept.append(k)
        return kept

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
                         body_end: int) -> None:
        """Mark the copies of the finally body the compiler put before each exit of the try
        (those before `body_end` leave from inside the body)."""
        length = fe - fs
        if length <= 0:
            return
        instrs = self.instrs
        first = instrs[fs]
        through_clauses = self._goes_on_through_clauses(fs, length, self._reach(fs, floor=fs))
        for k in range(s, len(instrs) - length + 1):
            if t <= k < span_end or instrs[k].opname != first.opname or instrs[k].argval != first.argval \
                    and first.target is None:
                continue
            if t in self._chain(k) or k == 0:
                continue
            # (a body that raises or returns right before `k` does not fall into it: code there
            # that looks like the finally body is the code after the statement, `try: raise E`
            # / `finally: f()` then `f()`; 3.12+ drop the dead normal copy)
            falls_in = t in self._chain(k - 1) and instrs[k - 1].opname not in TERMINAL
            if not falls_in and not (k - 1 in self.skip) and not self._ends_skip(k) \
                    and not any(t in self._chain(src) for src in self.jump_sources.get(k, ())):
                continue
            # (only the copy on the normal way out, after the body, may end in copied returns:
            # a way out from inside the body, a break say, reads them as its own statements)
            matched = self._match_copy(fs, length, k, returns=k >= body_end)
            if matched is not None:
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
                    self._registered_copies.append((k, k + size))
                    for start, end in pieces:
                        self._drop_handlers_of(start, end, through_clauses, span_end)
                    continue
                kept = self._return_inside_copy(k, k + size, outs)
                if kept is not None:
                    # The copy's only way on is a return inside it (a loop in the finally body
                    # left by a `break` straight to it): that return is the statement's own.
                    self._mark_dead(k, kept[0])
                    self._mark_dead(kept[1], k + size)
                    self._drop_handlers_of(k, k + size)
                    continue
                self._mark_dead(k, k + size)
                self._registered_copies.append((k, k + size))
                if k < body_end and instrs[k + size - 1].opname not in ENDS_FLOW:
                    self._note_exit_break(k + size)  # (a copy that falls into what follows)
                if (k < body_end or self._if_body_ends_in_copy(s, k, size)) and self._never_finishes(k, k + size) \
                        or self._after_handler_return_unwinding(k) and self._never_finishes(fs, fe):
                    # A way out from inside the body whose copy raises or returns on every path:
                    # the compiler dropped what followed it (a RETURN_VALUE, a jump) as dead.
                    # The builder emits that way out where the copy is skipped. (Also one from an
                    # except clause inside the body, which `body_end`, the end of the code the
                    # body's normal flow reaches, leaves out: `return x` there unwinds the clause
                    # first.)
                    self.dead_end_exits[k] = (list(self.stack), len(self.loops))
                elif k >= body_end and k not in self.dead_end_exits and self._never_finishes(k, k + size):
                    # The same past the protected code (`try: if c: return f()` / `finally:
                    # raise E`, or a clause's `return f()`): a value computed for a return, left
                    # above the try's own stack where the copy is skipped, is that return's; with
                    # none left, it is where the body falls out (`value_only`).
                    self.dead_end_exits[k] = (list(self.stack), len(self.loops))
                    self.value_only_dead_ends.add(k)
                if exit is not None and instrs[k + size - 1].opname in ENDS_FLOW:
                    # The copy's only way on is a jump back inside it: that jump is the try
                    # body's own `continue`, the rest of the copy is the finally body.
                    self._mark_dead(k, exit)
                    del self.skip[exit]
                    self._mark_dead(exit + 1, k + size)
                self._drop_handlers_of(k, k + size, through_clauses, span_end)
                self._drop_copied_ways_on(k, k + size)

    def _return_into_dead_end_copy(self, k: int) -> bool:
        return self._dead_end_copy_after_exit(k) is not None

    def _dead_end_copy_after_exit(self, k: int) -> Optional[int]:
        """Where the copy starts, if `k` is the exit call of a with on the way out of `return value` (`SWAP 2` keeps the
        value above the manager's exit; the call is skipped, `_register_exit_calls`), followed
        by a registered copy of a finally body that raises on every path? (The exit calls of
        enclosing withs left by the same return, `with a, b: return g()`, may come between.)"""
        instrs = self.instrs
        if k not in self.skip or instrs[k].opname != "SWAP" or instrs[k].arg != 2:
            return None
        c = self.skip[k]
        while c in self.skip and self.skip[c] > c and instrs[c].opname == "SWAP" and instrs[c].arg == 2:
            c = self.skip[c]
        # (and an except clause's unwinding, `SWAP 2; POP_EXCEPT` and the clear of its name:
        # `except E: with m: return g()`)
        for q in range(min(c + 6, len(instrs) - 1), c, -1):
            named = instrs[q - 1].opname.startswith("DELETE_")
            if c - 1 <= q - (5 if named else 2) <= c + 1 and self._after_handler_return_unwinding(q):
                c = q  # (the SWAP may be part of the skipped exit call, or follow its POP_TOP)
                break
        if c not in self.skip or self.skip[c] <= c:
            return None
        q = c
        while q < self.skip[c] and instrs[q].opname not in TERMINAL:
            q += 1
        if q < self.skip[c] and instrs[q].opname in ("RAISE_VARARGS", "RERAISE") and self._never_finishes(c, q + 1):
            return c
        return None

    def _past_with_dead_end_return(self, start: int, be: int, t: int) -> int:
        """`with m: if c: return x` as the last statement of a with body in a try whose finally
        body never finishes: the protected code ends with the value, the exit call and the
        copy follow (the RETURN_VALUE after it dropped as dead), and the if's test jumps past
        them to the with's normal exit. They end the if body, in the with body (the copy, where
        the return is emitted, is a registered `dead_end_exits` one)."""
        c = self._dead_end_copy_after_exit(be)
        if c is None or c not in self.dead_end_exits:
            return be
        end = self.skip[c]
        if not be < end <= t or not any(start <= src < be and self.instrs[src].opname in COND_JUMPS
                                        for src in self.jump_sources.get(end, ())):
            return be
        return end

    def _if_body_ends_in_copy(self, s: int, k: int, size: int) -> bool:
        """Is the copy [k, k + size) the end of an if body in the try body, whose test jumps
        past it, to the copy on the body's normal way out right after it (3.12+, where no JUMP
        is left between them: `try: if c: return x` as the body's last statement)?"""
        end = k + size
        return any(s <= src < k and self.instrs[src].opname in COND_JUMPS for src in self.jump_sources.get(end, ())) \
            and not self.jump_sources.get(k)

    def _after_handler_return_unwinding(self, k: int) -> bool:
        """Does the code at `k` follow the unwinding of an except clause by `return value`:
        `SWAP 2; POP_EXCEPT` (the value is kept above the handler's exception, which POP_EXCEPT
        restores), then the clear of the clause's name (`except E as e`)? The compiler emits
        that SWAP only to keep a return's value over the unwinding."""
        instrs = self.instrs
        j = k - 1
        if j >= 2 and instrs[j].opname.startswith("DELETE_") and instrs[j - 1].opname.startswith("STORE_") \
                and instrs[j - 2].opname == "LOAD_CONST" and instrs[j - 2].argval is None:
            j -= 3
        return j >= 1 and instrs[j].opname == "POP_EXCEPT" and instrs[j - 1].opname == "SWAP" \
            and instrs[j - 1].arg == 2 and not self.jump_sources.get(j) and not self.jump_sources.get(k)

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
        st = self._xt_state
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

    def _never_finishes(self, start: int, end: int) -> bool:
        """Does the code [start, end) end in a return or raise and never jump out of itself?"""
        instrs = self.instrs
        return instrs[end - 1].opname in TERMINAL and not any(
            ins.target is not None and not start <= ins.target < end for ins in instrs[start:end])

    def exit_into_dead_end(self, i: int) -> None:
        """Emit the way out of a try body that runs the copy at `i` of a finally body that never
        finishes (`_register_copies`): `return value` with the value computed before the copy
        (still on the stack above the try's own), else a bare `return`: a `break`, `continue` or
        `return <constant>` compile alike here (the constant is loaded after the copy), and none
        of them is ever completed. A class or module body, which cannot return, gets a `break`
        of a loop around the whole try."""
        base, loops = self.dead_end_exits[i]
        value: Optional[n.Expr] = None
        if i in self.value_only_dead_ends:
            if len(self.stack) > len(base) and not isinstance(self.stack[-1], m.MARKER_TYPES) \
                    and all(a is b for a, b in zip(self.stack, base)):
                self.emit(n.Return(self.pop()))
            return
        if self.stack and (len(self.stack) > len(base) or self.stack[-1] is not base[len(self.stack) - 1]):
            value = self.pop()
        if value is None and not self.code.co_flags & CO_OPTIMIZED:
            if not self.loops or loops != len(self.loops):
                raise self.fail(self.instrs[i], "way out of a try body whose finally body never finishes")
            self.emit(n.Break())
            return
        self.emit(n.Return(value))

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
        way_on = {k for k in self._reach(end) if k >= end} if through_clauses and end < len(self.instrs) \
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

    def _match_copy(self, a: int, length: int, b: int, returns: bool = False
                    ) -> Optional[Tuple[int, Optional[int], List[Tuple[int, int]]]]:
        """(length, inner exit, returns) of the copy of [a, a+length) starting at `b`, or None if
        no copy. `returns` are the return blocks [start, end) of the copy where the handler's copy
        re-raises.

        Where the handler's copy re-raises, a copy on a way out goes on out instead: a jump, a
        return, or (3.12+) a constant return, which takes two instructions. The inner exit is the
        last jump back (3.12+) that stands for a jump to the handler's closing re-raise.
        """
        instrs = self.instrs
        size = len(instrs)
        where: Dict[int, int] = {}
        jumps: List[Tuple[int, int]] = []
        flow = self._reach(a, floor=a)  # handler code inside either copy may lie elsewhere
        flow_b = self._reach(b, floor=b)
        plain, plain_b = flow, flow_b
        if self._goes_on_through_clauses(a, length, flow):
            # The rest of the finally body is reached only through the clauses of a try in it
            # whose body never falls out (`try: raise E` / `except E: ...` then more): in both
            # copies that handler code lies inline, in the same order.
            flow = self._reach_through_handlers(a, floor=a)
            flow_b = self._reach_through_handlers(b, floor=b)
        p, q = a, b
        inner_exit: Optional[int] = None
        inlined: List[Tuple[int, int, int]] = []  # (exit block in the handler's copy, size, jump target)
        returns_at: Dict[int, int] = {}  # a re-raise matched with a copied return block -> that block
        outs: List[Tuple[int, int]] = []  # the returns matched where the handler's copy re-raises
        merged = self.merged_end_copies
        stop = a + length
        # 3.12+ with the handler code inline in the handler's copy, reached through the clauses
        # of a try in it (`_goes_on_through_clauses`): the normal copy has that code at the end,
        # past its way out. Runs of it the handler's copy reaches only through clauses where the
        # normal copy goes on are matched after the rest, at the counterpart try's handler.
        defer = plain is not flow and self.version.handler_code_at_end
        deferred: List[Tuple[int, int]] = []
        runs: List[Tuple[int, int]] = []  # where the normal copy has them
        main_end: Optional[int] = None
        while p < stop or deferred:
            if p >= stop:
                if main_end is None:
                    main_end = q
                else:
                    runs.append((resumed, q))
                p, stop = deferred.pop(0)
                q = self._handler_counterpart(p, where)
                if q is None:
                    return None
                resumed = q
                continue
            if defer and p in flow and p not in plain and q in plain_b and q < size:
                r = p
                while r < stop and r not in plain:
                    r += 1
                deferred.append((p, r))
                p = r
                continue
            if p not in flow:
                width = self._return_width(q) if p in merged and q < size and self.jump_sources.get(q) else 0
                if width:
                    # 3.11: a merged copy of the closing re-raise, where the normal copy has the
                    # return block its (unmerged) jump goes to
                    where[p] = q
                    q += width
                p += 1
                continue
            earlier = self._inlined_exit_again(p, q, where, flow, flow_b)
            if earlier is not None:
                # The jumps to it go where its copy's match went (checked with `where` below);
                # a return block the copy's re-raise took for a copied one is the real one.
                width = self._inlined_exit_size(p, flow)
                for d in range(width):
                    where[p + d] = where[earlier + d]
                q = returns_at.get(earlier + width - 1, q)
                p += width
                continue
            if q >= size:
                return None
            if q not in flow_b:
                q += 1
                continue
            x, y = instrs[p], instrs[q]
            where[p] = q
            if x.opname == "RERAISE" and x.arg == 0 or self._jumps_to_reraise(x, a + length):
                # (the jump to the closing re-raise, after a try statement inside the body)
                if y.opname in ("RETURN_VALUE", "JUMP"):
                    if y.opname == "RETURN_VALUE":
                        outs.append((q, q + 1))
                    p, q = p + 1, q + 1
                    continue
                if y.opname == "LOAD_CONST" and q + 1 < size and instrs[q + 1].opname == "RETURN_VALUE":
                    outs.append((q, q + 2))
                    p, q = p + 1, q + 2
                    continue
                block_end = self._copied_return_block(q) if returns else None
                if block_end is not None:
                    returns_at[p] = q
                    outs.append((q, block_end))
                    p, q = p + 1, block_end
                    continue
            drop = self._exception_drop(p, a + length)
            if drop and self._exception_drop(q, size) != drop:
                p += drop  # a way out of the handler's copy drops the exception first
                continue
            back = self._inverted_back_jump(x, q)
            if back is not None:
                jumps.append((x.target, back))
                if x.target >= a + length:
                    inner_exit = q + 1
                p, q = p + 1, q + 2
                continue
            if x.opname != y.opname:
                if x.opname == "POP_EXCEPT" or (x.opname in ("POP_TOP", "SWAP") and any(
                        instrs[r].opname == "POP_EXCEPT" for r in range(p + 1, min(p + 4, a + length)))):
                    p += 1  # a return inside the handler's copy drops the exception first
                    continue
                if self._jumps_over_handlers(x, p, plain):
                    # The normal copy goes straight on where the handler's copy jumps (over
                    # handler code; with `defer`, code reached only through clauses: a `while
                    # True:` loop's `break` over its except clause and the jump back only that
                    # clause reaches, matched later).
                    p += 1
                    continue
                width = self._inlined_exit_size(p, flow) if y.opname == "JUMP" and y.target > q else 0
                if width:
                    # The handler's copy has a copy of a small exit block where the normal
                    # copy jumps to that block (checked once the block is matched).
                    inlined.append((p, width, y.target))
                    p, q = p + width, q + 1
                    continue
                return None
            if x.target is not None:
                jumps.append((x.target, y.target))
            elif x.argval != y.argval and repr(x.argval) != repr(y.argval) and x.opname != "YIELD_VALUE":
                return None  # (3.12+ YIELD_VALUE carries the stack depth, deeper in the handler)
            p, q = p + 1, q + 1
        if main_end is not None:
            runs.append((resumed, q))
            end = main_end
        else:
            end = q
        while end < size and end not in flow_b and self.instrs[end - 1].opname in TERMINAL \
                and not self.jump_sources.get(end):
            end += 1  # handler code of the copy that follows its last exit (no jump goes there)
        for start, width, yt in inlined:
            if not any(where.get(k) == yt and self._same_instructions(start, k, width) for k in where):
                return None
        # where the normal copy goes out in place of the handler copy's re-raises
        ways_out = {q for p, q in where.items() if instrs[p].opname == "RERAISE" and instrs[p].arg == 0} \
            if any(a <= k < a + length for k in merged) else set()
        for xt, yt in jumps:
            while a <= xt < a + length and xt not in flow:
                xt += 1  # (a target before the copy, e.g. a loop's head, stays where it is)
            inside_x = a <= xt < a + length
            inside_y = b <= yt < end or any(r0 <= yt < r1 for r0, r1 in runs)
            if not inside_x and inside_y and yt in ways_out:
                continue  # (a jump to a merged copy of the closing re-raise: see above)
            if inside_x != inside_y or (inside_x and where.get(xt) != yt):
                return None
        return end - b, inner_exit, outs

    def _handler_counterpart(self, h: int, where: Dict[int, int]) -> Optional[int]:
        """The handler in the normal copy matching the handler at `h` in the handler's copy: that
        of the region protecting the match (`where`) of code that `h` protects, if one."""
        st = self._xt_state
        for k, q in where.items():
            region, other = st.region_at[k], st.region_at[q]
            if region is not None and region.handler == h and other is not None:
                return other.handler
        return None

    def _goes_on_through_clauses(self, a: int, length: int, flow: Set[int]) -> bool:
        """Does the finally body's handler copy [a, a + length) go on past a try inside it only
        through that try's except clauses: a clause's jump forward, to code of the copy that
        its normal flow `flow` never reaches?"""
        if a + length - 1 in flow:
            return False
        through = self._reach_through_handlers(a, floor=a)
        instrs = self.instrs
        for k in through - flow:
            ins = instrs[k]
            if a <= k < a + length and ins.opname == "JUMP" and k < ins.target < a + length \
                    and ins.target in through and ins.target not in flow:
                return True
        # (or past a with inside it whose body never ends normally: only a swallowing manager
        # goes on, falling into the rest of the copy after the with's handler code)
        st = self._xt_state
        for h in range(a, a + length) if not self.version.handler_code_at_end else ():
            if st.kinds.get(h) == "with" and h in through:
                j = self._swallowed_tail(h)
                if j is not None and a <= j < a + length and j not in flow and j in through:
                    return True
        return False

    def _return_width(self, q: int) -> int:
        """The length of the way out at `q` that a copy on a way out has where the handler's copy
        re-raises: a jump or return (1), a constant return (2); 0 if none."""
        instrs = self.instrs
        if instrs[q].opname in ("RETURN_VALUE", "JUMP"):
            return 1
        if instrs[q].opname == "LOAD_CONST" and q + 1 < len(instrs) and instrs[q + 1].opname == "RETURN_VALUE":
            return 2
        return 0

    def _jumps_over_handlers(self, x: Instr, p: int, flow: Set[int]) -> bool:
        """Is `x`, at `p` in the finally body's handler copy, a jump forward over handler code only?

        3.12+ moves the handlers of a try statement inside the finally body's normal copy to the
        end of the function, but the handler copy is all exception code and keeps them in place:
        there the try body jumps over them to the code after the try statement.
        """
        return self.version.handler_code_at_end and x.opname == "JUMP" and x.target > p + 1 \
            and all(k not in flow for k in range(p + 1, x.target))

    def _inlined_exit_size(self, p: int, flow: Set[int]) -> int:
        """The size of the small exit block (straight code ending in the closing re-raise) at `p`
        in the finally body's handler copy, or 0.

        3.12+ replaces a jump to a block of at most four instructions that leaves the scope by a
        copy of it; in the handler copy such a block ends with the re-raise, while on the normal
        way out the same statements go on, and the jumps to them stay.
        """
        if not self.version.copies_exits_with_line_numbers:
            return 0
        instrs = self.instrs
        for k in range(p, min(p + _MAX_COPIED_EXIT, len(instrs))):
            ins = instrs[k]
            if k not in flow or ins.target is not None or (k > p and self.jump_sources.get(k)):
                return 0
            if ins.opname == "RERAISE":
                return k + 1 - p if ins.arg == 0 and k > p else 0
            if ins.opname in TERMINAL or ins.opname in ("POP_EXCEPT", "PUSH_EXC_INFO"):
                return 0
        return 0

    def _inlined_exit_again(self, p: int, q: int, where: Dict[int, int], flow: Set[int],
                            flow_b: Set[int]) -> Optional[int]:
        """Where the match already placed a copy of the small exit block at `p`
        (`_inlined_exit_size`), when only jumps reach `p` and the normal copy has no such block
        at `q`: the handler's copy keeps the block itself where the jumps to it stayed."""
        instrs = self.instrs
        if p == 0 or instrs[p - 1].opname not in ENDS_FLOW and p - 1 in flow:
            return None
        width = self._inlined_exit_size(p, flow)
        if not width:
            return None
        while q < len(instrs) and q not in flow_b:
            q += 1
        x = instrs[p]
        if q < len(instrs) and instrs[q].opname == x.opname and instrs[q].argval == x.argval:
            return None  # (the normal copy has its own block here)
        earlier = next((k for k in where if k + width <= p and instrs[k + width - 1].opname == "RERAISE"
                        and self._same_instructions(p, k, width)), None)
        if earlier is None or any(earlier + d not in where for d in range(width)):
            return None
        return earlier

    def _jumps_to_reraise(self, x: Instr, end: int) -> bool:
        """Is `x` a JUMP to `end`, the finally body's closing RERAISE right after its handler copy
        (the normal way out of a try statement that ends the finally body)?"""
        return x.opname == "JUMP" and x.target == end and end < len(self.instrs) \
            and self.instrs[end].opname == "RERAISE" and self.instrs[end].arg == 0

    def _copied_return_block(self, q: int) -> Optional[int]:
        """The end of a copy of the code after the statement, ending in a return, placed where a
        way out of the finally body goes on (`return x` after the try, copied into the branches of
        a finally body's last `if`): straight-line code that no jump enters."""
        instrs = self.instrs
        for k in range(q, min(q + _MAX_RETURN_BLOCK, len(instrs))):
            ins = instrs[k]
            if ins.target is not None or (k > q and self.jump_sources.get(k)) \
                    or ins.opname in ("RERAISE", "RAISE_VARARGS", "POP_EXCEPT", "PUSH_EXC_INFO"):
                return None
            if ins.opname == "RETURN_VALUE":
                return k + 1
        return None

    def _exception_drop(self, p: int, end: int) -> int:
        """The length of the `[SWAP 2;] POP_TOP; POP_EXCEPT` a way out of a handler starts with."""
        k = p
        while k < min(p + 3, end) and self.instrs[k].opname in ("POP_TOP", "SWAP"):
            k += 1
        if k > p and k < end and self.instrs[k].opname == "POP_EXCEPT":
            return k + 1 - p
        return 0

    def _inverted_back_jump(self, x: Instr, q: int) -> Optional[int]:
        """Where the copy at `q` jumps back, where the handler's copy has the conditional jump `x`.

        3.12+ has no backward conditional jump: where a copy on a way out jumps back (to a loop's
        head) the compiler spells it `jump-if-not L; JUMP back; L:`, while the handler's copy keeps
        the plain conditional jump to its re-raise.
        """
        instrs = self.instrs
        if not self.version.conditional_jumps_forward_only or q + 2 >= len(instrs):
            return None
        y, back = instrs[q], instrs[q + 1]
        if y.target != q + 2 or back.opname != "JUMP" or back.target > q:
            return None
        if OPPOSITE_JUMPS.get(x.opname) != y.opname:
            return None
        return back.target

    def _same_instructions(self, a: int, b: int, length: int) -> bool:
        instrs = self.instrs
        for d in range(length):
            x, y = instrs[a + d], instrs[b + d]
            if x.opname == "RERAISE" and x.arg == 0 and y.opname in ("RETURN_VALUE", "JUMP"):
                continue  # where the handler's copy re-raises, a copy on a way out goes on out
            if x.opname != y.opname:
                return False
            if x.target is not None:
                inside_x = a <= x.target < a + length
                inside_y = b <= y.target < b + length
                if inside_x != inside_y or (inside_x and x.target - a != y.target - b):
                    return False
            elif x.argval != y.argval and not (x.argval != x.argval):
                if not (isinstance(x.argval, type(y.argval)) and repr(x.argval) == repr(y.argval)):
                    return False
        return True

    # --- with / async with ------------------------------------------------------------------------

    def op_BEFORE_WITH(self, ins: Instr, i: int) -> int:
        return self._build_with(i, i + 1, False)

    def op_BEFORE_ASYNC_WITH(self, ins: Instr, i: int) -> Optional[int]:
        if not self.version.has_exception_table:
            return super().op_BEFORE_ASYNC_WITH(ins, i)  # type: ignore[misc]
        # BEFORE_ASYNC_WITH; GET_AWAITABLE 1; LOAD_CONST None; SEND ... [END_SEND]; <target>
        k = i + 1
        while k < len(self.instrs) and self.instrs[k].opname != "SEND":
            k += 1
        start = self.instrs[k].target
        if start < len(self.instrs) and self.instrs[start].opname == "END_SEND":
            start += 1
        return self._build_with(i, start, True)

    def _build_with(self, i: int, start: int, is_async: bool) -> int:
        if self.pure_mode:
            raise self.fail(self.instrs[i], "with statement inside an expression")
        st = self._xt()
        instrs = self.instrs
        ctx = self.finish_expr(self.pop())
        base = list(self.stack)
        region = st.region_at[start] if start < len(instrs) else None
        if region is None or st.kinds.get(region.handler) != "with":
            raise self.fail(instrs[i], "with statement without its exception handler")
        t = region.handler
        st.handled.add(t)
        warm = self._reach(start)
        after = self._with_handler_exit(t, warm)
        span_end = self._cold_span(t, warm | ({after} if after is not None else set()))
        self._register_exit_calls(start, is_async, self._protected_end(start, t, warm))
        be = self._extend_for_return(self._protected_end(start, t, warm))
        protected_end = be
        exit_at = self._normal_exit_past_handlers(be, t, warm)
        past = self._with_const_return(exit_at, t, after)
        be = past if past != exit_at else be
        way_on_end = self._past_handler_way_on(start, be, t, warm)
        if past == exit_at and way_on_end > be:
            # (the code that only an inner handler goes on to may end in `return CONST`, after
            # this with's exit call: `with a: (with b: raise E); more; return 1`)
            way_on_end = self._with_const_return(way_on_end, t, after)
        be = way_on_end
        if past == exit_at:
            be = self._swallowed_const_return(start, be, t, warm, after)
        be = self._past_with_dead_end_return(start, be, t)
        self.for_targets.append(None)
        try:
            body = self.run_range(start, be, list(base) + [m.WithExit(), m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.for_targets.pop()
        left = self.last_stack
        if len(left) > len(base) + 1 and not isinstance(left[-1], m.MARKER_TYPES) \
                and self._return_into_dead_end_copy(be):
            # The body ends in `return value` and the copy of an enclosing finally body after
            # the exit call never finishes: the compiler dropped the RETURN_VALUE after it as
            # dead (left on the stack, the value and its side effects would be lost).
            body.append(n.Return(left.pop()))
        handler_tail = after is not None and after not in warm and t < after < self.end
        # (3.12+: past the range, an if body say, when the with body never ends normally)
        only_tail = self._handler_only_tail(after, self.end, t) if after not in warm else None
        if handler_tail or only_tail is not None:
            # The code after the with lies inside the handler's span (its cleanup follows it).
            self._mark_dead_code(self._cold_code(t, warm | {after}))
        elif any(k in warm for k in range(t, span_end)):
            # The span runs on to an enclosing clause's `e = None; del e` cleanup, past the code
            # after the with (which the body reaches): only the handler code itself is read.
            self._mark_dead_code(self._cold_code(t, warm | ({after} if after is not None else set())))
        else:
            code = self._cold_code(t, warm | ({after} if after is not None else set()))
            if any(k not in code and any(src not in code for src in self.jump_sources.get(k, ()))
                   for k in range(t, span_end)):
                # (code in between that is reached from elsewhere, an if's else part that the
                # handler's way on jumps over, to the loop's closing jump, is no handler code)
                self._mark_dead_code(code)
            else:
                self._mark_dead(t, span_end)
        # Idiom: `with a: with b:` is written `with a, b:` (both compile the same).
        items: List[Tuple[n.Expr, Optional[n.Expr]]] = [(ctx, target)]
        if len(body) == 1 and isinstance(body[0], n.With) and body[0].is_async == is_async \
                and not self._with_lines_apart(start):
            items.extend(body[0].items)
            body = body[0].body
        self.stack = base
        # (not after a `return <constant>` that ends the body, read into it)
        found_break = self._break_after_exit_call(be, span_end, after) if be == protected_end else None
        past_break = found_break[1] if found_break is not None else None
        if found_break is not None:
            body.append(n.Break())
            way, past = found_break
            if instrs[past - 1].opname == "JUMP":
                self.with_break_jumps.add(past - 1)
            if self.loops[-1].iterator is not None or instrs[past - 1].opname in TERMINAL:
                # (a for loop's break pops the iterator first; then it jumps, or runs a copy of
                # the code after the loop: all of it is the break's)
                self.with_break_ways[way] = past
                self.skip.setdefault(way, past)
                tail = self.loops[-1].break_tail
                if instrs[past - 1].opname in TERMINAL and (tail is None or tail[1] != past):
                    copy = way + 1 if self.loops[-1].iterator is not None else way
                    self.note_copied_break(copy, past)  # control
        elif be == protected_end and self._break_into_exit_after_exit_call(be, span_end, after):
            body.append(n.Break())
        elif be == protected_end:
            past_continue = self._continue_after_exit_call(be, span_end, after)
            if past_continue is not None:
                body.append(n.Continue(required=True))
                self.skip[past_continue - 1] = past_continue  # (its jump, read as that continue)
        self.emit(n.With(items, body, is_async))
        if past_break is not None:
            if only_tail is not None and after is not None and after > t:
                # (the code after the with, which only a swallowed exception reaches, laid past
                # the range with the handler code: 3.12+)
                for stmt in self.run_range(after, only_tail[0], list(base)):
                    self.emit(stmt)
                self._mark_dead(after, only_tail[1])
            if instrs[past_break - 1].opname in TERMINAL and not self.jump_sources.get(past_break):
                # (the break ran the code after the loop, which returns or raises: what follows
                # is reached only by jumps, as after any return read in a range)
                return self._next_reachable(past_break, self.end)  # builder
            return past_break
        if handler_tail:
            # Only the handler reaches the code after the with: it is read here, once. (Where
            # the body's way out is a copy of that code, laid after it, it ends there.)
            stop = self._exit_copy_of(be, after)
            for stmt in self.run_range(after, stop, list(base)):
                self.emit(stmt)
            self._mark_dead(t, self.end)
            return self.end
        if only_tail is not None and after is not None:
            # ... or past the range (3.12+).
            for stmt in self.run_range(after, only_tail[0], list(base)):
                self.emit(stmt)
            self._mark_dead(after, only_tail[1])
        if be != protected_end and self.loops and self.loops[-1].iterator is not None:
            # The body ends in a `return <constant>` read into it (a for loop's iterator popped
            # first): what follows is no way out of it (the for loop's exit, say).
            if after is not None and be >= self.end:
                self.with_ways_on[self.end] = after
            return max(be, i + 1)
        cont = be
        while cont in self.skip and self.skip[cont] > cont and cont < span_end:
            cont = self.skip[cont]
        over = instrs[cont] if cont < len(instrs) else None
        if over is not None and over.opname == "JUMP" and cont + 1 == t and over.target >= span_end:
            moved = self._moved_rest(over.target, i + 1) if be >= self.end else None
            if moved is not None:
                # The body's normal exit lies past the range (3.12+: after the END_ASYNC_FOR of an
                # async for that ends the body, in an if body), and so does the code after the
                # with, where the handler goes on too: the rest of the range.
                stop, way_on, rest_end = moved
                for stmt in self.run_range(over.target, stop, list(base)):
                    self.emit(stmt)
                self._mark_dead(be, cont + 1)
                self._mark_dead(over.target, rest_end)
                return max(way_on, i + 1)
            cont = min(over.target, self.end)
        elif over is not None and over.opname == "JUMP" and cont + 1 == t and be >= self.end \
                and i < over.target <= self.end:
            # (... and jumps back to the range's end, or to the code after the with laid in place)
            self._mark_dead(be, cont + 1)
            return over.target
        if after is not None and cont >= self.end:
            self.with_ways_on[self.end] = after  # (control: an if body that this with ends)
        if be >= self.end and cont > be:
            # The body's normal exit lies past the range (3.12+: after the END_ASYNC_FOR of an
            # async for that ends the body, in an if body): its exit call has been read here.
            self._mark_dead(be, cont)
        return max(cont, i + 1)

    def _break_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> Optional[Tuple[int, int]]:
        """A `break` that ends the with body: its way out runs the exit call, then leaves the loop
        (a for loop's iterator popped first), while an exit that swallows the exception goes on
        to `after`, somewhere else (the next iteration, or more of the loop body). Read as a
        `break` after the with statement, a swallowed exception would stop the loop. Where the
        break's own code starts, past the copies on the way out (the exit call, finally bodies),
        and where it ends; None when the body's way out goes on where the handler does."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None:
            return None
        instrs = self.instrs
        k = be
        while k in self.skip and self.skip[k] > k and k < span_end:
            nxt = self.skip[k]
            if k > be and instrs[nxt - 1].opname == "JUMP" and instrs[nxt - 1].target is not None \
                    and k <= instrs[nxt - 1].target < nxt and loop.iterator is None:
                # A copy on the way out (the finally body's, after the exit call) that ends in a
                # loop of its own, whose exits the compiler threaded to where the `break` goes
                # (3.12+: the loop's exit; `finally: while c: ...`): nothing falls out of it.
                outs = [instrs[q].target for q in range(k, nxt) if instrs[q].target is not None
                        and not k <= instrs[q].target < nxt]
                if outs and all(x == loop.exit or x == loop.break_target for x in outs):
                    return k, nxt
            k = nxt
        if k == after or k + 1 >= len(instrs):
            return None
        start = k
        if loop.iterator is not None:
            if instrs[k].opname != "POP_TOP" or k + 1 == after:
                return None
            k += 1
        jump = instrs[k]
        if jump.opname != "JUMP" and (loop.iterator is not None or self.version.copies_exit_blocks):
            # (3.12 copies a small exit block into the jump to it: the code after a while loop
            # too, whose `break` has no iterator to pop)
            copy_end = self._copied_loop_exit_at(k, loop)
            if copy_end is None and loop.iterator is not None:
                # (a copy of code after the loop that stands elsewhere, past its else part, or
                # that exists only as the breaks' copies: as a plain `break` reads it)
                copy_end = self.copied_break_end(loop, k - 1)  # control
            elif copy_end is None and loop.break_tail is None and loop.is_while and not loop.only_breaks_leave:
                copy_end = self._exit_code_after_exit_call(k, k - 1)
                if copy_end is not None:
                    loop.break_tail = (k, copy_end)  # (read after the loop: `while_loop`)
            return None if copy_end is None else (start, copy_end)
        if jump.opname == "JUMP" and jump.target == k + 1 and loop.iterator is None and loop.break_tail is None \
                and loop.is_while and not loop.only_breaks_leave and k + 1 < loop.exit:
            # (3.13 keeps the jump, to the next instruction once the else part moved past the
            # loop: `relayout.exits_after_loops`)
            copy_end = self._exit_code_after_exit_call(k + 1, start - 1, k)
            if copy_end is not None:
                loop.break_tail = (k + 1, copy_end)
                return start, copy_end
        if jump.opname != "JUMP" or jump.target is None \
                or not (jump.target == loop.break_target or jump.target >= loop.exit > k):
            return None
        return start, k + 1

    def _exit_code_after_exit_call(self, k: int, call: int, jump: Optional[int] = None) -> Optional[int]:
        """3.12+: where the code after a while loop ends when it stands right after the exit
        call (ending at `call`) of a with body that `break`s, at `k`: the jump there was dropped
        (3.12; 3.13 keeps it, at `jump`), and the loop's else part (which its tests reach) is laid
        after it. It is a straight block that only that break enters, ending in a return or
        raise; a swallowing exit goes on in the loop, elsewhere (the caller's check). Where it
        ends, or None."""
        instrs = self.instrs
        if self.jump_sources.get(k, []) != ([] if jump is None else [jump]):
            return None
        e = k
        while e < len(instrs) and instrs[e].target is None \
                and instrs[e].opname not in TERMINAL and (e == k or not self.jump_sources.get(e)):
            e += 1
        if e >= len(instrs) or e > k and self.jump_sources.get(e) \
                or instrs[e].opname not in ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS") \
                or instrs[e].opname == "RAISE_VARARGS" and instrs[e].arg == 0:
            return None
        if any(self._line_of(q) == self._line_of(call) for q in range(k, e + 1)):
            return None  # (a statement of the with's own line: its exit's)
        return e + 1

    def _copied_loop_exit_at(self, k: int, loop: LoopInfo) -> Optional[int]:
        """3.12+: where the copy at `k` of the small block after the for loop (a `return x`,
        after END_FOR) ends, when the `break` that leads there had it copied in place of its
        jump; None when the code at `k` is no such copy."""
        instrs = self.instrs
        exit_ = loop.exit
        if exit_ < len(instrs) and instrs[exit_].opname == "END_FOR":
            exit_ += 1
        if not self._same_exit_block(k, exit_):  # control
            return None
        r = k
        while instrs[r].opname not in TERMINAL:
            r += 1
        return r + 1

    def _break_into_exit_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> bool:
        """A `break` that ends the with body of a `while` loop whose exit comes right after the
        exit call (its jump dropped), while an exit that swallows the exception goes on to more
        of the loop body, laid elsewhere (3.12+: after the handler code, with the loop's test).
        Read as the with's end, falling into the exit, the `break` would be lost."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None or loop.iterator is not None or not loop.is_while:
            return False
        k = be
        if k in self.skip and k < self.skip[k] < span_end:
            k = self.skip[k]  # (this with's exit call)
        return k != after and k == loop.exit and after not in loop.continue_targets and after > k

    def _continue_after_exit_call(self, be: int, span_end: int, after: Optional[int]) -> Optional[int]:
        """A `continue` that ends the with body: its way out runs the exit call, then jumps back
        to the loop's head, while an exit that swallows the exception goes on to `after`, more of
        the loop body (or the body's own jump back, which for a `while True:` goes past the NOP
        of its line, where a `continue` goes: 3.10+). Read as a `continue` after the with, a
        swallowed exception would skip that. Where the jump ends; None when the body's way out
        goes on where the handler does."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or after is None:
            return None
        instrs = self.instrs
        k = be
        if k in self.skip and k < self.skip[k] < span_end:
            k = self.skip[k]  # (this with's exit call; an enclosing with's comes next, if any)
            while k != after and self._exit_call_at(k) and self.skip[k] < span_end:
                k = self.skip[k]  # (the enclosing withs' exit calls, that the `continue` runs too)
        if k == after or k >= len(instrs):
            return None
        jump = instrs[k]
        if jump.opname != "JUMP" or jump.target not in loop.continue_targets or jump.target == after:
            return None
        if instrs[after].opname == "JUMP" and instrs[after].target_offset == jump.target_offset:
            return None  # (the same jump back: the with ends the body)
        return k + 1

    def _exit_copy_of(self, be: int, after: int) -> int:
        """The end of the code after a with that only its handler reaches, at `after`, read up to
        the range's end: or the start of the copy of it that the body's way out (its exit call,
        then a jump) goes to, laid right after it (3.12+ copies a small block that returns, like
        `POP_EXCEPT; return None` in an except clause, into each way there)."""
        instrs = self.instrs
        k = be
        while k in self.skip and self.skip[k] > k:
            k = self.skip[k]
        y = instrs[k].target if k < len(instrs) and instrs[k].opname == "JUMP" else None
        if y is None or not after < y < self.end or instrs[y - 1].opname not in TERMINAL \
                or y + (y - after) > self.end or not self._same_instructions(after, y, y - after):
            return self.end
        return y

    def _swallowed_const_return(self, start: int, be: int, t: int, warm: Set[int], after: Optional[int]) -> int:
        """`with a: (with b: <never ends normally>); return CONST`. Only the inner with's
        handler, after `b` swallowed the exception, goes on to the return: the exit call of `a`,
        then the constant's return, laid past the handler code (3.12+: jumped to; 3.11: where
        the inner handler falls, inline, after its pops). Where `a`'s own handler goes on to
        other code after the with (`_with_const_return`), that return is the body's own: the
        body ends after it (read as the code after the with, it was lost, and the handler's way
        on ran in its place)."""
        instrs = self.instrs
        if be in warm and not self._exit_calls_then_loop_jump(be):
            # (the body's normal exit, where the code after the with may follow: but the normal
            # flow that only runs the exit calls to a `continue` or `break` never goes on there)
            return be
        handler_code = self.handler_only_code()
        found = None
        for h in range(start, t):
            if self._xt_state.kinds.get(h) != "with" or h not in handler_code or t not in self._chain(h):
                continue
            y = self._swallowed_tail(h)
            if y is not None and instrs[y].opname == "JUMP":
                y = instrs[y].target  # (the jump over the handler's cleanup)
            if y is None or not be <= y < t or y in warm:
                continue
            k = y
            while k < t and instrs[k].opname == "NOP" and not self.jump_sources.get(k + 1):
                k += 1  # (the return's line)
            if not self._exit_call_at(k) or found is not None and found != k:
                return be
            found = k
        if found is None:
            return be
        past = self._with_const_return(self.skip[found], t, after, exit_call=True)
        return past if past != self.skip[found] else be

    def _exit_calls_then_loop_jump(self, k: int) -> bool:
        """Is `k` a with's exit call (then those of the withs around it, and the pops of the for
        loops' iterators a `break` drops) followed by a jump to the innermost loop's head or
        past its end: a `continue` or `break` that ends a with body?"""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not self._exit_call_at(k):
            return False
        instrs = self.instrs
        while self._exit_call_at(k):
            k = self.skip[k]
        while k < len(instrs) and instrs[k].opname == "POP_TOP" and not self.jump_sources.get(k):
            k += 1
        y = instrs[k].target if k < len(instrs) and instrs[k].opname == "JUMP" else None
        return y is not None and (y in loop.continue_targets or y == loop.break_target or y >= loop.exit)

    def _past_handler_way_on(self, start: int, be: int, t: int, warm: Set[int]) -> int:
        """`with a: (try: ... except E: ... else: return x); more`: only the handler of the try
        goes on to `more`, which the with still protects; the normal flow never reaches it, so it
        lies past the body read from the normal flow (3.11+: after the handler code). The body
        ends after it (read as the code after the with, it ran after `__exit__`, or was lost).
        Not where the normal flow (`warm`) reaches the with's exit at `be`: a jump from handler
        code into the with's span there is an enclosing clause's way out (its POP_EXCEPT)."""
        if be in warm:
            return be
        instrs = self.instrs
        st = self._xt_state
        end = be
        handler_code = self.handler_only_code()
        for k in range(start, t):
            ins = instrs[k]
            y = ins.target
            if ins.opname != "JUMP" or y is None or not be <= y < t or k not in handler_code \
                    or t not in self._chain(k):
                continue
            region = st.region_at[y]
            if region is None or region.handler != t or y in st.kinds or instrs[y].opname == "POP_EXCEPT":
                continue
            inside = [q for q in self._reach(y) if q < t and t in self._chain(q)]
            if inside:
                end = max(end, max(inside) + 1)
        # `with a: (with b: <never ends normally>); more`: the inner with's handler, after `b`
        # swallowed the exception, falls into `more`, which `a` still protects.
        for h in range(start, t):
            if st.kinds.get(h) != "with" or h not in handler_code:
                continue
            y = self._swallowed_tail(h)
            if y is None or not be <= y < t or y in warm:
                continue
            region = st.region_at[y]
            if region is None or region.handler != t:
                continue
            inside = [q for q in self._reach(y) if q < t and t in self._chain(q)]
            if inside:
                end = max(end, max(inside) + 1)
        return end if end <= self.end else be

    def _with_handler_exit(self, t: int, warm: Set[int]) -> Optional[int]:
        """Where a with handler that suppressed the exception continues (the statement after)."""
        instrs = self.instrs
        j = self._swallowed_tail(t)
        if j is None:
            return None
        if instrs[j].opname == "JUMP":
            y = instrs[j].target
            loop = self.loops[-1] if self.loops else None
            if loop is not None and y < len(instrs) and instrs[y].opname == "JUMP" \
                    and instrs[y].target in loop.continue_targets and y >= loop.body_end:
                # (3.12+: the way back to the loop's head that only the suppressed path takes,
                # laid with the handler code: the with ends the loop body)
                return instrs[y].target
            return y
        if j in warm:
            return j
        # Not reached normally: a copy of a small exit block (3.11+ copies them into the handler),
        # or the code after a with whose body never ends normally, which only the handler reaches.
        r = j
        while r < len(instrs) and r < j + 6 and instrs[r].target is None and instrs[r].opname not in TERMINAL:
            r += 1
        if r < len(instrs) and instrs[r].opname in TERMINAL and r < j + 6 \
                and self._find_copy(j, r + 1 - j, 0, warm) is not None:
            return None
        return j

    def _normal_exit_past_handlers(self, be: int, t: int, warm: Set[int]) -> int:
        """The with body's normal exit call, when handler code of a try that ends the body lies
        between `be` and it (3.11: `with a: (try: ... except E: return x); return CONST`, the
        try body jumping over its handler code to the exit call): for `_with_const_return`."""
        k = be
        while k < t and k not in warm:
            k += 1
        if be < k < t and self.skip.get(k, k) > k and self.instrs[k].opname in ("LOAD_CONST", "SWAP"):
            return k
        return be

    def _with_lines_apart(self, start: int) -> bool:
        """3.13: does the `as` target's store at `start`, the first instruction of the with body,
        stand apart from the inner with's context expression, a local's load, after it? 3.13
        fuses the two into one instruction when they share a line (`with a as x, b:`), so
        apart they were on two lines: `with a as x:` then `with b:` nested."""
        instrs = self.instrs
        return self.version.fuses_local_pairs and start + 1 < len(instrs) \
            and instrs[start].raw_opname == "STORE_FAST" and instrs[start + 1].raw_opname == "LOAD_FAST" \
            and not self._with_items_continued(start)

    def _with_items_continued(self, start: int) -> bool:
        """...unless the columns say the second item only went on to the next line (`with a as
        x, \\` or a parenthesized item list). Nested, the inner `with` stands one indent deeper
        than the outer one and every statement of its body deeper still; continued, the body
        stands one indent deeper than the outer `with`. A `with` statement's column is its
        context expression's, less `with `; a statement's own column is the least of its code's.
        Without positions (or a shape this does not cover) the lines decide."""
        instrs, positions = self.instrs, self.positions
        inner = next((k for k in range(start + 1, len(instrs)) if instrs[k].opname == "BEFORE_WITH"), None)
        if inner is None or instrs[start - 1].opname != "BEFORE_WITH":
            return False
        at_outer = positions.position_at(instrs[start - 1].offset)
        at_inner = positions.position_at(instrs[inner].offset)
        if not at_outer or not at_inner or at_outer[2] is None or at_inner[2] is None:
            return False
        outer_column, inner_column = at_outer[2] - 5, at_inner[2] - 5
        indent = inner_column - outer_column
        body = self._with_body_column(instrs[inner].offset, at_inner[0])
        if indent < 0:  # (the outer item is not the first of its with: no column to start from)
            return False
        return body is not None and (indent == 0 or body < inner_column + indent)

    def _with_body_column(self, enter_offset: int, with_line: Optional[int]) -> Optional[int]:
        """The least column of the code after a with's BEFORE_WITH, up to its exit call (the first
        code back on the with's own line), or None when the body shares that line."""
        columns = self.positions.columns
        least: Optional[int] = None
        for line, _, column, _ in columns[enter_offset // 2 + 1:]:
            if line is None:
                continue
            if line == with_line:
                if least is not None:
                    break
                continue
            if column is not None and (least is None or column < least):
                least = column
        return least

    def _with_const_return(self, be: int, t: int, after: Optional[int], exit_call: bool = False) -> int:
        """`return <constant>` right after the `__exit__` call belongs to the with body...

        ...unless the handler, after suppressing an exception, goes on to the same code: then
        it is the statement after the with (3.12+ may have copied it into the handler).
        """
        instrs = self.instrs
        k = be
        passed = {be}
        while k in self.skip and self.skip[k] > k:
            k = self.skip[k]
            passed.add(k)
        if k == be and not exit_call:  # (with `exit_call`, `be` follows the not yet skipped exit call)
            return be
        # Inside for loops, the return first drops each loop's iterator (a POP_TOP apiece, between
        # the exit call and the constant, which the compiler loads last).
        first = k
        iterators = sum(1 for loop in self.loops if loop.iterator is not None) if k > be or exit_call else 0
        pops = 0
        # (an except clause around the with is left first too: a POP_EXCEPT apiece, 3.11+)
        while k < len(instrs) and not self.jump_sources.get(k) and (
                instrs[k].opname == "POP_TOP" and pops < iterators or instrs[k].opname == "POP_EXCEPT"):
            passed.add(k)
            pops += instrs[k].opname == "POP_TOP"
            k += 1
            while k in self.skip and self.skip[k] > k:
                passed.add(k)
                k = self.skip[k]  # (... and a try/finally around it: the finally body's copy)
        if pops not in (0, iterators):
            return be
        unwound = k - first
        if k + 1 >= len(instrs) or instrs[k].opname != "LOAD_CONST" \
                or instrs[k + 1].opname != "RETURN_VALUE" or after in passed or self.jump_sources.get(k):
            return be
        j = t + 1
        while j < len(instrs) and j < t + 16 and instrs[j].opname != "POP_JUMP_IF_TRUE":
            j += 1
        if j < len(instrs) and instrs[j].opname == "POP_JUMP_IF_TRUE":
            tail = instrs[j].target + 4
            if self._same_instructions(tail, first, unwound + 2):
                return be
        if unwound:
            self.skip[first] = k  # (the iterators' POP_TOPs are the return's, not statements)
        return k + 2

    def _register_exit_calls(self, start: int, is_async: bool, body_end: int) -> None:
        """`__exit__(None, None, None)` on each normal exit of a with body is not source.

        One on a way out from inside the body (before `body_end`) may be followed by the exit
        block a `break` jumped to, copied there."""
        instrs = self.instrs
        size = len(instrs)
        for k in range(start, size - 4):
            if not (instrs[k].opname == "LOAD_CONST" and instrs[k].argval is None
                    and instrs[k + 1].opname == "LOAD_CONST" and instrs[k + 1].argval is None
                    and instrs[k + 2].opname == "LOAD_CONST" and instrs[k + 2].argval is None
                    and instrs[k + 3].opname == "CALL" and instrs[k + 3].arg == 2):
                continue
            end = k + 4
            if end < size and instrs[end].opname == "GET_AWAITABLE":
                j = end
                while j < size and instrs[j].opname != "SEND":
                    j += 1
                if j >= size:
                    continue
                end = instrs[j].target
                if end < size and instrs[end].opname == "END_SEND":
                    end += 1
            if end >= size or instrs[end].opname != "POP_TOP":
                continue
            first = k - 1 if k - 1 >= 0 and instrs[k - 1].opname == "SWAP" and instrs[k - 1].arg == 2 else k
            last = end + 1
            if first < k and last + 1 < size and instrs[last].opname == "SWAP" and instrs[last].arg == 2 \
                    and instrs[last + 1].opname == "POP_EXCEPT":
                # A return from a with inside an except clause then puts the value below the
                # previous exception; stepping over the exit call left the with's `__exit__`
                # there instead, and POP_EXCEPT finds the exception wherever it lies.
                last += 1
            self.skip[first] = last
            if first == k and k < body_end:
                self._note_exit_break(end + 1)

    # --- async for ------------------------------------------------------------------------------

    def async_for_table_loop(self, h: int) -> int:
        """`async for`: GET_ANEXT, an await, the target store, the body, and END_ASYNC_FOR."""
        from depyf.decompiler.control import LoopInfo, _drop_trailing_continue
        st = self._xt()
        instrs = self.instrs
        iterator = self.pop()
        iterable = iterator.value if isinstance(iterator, m.Iterator) else iterator
        region = st.region_at[h]
        if region is None or st.kinds.get(region.handler) != "asyncfor":
            raise self.fail(instrs[h], "async for without END_ASYNC_FOR")
        exit_at = region.handler
        k = h + 1
        while k < len(instrs) and instrs[k].opname != "SEND":
            k += 1
        start = instrs[k].target
        if start < len(instrs) and instrs[start].opname == "END_SEND":
            start += 1
        j = self.loop_end[h]
        body_end = j if instrs[j].opname == "JUMP" and instrs[j].target == h else j + 1
        last = instrs[exit_at - 1]
        if j + 1 < exit_at and not (last.opname == "JUMP" and last.target == h) \
                and any(j < k < exit_at for k in self._reach(start, {exit_at})):
            # 3.12+: copies of exit blocks (a break) after the last jump back. (Not when only
            # handler code lies there: that of a try before the loop, whose else part the loop
            # is read in, comes before END_ASYNC_FOR.)
            body_end = exit_at
        real_exit = exit_at + 1
        targets = [x.target for x in instrs[start:body_end]
                   if x.target is not None and x.target > real_exit - 1 and x.target != exit_at]
        break_target = min(targets) if targets else None
        popped = self._popping_break(start, j, real_exit)
        if popped is not None:
            # (a POP_TOP that falls into the code after the loop is a `break`: read in the body)
            break_target = popped[0]
            body_end = popped[0] if popped[0] > j + 1 else j if instrs[j].target == h else j + 1
        info = LoopInfo({h}, break_target, real_exit if popped is None else popped[0], body_end)
        info.iterator, info.outer_end = m.Iterator(iterable, True), self.end
        self.loops.append(info)
        self.active_loops.add(h)
        self.for_targets.append(None)
        try:
            body = self.run_range(start, body_end, list(self.stack) + [info.iterator, m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
            self.for_targets.pop()
        if target is None:
            raise self.fail(instrs[h], "async for loop without a target")
        _drop_trailing_continue(body)
        if break_target is None and info.copied_exit is not None:
            break_target = self._exit_original(info, *info.copied_exit)
        orelse: List[n.Stmt] = []
        after = real_exit
        if popped is not None:
            after, stop = popped
            orelse = self.run_range(real_exit, stop, list(self.stack)) if stop > real_exit else []
            self._mark_dead(real_exit, stop + 1)
            self.skip[exit_at] = exit_at + 1
            return self.finish_for(n.For(target, iterable, body, orelse, True), after)
        moved = self._moved_rest(real_exit, body_end)
        if moved is not None:
            # 3.12+: END_ASYNC_FOR lies with the handler code at the end, past the range (an if
            # body), and what follows it goes back into the range: that is the loop's else part
            # when a `break` goes there too, else the code after the loop.
            stop, after, span_end = moved
            tail = self.run_range(real_exit, stop, list(self.stack))
            self._mark_dead(real_exit, span_end)
            self.skip[exit_at] = exit_at + 1
            if after < self.end and self._breaks_to(start, body_end, after, info):
                return self.finish_for(n.For(target, iterable, body, tail, True), after)
            done = self.finish_for(n.For(target, iterable, body, [], True), after)
            for stmt in tail:
                self.emit(stmt)
            return done
        if break_target is not None and real_exit < break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        self.skip[exit_at] = exit_at + 1
        return self.finish_for(n.For(target, iterable, body, orelse, True), after)

    def _popping_break(self, start: int, j: int, real_exit: int) -> Optional[Tuple[int, int]]:
        """3.12+: (the code after the async for, the end of its else part) when a `break` in the
        body [start, j] pops the iterator (POP_TOP) and runs on into the code after the loop,
        laid right after the loop's last jump back: the loop's own exit, END_ASYNC_FOR with the
        handler code at the end, then runs the loop's else part and jumps back to that code."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or real_exit >= len(instrs):
            return None
        flow = self._reach(real_exit, None, real_exit)
        last = max(flow)
        if len(flow) != last + 1 - real_exit or instrs[last].opname != "JUMP":
            return None
        x = instrs[last].target
        if x == j + 1 and instrs[j].opname == "JUMP":
            # (the breaks jump there after popping the iterator)
            return (x, last) if any(instrs[k].target == x for k in range(start, j)) else None
        if not j + 1 < x < real_exit - 1 or instrs[x - 1].opname != "POP_TOP":
            return None
        sources = self.jump_sources.get(x - 1, ())
        if not sources or any(not start <= src <= j for src in sources) or instrs[x - 2].opname != "JUMP":
            return None
        return x, last

    def _moved_rest(self, x: int, low: int) -> Optional[Tuple[int, int, int]]:
        """3.12+: where the code after an async for's END_ASYNC_FOR (or after a with whose body
        such a loop ends) lies past the range being read, at `x` (the loop ends an if body, say:
        END_ASYNC_FOR is laid with the handler code at the end), (end of its statements, where it
        goes on in the range, end of the code to mark read).

        That code (the loop's else part or the code after the statement, moved with it) is one
        stretch that ends with a jump back into the range, to its end or to code from `low` on
        (the code after the loop laid in place), or with a return or raise. None for anything
        else."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or not self.end < x < len(instrs):
            return None
        flow = self._reach(x, None, x)
        last = max(flow)
        handler_code = self.handler_only_code()
        if any(k not in flow and k not in handler_code for k in range(x, last)):
            return None
        closing = instrs[last]
        if closing.opname == "JUMP" and low <= closing.target <= self.end:
            return last, closing.target, last + 1
        if closing.opname in TERMINAL:
            return last + 1, self.end, last + 1
        return None

    def _breaks_to(self, start: int, body_end: int, x: int, info: LoopInfo) -> bool:
        """Does a `break` in the loop body [start, body_end) go to `x`: a jump there, or a copy
        of the small exit block at `x`?"""
        if any(self.instrs[k].target == x for k in range(start, body_end)):
            return True
        if info.copied_exit is None:
            return False
        a, b = info.copied_exit
        return self._same_code((a, b), (x, x + b - a))


def fold_falling_tail_into_else(stmts: List[n.Stmt]) -> None:
    """`if c: A; return None` then the rest of the function -> `if c: A` with the rest as its
    else part.

    3.10+ copies the implicit `return None` into a branch that jumps to the end, so an if body
    reads as ending in `return None` when its way out went to the end of the function: past the
    code after it, which was the else part. (An explicit `return None` reads the same when
    nothing else jumps to it; the compiler makes the same code for both then.)"""
    end = len(stmts) - 1 if stmts and _is_return_none(stmts[-1]) else len(stmts)  # (the implicit one)
    for k in range(end - 2, -1, -1):
        s = stmts[k]
        if isinstance(s, (n.Return, n.Raise)):
            break
        if isinstance(s, n.If) and not s.orelse and len(s.body) > 1 and _is_return_none(s.body[-1]) \
                and not s.body[-1].jumped_to:
            # (and on outwards: an earlier such if has this one in its else part, an elif chain)
            s.orelse = stmts[k + 1:]
            del stmts[k + 1:]
    # The blocks that end the last statement end the function too. (Not a with body: its way
    # out runs the `__exit__` call first, which the compiler never copies into a branch; a
    # `return` there was written.)
    # (after a fold the list is shorter: its last statement is the if that took the rest)
    tail = stmts[:-1] if stmts and _is_return_none(stmts[-1]) else stmts
    last = tail[-1] if tail else None
    if isinstance(last, n.If):
        fold_falling_tail_into_else(last.body)
        fold_falling_tail_into_else(last.orelse)
    elif isinstance(last, n.Try) and not last.finalbody:
        fold_falling_tail_into_else(last.orelse if last.orelse else last.body)
        for handler in last.handlers:
            fold_falling_tail_into_else(handler.body)


def _is_return_none(stmt: n.Stmt) -> bool:
    return isinstance(stmt, n.Return) and (stmt.value is None or
                                           (isinstance(stmt.value, n.Const) and stmt.value.value is None))


def _is_copied_return(stmt: n.Stmt) -> bool:
    """A `return None` that only one way reaches (see `drop_copied_returns`)."""
    return _is_return_none(stmt) and not stmt.jumped_to


def drop_copied_returns(stmts: List[n.Stmt]) -> None:
    """Remove `return None` that ends a branch of the function's last statement.

    3.11+ copies the implicit `return None` at the end of a function into every branch that
    falls off the end (an if-branch, a with body, a try body or handler); written out, it would
    be an explicit return that the compiler treats differently. A branch that is nothing but
    `return None` keeps it.
    """
    if not stmts:
        return
    last = stmts[-1]
    if _is_return_none(last):
        if len(stmts) > 1 and _is_copied_return(last):  # (one reached by two ways was written out)
            stmts.pop()
            drop_copied_returns(stmts)
        return
    if isinstance(last, n.If):
        drop_copied_returns(last.body)
        drop_copied_returns(last.orelse)
    elif isinstance(last, n.With):
        drop_copied_returns(last.body)
    elif isinstance(last, n.Try):
        if len(last.orelse) == 1 and _is_copied_return(last.orelse[0]) and not last.finalbody \
                and not last.else_kept:
            # `else: return` reads the copy that ends the try body's way out (the with statement
            # there suppressed the exception, 3.11): with no else part, the same code.
            last.orelse = []
        drop_copied_returns(last.orelse if last.orelse else last.body)
        for handler in last.handlers:
            drop_copied_returns(handler.body)
