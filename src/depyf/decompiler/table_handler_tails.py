"""Code after a 3.11+ try statement that only its handlers reach (`_handler_only_tail`), break
tails of handlers, and whether the rest of a body is an else part.
"""
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.structure.handler_kinds import CONSTRUCTS
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL
from depyf.decompiler.control import COND_JUMPS, LoopInfo
from depyf.decompiler.table_model import _MovedTail


class TableHandlerTails:
    """Handler-only tails and else parts; mixed into `exception_table.ExceptionTableRules`."""

    def _handler_only_tail(self, x: Optional[int], end: int, t: int,
                           own: Tuple[int, int] = (0, 0)) -> Optional[Tuple[int, int]]:
        """The code after a statement that only its handlers reach, when 3.12+ moved it out of
        the range [.., end) being read: (end of its statements, end of the code to mark read).

        Layout: 3.12+ lays every block that only an exception reaches after the handler code, at
        the end of the function. When the statement's normal path never reaches the code after
        it (a try body that returns, with except clauses that fall out; a with body that returns
        or raises, whose handler goes on when the manager swallowed the exception), that code is
        such a block: `if c: try: return f() except E: pass; more` lays `more` past the if, at
        `x`, where the handler `t` falls out to. It is the rest of the range, after the statement.

        It is one straight stretch from `x` (with the handler code of the statements in it) that
        ends in a return or raise (the compiler copied the small block after the range into it)
        or in a jump. Its jumps that leave it go where the range goes on: back to `end`, or
        forward to code that only handlers reach as well, the code after an enclosing statement
        that was moved the same way (`try: ... except E: pass else: with cm: return f()` then `if
        c: return 1`, whose test jumps on to the code after the try), read there. A closing jump
        is no statement. Code that begins with the normal exit of an enclosing with goes on after
        that with: only a closing jump to `end` tells that it is the rest of the range (a copied
        return there may be the code after the with). The statement with the handler `t` and
        that code lie in the same enclosing try and with statements (the code after an enclosing
        try, or its else part, lies outside it). `own`: the range of the statement's body, whose
        inner statements' clauses go on there too (`try: ... except E: ... finally:`, the except
        clauses of the try inside). None for anything else."""
        if x is None or not self.version.handler_code_at_end or x <= end:
            return None
        handler_code = self.handler_only_code()
        if x not in handler_code:
            return None
        tail = self._moved_tail_at(x, end, t, own)
        if tail is None:
            return None
        context, last = tail.context, tail.last
        if context and self._xt_state.kinds.get(context[0]) == "with" and tail.with_handler is None:
            exit_at = next((k for k in range(x + 1, last + 1) if k in tail.flow and self._exit_call_at(k)
                            and self._cleanup_of(k - 1) == context[0]), None)
            if exit_at is not None:
                return exit_at, exit_at
        closing = self.instrs[last]
        # (an if body's rest, whose jump over the if's else part closes it: that part, from the
        # if's false target `end` on, lies before the stretch, in the normal code)
        over_else = closing.opname == "JUMP" and end < (closing.target or -1) < x \
            and tail.with_handler is None \
            and any(self.instrs[src].opname in COND_JUMPS and src < end for src in self.jump_sources.get(end, ()))
        if not self._moved_tail_jumps_fit(tail, end, handler_code, over_else):
            return None
        return self._moved_tail_end(tail, end, over_else)

    def _moved_tail_at(self, x: int, end: int, t: int, own: Tuple[int, int]) -> Optional[_MovedTail]:
        """The stretch at `x` that `_handler_only_tail` reads, where no other handler reaches it
        (past `end`, or before the statement with the handler `t`), and it lies in the same try
        and with statements as that statement (past the exit call of the with around `t`, when
        the code begins with that with's normal exit)."""
        first_protected = self._statement_starts()
        if self._reached_from_handlers_past(x, end, first_protected):
            return None
        if self._reached_from_earlier_handlers(x, t, first_protected, own):
            return None
        context = self._xt_state.table.handler_chain(t)[1:]
        at_exit = x
        while at_exit < len(self.instrs) and self.instrs[at_exit].opname == "NOP" \
                and not self.jump_sources.get(at_exit + 1):
            at_exit += 1  # (the line of the statement that the exit call starts)
        exits_with = bool(context) and self._xt_state.kinds.get(context[0]) == "with" and self._exit_call_at(at_exit)
        with_handler = context[0] if exits_with else None
        if exits_with:
            context = context[1:]  # (the code begins with the normal exit of the with around `t`)
        if tuple(h for h in self._chain(x) if first_protected[h] < x) != context:
            return None
        flow = {k for k in self._reach_with_inner_handlers(x) if k >= x}
        last = x
        while last + 1 in flow:
            last += 1
        return _MovedTail(x, last, flow, context, at_exit, with_handler)

    def _moved_tail_jumps_fit(self, tail: _MovedTail, end: int, handler_code: Set[int],
                              over_else: bool) -> bool:
        """Do the jumps that leave the stretch go where the range goes on: back to `end`, to a
        loop's `continue` target, over an if's else part (`over_else`), or forward to code that
        only handlers reach (then the stretch may reach more than its straight run)?"""
        x, last = tail.start, tail.last
        closing = self.instrs[last]
        onward = False  # does the stretch jump on to moved code past it?
        for ins in self.instrs[x:last + 1]:
            target = ins.target
            if target is None or x <= target <= last or target == end or over_else and ins is closing:
                continue
            if self.loops and target in self.loops[-1].continue_targets and target < x \
                    and x not in self.loops[-1].continue_targets:
                continue  # a `continue` in that rest of a loop body (not the loop's own test)
            if target < x or target not in handler_code or tail.with_handler is not None:
                return False
            onward = True
        # (else the stretch goes on elsewhere)
        return onward or len(tail.flow) == last + 1 - x

    def _moved_tail_end(self, tail: _MovedTail, end: int, over_else: bool) -> Optional[Tuple[int, int]]:
        """(end of its statements, end of the code to mark read) of the stretch, by the way it
        ends: a closing jump (to `end`, onward, over an if's else part, a loop's jump back), a
        jump back to `end` before the handler code of a try in it, a return or raise."""
        x, last = tail.start, tail.last
        exits_with = tail.with_handler is not None
        closing = self.instrs[last]
        if closing.opname == "JUMP" and (closing.target == end or closing.target > last):
            return last, last + 1
        if over_else:
            self.range_falls_to.setdefault(end, closing.target)  # control: `if_statement`
            self.tail_else_joins.add(end)
            return last, last + 1
        normal = [k for k in self._reach(x) if k >= x]
        normal_last = max(normal) if normal else last
        if normal_last < last and self.instrs[normal_last].opname == "JUMP" \
                and self.instrs[normal_last].target == end:
            # (the stretch's own code ends in that jump back to the range's end; the handler code
            # of a try in it follows)
            return normal_last, last + 1
        loop = self.loops[-1] if self.loops else None
        if closing.opname == "JUMP" and loop is not None and end == loop.body_end \
                and closing.target in loop.continue_targets and not exits_with:
            # (the rest of a loop body that the range ends: the loop's own jump back closes it,
            # when the statement's normal way out is a `continue`, to the `while` line's NOP)
            return last, last + 1
        if closing.opname in TERMINAL and not exits_with:
            return last + 1, last + 1
        if closing.opname in TERMINAL and tail.with_handler is not None \
                and self._with_const_return(self.skip[tail.at_exit], tail.with_handler, None,
                                            exit_call=True) == last + 1:
            # 3.12+: the exit call, then `return CONST`, where the enclosing with's own handler
            # goes on to other code (`_with_const_return`): the return ends that with's body
            # (`with a: (if c: (with b: raise E); return 1); more`), it is no code after it.
            return last + 1, last + 1
        return None

    def _statement_starts(self) -> Dict[int, int]:
        """Each handler's first protected instruction, or where its statement starts when that
        comes first. A statement starts where the code it encloses starts: the except clauses of
        `try: (try: raise E / finally: A) / except E: B` first protect the inner finally's
        cleanup, in the handler code, and a finally around that statement first protects the
        jump out of it, but both statements start before the inner try."""
        found: Optional[Dict[int, int]] = getattr(self, "_statement_starts_at", None)
        if found is None:
            found = dict(self._first_protected())
            for k, hs in self._xt().try_starts.items():
                for h in hs:
                    if h in found:
                        found[h] = min(found[h], k)
            self._statement_starts_at = found
        return found

    def _reached_from_earlier_handlers(self, x: int, t: int, first_protected: Dict[int, int],
                                       own: Tuple[int, int] = (0, 0)) -> bool:
        """Does the except clause of a statement that starts before the one with handler `t` go
        to `x` too (`try: ... except E: pass else: <this statement>` then more, whose clause
        goes on after the outer statement)? Then `x` is the code after that statement."""
        own_start = first_protected.get(t)
        sources = [src for src in self.jump_sources.get(x, ()) if src not in self._reach(t)]
        if own_start is None or not sources:
            return False
        kinds = self._xt_state.kinds
        return any(kinds.get(h) in CONSTRUCTS and h != t and first < own_start
                   and not own[0] <= first < own[1]
                   and any(src in self._reach(h) for src in sources)
                   for h, first in first_protected.items())

    def _reached_from_handlers_past(self, x: int, end: int, first_protected: Dict[int, int]) -> bool:
        """Do the handlers of a statement between `end` and `x` jump to `x` too? Then `x` is the
        code after an enclosing statement, not the rest of the range [.., end): `if a: try: return
        f() except E: pass else: try: return g() except E: pass` then more, which 3.12+ moves
        after the handler code of both tries."""
        kinds = self._xt_state.kinds
        sources = self.jump_sources.get(x, ())
        return any(kinds.get(h) in CONSTRUCTS and end <= first < x
                   and any(src in self._reach(h) for src in sources)
                   for h, first in first_protected.items())

    def _handler_tail_last(self, x: int) -> Optional[int]:
        """The last instruction of the handler-only code at `x` when that code is one straight
        stretch (with the handler code of the statements in it); else None."""
        flow = [k for k in self._reach_with_inner_handlers(x) if k >= x]
        last = max(flow) if flow else -1
        return last if last >= 0 and len(flow) == last + 1 - x else None

    def _reach_with_inner_handlers(self, x: int) -> Set[int]:
        """`_reach(x)`, also into the handler code of the try and with statements that start in
        the code reached (3.12+ lays it after their code, before what follows them: `for ...:
        try: ... except E: pass` then `try: ... except F: ...` and more of the body, all reached
        only from the first handler). A handler whose protected code starts before `x` encloses
        that code and stays out."""
        st = self._xt()
        first_protected = self._first_protected()
        seen = set(self._reach(x))
        todo = [k for k in seen if k >= x]
        while todo:
            region = st.region_at[todo.pop()]
            if region is None or region.handler in seen or first_protected[region.handler] < x:
                continue
            found = self._reach(region.handler) - seen
            seen |= found
            todo.extend(found)
        return seen

    def _exit_call_at(self, k: int) -> bool:
        """Does a with statement's `__exit__(None, None, None)` call (registered to be stepped
        over) start at `k`?"""
        instrs = self.instrs
        return self.skip.get(k, k) > k and k + 3 < len(instrs) and instrs[k].opname == "LOAD_CONST" \
            and instrs[k].argval is None and instrs[k + 3].opname == "CALL"

    def _break_tail(self, clauses: List[Tuple[Optional[n.Expr], Optional[str], int, int]],
                    exits: List[Tuple[int, int, int, int]]) -> Optional[int]:
        """3.12+: where the last handler of a try inside a `while True:` runs on, after its
        unwinding, into code past the range that goes on only to the function's end (`except
        E: break` then the code after the loop, which only that `break` reaches and which the
        compiler laid right after the handler). A constant return there reads the same either
        way, and stays the handler's own `return`. None for any other try."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not loop.is_while or loop.top_test is not None or not clauses \
                or not self.version.handler_code_at_end:
            return None
        hs, he = clauses[-1][2], clauses[-1][3]
        if any(e[0] == hs for e in exits):
            return None
        x = self._fallthrough_tail(hs, he)
        if x is None or x < max(self.end, loop.exit) or min(self._reach(x)) < x \
                or self.instrs[x].opname == "LOAD_CONST" and self.instrs[x + 1].opname == "RETURN_VALUE":
            return None
        loop.handler_break = x
        return x

    def read_handler_break_tail(self, loop: LoopInfo, after: int) -> None:
        """3.12+: the code after a `while True:` that only its handlers' `break` leaves is reached
        from handler code only, so the compiler moved it after the handlers (`while True: try:
        ... except E: break` then more). Read it as the statements after the loop when it is one
        straight stretch that ends the function or jumps on to `after`, where reading goes on."""
        x = loop.handler_break
        if x is None or x in self.skip:
            return
        instrs = self.instrs
        flow = self._reach(x, None, x)
        last = max(flow)
        onward = False  # the stretch jumps on past the handler code after it
        if len(flow) != last + 1 - x:
            # (the loop ends a try body: the stretch jumps on to the code after the try)
            r = x
            while r in flow:
                r += 1
            last = r - 1
            onward = instrs[last].opname == "JUMP" and instrs[last].target > last and all(
                instrs[k].target is None or x <= instrs[k].target <= last for k in range(x, last))
            if not onward:
                return
        if instrs[last].opname == "RERAISE":
            return  # (a loop in a finally body's exceptional copy: its code goes on to the re-raise)
        closing = instrs[last]
        copy = next((k for k in range(x, last) if k in self.skip and self.skip[k] > k), None)
        if copy is not None:
            # (the loop ends a try body whose finally body the compiler copied here: the code
            # after that copy follows the try statement, read from there on)
            stmts = self.run_range(x, copy, list(self.stack))
            last = copy - 1
        elif closing.opname == "JUMP" and (closing.target == after or onward):
            stmts = self.run_range(x, last, list(self.stack))
        elif closing.opname in TERMINAL:
            stmts = self.run_range(x, last + 1, list(self.stack))
        else:
            return
        for stmt in stmts:
            self.emit(stmt)
        self._mark_dead(x, last + 1)
        loop.copied_exit = None  # (the copies in the body are read as `break`s; this is the code)

    def _closing_jump_at(self, end: int, x: int) -> bool:
        """Is the instruction at `end`, right after the range of a try that ends a loop body, the
        loop's own jump back to `x`? A handler that falls out of that try jumps to it (the
        compiler never threads a handler's jump to the end of its try), so a handler's jump
        straight to `x` is a `continue` (`while True: try: ... except E: continue` and then more
        of the body)."""
        instrs = self.instrs
        return end < len(instrs) and instrs[end].opname == "JUMP" and instrs[end].target == x

    def _rest_is_else_part(self, be: int, end: int, t: int, head: int) -> bool:
        """Is the code [be, end) between a try's body and the end of the loop body its else part,
        when the handlers jump back to the loop's `head` (`except E: continue` then that code
        reads the same before 3.13, and is the else reading there)?

        A try statement in that code tells: the compiler emits an else part before the handlers,
        so the handler of a try inside it comes before `t`, that of a try after it comes after.
        Otherwise 3.13 keeps the jump that leaves an else part: a test at the end of the else
        part jumps to that jump (a lone jump back to the head), where the same test after the
        try is sent on to the head (and inverted: a test that hops over one jump back)."""
        if self.version.handler_code_at_end:
            enclosing = set(self._xt_state.table.handler_chain(t))
            for k in range(be, end):
                chain = self._chain(k)
                if chain and chain[0] != t and chain[0] not in enclosing:
                    return chain[0] < t
        if not self.version.keeps_try_else_exit or self.loops[-1].is_while:
            return True  # (a while loop's closing jump has a line: jumps to it are never sent on)
        if be in self.handler_only_code():
            # A try in code that only an exception reaches keeps the source order (the compiler
            # moves only such code to the end, and it all is): the code after the statement
            # follows the handlers, so code right after the body is its else part.
            return True
        return any(self._kept_else_exit(be, k, head, t) for k in range(be + 1, min(end + 1, len(self.instrs))))

    def _else_part_by_handler_order(self, s: int, be: int, stop: int, t: int) -> bool:
        """3.12+, handlers that never fall out: is the code [be, stop) that the try's body [s, be)
        falls into its else part, as the tries that start there tell? The compiler emits an else
        part before the handlers and the code after the statement after them, and moving the
        handler code to the end keeps that order: a try in the else part has its handler before
        `t`, one after the statement after it. Only when every such try says else part (with
        none, nothing tells: either reading compiles alike). The body's own tries do not count,
        nor their code moved past its end (an `await`'s throw path), nor handler code (of earlier
        statements, say) lying before `t`."""
        if not self.version.handler_code_at_end:
            return False
        known = set(self._xt_state.table.handler_chain(t))
        for k in range(s, be):
            known.update(self._chain(k))
        cold = self.handler_only_code()
        inner = {chain[0] for chain in map(self._chain, (k for k in range(be, stop) if k not in cold))
                 if chain and chain[0] not in known}
        return bool(inner) and max(inner) < t

    def _kept_else_exit(self, be: int, k: int, head: int, t: int) -> bool:
        """Is `k` a lone jump back to the loop's `head` that code in [be, k) jumps to (3.13's
        kept jump out of an else part that ends the loop body)? A test that hops over one jump
        back is a backward conditional jump, which the compiler also sends there. Only code
        before the handler `t` counts (the exits of handlers laid inline there do not)."""
        instrs = self.instrs
        ins = instrs[k]
        if ins.opname != "JUMP" or ins.target != head or instrs[k - 1].opname not in ENDS_FLOW:
            return False
        return any(be <= j < min(k, t) and not (j == k - 2 and instrs[k - 1].opname == "JUMP")
                   for j in self.jump_sources.get(k, ()))

    def _goes_on_at_head(self, end: int, loop: LoopInfo) -> bool:
        """Does the range that ends at `end` run on to the loop's next iteration? Only then is a
        handler's jump back to the loop's head the way out of a try that ends the range; where
        more of the body follows (the try is the body of an if, say), it is a `continue`."""
        if end >= len(self.instrs) or end in loop.continue_targets:
            return True
        if end >= loop.body_end:
            return not loop.falls_off_to_exit
        ins = self.instrs[end]
        return ins.opname == "JUMP" and ins.target in loop.continue_targets
