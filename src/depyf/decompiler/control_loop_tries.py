"""Where a loop body ends inside a try statement that starts in the loop: its body's `continue`
is the loop's last jump back, and the rest of the try (its handler code, else part, finally body)
is the rest of the loop body (3.8-3.10 from the block setups, 3.11+ from the exception table).
"""
from typing import Optional

from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, TERMINAL, Instr
from depyf.decompiler.control_model import _BLOCK_SETUPS


class ControlLoopTries:
    """Loop bodies that end inside a try begun in the loop; mixed into `control.ControlRules`."""

    def _end_of_try_begun_in_loop(self, h: int, j: int) -> Optional[int]:
        """3.11+: where the try protecting `j + 1` ends, when that try starts inside the loop
        [h, j] (its body's `continue` is the loop's last jump back, and the rest of its body
        follows): on 3.11 the target of the first jump in [j + 1, handler) over the handler
        code, the try's way on; on 3.12+ past the finally body's copy, or where the except
        clauses go on. None for code no such try protects. (A loop that ends only in a `break`
        falling into the code after it ends anywhere from there on with the same bytecode:
        right after the try is as good as later.)"""
        if not self.version.has_exception_table or not self.bc.regions:
            return None
        self._xt()
        after = j + 1
        chain = self._chain(after)
        if not chain:
            # (unprotected, it may be the try's else part, or its finally body's copy, where its
            # body's test skipping the `continue` jumps: `try: if c: continue / except E: ...
            # else: ...`)
            chain = tuple({self._chain(src)[0] for src in self.jump_sources.get(after, ())
                           if h <= src < j and self._chain(src)})
            if len(chain) != 1:
                chain = ()
        # (the outermost such try: `try: ... except E: ... finally: ...` ends past its finally;
        # one that starts at `j + 1` or later lies in the rest of its body)
        begun = [t for t in chain if h <= self._try_start_of(t) < after]
        if not begun and not self.version.handler_code_at_end:
            # 3.11: the try's else part, unprotected, follows the body that ends in the
            # `continue` at `j` and comes before the handler code inline
            # (the nearest handler past `after` of a try started in the loop)
            ts = [t for s, hs in self._xt().try_starts.items() if h <= s < after for t in hs if t > after]
            begun = [min(ts)] if ts else []
        if not begun:
            return None
        t = begun[-1]
        if self.version.handler_code_at_end:
            # (3.12+: no jump over the handler code, which lies at the end of the function; the
            # rest of the body is reached from the try's start, never only through a handler)
            s = self._try_start_of(t)
            x = self.try_end_past_protected(s, t) if after in self._reach(s) else None  # exception_table
            return x if x is not None and x > after else None
        for ins in self.instrs[after:t]:
            if ins.opname == "JUMP" and ins.target is not None and ins.target > t:
                return ins.target
        return None

    def _end_of_block_try_begun_in_loop(self, h: int, j: int) -> Optional[int]:
        """3.10: where the try that protects `j + 1` ends, when that try starts inside the loop
        [h, j]: a `continue` in its body is the loop's last jump back, and the rest of its body,
        its handler code (the block stack's handler lies after the body's ways on) and what
        follows the try are the rest of the loop body. The try ends where its body's way on
        jumps over the handler code (and past an else part, where its clauses jump), or, when
        that way on is a copied return, after the handler code. None for code no such try
        protects."""
        instrs = self.instrs
        if self.version.has_exception_table:
            return None
        after = j + 1
        # (3.10: or right after `j`, the try body's `continue` its only way on, the handler code
        # ending the body after the copied exit of a `break` before the try)
        first = after if self.version.copies_exit_blocks else after + 1
        handlers = [ins.target for ins in instrs[h:j] if ins.opname in ("SETUP_FINALLY", "SETUP_WITH",
                                                                        "SETUP_ASYNC_WITH")
                    and ins.target is not None and ins.target >= first]
        if not handlers:
            return None
        t = max(handlers)  # (the outermost such try)
        if instrs[t].opname == "WITH_EXCEPT_START":
            return self._block_with_way_on(t)
        return self._block_try_end_past_handlers(t, after)

    def _block_with_way_on(self, t: int) -> Optional[int]:
        """3.9/3.10: where the with statement whose handler (WITH_EXCEPT_START) is at `t` goes on:
        its handler's way on after a swallowed exception (`structure/with_regions.py`) goes where
        the with goes on; None where it jumps back."""
        statement = self.withs.by_handler(t)
        if statement is None or statement.handler.test is None or statement.handler.way_on is None:
            return None
        way_on, goes_to = statement.handler.way_on, statement.handler.goes_to
        if goes_to is not None:
            return goes_to if goes_to > way_on else None
        # (no jump: the code after the with follows; the walk on to its end would take in
        # the code after the loop too, past a `break` in the with body)
        return way_on

    def _block_try_end_past_handlers(self, t: int, after: int) -> Optional[int]:
        """3.8-3.10: where the try whose handler is `t` ends, read from its body's way on (the
        instruction before the handler code): a JUMP over the handler code (past an else part,
        where the except clauses jump), or, after a way on that returns, raises or is the loop's
        `continue` right before `after`, the end of the except clauses or of the finally body's
        exceptional copy (up to its re-raise)."""
        instrs = self.instrs
        way_on: Optional[Instr] = instrs[t - 1]
        if t == after:
            way_on = None  # (the body's way on is the `continue` at `j`)
        elif way_on.opname == "BEGIN_FINALLY":
            way_on = None  # (3.8: the body's way on falls into the finally body, to its END_FINALLY)
        elif way_on.opname == "JUMP" and way_on.target is not None and way_on.target > t:
            end = way_on.target
            if instrs[t].opname in ("DUP_TOP", "POP_TOP"):
                # (an else part at `end`: the clauses that finish jump past it)
                later = [ins.target for ins in instrs[t:end] if ins.opname == "JUMP"
                         and ins.target is not None and ins.target > end]
                if later:
                    end = max(later)
                else:
                    # (... or run a copy of the small block that ends the function, where the
                    # else part falls (a `break` to it after the try): the try ends there)
                    end = self._clause_copied_way_on(t, end)
            return end
        if way_on is not None and way_on.opname not in TERMINAL:
            return None
        if instrs[t].opname in ("DUP_TOP", "POP_TOP"):
            end = self.except_chain(t).end
            if end is None:
                return None
            later = [ins.target for ins in instrs[t:end] if ins.opname == "JUMP"
                     and ins.target is not None and ins.target > end]
            return max(later) if later else end
        # A finally body's exceptional copy: up to the re-raise it reaches.
        k = t
        while k < len(instrs) and instrs[k].opname not in ("RERAISE", "END_FINALLY"):
            if instrs[k].opname in ("RETURN_VALUE", "RAISE_VARARGS") or instrs[k].opname in _BLOCK_SETUPS:
                return None  # (a finally body with a construct or an exit of its own: not read here)
            k += 1
        return k + 1 if k < len(instrs) else None

    def _clause_copied_way_on(self, t: int, end: int) -> int:
        """3.10: where the else part at `end` of the try whose except clauses start at `t` goes
        on, when a clause's way on, after its POP_EXCEPT, is a copy of the small block that ends
        the function there (the code after the loop, reached by a `break` after the try): the
        start of that block, which the else part falls into; `end` when there is none."""
        instrs = self.instrs
        p = end
        while p < len(instrs) and not instrs[p].is_jump and instrs[p].opname not in ENDS_FLOW \
                and instrs[p].opname not in _BLOCK_SETUPS \
                and (p == end or not any(src < end for src in self.jump_sources.get(p, ()))):
            p += 1
        if p >= len(instrs) or instrs[p].opname not in TERMINAL:
            return end
        for q in range(t, end):
            if instrs[q].opname != "POP_EXCEPT":
                continue
            c = q + 1
            if c + 3 <= end and instrs[c].opname == "LOAD_CONST" and instrs[c].argval is None \
                    and instrs[c + 1].opname.startswith("STORE_") and instrs[c + 2].opname.startswith("DELETE_") \
                    and instrs[c + 1].argval == instrs[c + 2].argval:
                c += 3  # (`except E as e:` drops its name first: `e = None; del e`)
            for s in range(max(end + 1, p + 1 - MAX_COPY), p + 1):
                length = p + 1 - s
                if c + length <= end and self._same_code((c, c + length), (s, p + 1)) \
                        and self._is_copy(c, c + length):
                    return s
        return end

    def _try_start_of(self, t: int) -> int:
        """Where the try (or with) statement whose handler is `t` starts; -1 when none does."""
        st = self._xt()
        for s, ts in st.try_starts.items():
            if t in ts:
                return s
        if st.kinds.get(t) == "with":
            return self._first_protected().get(t, -1)  # (its body's first instruction)
        return -1
