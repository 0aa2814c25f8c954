"""Where the body of a 3.11+ try statement ends: past its protected range, through returns,
handler break tails, copied exits and the ways on of inner clauses.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.control import COND_JUMPS
from depyf.decompiler.table_model import _BREAK, _FORWARD_JUMPS, _MAX_COPIED_EXIT


class TableTryEnds:
    """Where a try body ends; mixed into `exception_table.ExceptionTableRules`."""

    def _implicit_return_at(self, k: int, end: int) -> bool:
        instrs = self.instrs
        return end - k == 2 and instrs[k].opname == "LOAD_CONST" and instrs[k].argval is None \
            and instrs[k + 1].opname == "RETURN_VALUE"

    def _protected_end(self, s: int, t: int, warm: Set[int]) -> int:
        moved = self._async_for_ways_back()
        inside = [k for k in warm if t in self._chain(k) and k not in moved]
        end = max(inside) + 1 if inside else s
        # A loop that starts in the body ends there too, even if its closing jump is unprotected.
        # (3.12+: a loop that only a handler's `continue` closes has that jump in the handler code
        # at the end of the function, which tells nothing about where the loop's body ends.)
        moved = self.handler_closed if self.version.handler_code_at_end else ()
        for h, j in self.loop_end.items():
            if s <= h < end <= j < len(self.instrs) and self.instrs[j].opname == "JUMP" \
                    and h not in self.active_loops and h not in moved:  # (an active loop encloses the try)
                end = j + 1
        end = self._past_handler_break_tail(s, t, end, warm)
        past = self._past_last_way_out(s, t, end)
        region = self._xt_state.region_at[past] if past != end and past < len(self.instrs) else None
        if region is not None and region.handler == t and past not in warm:
            # (3.11: that way out is an else part's, `if c: (try: raise / except E: pass); more`
            # `else: return` then more, whose rest only the inner clauses reach, after it)
            past = self._past_handler_break_tail(s, t, past, warm)
        end = past
        inline = self._past_inline_handlers(s, end, warm)
        if inline != end:
            # (a for loop whose inline handlers end the body, then its else part's way out)
            inline = self._past_last_way_out(s, t, inline)
        return inline

    def try_end_past_protected(self, s: int, t: int) -> Optional[int]:
        """3.12+: where the try statement that starts at `s`, with the handler at `t`, goes on
        (the code after it), told without reading it. The handler code lies at the end of the
        function, so no jump of the body goes over it: past the protected body come, for a
        try/finally, the copy of the finally body on the normal way out, and the code after the
        statement right after that copy (for a with statement, the call of `__exit__`); for a
        try/except, the else part, then the code after the statement, where the except clauses
        jump (or whose small block, ending in a return, they copied). None when that cannot be
        told."""
        st = self._xt()
        region = st.region_at[t] if t < len(st.region_at) else None
        if region is None:
            return None
        cleanup = region.handler
        warm = self._reach(s)
        be = self._protected_end(s, t, warm)
        kind = st.kinds.get(t)
        if kind == "finally":
            return self._finally_way_on_past_protected(t, cleanup, be)
        if kind == "with":
            return self._with_way_on_past_protected(be)
        if kind != "except":
            return None
        return self._except_way_on_past_protected(t, cleanup, be, warm)

    def _finally_way_on_past_protected(self, t: int, cleanup: int, be: int) -> Optional[int]:
        """`try_end_past_protected` of a try/finally: past the copy of the finally body (from
        `t + 1` to its closing re-raise) on the normal way out at `be`."""
        instrs = self.instrs
        flow = [k for k in self._reach(t + 1) if t < k < cleanup]
        ends = [k for k in flow if instrs[k].opname == "RERAISE" and instrs[k].arg == 0]
        if not ends or max(flow) > max(ends) or instrs[cleanup - 1].opname != "RERAISE":
            return None  # (a finally body that never ends, or ends in a loop: not told here)
        copy_end = max(ends)
        while copy_end - 1 > t + 1 and instrs[copy_end - 1].opname == "RERAISE" \
                and instrs[copy_end - 1].arg == 0:
            copy_end -= 1  # (a copied closing re-raise: see `_build_finally`)
        if copy_end <= t + 1:
            return be
        matched = self._match_copy(t + 1, copy_end - (t + 1), be, returns=True)
        if matched is None or matched[2] or instrs[be + matched[0] - 1].opname in ENDS_FLOW:
            return None  # (no copy there, or one that leaves: the statement never goes on)
        return be + matched[0]

    def _with_way_on_past_protected(self, be: int) -> Optional[int]:
        """`try_end_past_protected` of a with: past the normal exit at `be`,
        `__exit__(None, None, None)` (awaited in an async with), its value dropped."""
        instrs = self.instrs
        call = instrs[be:be + 5]
        if len(call) < 5 or not all(ins.opname == "LOAD_CONST" and ins.argval is None for ins in call[:3]) \
                or call[3].opname != "CALL" or call[3].arg != 2:
            return None
        done = be + 4
        if call[4].opname == "GET_AWAITABLE" and be + 6 < len(instrs) and instrs[be + 6].opname == "SEND":
            done = instrs[be + 6].target
            if done is None or instrs[done].opname != "END_SEND":
                return None
            done += 1
        return done + 1 if done < len(instrs) and instrs[done].opname == "POP_TOP" else None

    def _except_way_on_past_protected(self, t: int, cleanup: int, be: int, warm: Set[int]) -> Optional[int]:
        """`try_end_past_protected` of a try/except: the first place the clauses of the handler
        `t` go on to, by a jump after their unwinding, or by a copy of the small block there
        ending in a return (the compiler copies small exit blocks into the clauses)."""
        instrs = self.instrs
        flow = sorted(k for k in self._reach(t) if t <= k < cleanup)
        found = []
        for k in flow:
            ins = instrs[k]
            if ins.opname == "JUMP" and ins.target is not None and be <= ins.target <= self.end \
                    and self._before_unwinding(k, t) is not None:
                found.append(ins.target)  # (a clause's way on; a `break` goes further)
            elif ins.opname == "RETURN_VALUE":
                # (the clause's copy of the small block there, right after its unwinding)
                # (a bare return there returns a value computed before: the clause's own)
                for start in range(k, max(t, k - _MAX_COPIED_EXIT), -1):
                    if self.jump_sources.get(start) or instrs[start - 1].target is not None \
                            or instrs[start - 1].opname in ENDS_FLOW:
                        break
                    if self._before_unwinding(start, t) is not None:
                        x = self._find_copy(start, k + 1 - start, be, warm, closes_from_lo=True) \
                            if start < k else None
                        if x is not None and x <= self.end:
                            found.append(x)
                        break
        return min(found) if found else None

    def _async_for_ways_back(self) -> Set[int]:
        """3.12+: each END_ASYNC_FOR laid with the handler code at the end, with what follows it
        up to its jump back to the code after the loop (laid in place, after a `break` that
        pops the iterator): protected by the statements around the loop, but no part of their
        range's end (computed once, when first asked)."""
        found: Optional[Set[int]] = getattr(self, "_async_for_back", None)
        if found is None:
            found = set()
            instrs = self.instrs
            if self.version.handler_code_at_end:
                for k, ins in enumerate(instrs):
                    if ins.opname != "END_ASYNC_FOR" or k + 1 >= len(instrs):
                        continue
                    flow = self._reach(k + 1, None, k + 1)
                    last = max(flow)
                    closing = instrs[last]
                    if len(flow) == last - k and closing.opname == "JUMP" and closing.target < k:
                        found.update(range(k, last + 1))
            self._async_for_back = found
        return found

    def _past_handler_break_tail(self, s: int, t: int, end: int, warm: Set[int]) -> int:
        """3.11: the code after a `while True:` in the body that only an inner except clause's
        `break` reaches (`try: while True: try: ... except E: break` then more): no normal flow
        from the body gets there, but it follows the loop, still protected by this try. The
        body runs on over it. So does the code after an inner try whose body returns, which
        only its clauses reach, after their cleanup (`try: try: return f() / except E: ...` then
        `raise X`), over the returns on the way (3.11 leaves their RETURN_VALUE unprotected).
        (3.12+ moves such code after the handler code instead, but for the inner clauses' way
        on after a `break` ending the inner body, once pass `loop_exits_after_loops` moved the
        code after a `while True:` out of the loop, and where the inner body raises and nothing
        but its handler reaches the rest: 3.12+ lay that handler inline then.)"""
        if not self.version.handler_code_at_end or end < len(self.instrs) and self._loop_break_jump(end):
            return self._break_tail_walk(s, t, end, warm)
        if end < len(self.instrs) and self._inline_inner_handler_at(end, t):
            past = self._break_tail_walk(s, t, end, warm)
            # (only where an inner clause goes on to that code, which falls out of this try's
            # protection into its else part; not into a with's exit call: the inner clauses' way
            # on through it to a return of the body is `_past_nested_exit_const_return`'s)
            instrs = self.instrs
            leaves = end < past < len(instrs) and t not in self._chain(past) \
                and instrs[past - 1].opname not in ENDS_FLOW and self.withs.exit_call_at(past) is None \
                and any(instrs[q].opname == "JUMP" and q < (instrs[q].target or -1) < past for q in range(end, past))
            return past if leaves else end
        return end

    def _break_tail_walk(self, s: int, t: int, end: int, warm: Set[int]) -> int:
        """`_past_handler_break_tail`'s walk over the code that only the inner clauses reach."""
        instrs = self.instrs
        through: Optional[Set[int]] = None
        while end < len(instrs) and end not in warm and t in self._chain(end):
            if through is None:
                through = self._reach_through_clauses(s, t)
            if end not in through:
                break
            end += 1
        k, tail_end = end, end
        while k < min(t, len(instrs)):
            if k in self.skip and self.skip[k] > k and t not in self._chain(k):
                if not self._unwinding_return(self.skip[k]):
                    break  # (the copy on the tail's way out: the normal exit of a try/finally)
                k = self.skip[k]  # (a finally body's copy, registered, that a return runs first)
                continue
            if t in self._chain(k):
                if through is None:
                    through = self._reach_through_clauses(s, t)
                if k in through:
                    tail_end = k + 1
            elif not self._unwinding_return(k) and not self._loop_break_jump(k):
                # (3.11 leaves only a return's unwinding unprotected in the body: its last
                # instruction, the pops of the for loops' iterators it leaves, and the load of a
                # constant it returns: the compiler unwinds the blocks before that load; and a
                # `break`'s jump out of the loop)
                break
            k += 1
        # (only a tail that ends the flow: code that goes on is an else part, say; or one whose
        # jump goes over this try's handler code, perhaps through the normal exit of a with
        # inside, to the code after the statement or to its else part: the body's way out)
        last = instrs[tail_end - 1]
        if last.opname in ("RAISE_VARARGS", "RETURN_VALUE"):
            return tail_end
        if tail_end > end and last.opname not in ENDS_FLOW and tail_end < t and t not in self._chain(tail_end):
            return tail_end  # (... or one that falls out of the protection, into the else part)
        if tail_end > end and last.opname == "RERAISE" and tail_end <= k < t and t not in self._chain(k) \
                and through is not None and k in through \
                and all(t in self._chain(q) and q not in through for q in range(tail_end, k)):
            # (... the same where the tail ends in the handler code of a try inside, laid inline
            # with its cleanup, whose clauses jump on to `k`, out of the protection: `try: (try:
            # (try: A; return 1 / except E: B); C / except F: D)` then the normal exit's copy of
            # an enclosing finally body)
            return k
        if last.opname == "JUMP" and tail_end > end and self._tail_jumps_past_handlers(last, tail_end, t):
            return tail_end  # (... or to its else part, which follows the protected code)
        return end

    def _tail_jumps_past_handlers(self, last: Instr, tail_end: int, t: int) -> bool:
        """Does the jump `last` that ends a break tail (`_past_handler_break_tail`) go, perhaps
        through the forward jumps after it (the normal exit of a with inside), over the handler
        code at `t` to the code after the statement, or out of the protection to its else part?"""
        instrs = self.instrs
        y = last.target
        guard = 0
        while y is not None and tail_end <= y < t and instrs[y].opname == "JUMP" \
                and instrs[y].target is not None and instrs[y].target > y and guard < 8:
            y = instrs[y].target
            guard += 1
        return y is not None and (t < y <= self.end or tail_end <= y < t and t not in self._chain(y))

    def _inline_inner_handler_at(self, k: int, t: int) -> bool:
        """3.12+: is `k` the handler of a try inside this one (of handler `t`) laid inline, right
        after a body that raises, since nothing after it is reached but through it?"""
        return self.instrs[k].opname == "PUSH_EXC_INFO" and self.instrs[k - 1].opname in TERMINAL \
            and t in self._chain(k) and self._xt_state.kinds.get(k) == "except"

    def _loop_break_jump(self, k: int) -> bool:
        """Is `k` the JUMP of a `break` out of the innermost while loop?"""
        loop = self.loops[-1] if self.loops else None
        ins = self.instrs[k]
        return loop is not None and loop.iterator is None and ins.opname == "JUMP" and ins.target is not None \
            and (ins.target == loop.break_target or ins.target >= loop.exit > k)

    def _unwinding_return(self, k: int) -> bool:
        """Is `k` part of what a return does after it left the try blocks: pops of for loops'
        iterators (under the value, `SWAP 2; POP_TOP`, or before a constant's load), the load
        of the constant it returns, its RETURN_VALUE (nothing jumping in between)?"""
        instrs = self.instrs
        q = k
        while q < len(instrs) and (q == k or not self.jump_sources.get(q)):
            op = instrs[q].opname
            if op == "RETURN_VALUE":
                return True
            if op == "LOAD_CONST" and q + 1 < len(instrs) and instrs[q + 1].opname == "RETURN_VALUE":
                q += 1
            elif op == "POP_TOP" or op == "SWAP" and instrs[q].arg == 2:
                q += 1
            else:
                return False
        return False

    def _reach_through_clauses(self, s: int, t: int) -> Set[int]:
        """`_reach` from `s`, also into the except clauses (not with handlers) of the code
        reached, other than the one at `t`."""
        st = self._xt()
        seen: Set[int] = set()
        todo = [s]
        # The exception of an inner try/finally's body runs that finally body, then goes on from
        # its cleanup (`COPY 3; POP_EXCEPT; RERAISE 1`) to the handler around it: the clauses of
        # `try: (try: raise E / finally: A) / except E: B` then the code after them are reached
        # through the finally handler and its cleanup.
        finally_cleanups: Set[int] = set()
        while todo:
            new = self._reach(todo.pop()) - seen
            seen |= new
            for k in new:
                region = st.region_at[k]
                if region is None or region.handler == t or region.handler in seen:
                    continue
                kind = st.kinds.get(region.handler)
                if kind in ("except", "star") or kind == "cleanup" and region.handler in finally_cleanups:
                    todo.append(region.handler)
                elif kind == "finally" and t != -1:
                    own = st.region_at[region.handler]
                    if own is not None and st.kinds.get(own.handler) == "cleanup":
                        finally_cleanups.add(own.handler)
                        todo.append(region.handler)
        return seen

    def _past_last_way_out(self, s: int, t: int, end: int) -> int:
        """A body that ends in `if c: continue` (or break, or return) leaves the protected range
        before its way out: the compiler ends the protection (POP_BLOCK) before the jump. A test
        in the body that jumps over that unprotected way out (or the jump of `if c: A` over an
        `else: continue`) shows that it belongs to the if, not to the code after the try (read
        so, the way out would run unconditionally)."""
        instrs = self.instrs
        for k in range(s, end):
            target = instrs[k].target
            if instrs[k].opname not in _FORWARD_JUMPS or not end < target <= self.end \
                    or t not in self._chain(k):
                continue
            if self._unprotected_way_out(end, target, s, t):
                return target
            over = instrs[end]
            if target == end + 1 and over.opname == "JUMP" and target < over.target <= self.end \
                    and self._unprotected_way_out(target, over.target, s, t):
                return over.target  # (3.13 leaves the jump over `else: continue` unprotected too)
        return end

    def _unprotected_way_out(self, start: int, stop: int, s: int, t: int) -> bool:
        """Is [start, stop) straight code, protected only by the constructs around the try (of
        handler `t`, starting at `s`), that only leaves: by a return, or by a jump back
        before `s` (continue) or past the range (break)? A jump forward inside the range is the
        normal way out of a try body."""
        instrs = self.instrs
        chain = self._chain(s)
        outer = chain[chain.index(t) + 1:] if t in chain else ()
        last = instrs[stop - 1]
        if last.opname not in ENDS_FLOW or last.opname == "RAISE_VARARGS":
            return False  # (a `raise` in the try body raises under its protection)
        if last.opname == "JUMP" and s <= last.target <= self.end:
            return False
        width = stop - start
        if stop + width <= len(instrs) and all(
                instrs[start + d].opname == instrs[stop + d].opname
                and instrs[start + d].target == instrs[stop + d].target
                and repr(instrs[start + d].argval) == repr(instrs[stop + d].argval) for d in range(width)):
            return False  # the code after the statement, copied into the if (3.12+: no way out)
        return all(self._chain(k) == outer and (k == start or not self.jump_sources.get(k))
                   and (instrs[k].target is None or k == stop - 1) for k in range(start, stop))

    def _past_inline_handlers(self, s: int, end: int, warm: Set[int]) -> int:
        """3.11 lays the handlers of a try inside a for loop after the loop's jump back: a for loop
        that starts in the body ends at its exit, past that handler code. So does a with
        statement that ends the body: its normal exit jumps over its handler code."""
        for h in self.loop_end:
            ins = self.instrs[h]
            if not s <= h < end or ins.opname != "FOR_ITER" or h in self.active_loops:
                continue
            if ins.target > end and not any(k in warm for k in range(end, ins.target)):
                end = ins.target
        if end < len(self.instrs) and end not in warm and end - 1 >= s:
            over = self.instrs[end - 1]
            if over.opname == "JUMP" and end < over.target <= self.end \
                    and not any(k in warm for k in range(end, over.target)):
                end = over.target
        return end

    def _past_const_return_through_copies(self, s: int, be: int, t: int, own_copy: bool = False) -> int:
        """3.12+: `try: ...; return CONST` inside an enclosing try/finally. The body's way out
        runs the copies of enclosing finally bodies (registered, skipped), then RETURN_CONST,
        outside the protected range. Where nothing jumps to that way out and no copy of it
        stands elsewhere (a `return CONST` after this try, which the except clauses go on to as
        well, has them jump to it, or gives them a copy of their own), it is the body's own
        return: the body ends after it. Read as code after the try, it would run after the
        clauses too, or those would go on to code that their own way on only follows. (The
        same for a try/finally body, whose own finally copy comes first: `try: (try: A; return
        3 / finally: B) / finally: C`, `own_copy`; read after the statement, the return was lost.)"""
        instrs = self.instrs
        if not self.version.handler_code_at_end or not s < be < t or instrs[be - 1].opname in ENDS_FLOW \
                or self.jump_sources.get(be):
            return be
        own_return = self._const_return_inside_body(be, t)
        if own_return is not None:
            return own_return  # (the body's own return, that of a try inside)
        k = be
        copies = 0
        while k in self.skip and self.skip[k] > k and k < t:
            k = self.skip[k]
            copies += 1
        if copies < 1 + own_copy:
            # (with no copy in between, the enclosing try's else part may start there; past
            # only a try/finally's own copy, the return may follow the statement, the same code)
            return be
        # (inside for loops, the return drops each loop's iterator first, after the copies)
        r = k
        iterators = sum(1 for loop in self.loops if loop.iterator is not None)
        while r < t and r - k < iterators and instrs[r].opname == "POP_TOP" and not self.jump_sources.get(r):
            r += 1
        if r - k not in (0, iterators):
            return be
        if not (r + 1 < t and instrs[r].opname == "LOAD_CONST" and instrs[r + 1].opname == "RETURN_VALUE"
                and instrs[r + 1].raw_opname == "RETURN_CONST"
                and not self.jump_sources.get(r) and not self.jump_sources.get(r + 1)):
            return be
        size = r + 2 - be
        if any(p != be and all(instrs[p + d].opname == instrs[be + d].opname
                               and repr(instrs[p + d].argval) == repr(instrs[be + d].argval) for d in range(size))
               for p in range(len(instrs) - size + 1)):
            return be  # (a copy elsewhere: the code after the try, copied onto the clauses' way on)
        if r > k:
            self.skip[k] = r  # (the iterators' POP_TOPs are the return's, not statements)
        self.body_const_returns.add(r)  # (no code after an enclosing try/finally: `_build_finally`)
        return r + 2

    def _const_return_inside_body(self, be: int, t: int) -> Optional[int]:
        """3.12+: is the `return CONST` at `be` (right after the try body's protected code, at
        the start of the code before the handler `t`) still part of the try's body? It is where
        a jump from the handler code of a try nested in the body (an except clause's way on)
        goes on past it to code that the handler `t` protects directly: that code, more of the
        body, lies after the return, so the return ends the inner try's body, not an else part
        (nothing after an else part is protected by the try). Inside for loops, the return
        first drops each loop's iterator (a POP_TOP apiece). Where the body ends, past the
        return; None for anything else."""
        instrs = self.instrs
        st = self._xt_state
        r = be
        iterators = sum(1 for loop in self.loops if loop.iterator is not None)
        while r < t and r - be < iterators and instrs[r].opname == "POP_TOP" and not self.jump_sources.get(r):
            r += 1
        if r - be not in (0, iterators):
            return None
        if not (r + 2 < t and instrs[r].opname == "LOAD_CONST" and instrs[r + 1].opname == "RETURN_VALUE"
                and instrs[r + 1].raw_opname == "RETURN_CONST"
                and not self.jump_sources.get(r) and not self.jump_sources.get(r + 1)):
            return None
        last = st.region_at[be - 1]
        if last is None or last.handler == t or t not in self._chain(be - 1):
            return None  # (the body's last protected instruction is an inner try's)
        for k in range(r + 2, t):
            y = instrs[k].target
            if instrs[k].opname != "JUMP" or y is None or not r + 2 <= y < t:
                continue
            own = st.region_at[k]
            if own is not None and own.handler == t and st.region_at[y] is not None \
                    and st.region_at[y].handler == t:
                if r > be:
                    self.skip[be] = r  # (the iterators' POP_TOPs are the return's, not statements)
                return r + 2
        return None

    def _extend_for_return(self, e: int) -> int:
        """A `return value` whose value the protected code computed ends the body."""
        instrs = self.instrs
        k = e
        guard = 0
        swapped = False
        while k < len(instrs) and guard < 64:
            guard += 1
            if k in self.skip and self.skip[k] > k:
                if k in self.dead_end_exits and swapped:
                    # The copy of an enclosing finally body that never finishes, after the
                    # unwinding of an except clause that keeps a return's value: the compiler
                    # dropped the RETURN_VALUE after it as dead (`except E: try: return x` in a
                    # try whose finally body raises). The return, emitted where the copy is
                    # skipped (`exit_into_dead_end`), still ends the body, with its unwinding.
                    return self.skip[k]
                k = self.skip[k]
                continue
            ins = instrs[k]
            if ins.opname in ("POP_TOP", "POP_EXCEPT") or (ins.opname == "SWAP" and ins.arg == 2):
                swapped = swapped or ins.opname == "SWAP"
                k += 1
                continue
            break
        if k < len(instrs) and instrs[k].opname == "RETURN_VALUE" and instrs[k].raw_opname != "RETURN_CONST" \
                and not (k == e and not self._value_jump_sources_only(k, e)):
            return k + 1
        return e

    def _past_nested_const_return(self, s: int, e: int) -> int:
        """`try: if c: (if d: return x) / return 2` then an else part: the `return <constant>`
        that ends an if body in the try body raises nothing and lies unprotected at the end of
        the protected code (3.11 `LOAD_CONST; RETURN_VALUE`, 3.12+ RETURN_CONST, decoded as the
        two). Only jumps from the body reach it, and the if's test jumps past it: it is the
        body's own (else it would read as the start of the else part)."""
        instrs = self.instrs
        if not self._constant_return_at(e) or instrs[e - 1].opname not in ENDS_FLOW:  # table_dead_ends
            return e
        sources = self.jump_sources.get(e, ())
        past = e + 2
        if sources and all(s <= src < e for src in sources) \
                and any(instrs[j].opname in COND_JUMPS and instrs[j].target == past for j in range(s, e)):
            return past
        return e

    def _past_unprotected_branch_exit(self, s: int, e: int, t: int) -> int:
        """`try: if c: A / else: return 3` inside a with (or a try/finally) that the return
        leaves: that branch raises nothing the try handles, so it lies past the protected code,
        the with's exit call (or the finally body's copy) before its return (3.11+). The if's
        other branch, the last protected code, jumps over it to where the try goes on, and only
        jumps from the body reach it: it is the body's own. (An else part is reached by the
        body's normal end, which never jumps over it; nothing in it is protected by the try's
        handler `t`.)"""
        instrs = self.instrs
        if not s < e < len(instrs) or instrs[e - 1].opname not in ENDS_FLOW:
            return e
        # (the other branch jumps over it, or itself ends in a return or raise: `if c: raise E
        # / else: return 3`, the branch then ends at its return)
        if instrs[e - 1].opname == "JUMP":
            past: Optional[int] = instrs[e - 1].target
        else:
            tail = self._straight_tail(e, self.end, len(instrs), closing=False)  # table_try_withs
            past = tail[0] if tail is not None else None
        if past is None or not e < past <= self.end or instrs[past - 1].opname not in TERMINAL \
                or instrs[past - 1].opname == "RAISE_VARARGS":
            return e  # (a `raise` in the body raises under the try's protection)
        if instrs[e - 1].opname != "JUMP" and (e not in self.skip or not any(
                s <= src < e for src in self.jump_sources.get(past, ()))):
            # (the branch begins with the copy of an enclosing finally body, or an exit call,
            # and the try goes on past it, where an if of the body jumps)
            return e
        entered = False
        for k in range(e, past):
            if t in self._chain(k):
                return e  # (the try's own code: a clause's, say, which a `break` leaves)
            target = instrs[k].target
            if target is not None and not e <= target < past:
                return e  # (a way out of its own: not one branch's exit)
            for src in self.jump_sources.get(k, ()):
                if not (s <= src < e or e <= src < past):
                    return e
                entered = entered or (src < e and instrs[src].opname in COND_JUMPS)
        return past if entered else e

    def _past_dead_end_return(self, s: int, e: int, t: int) -> int:
        """`try: if c: return x` then the end of the body, in a try whose finally body never
        finishes: the protected code ends with the value of the return, the copy of the finally
        body follows unprotected (the compiler dropped the RETURN_VALUE after it as dead), and
        the if's test jumps past that copy to the body's way out. The copy, where the return is
        emitted (`exit_into_dead_end`), is the end of the if body, in the try body. (Copies of
        inner finally bodies that finish may come first: `try: try: if c: return x` / `finally:
        f()` / `finally: raise E`, each run on the way out.)"""
        q = e
        while q in self.skip and q not in self.dead_end_exits and q < self.skip[q] < t \
                and self.instrs[self.skip[q] - 1].opname not in ENDS_FLOW and not self.jump_sources.get(self.skip[q]):
            q = self.skip[q]
        if q not in self.dead_end_exits or q not in self.skip:
            return e
        end = self.skip[q]
        if not e < end <= t or not any(s <= src < e and self.instrs[src].opname in COND_JUMPS
                                       for src in self.jump_sources.get(end, ())):
            return e
        return end

    def _past_unwound_exit(self, s: int, e: int, t: int) -> int:
        """`try: ... if c: f(); return CONST` (or `break`, `continue`): such an exit leaves the
        try's block before it runs (before it loads a constant value, pops a for loop's iterator,
        runs an enclosing finally body's copy, jumps), so it lies after the protected range, and
        the if's condition jumps past it. The try body ends where that jump lands, not before the
        exit (read as an else part, the exit ran whenever the body did not raise: a silent wrong
        result). A real else part starts where the body's jumps land; the same block where the
        jump lands is the copy of the code after the try that the body falls into."""
        instrs = self.instrs
        if not s < e < t or instrs[e - 1].opname in ENDS_FLOW or self.jump_sources.get(e):
            return e
        q = e
        skipped: Set[int] = set()
        while q < t and instrs[q].opname not in ENDS_FLOW:
            if q in self.skip and self.skip[q] > q:
                # A copy of an enclosing finally body, already registered as dead, runs before
                # the exit (`try: if c: return CONST / finally: for ...`): its own jumps (a loop
                # in it, whose exit 3.11 points at the return after the copy) are no branching of
                # the exit block.
                skipped.update(range(q, self.skip[q]))
                q = self.skip[q]
                continue
            if instrs[q].opname in COND_JUMPS or (q > e and self._jumped_into(q, skipped)):
                return e
            q += 1
        target = q + 1
        if q >= t or (q > e and self._jumped_into(q, skipped)):
            return e
        exit_start = max(skipped) + 1 if skipped else e
        width = target - exit_start
        while skipped and target + width <= t and self.jump_sources.get(target) \
                and not self._jumped_into(target, skipped) \
                and self._same_instructions(exit_start, target, width):
            # (3.12+ give each exit of a loop in that copy its own copy of the exit block, which
            # only the dead copy reaches: dead too)
            self._mark_dead(target, target + width)
            target += width
        # (or the jump of an if body over an else part that ends in that exit)
        if not any(s <= j < e and instrs[j].opname in _FORWARD_JUMPS for j in self.jump_sources.get(target, ())):
            return e
        if any(r.handler == t and r.start < target and e < r.end for r in self.bc.regions):
            return e  # (protected code in between: not an exit that left the block)
        length = target - e
        if target + length <= len(instrs) and self._same_instructions(e, target, length) \
                and instrs[q].target == instrs[q + length].target:
            return e  # the copy of the exit block after the try, on the body's way out
        return target

    def _jumped_into(self, q: int, skipped: Set[int]) -> bool:
        """Does a jump from outside the dead copies `skipped` land at `q`?"""
        return any(src not in skipped for src in self.jump_sources.get(q, ()))

    def _nested_handler_exit(self, s: int, be: int, t: int) -> Optional[int]:
        """Where the handler of a try nested in a body that never falls through (`try: return
        f()` inside) jumps out of this try's protection: the else part, which only that handler
        reaches (`try: (try: return f() except E: v = g()) except F: ... else: use(v)`)."""
        if self._falls_into(s, be):
            return None
        found = None
        for k in range(be, t):
            y = self.instrs[k].target
            if self.instrs[k].opname != "JUMP" or y is None or not k < y < t or t not in self._chain(k) \
                    or t in self._chain(y):
                continue
            if found is not None and found != y:
                return None
            found = y
        return found

    def _value_jump_sources_only(self, k: int, e: int) -> bool:
        """Is `k` reached only by jumps that bring the returned value, from the protected code
        before it: short-circuit operators (`return a and b`: the value `a` jumps straight to the
        return), 3.11's SEND (`return await x`: the awaited value lands there) and the jump over
        the else branch of a conditional expression (`return a if c else b`)?"""
        instrs = self.instrs
        for j in self.jump_sources.get(k, ()):
            if j >= e:
                return False
            ins = instrs[j]
            if ins.opname in ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP", "SEND"):
                continue
            if ins.opname == "JUMP" and self._jumps_over_else_value(j):
                continue
            p = j - 1
            if p >= 0 and instrs[p].opname == "TO_BOOL":
                p -= 1
            if ins.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") and p >= 0 \
                    and instrs[p].opname == "COPY" and instrs[p].arg == 1:
                continue
            return False
        return True

    def _written_jump_out(self, j: int, be: int, hs: int) -> bool:
        """3.13: is the clause's jump at `j`, back to code at or after the try body's end `be` (the
        code after a loop, laid before the handler code), a `break` written in the clause rather
        than its falling out (`handler_exit_skips_interrupt_check`)?"""
        ins = self.instrs[j]
        return self.version.handler_exit_skips_interrupt_check and ins.raw_opname == "JUMP_BACKWARD" \
            and ins.target is not None and be <= ins.target < j and not self._breaks_loop_ending_clause(j, hs)

    def _note_written_handler_breaks(self, be: int, exits: List[Tuple[int, int, int, int]]) -> None:
        """3.13+: a clause's written `break` (`_written_jump_out`) of a `while True:` whose body
        the try is in, to code past the loop that normal flow reaches too: where that loop's
        `break`s go (control: the else part of an if whose body the loop ends stops there)."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not loop.is_while or not loop.only_breaks_leave or loop.handler_break_on is not None:
            return
        for hs, _, j, x in exits:
            if x != _BREAK and x > loop.exit and x not in self.handler_only_code() \
                    and self._written_jump_out(j, be, hs):
                loop.handler_break_on = x
                return

    def _breaks_loop_ending_clause(self, j: int, hs: int) -> bool:
        """Is the clause's jump at `j` (after POP_TOP, POP_EXCEPT) the `break` of a for loop that
        the clause (starting at `hs`) begins and that ends it? It drops that loop's iterator, then
        unwinds the clause: it goes where the clause falls out to (3.13 copies the clause's way out
        onto the `break` and keeps a plain JUMP_BACKWARD for it). A `break` written in the clause
        of an enclosing for loop unwinds the clause first and then drops that loop's iterator; a
        jump inside a loop of the clause can be no `break` of a loop outside it."""
        instrs = self.instrs
        if j < 2 or instrs[j - 1].opname != "POP_EXCEPT" or instrs[j - 2].opname != "POP_TOP":
            return False
        return any(instrs[h].opname == "FOR_ITER" and instrs[h].target is not None and instrs[h].target > j
                   for h in range(hs, j - 2))

    def _jumps_over_else_value(self, j: int) -> bool:
        """Is the JUMP at `j` the end of a conditional expression's first branch: its test jumps
        to the instruction after it, where the else branch starts?"""
        instrs = self.instrs
        return any(src < j and instrs[src].opname in COND_JUMPS for src in self.jump_sources.get(j + 1, ()))

    def _body_jump_past_range(self, s: int, be: int, end: int) -> Optional[int]:
        """3.11: where the try whose body [s, be) ends the range being read goes on, when neither
        its body nor its handlers fall out and only jumps in the body leave it, all to one
        place past the range: there the range's way out goes too (the try ends an if body whose
        else part, laid at the if's false target with no jump over it, lies between). A loop
        that never jumps back, `while c: try: if d: break` then `raise E` / `except E: return`
        and `else: ...`, reads as such an if, its `break` as that jump. None otherwise (a jump
        to an enclosing loop's exit or head is a `break` or `continue`)."""
        instrs = self.instrs
        if be != end and not (be < end and all(k in self.handler_only_code() for k in range(be, end))):
            return None
        if self._falls_into(s, be):
            return None
        targets = {ins.target for ins in instrs[s:be] if ins.opname == "JUMP" and ins.target is not None
                   and ins.target > end}
        if len(targets) != 1:
            return None
        y = targets.pop()
        for loop in self.loops:
            if y in loop.continue_targets or y == loop.break_target or y >= loop.exit:
                return None
        return y
