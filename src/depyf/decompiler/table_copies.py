"""Matching a copy of a finally body against the original (`_match_copy`), allowing for the
exits the compiler inlines or inverts in it.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler.instructions import ENDS_FLOW, OPPOSITE_JUMPS, TERMINAL, Instr
from depyf.decompiler.table_model import _MAX_COPIED_EXIT, _MAX_RETURN_BLOCK


class _NoCopy(Exception):
    """The code at the place tried is no copy of the finally body (raised by the match's steps)."""


@dataclass
class _CopyMatch:
    """The state of one `_match_copy`: the handler's copy [a, end) against the copy at `b`.

    Positions `p` in the handler's copy and `q` in the other copy are passed along the steps;
    what the steps find on the way is gathered here (local to one match)."""
    a: int  # the handler's copy of the finally body starts here
    end: int  # ... and ends here (its closing RERAISE follows)
    b: int  # the copy tried starts here
    returns: bool  # may a re-raise stand for a copied return block (`_copied_return_block`)?
    flow: Set[int]  # what the handler's copy reaches (through clauses where it goes on only so)
    flow_b: Set[int]  # ... and the copy at `b`
    plain: Set[int]  # what the handler's copy reaches by its normal flow
    plain_b: Set[int]  # ... and the copy at `b`
    defer: bool  # match code reached only through clauses later (`_step_over_gap`)
    where: Dict[int, int] = field(default_factory=dict)  # matched position in each copy
    jumps: List[Tuple[int, int]] = field(default_factory=list)  # (target in a's copy, in b's)
    inlined: List[Tuple[int, int, int]] = field(default_factory=list)  # (exit block in the handler's copy, size, jump target)
    returns_at: Dict[int, int] = field(default_factory=dict)  # a re-raise matched with a copied return block -> that block
    outs: List[Tuple[int, int]] = field(default_factory=list)  # the returns matched where the handler's copy re-raises
    inner_exit: Optional[int] = None  # the last jump back standing for a jump to the re-raise
    deferred: List[Tuple[int, int]] = field(default_factory=list)  # runs [p, r) matched later
    runs: List[Tuple[int, int]] = field(default_factory=list)  # where the normal copy has them
    drops_pending_value: bool = False  # a return of the body replaces one of the try body's


class TableCopies:
    """Copies of finally bodies; mixed into `exception_table.ExceptionTableRules`."""

    def _match_copy(self, a: int, length: int, b: int, returns: bool = False
                    ) -> Optional[Tuple[int, Optional[int], List[Tuple[int, int]]]]:
        """(length, inner exit, returns) of the copy of [a, a+length) starting at `b`, or None if
        no copy. `returns` are the return blocks [start, end) of the copy where the handler's copy
        re-raises.

        Where the handler's copy re-raises, a copy on a way out goes on out instead: a jump, a
        return, or (3.12+) a constant return, which takes two instructions. The inner exit is the
        last jump back (3.12+) that stands for a jump to the handler's closing re-raise.
        """
        m = self._copy_match_start(a, length, b, returns)
        try:
            end = self._match_copy_runs(m)
        except _NoCopy:
            return None
        end = self._past_suppressing_with_handler(m, end)
        end = self._copy_trailing_handlers(m, end)
        if not self._inlined_blocks_matched(m) or not self._copy_jumps_agree(m, end):
            return None
        if m.drops_pending_value and not self._returns_pending_value(m, end):
            return None
        return end - b, m.inner_exit, m.outs

    def _copy_match_start(self, a: int, length: int, b: int, returns: bool) -> _CopyMatch:
        """The match of the handler's copy [a, a + length) against the copy at `b`, not begun."""
        flow = self._reach(a, floor=a)  # handler code inside either copy may lie elsewhere
        flow_b = self._reach(b, floor=b)
        plain, plain_b = flow, flow_b
        if self._goes_on_through_clauses(a, length, flow):
            # The rest of the finally body is reached only through the clauses of a try in it
            # whose body never falls out (`try: raise E` / `except E: ...` then more): in both
            # copies that handler code lies inline, in the same order.
            flow = self._reach_through_handlers(a, floor=a)
            flow_b = self._reach_through_handlers(b, floor=b)
        # 3.12+ with the handler code inline in the handler's copy, reached through the clauses
        # of a try in it (`_goes_on_through_clauses`): the normal copy has that code at the end,
        # past its way out. Runs of it the handler's copy reaches only through clauses where the
        # normal copy goes on are matched after the rest, at the counterpart try's handler.
        defer = plain is not flow and self.version.handler_code_at_end
        return _CopyMatch(a=a, end=a + length, b=b, returns=returns, flow=flow, flow_b=flow_b,
                          plain=plain, plain_b=plain_b, defer=defer)

    def _match_copy_runs(self, m: _CopyMatch) -> int:
        """Match the handler's copy, then each deferred run of it at the counterpart handler in
        the normal copy; where the normal copy's main run ends (raises `_NoCopy`)."""
        p, q, stop = m.a, m.b, m.end
        main_end: Optional[int] = None
        resumed = m.b  # where the deferred run being matched starts in the normal copy
        while True:
            while p < stop:
                p, q = self._match_step(m, p, q, stop)
            if not m.deferred:
                break
            if main_end is None:
                main_end = q
            else:
                m.runs.append((resumed, q))
            p, stop = m.deferred.pop(0)
            counterpart = self._handler_counterpart(p, m.where)
            if counterpart is None:
                raise _NoCopy
            q = resumed = counterpart
        if main_end is None:
            return q
        m.runs.append((resumed, q))
        return main_end

    def _match_step(self, m: _CopyMatch, p: int, q: int, stop: int) -> Tuple[int, int]:
        """Match the instruction at `p` in the handler's copy with the copy at `q`: the next
        (p, q), or raise `_NoCopy`."""
        step = self._step_over_gap(m, p, q, stop)
        if step is not None:
            return step
        m.where[p] = q
        step = self._step_way_out(m, p, q)
        if step is None:
            step = self._step_drop_or_back_jump(m, p, q)
        if step is None:
            step = self._step_instruction(m, p, q)
        return step

    def _step_over_gap(self, m: _CopyMatch, p: int, q: int, stop: int) -> Optional[Tuple[int, int]]:
        """Step over what one copy has and the other lacks before `p` and `q` are compared: a run
        deferred (`defer`), code the handler's copy does not reach (and a 3.11 merged re-raise),
        an exit block inlined a second time, code the normal copy does not reach."""
        instrs = self.instrs
        size = len(instrs)
        if m.defer and p in m.flow and p not in m.plain and q in m.plain_b and q < size:
            r = p
            while r < stop and r not in m.plain:
                r += 1
            m.deferred.append((p, r))
            return r, q
        if p not in m.flow:
            width = self._return_width(q) if p in self.merged_reraises and q < size \
                and self.jump_sources.get(q) else 0
            if width:
                # 3.11: a merged copy of the closing re-raise, where the normal copy has the
                # return block its (unmerged) jump goes to
                m.where[p] = q
                q += width
            return p + 1, q
        earlier = self._inlined_exit_again(p, q, m.where, m.flow, m.flow_b)
        if earlier is not None:
            # The jumps to it go where its copy's match went (checked with `where` later);
            # a return block the copy's re-raise took for a copied one is the real one.
            width = self._inlined_exit_size(p, m.flow)
            for d in range(width):
                m.where[p + d] = m.where[earlier + d]
            return p + width, m.returns_at.get(earlier + width - 1, q)
        if q >= size:
            raise _NoCopy
        if q not in m.flow_b and not self._dead_closing_jump_matches(m, p, q):
            return p, q + 1
        return None

    def _dead_closing_jump_matches(self, m: _CopyMatch, p: int, q: int) -> bool:
        """Is `q`, which the normal copy does not reach, the closing jump back of a loop in it
        that matches the one at `p`? 3.12+ thread a `continue` written at the end of a for body
        to the loop's head in the normal copy, but not in the handler's copy, which jumps to its
        closing jump; pass `written_continues` laid a copy of it, unreached, after the
        written one (the jumps to it agree through `_threaded_target`)."""
        x, y = self.instrs[p], self.instrs[q]
        return x.opname == "JUMP" == y.opname and x.target is not None and x.target < p \
            and y.target is not None and y.target < q and m.where.get(x.target) == y.target

    def _step_way_out(self, m: _CopyMatch, p: int, q: int) -> Optional[Tuple[int, int]]:
        """Where the handler's copy re-raises (or jumps to its closing re-raise, after a try
        statement inside the body), a copy on a way out goes on out: a jump, a return, a constant
        return (3.12+), or a copy of the return block after the statement."""
        instrs = self.instrs
        x, y = instrs[p], instrs[q]
        if not (x.opname == "RERAISE" and x.arg == 0 or self._jumps_to_reraise(x, m.end)):
            return None
        if y.opname in ("RETURN_VALUE", "JUMP"):
            if y.opname == "RETURN_VALUE":
                m.outs.append((q, q + 1))
            return p + 1, q + 1
        if y.opname == "LOAD_CONST" and q + 1 < len(instrs) and instrs[q + 1].opname == "RETURN_VALUE":
            m.outs.append((q, q + 2))
            return p + 1, q + 2
        if x.opname == "RERAISE" and q > m.b and instrs[q - 1].opname not in ENDS_FLOW \
                and not any(k in m.flow for k in range(p + 1, m.end)):
            # The handler's copy ends in a re-raise before its last handler code (a with's, in
            # the finally body: its suppressed path re-raises by a copy of its own), where the
            # normal copy falls into the code after the statement.
            return p + 1, q
        block_end = self._copied_return_block(q) if m.returns else None
        if block_end is not None:
            m.returns_at[p] = q
            m.outs.append((q, block_end))
            return p + 1, block_end
        return None

    def _step_drop_or_back_jump(self, m: _CopyMatch, p: int, q: int) -> Optional[Tuple[int, int]]:
        """A way out of the handler's copy that drops the exception first, where the normal copy
        has none; or a conditional jump the normal copy inverts around a jump back (3.12+)."""
        drop = self._exception_drop(p, m.end)
        if drop and self._exception_drop(q, len(self.instrs)) != drop:
            pending = self._pending_value_drop(p, drop, q)
            m.drops_pending_value |= pending > 0
            return p + drop, q + pending
        x = self.instrs[p]
        back = self._inverted_back_jump(x, q)
        if back is None:
            return None
        m.jumps.append((x.target, back))
        if x.target >= m.end:
            m.inner_exit = q + 1
        return p + 1, q + 2

    def _step_instruction(self, m: _CopyMatch, p: int, q: int) -> Tuple[int, int]:
        """The same instruction in both copies (jump targets are checked at the end), or one of
        the differences `_step_difference` allows; else raise `_NoCopy`."""
        x, y = self.instrs[p], self.instrs[q]
        if x.opname != y.opname:
            return self._step_difference(m, p, q)
        if x.target is not None:
            m.jumps.append((x.target, y.target))
        elif x.argval != y.argval and repr(x.argval) != repr(y.argval) and x.opname != "YIELD_VALUE":
            raise _NoCopy  # (3.12+ YIELD_VALUE carries the stack depth, deeper in the handler)
        return p + 1, q + 1

    def _step_difference(self, m: _CopyMatch, p: int, q: int) -> Tuple[int, int]:
        """Instructions that differ where the handler's copy drops the exception before a
        return, jumps over handler code, or has a copy of a small exit block (3.12+) that the
        normal copy jumps to; else raise `_NoCopy`."""
        instrs = self.instrs
        x, y = instrs[p], instrs[q]
        if x.opname == "POP_EXCEPT" or (x.opname in ("POP_TOP", "SWAP") and any(
                instrs[r].opname == "POP_EXCEPT" for r in range(p + 1, min(p + 4, m.end)))):
            return p + 1, q  # a return inside the handler's copy drops the exception first
        if self._jumps_over_handlers(x, p, m.plain):
            # The normal copy goes straight on where the handler's copy jumps (over handler
            # code; with `defer`, code reached only through clauses: a `while True:` loop's
            # `break` over its except clause and the jump back only that clause reaches,
            # matched later).
            return p + 1, q
        width = self._inlined_exit_size(p, m.flow) if y.opname == "JUMP" and y.target > q else 0
        if width:
            # The handler's copy has a copy of a small exit block where the normal copy jumps
            # to that block (checked once the block is matched: `_inlined_blocks_matched`).
            m.inlined.append((p, width, y.target))
            return p + width, q + 1
        raise _NoCopy

    def _copy_trailing_handlers(self, m: _CopyMatch, end: int) -> int:
        """`end` moved past handler code of the copy that follows its last exit (no jump goes
        there): the handler of code in the copy. (Not the handler of code before it, a with
        around the copy whose cleanup follows it: `with m: raise E` in a try body, where the
        suppressed exception's way on is the copy.)"""
        size = len(self.instrs)
        while end < size and end not in m.flow_b and self.instrs[end - 1].opname in TERMINAL \
                and not self.jump_sources.get(end) and self._handles_code_in(end, m.b, end):
            end += 1
        return end

    def _past_suppressing_with_handler(self, m: _CopyMatch, end: int) -> int:
        """`end` moved past the handler code of a with ending the normal copy, when only a
        suppressed exception goes on from it, falling into the code after the statement.

        A finally body ending in a with whose body never ends normally (`with m: raise E`)
        goes on only through the with's handler, which lies right after the copy (3.12+ lay
        handler code at the end, but not where only it reaches the code after the statement),
        its suppressed path running on into the code after the statement. In the handler's copy
        the same path ends in the copy's closing re-raise."""
        statement = self.withs.by_handler(end)
        if statement is None or not m.b <= statement.setup < end or statement.normal_exit is not None:
            return end
        way = statement.handler.way_on
        if way is None or way <= end or self.jump_sources.get(way) \
                or self.instrs[way - 1].opname in ENDS_FLOW or self.instrs[way].opname == "RETURN_VALUE":
            return end  # (not a `return value` whose value was loaded before the copy: a clause's)
        if not any(self.withs.handler_way_on(h) == m.end for h in range(m.a, m.end)):
            return end
        return way

    def _handles_code_in(self, h: int, start: int, end: int) -> bool:
        """Is `h` the handler of some code in [start, end)?"""
        return any(r.handler == h and r.start < end and start < r.end for r in self.bc.regions)

    def _inlined_blocks_matched(self, m: _CopyMatch) -> bool:
        """Does each exit block inlined in the handler's copy match what the normal copy's jump
        to it reaches?"""
        return all(any(m.where.get(k) == yt and self._same_instructions(start, k, width) for k in m.where)
                   for start, width, yt in m.inlined)

    def _copy_jumps_agree(self, m: _CopyMatch, end: int) -> bool:
        """Do the jumps of both copies go to matching places: both inside their copy (to
        positions matched) or both out of it?"""
        instrs = self.instrs
        a = m.a
        # where the normal copy goes out in place of the handler copy's re-raises
        ways_out = {q for p, q in m.where.items() if instrs[p].opname == "RERAISE" and instrs[p].arg == 0} \
            if any(a <= k < m.end for k in self.merged_reraises) else set()
        for xt, yt in m.jumps:
            while a <= xt < m.end and xt not in m.flow:
                xt += 1  # (a target before the copy, e.g. a loop's head, stays where it is)
            xt = self._threaded_target(m, xt, yt)
            inside_x = a <= xt < m.end
            inside_y = m.b <= yt < end or any(r0 <= yt < r1 for r0, r1 in m.runs)
            if not inside_x and inside_y and yt in ways_out:
                continue  # (a jump to a merged copy of the closing re-raise: see `_step_over_gap`)
            if inside_x != inside_y or (inside_x and m.where.get(xt) != yt):
                return False
        return True

    def _threaded_target(self, m: _CopyMatch, xt: int, yt: int) -> int:
        """The target `xt` of a jump in the handler's copy, followed on through the jumps back it
        reaches while its match is not `yt` (where the normal copy threads that jump to a
        loop's head: `_dead_closing_jump_matches`)."""
        instrs = self.instrs
        seen = 0
        while m.a <= xt < m.end and m.where.get(xt) != yt and instrs[xt].opname == "JUMP" \
                and instrs[xt].target is not None and instrs[xt].target < xt and seen < 4:
            xt = instrs[xt].target
            seen += 1
        return xt

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
                j = self.withs.handler_way_on(h)
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

    def _returns_pending_value(self, m: _CopyMatch, end: int) -> bool:
        """Where the copy at `m.b`, up to `end`, drops a value the try body's return left waiting
        (`_pending_value_drop`): does the copy go on to return that value where it finishes,
        right after it? The try body's return is read only so: else that value, and what
        computing it does, would be lost. (Not where a with statement or a loop in the copy
        has ways on of its own, past the copy's end: a suppressed exception, the loop's exit.)"""
        if self.withs.in_range(m.b, end):
            return False
        if self._never_finishes(m.b, end):
            # (the copy returns or raises on every way, a loop's exits included: the try body's
            # return is read as the way into its dead end, `exit_into_dead_end`)
            return True
        if self.jumps_back_in(m.b, end):
            return False
        return end < len(self.instrs) and self.instrs[end].opname == "RETURN_VALUE"

    def _pending_value_drop(self, p: int, drop: int, q: int) -> int:
        """The length of the `SWAP 2; POP_TOP` at `q` that drops the value a return of the try
        body left waiting on the stack, where a return of the finally body replaces it, in the
        copy on that return's way out (`try: return a / finally: return b`); the handler's copy
        at `p` drops the exception there, as `drop` instructions, and restores the previous one
        (`SWAP 2; POP_TOP; SWAP 2; POP_EXCEPT`). 0 where the copy at `q` drops no such value."""
        instrs = self.instrs
        if drop != 4 or q + 2 >= len(instrs) or instrs[p].opname != "SWAP" \
                or instrs[p + drop].opname != "RETURN_VALUE":
            return 0  # (a `SWAP 2; POP_TOP` in a loop may pop its iterator instead)
        swap, pop, out = instrs[q], instrs[q + 1], instrs[q + 2]
        if swap.opname == "SWAP" and swap.arg == 2 and pop.opname == "POP_TOP" and out.opname == "RETURN_VALUE":
            return 2
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
