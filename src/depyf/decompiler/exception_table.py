"""try/except/finally, except*, with and async for on 3.11+, built from the exception table.

`exception_regions` says which handler encloses which code; here each construct is cut into body,
handlers, else and finally parts. Code the compiler generates on its own (the copies of a finally
body before each exit, the `__exit__` call of a with statement, the `e = None; del e` after
`except E as e`, small exit blocks copied into handlers) is registered in `self.skip` so the
builder steps over it, and so is each handler's code once it has been read (3.12+ moves that code
to the end of the function).
"""
from typing import Dict, Iterator, List, Optional, Set, Tuple

from depyf.decompiler import borrows
from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.exception_regions import (CONSTRUCTS, EXPRESSION_OPS,
                                                ExceptionRegionAnalysis)
from depyf.decompiler.instructions import ENDS_FLOW, OPPOSITE_JUMPS, TERMINAL, ExceptionRegion, Instr
from depyf.decompiler.control import COND_JUMPS, LoopInfo, _may_complete
from depyf.decompiler.mangling import CO_OPTIMIZED

_NAME_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_BREAK = -1  # a handler exit that leaves the enclosing loop


_FORWARD_JUMPS = COND_JUMPS | {"JUMP"}  # (`if c: A else: continue`: A jumps over the way out)

_MAX_RETURN_BLOCK = 8  # (the compiler copies only small exit blocks)
_MAX_COPIED_EXIT = 4  # (3.12+ copies an exit block of at most four instructions into each jump to it)


