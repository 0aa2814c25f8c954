"""Finally bodies that never finish (3.11+): the copy on a way out that raises or returns on
every path, after which the compiler dropped the way out itself (a RETURN_VALUE, a jump) as
dead. The copies are noted as dead ends while they are registered (`TableFinally`), and the way
out is emitted where the copy is stepped over (`exit_into_dead_end`).
"""
from typing import Optional, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.control import COND_JUMPS
from depyf.decompiler.instructions import TERMINAL
from depyf.decompiler.mangling import CO_OPTIMIZED


class TableDeadEnds:
    """Dead-end copies of finally bodies; mixed into `exception_table.ExceptionTableRules`."""

    def _note_dead_end_copy(self, s: int, k: int, size: int, final: Tuple[int, int], body_end: int) -> None:
        """Note the copy [k, k + size) as a dead end where it raises or returns on every path
        (`dead_end_exits`): the compiler dropped what followed it."""
        fs, fe = final
        if (k < body_end or self._if_body_ends_in_copy(s, k, size)) \
                and (self._never_finishes(k, k + size) or self._finishes_by_swallowed_return(k, k + size)) \
                or self._after_handler_return_unwinding(k) and self._never_finishes(fs, fe):
            # A way out from inside the body whose copy raises or returns on every path:
            # the compiler dropped what followed it (a RETURN_VALUE, a jump) as dead.
            # The builder emits that way out where the copy is skipped. (Also one from an
            # except clause inside the body, which `body_end`, the end of the code the
            # body's normal flow reaches, leaves out: `return x` there unwinds the clause
            # first.)
            self.dead_end_exits[k] = (list(self.stack), len(self.loops))
        elif k >= body_end and k not in self.dead_end_exits \
                and (self._never_finishes(k, k + size) or self._finishes_by_swallowed_return(k, k + size)):
            # The same past the protected code (`try: if c: return f()` / `finally:
            # raise E`, or a clause's `return f()`): a value computed for a return, left
            # above the try's own stack where the copy is skipped, is that return's; with
            # none left, it is where the body falls out (`value_only`).
            self.dead_end_exits[k] = (list(self.stack), len(self.loops))
            self.value_only_dead_ends.add(k)

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

    def _never_finishes(self, start: int, end: int) -> bool:
        """Does the code [start, end) end in a return or raise and never jump out of itself?"""
        instrs = self.instrs
        return instrs[end - 1].opname in TERMINAL and not any(
            ins.target is not None and not start <= ins.target < end for ins in instrs[start:end])

    def exit_into_dead_end(self, i: int) -> None:
        """Emit the way out of a try body that runs the copy at `i` of a finally body that never
        finishes (`_register_copies`): `return value` with the value computed before the copy
        (still on the stack above the try's own); `return <constant>` where the copy finishes
        only through a swallowed exception, whose way on loads that constant
        (`_swallowed_constant_return`); else a bare `return`: a `break`, `continue` or `return
        <constant>` compile alike here (the constant is loaded after the copy), and none of them
        is ever completed. A class or module body, which cannot return, gets a `break` of a
        loop around the whole try."""
        base, loops = self.dead_end_exits[i]
        value: Optional[n.Expr] = None
        if i in self.value_only_dead_ends:
            if len(self.stack) > len(base) and not isinstance(self.stack[-1], m.MARKER_TYPES) \
                    and all(a is b for a, b in zip(self.stack, base)):
                self.emit(n.Return(self.pop()))
            return
        if self.stack and (len(self.stack) > len(base) or self.stack[-1] is not base[len(self.stack) - 1]):
            value = self.pop()
        if value is None:
            value = self._swallowed_constant_return(i)
        if value is None and not self.code.co_flags & CO_OPTIMIZED:
            if not self.loops or loops != len(self.loops):
                raise self.fail(self.instrs[i], "way out of a try body whose finally body never finishes")
            self.emit(n.Break())
            return
        self.emit(n.Return(value))

    def _finishes_by_swallowed_return(self, start: int, end: int) -> bool:
        """Does the copy [start, end) of a finally body never leave itself by normal flow (it
        raises), going on only where a with in it swallows the exception, to a `return
        <constant>` (3.11 lays that way on past the copy)?"""
        # (not where the copy's match took in the with's handler code, ending at that return:
        # `_past_suppressing_with_handler`; the copy then falls into it)
        if not any(self._constant_return_at(s.handler.way_on) and s.handler.way_on != end
                   for s in self.withs.in_range(start, end)):
            return False
        return all(start <= k < end for k in self._reach(start, floor=start))

    def _constant_return_at(self, j: Optional[int]) -> bool:
        instrs = self.instrs
        return j is not None and j + 1 < len(instrs) and instrs[j].opname == "LOAD_CONST" \
            and instrs[j + 1].opname == "RETURN_VALUE" and not self.jump_sources.get(j + 1)

    def _swallowed_constant_return(self, i: int) -> Optional[n.Expr]:
        """The constant of a `return <constant>` whose way out runs the copy at `i` of a finally
        body that finishes only where an exception raised in it is swallowed, by a with's
        manager or an except clause in it: the constant is loaded after the copy, on that way
        on (`try: return 3` / `finally: (with m: raise E)`); None where no such return (one
        constant) follows."""
        end = self.skip.get(i, i)
        instrs = self.instrs
        found = {k for k in self._reach_through_handlers(i, floor=i)
                 if not i <= k < end and self._constant_return_at(k)}
        if not found or len({repr(instrs[k].argval) for k in found}) != 1:
            return None
        load = instrs[min(found)]
        saved = self.stack
        self.stack = []
        try:
            self.op_LOAD_CONST(load, load.index)
            return self.stack.pop()
        finally:
            self.stack = saved
