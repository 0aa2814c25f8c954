"""The except / except* clauses of a 3.11+ handler: their tests, names, bodies and ways out,
and the exit blocks copied into them.
"""
from typing import List, Optional, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW, TERMINAL, Instr
from depyf.decompiler.table_model import _BREAK, _MAX_COPIED_EXIT, _MAX_RETURN_BLOCK


class TableClauses:
    """except and except* clauses; mixed into `exception_table.ExceptionTableRules`."""

    def _parse_clauses(self, t: int, base: List[n.Expr]
                       ) -> List[Tuple[Optional[n.Expr], Optional[str], int, int]]:
        """(type, name, body start, body end) of each `except` clause of the handler at `t`
        (their parts are `structure/except_clauses.py`'s; the types are read here, on a stack
        holding the exceptions)."""
        instrs = self.instrs
        chain = self.except_chain(t)
        clauses: List[Tuple[Optional[n.Expr], Optional[str], int, int]] = []
        for clause in chain.clauses:
            if clause.test is None:
                assert clause.body_end is not None
                clauses.append((None, None, clause.body_start, clause.body_end))
                return clauses
            stack = list(base) + [m.Sentinel("previous-exception"), m.ExceptionValue()]
            saved, self.stack = self.stack, stack
            try:
                typ = self.pure_value(*clause.test)
            finally:
                self.stack = saved
            if typ is None:
                raise self.fail(instrs[clause.test[1]], "except clause type is not an expression")
            assert clause.next is not None
            end = clause.unbinding[0] if clause.unbinding is not None else clause.next
            clauses.append((typ, clause.name, clause.body_start, end))
        if chain.unread is not None:
            at, reason = chain.unread
            raise self.fail(instrs[at], reason)
        return clauses

    def _parse_star_clauses(self, t: int, base: List[n.Expr]
                            ) -> Tuple[List[Tuple[Optional[n.Expr], Optional[str], int, int]], int]:
        """The `except*` clauses of the handler at `t` (their parts are
        `structure/except_clauses.py`'s; the types are read here), and where its normal exit
        starts."""
        instrs = self.instrs
        chain = self.except_star_chain(t)
        clauses: List[Tuple[Optional[n.Expr], Optional[str], int, int]] = []
        for clause in chain.clauses:
            assert clause.test is not None and clause.body_end is not None
            stack = list(base) + [m.Sentinel("previous-exception"), m.Sentinel("raised"),
                                  m.ExceptionValue()]
            saved, self.stack = self.stack, stack
            try:
                typ = self.pure_value(*clause.test)
            finally:
                self.stack = saved
            if typ is None:
                raise self.fail(instrs[clause.test[1]], "except* clause type is not an expression")
            clauses.append((typ, clause.name, clause.body_start, clause.body_end))
        if chain.unread is not None:
            at, reason = chain.unread
            raise self.fail(instrs[at], reason)
        assert chain.exit_at is not None
        return clauses, chain.exit_at

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
        enclosing = set(self._xt_state.table.handler_chain(t))
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

    def _leaves_loop_at(self, k: int, copies: bool = True) -> bool:
        """Is the code at `k` a `break` of the innermost loop, the exit calls and finally copies
        on its way out stepped over already: a for loop's iterator dropped, then a jump past the
        loop or (`copies`) a copy of the code after it?"""
        instrs = self.instrs
        loop = self.loops[-1] if self.loops else None
        if loop is None or k >= len(instrs):
            return False
        if loop.iterator is not None:
            if instrs[k].opname != "POP_TOP" or k + 1 >= len(instrs):
                return False
            k += 1
        ins = instrs[k]
        if ins.opname == "JUMP":
            return ins.target is not None and ins.target >= loop.exit
        return copies and self._loop_exit_copy(k) is not None

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