class ExceptionTableRules(ExceptionRegionAnalysis):
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

    # --- try/except -----------------------------------------------------------------------------

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
        try/except, the else part, then the code after
        the statement, where the except clauses jump (or whose small block, ending in a
        return, they copied). None when that cannot be told."""
        st = self._xt()
        instrs = self.instrs
        region = st.region_at[t] if t < len(st.region_at) else None
        if region is None:
            return None
        cleanup = region.handler
        warm = self._reach(s)
        be = self._protected_end(s, t, warm)
        kind = st.kinds.get(t)
        if kind == "finally":
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
        if kind == "with":
            # (the normal exit: `__exit__(None, None, None)`, awaited in an async with, its value
            # dropped, then what follows)
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
        if kind != "except":
            return None
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
        (3.12+ moves such code after the handler code instead.)"""
        if self.version.handler_code_at_end:
            return end
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
            elif not self._unwinding_return(k):
                # (3.11 leaves only a return's unwinding unprotected in the body: its last
                # instruction, the pops of the for loops' iterators it leaves, and the load of a
                # constant it returns: the compiler unwinds the blocks before that load)
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
        if last.opname == "JUMP" and tail_end > end:
            y = last.target
            guard = 0
            while y is not None and tail_end <= y < t and instrs[y].opname == "JUMP" \
                    and instrs[y].target is not None and instrs[y].target > y and guard < 8:
                y = instrs[y].target
                guard += 1
            if y is not None and (t < y <= self.end or tail_end <= y < t and t not in self._chain(y)):
                return tail_end  # (... or to its else part, which follows the protected code)
        return end

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
        handler `t`, starting at `s`), that only leaves: by a return or raise, or by a jump back
        before `s` (continue) or past the range (break)? A jump forward inside the range is the
        normal way out of a try body."""
        instrs = self.instrs
        chain = self._chain(s)
        outer = chain[chain.index(t) + 1:] if t in chain else ()
        last = instrs[stop - 1]
        if last.opname not in ENDS_FLOW:
            return False
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

    def _past_const_return_through_copies(self, s: int, be: int, t: int) -> int:
        """3.12+: `try: ...; return CONST` inside an enclosing try/finally. The body's way out
        runs the copies of enclosing finally bodies (registered, skipped), then RETURN_CONST,
        outside the protected range. Where nothing jumps to that way out and no copy of it
        stands elsewhere (a `return CONST` after this try, which the except clauses go on to as
        well, has them jump to it, or gives them a copy of their own), it is the body's own
        return: the body ends after it. Read as code after the try, it would run after the
        clauses too, or those would go on to code that their own way on only follows."""
        instrs = self.instrs
        if not self.version.handler_code_at_end or not s < be < t or instrs[be - 1].opname in ENDS_FLOW \
                or self.jump_sources.get(be):
            return be
        own_return = self._const_return_inside_body(be, t)
        if own_return is not None:
            return own_return  # (the body's own return, that of a try inside)
        k = be
        while k in self.skip and self.skip[k] > k and k < t:
            k = self.skip[k]
        if k == be:
            return be  # (with no copy in between, the enclosing try's else part may start there)
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
            region = st.region_at[self._with_body_start(k)] if k + 1 < be else None
            if region is None or st.kinds.get(region.handler) != "with" or region.handler in st.handled:
                return be
            tw = region.handler
            if t not in self._chain(k) or not be < tw:
                return be
            warm = self._reach(k)
            if max((q for q in warm if tw in self._chain(q)), default=k) >= be \
                    or not self._only_exit_call(max(q for q in warm if tw in self._chain(q)) + 1, be):
                return be
            return self._with_const_return(be, tw, self._with_handler_exit(tw, warm), exit_call=True)
        return be

    def _swallowed_way_on(self, s: int, be: int, t: int, warm: Set[int]) -> Optional[Tuple[int, int]]:
        """The code after the try when a body that never ends normally (`try: with a: return
        f()`) goes on only by a with whose manager swallowed the exception: 3.11+ copies that small
        exit block into the with's handler, between the body and the try's handler `t`."""
        instrs = self.instrs
        if be < 1 or instrs[be - 1].opname not in TERMINAL:
            return None
        for region in self._with_regions(s, be):
            j = self._swallowed_tail(region.handler)
            if j is None or j in warm or not be <= j < t or self.jump_sources.get(j):
                continue
            r = j
            while r < t and r < j + _MAX_RETURN_BLOCK and instrs[r].target is None \
                    and instrs[r].opname not in TERMINAL:
                r += 1
            if r < t and instrs[r].opname in TERMINAL:
                return j, r + 1
        return None

    def _past_swallowed_way_on(self, s: int, be: int, t: int) -> int:
        """`try: with a: return f()` then more statements in the try body: only a with whose
        manager swallowed an exception reaches them. The compiler lays them after the with's
        handler, still protected by the try: the body ends after them (the with reads them).
        So with a with body that leaves by a `break` or `continue` (3.11: after the exit call,
        an unprotected jump out at `be`): `try: with a: ...; break` then more of the try body,
        which only the swallowing exit reaches (read as the try's else part, it would run
        after the break's way out instead)."""
        instrs = self.instrs
        if be < 1 or instrs[be - 1].opname not in TERMINAL and not self._jump_out_at(s, be, t):
            return be
        for region in self._with_regions(s, be):
            if not be <= region.handler < t:
                continue
            j = self._swallowed_tail(region.handler)
            if j is not None and instrs[j].opname == "JUMP":
                j = instrs[j].target
            if j is None or not be <= j < t or t not in self._chain(j):
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
        for region in self._with_regions(s, be):
            for k in sorted(seen - warm):
                if k > be and k + 4 < len(instrs) and self._cleanup_of(k) == t \
                        and self._cleanup_of(k - 1) == region.handler \
                        and instrs[k].opname == "LOAD_CONST" and instrs[k].argval is None \
                        and instrs[k + 3].opname == "CALL" and instrs[k + 4].opname == "POP_TOP":
                    be = max(be, k + 5)  # (the exit call's end)
        return be

    def _with_regions(self, s: int, be: int) -> Iterator[ExceptionRegion]:
        """The protected regions of the with statements that start in [s, be) (their handler
        is the with's exit on an exception)."""
        st = self._xt()
        for k in range(s, be):
            if self.instrs[k].opname not in ("BEFORE_WITH", "BEFORE_ASYNC_WITH"):
                continue
            region = st.region_at[self._with_body_start(k)]
            if region is not None and st.kinds.get(region.handler) == "with":
                yield region

    def _swallowed_tail(self, tw: int) -> Optional[int]:
        """Where a with handler goes on after `__exit__` swallowed the exception (past its
        `POP_TOP; POP_EXCEPT; POP_TOP; POP_TOP`)."""
        instrs = self.instrs
        k = tw + 1
        while k < len(instrs) and k < tw + 16 and instrs[k].opname != "POP_JUMP_IF_TRUE":
            k += 1
        if k >= len(instrs) or instrs[k].opname != "POP_JUMP_IF_TRUE":
            return None
        j = instrs[k].target + 4
        return j if j < len(instrs) else None

    def _with_body_start(self, i: int) -> int:
        """The first instruction of a with body (after an async with's await of `__aenter__`)."""
        instrs = self.instrs
        if instrs[i].opname == "BEFORE_WITH":
            return i + 1
        k = i + 1
        while k < len(instrs) and instrs[k].opname != "SEND":
            k += 1
        if k >= len(instrs):
            return i + 1
        start = instrs[k].target
        if start < len(instrs) and instrs[start].opname == "END_SEND":
            start += 1
        return start

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

    def _build_except(self, s: int, t: int) -> int:
        st = self._xt_state
        instrs = self.instrs
        base = list(self.stack)
        warm = self._reach(s)
        be = self._past_unwound_exit(s, self._extend_for_return(self._protected_end(s, t, warm)), t)
        be = self._past_swallowed_way_on(s, self._past_with_return(s, be, t), t)
        be = self._past_const_return_through_copies(s, be, t)
        be = self._past_dead_end_return(s, be, t)
        before_inner = be
        be = self._past_inner_clause_way_on(s, be, t, warm)
        nested_exit = self._nested_handler_exit(s, be, t)
        if nested_exit is not None:
            warm = warm | self._reach(nested_exit)
        cleanup_region = st.region_at[t]
        if cleanup_region is None:
            raise self.fail(instrs[t], "try handler without its cleanup")
        cleanup = cleanup_region.handler
        star = st.kinds[t] == "star"
        exits: List[Tuple[int, int, int, int]] = []
        if star:
            clauses, exit_at = self._parse_star_clauses(t, base)
            exits.extend((j, j + 1, j, x) for j, x in self._star_exits(exit_at, be, warm))
        else:
            clauses = self._parse_clauses(t, cleanup, base)
            for _, _, hs, he in clauses:
                exits.extend((hs, he, j, x) for j, x in self._clause_exits(hs, he, be, warm))
        stray = self._stray_clause_break(s, exits) if not star else None
        if stray is not None:
            raise self.fail(instrs[stray], "break or continue of a loop that never jumps back")
        if exits and self._falls_into(s, be):
            # (a handler going on to its own copy of the small block the body falls into goes
            # where the body does)
            copies = {x for _, _, _, x in exits if x != _BREAK and self._duplicate_way_on(x, be)}
            for y in copies:
                self._mark_dead(y, self._block_end(y))
            exits = [(hs, he, j, be if x in copies else x) for hs, he, j, x in exits]
        # Where the handlers fall out to, and where the normal path jumps over them (3.11).
        targets = [x for hs, _, j, x in exits if x != _BREAK and not self._written_jump_out(j, be, hs)]
        self._note_written_handler_breaks(be, exits)
        # (a jump back before the try, to a loop's head, is a `continue`, not the way out)
        targets = [x for x in targets if x >= be] or targets
        # A handler's jump goes where the try ends; a handler whose last block only looks like a
        # copy of code elsewhere (a `return` like the body's) while another jumps past it
        # returns on its own.
        jumped = {x for _, _, j, x in exits if instrs[j].opname == "JUMP" and instrs[j].target == x}
        targets = [x for x in targets if x in jumped] or targets
        inner = self.loops[-1] if self.loops else None
        if inner is not None and inner.break_target is not None and self.version.handler_code_at_end:
            # (a clause's jump to the loop's break target, the code after the loop, while
            # another clause goes on elsewhere, is a `break`: the other place is the try's end)
            targets = [x for x in targets if x != inner.break_target] or targets
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
        star_else = star and n_jump is not None and x_h is not None and n_jump > exit_at \
            and n_jump != x_h
        if star_else:
            x = x_h
        if x is not None and x == n_jump and self._breaks_out_of_loop(t - 1):
            x = None  # the body's way on is a `break` (read from the jump), not the try's end
            if x_h is not None and t < x_h <= self.end and not self.version.handler_code_at_end:
                x = x_h  # (3.11: where the handlers go on, right after them, is the try's end)
        swallowed = self._swallowed_way_on(s, be, t, warm)
        break_tail = self._break_tail(clauses, exits) if not star else None
        if break_tail is not None:
            # (read after the loop: not handler code)
            typ, name, hs, he = clauses[-1]
            clauses[-1] = (typ, name, hs, break_tail)
            exits.append((hs, break_tail, break_tail, _BREAK))
        elif x is None and not star and clauses and self.version.handler_code_at_end:
            # 3.12+: code after the try that only the handlers reach follows the last one.
            x = self._fallthrough_tail(clauses[-1][2], clauses[-1][3])
            if x is not None and self._body_leaves_enclosing_clause(s, be, t):
                x = None  # the handler's tail (unwinding the enclosing clause too) is its own return
            if x is not None and x > be and self._falls_into(s, be) and self._rest_walked(s, be) is False:
                x = None  # 3.14: the rest follows the try (the clause's way out is its own)
            if x is not None and x >= self.end and not self._rest_of_enclosing_body(x, t):
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
        after_loop = None  # the code after the loop, where a handler's `break` goes
        # (a body that never falls out has no else part: the code at `be` is not the try's, but
        # an enclosing if's else part, say)
        if x is not None and x > be and not star and self.version.handler_code_at_end \
                and self._falls_into(s, be) and self._later_construct_in(be, min(x, t), t):
            loop = self.loops[-1] if self.loops else None
            if loop is not None and loop.is_while and loop.handler_break is None and x >= loop.exit \
                    and x >= self.end and x in self.handler_only_code():
                # (a handler's `break` jumping over a later try's handler code to the code after
                # the loop, which only it reaches: read after the loop)
                loop.handler_break = after_loop = x
            x = None  # the handlers' returns are their own: what the body falls into follows the try
        star_tail = None
        loop_tail = None
        only_tail = None  # (`_handler_only_tail`)
        if x is None and star and self.version.handler_code_at_end:
            # The same for except*: the tail follows the recombination's POP_EXCEPT. It may lie
            # past this range (only the handlers reach it): it is the code after the try.
            star_tail = self._star_tail(exit_at)
        if x is not None and not star:
            clauses = [(typ, name, hs, x if hs < x < he else he) for typ, name, hs, he in clauses]
        # (where the handlers go on may be code that a jump from before the try reaches too, the
        # code after an enclosing if whose body the try ends with a `break`, or the code after
        # the loop that a handler's `break` leaves for: not handler code)
        loop = self.loops[-1] if self.loops else None
        shared = {y for y in targets if any(src < s for src in self.jump_sources.get(y, ()))
                  or loop is not None and y in (loop.exit, loop.break_target)}
        stops = {k for k in (x, break_tail, after_loop) if k is not None}
        if loop is not None and (loop.is_while or not self.version.handler_code_at_end):
            # (3.11: a handler that goes on to the loop's test at the bottom, laid inline, falls
            # through it into the loop's exit, the loop's else part, say: not handler code. Nor
            # is the code after a for loop whose body never goes back to its head, which only
            # the FOR_ITER's first exit and the handler's `break` reach. 3.12+ lay a while
            # loop's test with the handler code, but when the test at the top goes to the exit
            # too, the exit was moved back after the loop: `relayout.exits_after_loops`.)
            stops |= {k for k in (loop.exit, loop.break_target) if k is not None
                      and (not self.version.handler_code_at_end
                           or any(src < s for src in self.jump_sources.get(k, ())))}
        cold = self._cold_code(t, warm | shared | stops)
        span_end = max(cold) + 1 if cold else t + 1
        end = self.end
        falls_out = leaves_to_bottom = False
        body_falls = self._falls_into(s, be) or (not self.version.handler_code_at_end or be != before_inner) \
            and self._falls_into(s, be, through_inner_handlers=True)
        else_break = False
        else_kept = False
        else_from = be
        if x is None:
            else_end, cont = be, be
            if not star and body_falls and be < min(t, end) and self._rest_walked(s, be):
                # 3.14: the rest is the else part, up to what its borrowed loads leave out (`borrows.py`)
                else_end = cont = borrows.walked_part_end(self.code, self.version, instrs, be, min(t, end),
                                                          self.jump_sources)
                else_kept = True
            elif not star and body_falls and be < min(t, end) and self._rest_walked(s, be) is not False \
                    and self._else_part_by_handler_order(s, be, min(t, end), t):
                else_end = cont = min(t, end)
                else_kept = True
            loop = self.loops[-1] if self.loops else None
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
        elif s < x <= end:
            else_end, cont, falls_out = (self._before_loop_exit(be, min(x, t)) if body_falls else be), x, True
            if nested_exit is not None and nested_exit < min(x, t):
                else_from, else_end = nested_exit, min(x, t)
            elif not body_falls:
                jumped = self._jumped_else_part(s, be, min(x, t), t)
                if jumped is not None:
                    else_from, else_end = jumped, self._before_loop_exit(jumped, min(x, t))
        else:
            # The try ends its range: it jumps past the range's end, or back to the loop's head.
            else_end = self._before_loop_exit(be, min(t, end))
            cont = end if (t >= end or x > end) else max(span_end, else_end)
            body_ends = be > s and instrs[be - 1].opname in TERMINAL and else_end <= be
            loop = self.loops[-1] if self.loops else None
            loop_tail = self._handler_loop_tail(x, end, loop)
            if loop_tail is None and not self._unwinds_enclosing_clause(x):
                only_tail = self._handler_only_tail(x, end, t)
            # (a stretch that jumps back to the range's end inside the loop is the rest of the
            # loop body, even where only breaks leave the loop; so is one whose own code jumps
            # back to the loop's head, a `continue`: no code after the loop goes back into it)
            # (or over the else part of the if whose body it ends: `_handler_only_tail`)
            rejoins = only_tail is not None and loop is not None and end < loop.exit \
                and (end in self.tail_else_joins
                     or any(instrs[k].target == end or instrs[k].opname == "JUMP" and k in self._reach(x)
                            and instrs[k].target in loop.continue_targets and instrs[k].target < x
                            for k in range(x, min(only_tail[1], len(instrs)))))
            leaves_loop = loop is not None and x > end and (x >= loop.exit or x == loop.break_target) \
                and loop_tail is None and x not in loop.continue_targets \
                and (only_tail is None or not rejoins and (
                    loop.only_breaks_leave or body_falls and not self._goes_back_at_once(be, loop)))
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
            if leaves_loop:
                if self.version.handler_code_at_end and x in self.handler_only_code():
                    loop.handler_break = x  # (read after the loop)
                elif self.version.handler_code_at_end and loop.handler_break_on is None:
                    loop.handler_break_on = x  # (control: an enclosing if's else part ends there)
                x = None  # the jump past the loop is a `break`, not the end of the try
                # (a break that a test in the else part jumps to is that if's else branch; a jump past
                # it from the else part makes it the body of an if: `if c: break`)
                if else_end > be and instrs[else_end - 1].opname == "JUMP" and instrs[else_end - 1].target > end \
                        and not self.jump_sources.get(else_end - 1) \
                        and not any(be <= src < else_end - 1 for src in self.jump_sources.get(else_end, ())):
                    else_end -= 1
                    else_break = True
                elif else_end > be and body_falls and loop_tail is None \
                        and self._rest_walked(s, be) is False:
                    # 3.14: the rest of the loop body follows the try (the code after a `while
                    # True:` loop, which only the handler's `break` reaches, is no way on of it)
                    else_end = cont = be
                    only_tail = None
        back = self.skip.get(x, -1) if x is not None and x > end and self.version.handler_code_at_end else -1
        if 0 <= back < len(instrs) and instrs[back].opname == "JUMP" and instrs[back].target == end \
                and back not in self.skip and not self.jump_sources.get(back):
            # 3.12+: the clauses go on through a copy of an enclosing finally body (already
            # registered), laid past the range, whose jump goes back to where the range ends
            # (the try/finally ends an if body: to the code after the if). They fall out of the
            # range, as the statement does; no else part of an enclosing if ends at the copy.
            self._mark_dead(back, back + 1)
        elif x is not None and falls_out and x > end and only_tail is None and self.version.handler_code_at_end:
            self.range_falls_to.setdefault(end, x)  # control: an enclosing if's else part ends there
        elif x is None and not star and not self.version.handler_code_at_end \
                and (way_on := self._body_jump_past_range(s, be, end)) is not None:
            self.range_falls_to.setdefault(end, way_on)  # control: an enclosing if's else part ends there
        else_start = else_from
        if star_else and n_jump is not None and x_h is not None:
            else_start, else_end = n_jump, self._star_else_end(n_jump, x_h, end)
            cont = max(cont, else_end)
        if else_end > else_start:
            copied = self._copied_else_part(s, be, else_start, else_end)
            if copied is not None:
                self._mark_dead(copied, copied + copied - else_start)
                else_end = copied
        if x is not None and (falls_out or x > s) and else_end > else_start and instrs[else_end - 1].opname == "JUMP" \
                and instrs[else_end - 1].target == x \
                and not any(else_start <= src < else_end - 1 and instrs[src].opname in COND_JUMPS
                            for src in self.jump_sources.get(else_end, ())):
            # (not when a test in the else part jumps over it: `if c: continue` ends the else part)
            else_end -= 1
        self._note_unprotected_breaks(s, be, t)
        if x is not None and falls_out and self.version.handler_code_at_end:
            # (with an else part, the body's way out runs it first: a copy of the code after the
            # statement in the body is a `return` written there)
            self._note_unprotected_way_outs(s, be, t, else_start if else_end > else_start else x)
        breaks: Set[int] = set()
        for hs, he, j, target in exits:
            if target == _BREAK:
                if j < he:
                    self.skip[j] = he
                breaks.add(hs)
            elif falls_out and target == x:
                self._fall_out(j, he)
            elif leaves_to_bottom and target == end:
                self._fall_out(j, he)
        swallowed_tail: List[n.Stmt] = []
        if x is None and not star and swallowed is not None:
            # Only a with that swallowed an exception goes on after the try: the compiler copied
            # that code (a small exit block) into the with's handler (read before the with marks
            # its handler as read).
            swallowed_tail = self.run_range(swallowed[0], swallowed[1], list(base))
        body = self.run_range(s, be, list(base))
        left = self.last_stack
        if len(left) == len(base) + 1 and be in self.skip and be < t and self._never_finishes(be, min(self.skip[be], t)) \
                and not isinstance(left[-1], m.MARKER_TYPES):
            # The body ends in `return value` and the copy of an enclosing finally body that
            # follows never finishes: the value is computed before the copy, and the compiler
            # dropped the RETURN_VALUE after it as dead (as in `_build_finally`; left on the
            # stack, the value and its side effects would be lost).
            body.append(n.Return(left.pop()))
        handlers: List[n.ExceptHandler] = []
        for typ, name, hs, he in clauses:
            if name is not None and not star:
                self._skip_name_cleanups(hs, he, name)
            outer_clause = self._clause_read
            self._clause_read = (hs, he)
            try:
                stmts = self.run_range(hs, he, list(base) + [m.Sentinel("previous-exception")])
            finally:
                self._clause_read = outer_clause
            if hs in breaks:
                stmts.append(n.Break())
            elif self._continue_after_finally_copy(hs, he) and not (stmts and isinstance(stmts[-1], n.Continue)):
                stmts.append(n.Continue())
            handlers.append(n.ExceptHandler(typ, name, stmts))
        if else_end > else_start and self.version.keeps_try_else_exit and else_end < len(instrs) \
                and instrs[else_end].opname == "JUMP":
            self.kept_else_exits.add(else_end)  # (control: `_block_ends_going_back`)
        orelse = self.run_range(else_start, else_end, list(base)) if else_end > else_start else []
        if else_break and not (orelse and isinstance(orelse[-1], n.Break)):
            orelse.append(n.Break())  # (read already where the dropped iterator shows it)
        if loop_tail is not None and loop_tail == x and loop is not None and loop.falls_off_to_exit \
                and end == loop.body_end and self._falls_into(s, end):
            # 3.12+: a `while True:` inside a with, closed only by this try's handlers: they go
            # straight to the loop's jump back (nothing follows the try in the body), while the
            # body's normal way out falls off the loop's end, which leaves the loop (the with's
            # exit call follows). That way out is a `break`; falling out of a clause, read
            # before a `break` that ends the loop body, is a `continue`.
            (orelse if orelse else body).append(n.Break())
            for clause in handlers:
                if _may_complete(clause.body):
                    clause.body.append(n.Continue(required=True))
        elif (loop_tail is not None or only_tail is not None and self._goes_back_at_once(end, loop)) \
                and self._falls_into(s, max(be, end)):
            # The normal way out of the try runs into the loop's own jump back, but the rest of
            # the body follows the try: that way out is a `continue`. (`for a in d: try: g(a);
            # continue / except E: pass` then more: the range ends at that jump back, and the
            # rest, which only the handler reaches, lies after the handler code.) Not where the
            # body reaches past the range, to its own `return CONST` after the copy of an
            # enclosing finally body (`_past_const_return_through_copies`).
            (orelse if orelse else body).append(n.Continue())
        tail = self.run_range(exit_at, star_tail, list(base)) if star_tail is not None else swallowed_tail
        # (3.11: code that normal flow reaches from the code's start is no handler code, even where
        # only the handlers reach it from the try: the code after an if statement whose body the
        # try ends, which its else part falls into, when a clause's `break` of a loop that never
        # jumps back, read as that if, goes there)
        self._mark_dead_code(cold & self.handler_only_code() if not self.version.handler_code_at_end else cold)
        self.stack = base
        self.emit(n.Try(body, handlers, orelse, [], star, else_kept))
        for stmt in tail:
            self.emit(stmt)
        if loop_tail is not None and x is not None:
            # 3.12+: the rest of the loop body after the try, reached only from its handlers,
            # lies after the handler code and ends with the loop's jump back.
            for stmt in self.run_range(x, loop_tail, list(base)):
                self.emit(stmt)
            self._mark_dead(x, loop_tail + 1)
        if only_tail is not None and x is not None:
            # 3.12+: the code after the try, reached only from its handlers, was moved past the
            # range that the try does not end (an if body whose try body returns).
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
        if falls_out and t < x < end:
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
        return max(cont, s + 1)

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
        return bool(self._chain_of(t, 0)[1:]) and self._handler_only_tail(x, self.end, t) is not None

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
        targets = {instrs[k].target for k in range(s, be) if instrs[k].opname in _FORWARD_JUMPS
                   and instrs[k].target is not None and be < instrs[k].target < end}
        if not targets:
            # (or a with last in the body whose own body never ends normally: only a manager
            # that swallowed the exception goes on, past the with's handler code laid right
            # after the body, into the else part)
            tails = {self._swallowed_tail(r.handler) for r in self._with_regions(s, be) if be <= r.handler < end}
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
        if instrs[y - 1].opname not in ENDS_FLOW:
            return None
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

    def _goes_back_at_once(self, be: int, loop: Optional[LoopInfo]) -> bool:
        """Is the way out of a try body at `be` a `continue` (the jump back, left unprotected)?"""
        ins = self.instrs[be] if be < len(self.instrs) else None
        return loop is not None and ins is not None and ins.opname == "JUMP" and ins.target in loop.continue_targets

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
        first_protected = self._statement_starts()
        if self._reached_from_handlers_past(x, end, first_protected):
            return None
        if self._reached_from_earlier_handlers(x, t, first_protected, own):
            return None
        context = self._chain_of(t, 0)[1:]
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
        if context and self._xt_state.kinds.get(context[0]) == "with" and not exits_with:
            exit_at = next((k for k in range(x + 1, last + 1) if k in flow and self._exit_call_at(k)
                            and self._cleanup_of(k - 1) == context[0]), None)
            if exit_at is not None:
                return exit_at, exit_at
        onward = False  # does the stretch jump on to moved code past it?
        closing = self.instrs[last]
        # (an if body's rest, whose jump over the if's else part closes it: that part, from the
        # if's false target `end` on, lies before the stretch, in the normal code)
        over_else = closing.opname == "JUMP" and end < (closing.target or -1) < x and not exits_with \
            and any(self.instrs[src].opname in COND_JUMPS and src < end for src in self.jump_sources.get(end, ()))
        for ins in self.instrs[x:last + 1]:
            target = ins.target
            if target is None or x <= target <= last or target == end or over_else and ins is closing:
                continue
            if self.loops and target in self.loops[-1].continue_targets and target < x \
                    and x not in self.loops[-1].continue_targets:
                continue  # a `continue` in that rest of a loop body (not the loop's own test)
            if target < x or target not in handler_code or exits_with:
                return None
            onward = True
        if not onward and len(flow) != last + 1 - x:
            return None  # (the stretch goes on elsewhere)
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
        if closing.opname in TERMINAL and with_handler is not None \
                and self._with_const_return(self.skip[at_exit], with_handler, None, exit_call=True) == last + 1:
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
            enclosing = set(self._chain_of(t, 0))
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
        known = set(self._chain_of(t, 0))
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

    def _parse_clauses(self, t: int, cleanup: int, base: List[n.Expr]
                       ) -> List[Tuple[Optional[n.Expr], Optional[str], int, int]]:
        """(type, name, body start, body end) of each `except` clause of the handler at `t`."""
        instrs = self.instrs
        clauses: List[Tuple[Optional[n.Expr], Optional[str], int, int]] = []
        p = t + 1
        while len(clauses) < 256:
            ins = instrs[p]
            if ins.opname == "POP_TOP":
                end = cleanup if cleanup > p else self._clause_end(p)
                clauses.append((None, None, p + 1, end))
                return clauses
            q = p
            while q < len(instrs) and instrs[q].opname != "CHECK_EXC_MATCH":
                if instrs[q].opname not in EXPRESSION_OPS:
                    raise self.fail(instrs[q], "except clause without a type test")
                q += 1
            stack = list(base) + [m.Sentinel("previous-exception"), m.ExceptionValue()]
            saved, self.stack = self.stack, stack
            try:
                typ = self.pure_value(p, q)
            finally:
                self.stack = saved
            jump = instrs[q + 1]
            if typ is None or jump.opname != "POP_JUMP_IF_FALSE":
                raise self.fail(instrs[q], "except clause type is not an expression")
            nxt = jump.target
            bind = instrs[q + 2]
            name: Optional[str] = None
            if bind.opname in _NAME_STORES:
                name = bind.argval
            elif bind.opname != "POP_TOP":
                raise self.fail(bind, "except clause binds something that is not a name")
            end = nxt
            if name is not None and end - 4 > q and instrs[end - 1].opname == "RERAISE" \
                    and instrs[end - 4].opname == "LOAD_CONST" and instrs[end - 2].argval == name:
                end -= 4
            clauses.append((typ, name, q + 3, end))
            p = nxt
            if instrs[p].opname == "RERAISE":
                return clauses
        raise self.fail(instrs[t], "too many except clauses")

    def _parse_star_clauses(self, t: int, base: List[n.Expr]
                            ) -> Tuple[List[Tuple[Optional[n.Expr], Optional[str], int, int]], int]:
        """The `except*` clauses of the handler at `t`, and where its normal exit starts.

        Each clause: <type> CHECK_EG_MATCH; COPY 1; POP_JUMP_IF_NONE next; STORE name | POP_TOP;
        body; [name = None; del name]; JUMP; then the clause's own cleanup (LIST_APPEND 3 ...)
        and two jumps; `next` pops the unmatched rest. After the last clause the exception
        groups are recombined (PREP_RERAISE_STAR) and, when nothing is left, POP_EXCEPT.
        """
        instrs = self.instrs
        clauses: List[Tuple[Optional[n.Expr], Optional[str], int, int]] = []
        p = t + 1
        while p < len(instrs) and instrs[p].opname in ("COPY", "BUILD_LIST", "SWAP"):
            p += 1
        while len(clauses) < 256:
            q = p
            while q < len(instrs) and instrs[q].opname != "CHECK_EG_MATCH":
                if instrs[q].opname not in EXPRESSION_OPS:
                    raise self.fail(instrs[q], "except* clause without a type test")
                q += 1
            stack = list(base) + [m.Sentinel("previous-exception"), m.Sentinel("raised"),
                                  m.ExceptionValue()]
            saved, self.stack = self.stack, stack
            try:
                typ = self.pure_value(p, q)
            finally:
                self.stack = saved
            jump = instrs[q + 2]
            if typ is None or jump.opname != "POP_JUMP_IF_NONE":
                raise self.fail(instrs[q], "except* clause type is not an expression")
            nxt = jump.target
            bind = instrs[q + 3]
            name = bind.argval if bind.opname in _NAME_STORES else None
            # The body's own region leads to the clause cleanup, right after the body's exit jump
            # (3.13 copies the `LIST_APPEND 1` of the recombination in front of that jump).
            body_region = self._xt_state.region_at[q + 4]
            cleanup_at = body_region.handler if body_region is not None else -1
            if not q + 4 < cleanup_at < nxt:
                # An empty body (`pass`) protects nothing: the cleanup, `[name = None; del name]
                # LIST_APPEND 3; POP_TOP ...`, still closes the clause.
                appends = [k for k in range(q + 4, nxt) if instrs[k].opname == "LIST_APPEND"
                           and instrs[k].arg == 3]
                cleanup_at = appends[-1] - (3 if name is not None else 0) if appends else -1
            jump_at = cleanup_at - 1
            if not (q + 4 <= jump_at < nxt) or instrs[jump_at].opname != "JUMP":
                raise self.fail(instrs[q], "unrecognised except* clause")
            end = jump_at
            if instrs[end - 1].opname == "LIST_APPEND" and instrs[end - 1].arg == 1:
                end -= 1
            if name is not None:
                end -= 3
            clauses.append((typ, name, q + 4, end))
            p = nxt + 1
            if instrs[p].opname == "LIST_APPEND":
                return clauses, p + 6
        raise self.fail(instrs[t], "too many except* clauses")

    def _star_exits(self, k: int, be: int, warm: Set[int]) -> List[Tuple[int, int]]:
        instrs = self.instrs
        if k >= len(instrs):
            return []
        if instrs[k].opname == "JUMP":
            return [(k, instrs[k].target)]
        r = k
        while r < len(instrs) and r < k + 14 and instrs[r].target is None and instrs[r].opname not in TERMINAL:
            r += 1
        if r < len(instrs) and instrs[r].opname == "RETURN_VALUE":
            x = self._find_copy(k, r + 1 - k, be, warm)
            if x is not None and x <= self.end:
                return [(k, x)]
        return []

    def _star_else_end(self, start: int, exit_to: int, end: int) -> int:
        """Where the else part of an except* that 3.11 lays after the handlers ends: where the
        handlers' way out leads, or, when that is back to a loop's head, just after the else's
        own jump there (or at the end of the range)."""
        if exit_to > start:
            return exit_to
        for k in range(start, end):
            ins = self.instrs[k]
            if ins.opname == "JUMP" and ins.target == exit_to:
                return k + 1
        return end

    def _star_tail(self, k: int) -> Optional[int]:
        """The end of the code at `k`, after the except* handler's normal exit, when it is a
        short straight run ending in a return (3.12+ moves a small block after the try that only
        the handlers reach there)."""
        instrs = self.instrs
        for r in range(k, min(len(instrs), k + _MAX_RETURN_BLOCK)):
            if instrs[r].opname == "RETURN_VALUE":
                if any(j in self.skip or self.jump_sources.get(j) for j in range(k, r + 1)):
                    return None
                return r + 1
            if instrs[r].target is not None or instrs[r].opname in TERMINAL:
                return None
        return None

    def _clause_end(self, p: int) -> int:
        k = p
        while k < len(self.instrs) and not (self.instrs[k].opname == "COPY" and self.instrs[k].arg == 3):
            k += 1
        return k

    def _stray_clause_break(self, s: int, exits: List[Tuple[int, int, int, int]]) -> Optional[int]:
        """3.12+: the except clauses' jumps out of the try whose body starts at `s` all go where
        the try ends, but for the `break`s and `continue`s of loops: of those being read
        (`control.loop_claims`), or of a loop that was not seen (one that never jumps back, read
        as an if). A jump that no loop being read claims, to code the normal flow reaches
        (where the enclosing if's test goes, or the code after its else part), while another
        goes to code only the handlers reach (the rest of the body after the try, laid with the
        handler code), is that `break`: taken as the try's end, the rest would be lost. Its
        index, to fail at (`control._never_back_while` reads the loop), or None."""
        if self.pure_mode or not self.version.handler_code_at_end:
            return None
        instrs = self.instrs
        jumps = [j for _, _, j, x in exits if x != _BREAK and instrs[j].opname == "JUMP"]
        ends = {j: self._follow_jumps(instrs[j].target) for j in jumps}
        if len(set(ends.values())) < 2:
            return None

        handler_code = self.handler_only_code()
        for j in jumps:
            if ends[j] not in handler_code and not self.loop_claims(instrs[j].target) \
                    and any(ends[k] != ends[j] and ends[k] in handler_code for k in jumps):
                return j
        return None

    def _clause_exits(self, hs: int, he: int, be: int, warm: Set[int]) -> List[Tuple[int, int]]:
        """How a handler body leaves normally: (index, where to).

        Either `POP_EXCEPT [e = None; del e] JUMP x`, or, at the very end of the body, the same
        unwinding followed by a copy of a small exit block that the compiler duplicated (3.11
        copies the implicit `return None`, 3.12+ any short block ending in a return).
        """
        instrs = self.instrs
        found = []
        for j in range(hs, he):
            ins = instrs[j]
            if ins.opname != "JUMP" or (hs <= ins.target < he):
                continue
            k = self._before_unwinding(j, hs)
            if k is not None:
                found.append(self._threaded_outer_exit(j, k, hs, be) or (j, ins.target))
        flow = [k for k in self._reach(hs) if hs <= k < he]
        last = max(flow) if flow else -1
        self._note_handler_breaks(hs, be, warm, [k for k in flow if k != last])
        reraise = last >= hs and (instrs[last].opname == "RERAISE" and instrs[last].arg == 0
                                  or instrs[last].opname == "RAISE_VARARGS" and instrs[last].arg == 0)
        if last >= hs and (instrs[last].opname in ("RETURN_VALUE", "RAISE_VARARGS") or reraise):
            # The last exit: its tail starts just after the handler's unwinding (a copy of a
            # small exit block, or of the re-raise that ends an enclosing finally body).
            copied = self._copied_handler_exit(hs, be, warm, flow, last, reraise)
            if copied is None and self.version.copies_exits_with_line_numbers:
                # (a clause whose last branch leaves on its own, `if c: ... else: raise E`: an
                # earlier branch's return may still be the copy of the way out, 3.12+)
                # (not a constant return: `return` written in a branch reads the same as the
                # copied implicit `return None` after the statement, and stays the branch's own)
                for other in sorted((k for k in flow if k != last and instrs[k].opname == "RETURN_VALUE"
                                     and instrs[k - 1].opname != "LOAD_CONST"), reverse=True):
                    copied = self._copied_handler_exit(hs, be, warm, flow, other, False)
                    if copied is not None:
                        break
            found.extend(copied or ())
        return found

    def _copied_handler_exit(self, hs: int, be: int, warm: Set[int], flow: List[int], last: int,
                            reraise: bool) -> Optional[List[Tuple[int, int]]]:
        """The exits of a handler body whose block ending at `last` (a return or raise that
        normal flow from the handler reaches) is, after the handler's unwinding, a copy of the
        small block where the try goes on: that exit and the earlier ones that copy it too.
        None where the block is the handler's own."""
        instrs = self.instrs
        for start in range(max(hs, last - 14), last + (1 if reraise else 0)):
            if any(self.jump_sources.get(k) for k in range(start + 1, last + 1)):
                continue
            before = self._before_unwinding(start, hs)
            if before is None or (before > hs and instrs[before - 1].opname == "SWAP"):
                continue
            if any(k in self.skip for k in range(start, last + 1)):
                return None  # a finally body on the way out: an explicit return
            if not self.version.copies_exits_with_line_numbers and not reraise and not (
                    instrs[last - 1].opname == "LOAD_CONST" and instrs[last - 1].argval is None):
                return None  # 3.11 copies only the implicit `return None`
            x = self._find_copy(start, last + 1 - start, be, warm, closes_from_lo=True)
            loop = self.loops[-1] if self.loops else None
            if x is not None and loop is not None and x in (loop.exit, loop.break_target) and x > self.end:
                return [(start, _BREAK)]  # 3.12+ copies the code after the loop
            if x is not None and x <= self.end:  # beyond, the copy is not where the try ends
                return [(start, x)] + [(k, x) for k in self._earlier_exit_copies(hs, flow, start, last)]
        return None

    def _threaded_outer_exit(self, j: int, k: int, hs: int, be: int) -> Optional[Tuple[int, int]]:
        """(start, be) when the way out of a handler body, `[inner unwinding] POP_EXCEPT ... JUMP`
        (`k` the last POP_EXCEPT, `j` the JUMP), is the inner unwinding followed by a copy of the
        code at `be`, where the try's body falls into: the unwinding of an enclosing except
        clause that the try ends. 3.13 threads the handler's jump to the end of the try through
        that small block (`except A: try: ... except B: pass`, last in the clause)."""
        length = j + 1 - k
        if be + length > len(self.instrs) or self._before_unwinding(k, hs) is None \
                or self.jump_sources.get(be) or not self._same_instructions(k, be, length):
            return None
        if self.instrs[j].target_offset != self.instrs[be + length - 1].target_offset:
            return None  # (it goes elsewhere: a `continue` or `break` that leaves both clauses)
        # The compiler copies only a block without a line number: where it ends the enclosing
        # clause, the clause's jump there is its implicit way out, not a `continue` written out
        # (which would keep the jumps to it). (A copy that ends a branch of an if inside the
        # clause stays the jump over the rest.)
        last = be + length - 1
        clause = self._clause_read
        if self.instrs[last].opname == "JUMP" and clause is not None and clause[0] <= be < clause[1] \
                and max(q for q in self._reach(clause[0]) if clause[0] <= q < clause[1]) == last:
            self.skip.setdefault(last, last + 1)
        return k, be

    def _earlier_exit_copies(self, hs: int, flow: List[int], start: int, last: int) -> List[int]:
        """Where other branches of a handler body leave it the way its last exit does: the same
        unwinding, then the same copy [start, last] of the small block the try goes on to (3.12+
        copy it onto each branch of an if/else that ends the handler body)."""
        instrs = self.instrs
        length = last + 1 - start
        found = []
        for end in flow:
            k = end + 1 - length
            if end == last or instrs[end].opname != instrs[last].opname or k <= hs \
                    or not self._same_code((k, end + 1), (start, last + 1)) \
                    or any(self.jump_sources.get(q) for q in range(k, end + 1)):
                continue
            before = self._before_unwinding(k, hs)
            if before is not None and not (before > hs and instrs[before - 1].opname == "SWAP"):
                found.append(k)
        return found

    def _note_handler_breaks(self, hs: int, be: int, warm: Set[int], flow: List[int]) -> None:
        """A return inside a handler body (not its last exit) whose block, right after the
        handler's unwinding, is a copy of the loop's exit: a `break` (3.12+)."""
        loop = self.loops[-1] if self.loops else None
        if loop is None:
            return
        instrs = self.instrs
        for last in flow:
            if instrs[last].opname != "RETURN_VALUE":
                continue
            for start in range(max(hs, last - 4), last):
                before = self._before_unwinding(start, hs)
                if before is None or (before > hs and instrs[before - 1].opname == "SWAP") \
                        or instrs[start].opname == "LOAD_CONST":
                    continue  # (a return of a constant also loads it after the unwinding)
                if any(self.jump_sources.get(k) for k in range(start, last + 1)):
                    break
                x = self._find_copy(start, last + 1 - start, be, warm)
                if x is not None and x in (loop.exit, loop.break_target):
                    self._xt_state.exit_breaks[start] = last + 1
                break

    def _later_construct_in(self, start: int, end: int, t: int) -> bool:
        """Does a try or with statement start in [start, end) whose handler 3.12+ lays after the
        handler `t`? The compiler emits an else part before the handlers, so the handlers of the
        statements inside it come first: that code follows the try (`except E: return None`,
        then `try: ...`), and the handler's return is its own, not a copy of the code after the
        try nor that code moved after the handler."""
        st = self._xt_state
        enclosing = set(self._chain_of(t, 0))
        seen: Set[int] = set()
        todo = [start]
        while todo:  # (only the code the body falls into: past a jump out lies other code)
            k = todo.pop()
            if k in seen or not start <= k < end:
                continue
            seen.add(k)
            chain = self._chain(k)
            if chain and chain[0] > t and chain[0] not in enclosing:
                return True
            region = st.region_at[k]
            if region is not None and region.handler > t and st.kinds.get(region.handler) in ("asyncfor", "send"):
                return True  # (an async for's END_ASYNC_FOR, an await's CLEANUP_THROW: laid out the same way)
            todo.extend(self._successors(k))
        return False

    def _fallthrough_tail(self, hs: int, he: int) -> Optional[int]:
        """Where a handler body runs on, after its unwinding, into code that ends in a return.
        Its last exit may lie past the clause of a try inside it, whose body returns on its own:
        `except E: try: f(); return 1 / except F: pass`, then more (read from the body's return,
        that return was the clause's way on)."""
        # (an inner clause's re-raise when its type does not match is no way on)
        through = [k for k in self._reach_through_clauses(hs, -1) if hs <= k < he and self.instrs[k].opname != "RERAISE"]
        last = max(through) if through else -1
        k = last - 1 if last - 1 >= hs and self.instrs[last - 1].opname == "LOAD_CONST" else last
        if k - 2 >= hs and self.instrs[k - 1].opname == self.instrs[k - 2].opname == "POP_EXCEPT":
            # (the last exit is a return from that inner clause, unwinding both: the clause's own
            # code ends where the inner try's body leaves)
            return self._fallthrough_tail_in(hs, [k for k in self._reach(hs) if hs <= k < he])
        return self._fallthrough_tail_in(hs, through)

    def _fallthrough_tail_in(self, hs: int, flow: List[int]) -> Optional[int]:
        """`_fallthrough_tail` after the last instruction of `flow`, the handler body's code."""
        instrs = self.instrs
        last = max(flow) if flow else -1
        if last < hs or instrs[last].opname not in ("RETURN_VALUE", "RAISE_VARARGS") \
                or instrs[last].opname == "RAISE_VARARGS" and instrs[last].arg == 0:
            return None
        for k in range(last - 1, hs - 1, -1):
            if instrs[k].opname == "POP_EXCEPT":
                start = k + 1
                if start + 3 <= last and instrs[start + 2].opname.startswith("DELETE_"):
                    start += 3
                if k > hs and instrs[k - 1].opname in ("SWAP", "POP_EXCEPT") or start >= last \
                        or instrs[start].opname in ("POP_TOP", "SWAP", "POP_EXCEPT"):
                    return None  # a return from inside the handler, unwinding a loop or handler
                    # (3.12+ unwinds nested handlers in one run: `POP_EXCEPT; POP_EXCEPT; return`)
                if any(j in self.skip for j in range(start, last + 1)):
                    return None  # a finally body on the way out: an explicit return
                if instrs[last].opname == "RAISE_VARARGS" and any(
                        instrs[j].target is not None or self.jump_sources.get(j) for j in range(start, last + 1)):
                    return None  # (only straight code that raises, after the clause's unwinding)
                return start
        return None

    def _copied_way_on(self, x: int) -> Optional[int]:
        """3.12+: the end of an except clause's tail at `x`, past the range being read, when it
        is a copy of the code the range goes on to (at its end: the code after an if whose body
        the try ends). The compiler inlines a small block that ends the function into each jump
        to it, keeping its lines; a `return` written in the clause has a line of its own."""
        instrs = self.instrs
        end = self.end
        r = x
        while r < len(instrs) and r - x < _MAX_COPIED_EXIT and instrs[r].target is None \
                and instrs[r].opname not in TERMINAL:
            r += 1
        if r >= len(instrs) or instrs[r].opname not in TERMINAL or end + r - x >= len(instrs) or end <= 0:
            return None
        size = r + 1 - x
        if not self._same_instructions(x, end, size) \
                or any(self._line_of(x + d) != self._line_of(end + d) for d in range(size)):
            return None
        return r + 1

    def _find_copy(self, start: int, length: int, lo: int, warm: Set[int],
                   closes_from_lo: bool = False) -> Optional[int]:
        """The first normally reachable instruction from `lo` on where [start, start+length) recurs.

        With `closes_from_lo`, the copy must be where the code from `lo` ends: a recurrence with a
        jump from [lo, k) past it lies inside a statement there (the last branch of an if whose
        elif comes after it), not after the statement that the copy's code follows. Outside
        loops, a jump from there past the range's end skips the recurrence too: no `break` or
        `continue`, it is an if's test threaded to where the enclosing statement goes on
        (`if a: try: ... except E: return` then `if b: return` / `else: ...`, 3.12+), and the
        recurrence is that if's body."""
        instrs = self.instrs
        for k in sorted(x for x in warm if x >= lo):
            if k + length > len(instrs) or k == start:
                continue
            if closes_from_lo and any(k < (instrs[q].target or -1) and (instrs[q].target <= self.end or not self.loops)
                                      for q in range(lo, k)):
                continue
            if all(instrs[k + d].opname == instrs[start + d].opname and instrs[k + d].target is None
                   and instrs[start + d].target is None
                   and repr(instrs[k + d].argval) == repr(instrs[start + d].argval) for d in range(length)):
                return k
        return None

    def _fall_out(self, j: int, he: int) -> None:
        """A handler's jump to where the try statement ends just leaves the handler body.

        The jump is stepped over, and it is pointed at the end of the handler body so that an
        if/else inside the body still sees a jump past its else part (3.12+ jumps backwards here).
        """
        ins = self.instrs[j]
        if ins.opname == "JUMP":
            self.redirect(j, he)
        else:
            self.copied_fall_outs.add(j)  # (a copy of the way out: `control` reads an else part after it)
        self.skip[j] = he

    def _skip_name_cleanups(self, hs: int, he: int, name: str) -> None:
        instrs = self.instrs
        for k in range(hs, he - 2):
            if instrs[k].opname == "POP_EXCEPT" or (k > hs and instrs[k - 1].opname == "POP_EXCEPT"):
                a = k + 1 if instrs[k].opname == "POP_EXCEPT" else k
                if a + 2 < len(instrs) and instrs[a].opname == "LOAD_CONST" and instrs[a].argval is None \
                        and instrs[a + 1].opname in _NAME_STORES and instrs[a + 1].argval == name \
                        and instrs[a + 2].opname.startswith("DELETE_") and instrs[a + 2].argval == name:
                    self.skip[a] = a + 3

    def op_POP_EXCEPT(self, ins: Instr, i: int) -> Optional[int]:
        if not self.version.has_exception_table:
            return super().op_POP_EXCEPT(ins, i)  # type: ignore[misc]
        for k in range(len(self.stack) - 1, -1, -1):
            value = self.stack[k]
            if isinstance(value, m.Sentinel) and value.what == "previous-exception":
                del self.stack[k]
                return self._copied_break_after(i + 1)
        self.pop()
        return self._copied_break_after(i + 1)

    def _copied_break_after(self, k: int) -> Optional[int]:
        """After a handler's unwinding, a copy of the loop's exit block that loads a variable is
        a `break` (a `return` loads its value before the unwinding, and a constant after it)."""
        if self.pure_mode:
            return None
        end = self._loop_exit_copy(k)
        if end is None:
            end = self._only_loop_exit_copy(k)
        if end is not None:
            self.emit(n.Break())
            self.note_copied_break(k, end)  # control
        return end

    def _only_loop_exit_copy(self, k: int) -> Optional[int]:
        """3.12+: inside a `while True:` with no code after it in normal flow (only `break`s leave
        it, and the compiler copied the small block after the loop into each of them), a block
        at `k`, right after a handler's unwinding, that loads a variable and returns: a `break`
        (a `return` loads its value before the unwinding). Where it ends."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not self.version.handler_code_at_end or not loop.is_while \
                or loop.top_test is not None or self.instrs[k].opname == "LOAD_CONST":
            return None
        if loop.exit < len(self.instrs) and loop.exit not in self.handler_only_code():
            return None  # (code after the loop: its copies are found by `_loop_exit_copy`)
        end = self._copy_end(k)  # exception_blocks: a small block ending the function
        if end is None or self.instrs[end - 1].opname != "RETURN_VALUE":
            return None
        seen = loop.copied_exit
        if seen is not None and not (seen[1] - seen[0] == end - k and self._same_code(seen, (k, end))):
            return None  # (every break runs the same block: this one is other code)
        return end

    def _loop_exit_copy(self, k: int) -> Optional[int]:
        """If a small block at `k` that loads a variable and returns copies the innermost loop's
        exit block, where it ends."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or k >= len(self.instrs) or self.instrs[k].opname == "LOAD_CONST":
            return None
        end = self._copy_end(k)  # exception_blocks: a small block ending the function
        if end is None:
            return None
        for x in (loop.exit, loop.break_target, loop.handler_break):
            if x is not None and x != k and x + end - k <= len(self.instrs) and self._same_code((k, end), (x, x + end - k)):
                return end
        if loop.break_target is None and loop.handler_break is None \
                and (loop.exit >= len(self.instrs) or loop.exit in self.handler_only_code()):
            # Nothing follows the loop but handler code: the code after it exists only as the
            # copies its breaks ran (`while True:` left only by breaks that copied a return).
            return end
        return None

    def _note_unprotected_way_outs(self, s: int, be: int, t: int, x: int) -> None:
        """Inside a try body, an unprotected copy of the code the try goes on to (`x`, a small
        block that returns) is the body's way out (3.12+ copy it onto each branch of an if that
        ends the body; a `return` would compute its value under the try's protection): the
        branch falls out of the try there."""
        instrs = self.instrs
        length = 0
        while x + length < len(instrs) and length < 8 and instrs[x + length].opname not in ENDS_FLOW \
                and not instrs[x + length].is_jump:
            length += 1
        if x + length >= len(instrs) or instrs[x + length].opname != "RETURN_VALUE":
            return
        length += 1
        for k in range(s + 1, be - length + 1):
            if t not in self._chain(k) and t in self._chain(k - 1) and k != x \
                    and self._same_code((k, k + length), (x, x + length)) \
                    and not any(self.jump_sources.get(q) for q in range(k + 1, k + length)) \
                    and not any(s <= h <= k <= j for h, j in self.loop_end.items()):
                # (inside a loop in the body, such a copy is a `break`'s: `_note_unprotected_breaks`)
                self.copied_fall_outs.add(k)
                self.skip[k] = be

    def _note_unprotected_breaks(self, s: int, be: int, t: int) -> None:
        """Inside a try body, a copy of a loop's exit block outside the try's protected range is
        a `break` (3.12+): a `return` computes its value under the try's protection. Which loop
        (one around the try or inside it) is known when the builder gets there."""
        for k in range(s + 1, be):
            if t not in self._chain(k) and t in self._chain(k - 1):
                self._xt_state.unprotected.add(k)

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
