"""Where the body of a 3.11+ try statement ends through the with statements in it: a with's
return past its exit call, the code after the try that only a swallowed exception reaches, the
rest of the body laid after a with's handler, and an inner clause's way on past an exit call.
"""
from typing import Optional, Set, Tuple

from depyf.decompiler.instructions import TERMINAL
from depyf.decompiler.table_model import _MAX_RETURN_BLOCK


class TableTryWiths:
    """Where a try body ends through a with in it; mixed into `exception_table.ExceptionTableRules`."""

    def _past_with_return(self, s: int, be: int, t: int) -> int:
        """`try: with a: ...; return CONST`: the return leaves the try's protection after the
        `__exit__` call, so the protected range ends before it. It belongs to the with body (read
        as the try's else part, it also ran when the manager swallowed an exception, whose way on
        is the code after the with, not this return) unless the with's handler goes on to the
        same code."""
        instrs = self.instrs
        if not s < be + 1 < len(instrs) or instrs[be].opname != "LOAD_CONST" \
                or instrs[be + 1].opname != "RETURN_VALUE" or self.jump_sources.get(be):
            return be
        st = self._xt()
        for k in range(be - 1, s - 1, -1):
            if instrs[k].opname not in ("BEFORE_WITH", "BEFORE_ASYNC_WITH"):
                continue
            statement = self.withs.at_setup(k) if k + 1 < be else None
            if statement is None or statement.handler.start in st.handled:
                return be
            tw = statement.handler.start
            if t not in self._chain(k) or not be < tw:
                return be
            warm = self._reach(k)
            if max((q for q in warm if tw in self._chain(q)), default=k) >= be \
                    or not self._only_exit_call(max(q for q in warm if tw in self._chain(q)) + 1, be):
                return be
            return self._with_const_return(be, tw, self._with_handler_exit(tw, warm), exit_call=True)
        return be

    def _swallowed_way_on(self, s: int, be: int, t: int, warm: Set[int],
                          jumped: bool = False) -> Optional[Tuple[int, int, int]]:
        """The code after the try when a body that never ends normally (`try: with a: return
        f()`) goes on only by a with whose manager swallowed the exception: (its start, the end
        of its statements, the end of the code it takes). 3.11+ copies that small exit block
        into the with's handler, between the body and the try's handler `t`; 3.12+ jump from the
        handler to that code, laid past the with's cleanup or (3.13+) at the end of the code,
        which then may end in a jump back to where the range being read ends (an if body's).
        That code is the code after the try only where it lies past the range being read and
        the except clauses do not go on (`jumped`); else it is read as the else part."""
        instrs = self.instrs
        if be < 1 or instrs[be - 1].opname not in TERMINAL:
            return None
        for statement in self.withs.in_range(s, be):
            j = statement.handler.way_on
            if j is None or j in warm or not be <= j < t or self.jump_sources.get(j):
                continue
            y = statement.handler.goes_to
            # (not an enclosing try/finally's copy of its finally body, registered as read)
            if jumped and y is not None and y >= self.end and y not in self.skip and self.jump_sources.get(y) == (j,) \
                    and t not in self._chain(y) and (be <= y < t or t < y and y in self.handler_only_code()):
                j, stop, limit = y, t if y < t else len(instrs), len(instrs)
            else:
                stop, limit = t, j + _MAX_RETURN_BLOCK
            tail = self._straight_tail(j, stop, limit, closing=j > t)
            if tail is not None:
                return (j,) + tail
        return None

    def _straight_tail(self, j: int, stop: int, limit: int, closing: bool) -> Optional[Tuple[int, int]]:
        """(end of its statements, end of the code) of the straight code at `j` before `stop` and
        `limit` that ends in a return or raise, or (`closing`) in a jump to where the range
        being read ends; None if none."""
        instrs = self.instrs
        r = j
        while r < stop and r < limit and instrs[r].target is None and instrs[r].opname not in TERMINAL:
            r += 1
        if r < stop and instrs[r].opname in TERMINAL:
            return r + 1, r + 1
        if closing and r < stop and instrs[r].opname == "JUMP" and instrs[r].target == self.end:
            return r, r + 1
        return None

    def _past_swallowed_way_on(self, s: int, be: int, t: int, outermost: bool = False) -> int:
        """`try: with a: return f()` then more statements in the try body: only a with whose
        manager swallowed an exception reaches them. The compiler lays them after the with's
        handler, still protected by the try: the body ends after them (the with reads them).
        So with a with body that leaves by a `break` or `continue` (3.11: after the exit call,
        an unprotected jump out at `be`): `try: with a: ...; break` then more of the try body,
        which only the swallowing exit reaches (read as the try's else part, it would run
        after the break's way out instead). `outermost`: only a with whose way on no other with
        in the body holds (that with's reading takes it in)."""
        instrs = self.instrs
        if be < 1 or instrs[be - 1].opname not in TERMINAL and not self._jump_out_at(s, be, t):
            return be
        statements = self.withs.in_range(s, be)
        for statement in statements:
            if not be <= statement.handler.start < t:
                continue
            j = statement.handler.way_on if statement.handler.goes_to is None else statement.handler.goes_to
            if j is None or not be <= j < t or t not in self._chain(j):
                continue
            if outermost and any(o.setup < statement.setup and o.region.covers(j) for o in statements):
                continue
            inside = [q for q in self._reach(j) if t in self._chain(q)]
            if inside and max(inside) + 1 > be:
                be = max(inside) + 1
        return be

    def _jump_out_at(self, s: int, be: int, t: int) -> bool:
        """3.11: is the code at the body's protected end `be` an unprotected jump that leaves the
        try (a `break` or `continue`, laid after its with's exit call), so that the body never
        goes on there normally?"""
        instrs = self.instrs
        if self.version.handler_code_at_end:
            return False
        k = be
        while k < len(instrs) and instrs[k].opname == "POP_TOP" and t not in self._chain(k) \
                and not self.jump_sources.get(k):
            k += 1  # (a `break` first pops the iterators of the for loops it leaves)
        if k >= len(instrs) or instrs[k].opname != "JUMP" or t in self._chain(k) or self.jump_sources.get(k):
            return False
        y = instrs[k].target
        return y is not None and not s <= y <= t and any(
            y in loop.continue_targets or y == loop.break_target or y >= loop.exit for loop in self.loops)

    def _past_inner_clause_way_on(self, s: int, be: int, t: int, warm: Set[int]) -> int:
        """3.12+: a with in the try body whose body goes on only through the except clause of a
        try inside it (`with a: (try: raise E / except E: ...); more`) has the rest of its body,
        and its normal exit (still protected by the try `t`), laid with that clause, past the
        handler code: the try body ends after that exit call, and the code after it (the try's
        else part, say) is not the body's."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or be < 1 or be >= t or instrs[be - 1].opname not in TERMINAL:
            return be
        st = self._xt_state
        first_protected = self._first_protected()
        seen = set(self._reach(s))
        todo = list(seen)
        while todo:
            region = st.region_at[todo.pop()]
            if region is None or region.handler in seen or first_protected[region.handler] < s \
                    or st.kinds.get(region.handler) != "except":
                continue
            found = self._reach(region.handler) - seen
            seen |= found
            todo.extend(found)
        for statement in self.withs.in_range(s, be):
            for k in sorted(seen - warm):
                if k > be and k + 4 < len(instrs) and self._cleanup_of(k) == t \
                        and self._cleanup_of(k - 1) == statement.handler.start \
                        and instrs[k].opname == "LOAD_CONST" and instrs[k].argval is None \
                        and instrs[k + 3].opname == "CALL" and instrs[k + 4].opname == "POP_TOP":
                    be = max(be, k + 5)  # (the exit call's end)
        return be

    def _only_exit_call(self, a: int, b: int) -> bool:
        """Is [a, b) the `__exit__(None, None, None)` call (and its await) of a with's normal exit?"""
        ops = {"LOAD_CONST", "CALL", "PRECALL", "POP_TOP", "GET_AWAITABLE", "SEND", "YIELD_VALUE",
               "RESUME", "END_SEND", "NOP"}
        instrs = self.instrs
        for q in range(a, b):
            ins = instrs[q]
            if ins.opname in ops or (ins.opname == "JUMP" and ins.target is not None and a <= ins.target < q
                                     and instrs[ins.target].opname == "SEND"):  # (the await's loop)
                continue
            return False
        return a < b and any(instrs[q].opname == "CALL" for q in range(a, b))
