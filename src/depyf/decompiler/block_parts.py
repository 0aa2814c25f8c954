"""Finding the parts of a 3.8-3.10 protected block: where a body ends, how it leaves, copies.

The compiler of these versions copies small exit blocks (`return None`, a loop's way on) onto
every way out; these helpers tell such copies from code of its own and find where a part ends.
"""
from typing import List, Optional, Sequence, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY as _MAX_COPY, TERMINAL
from depyf.decompiler.structure.copies import same_code
from depyf.decompiler.block_model import _SETUPS, _BLOCK_OPS, _ROTATIONS, _EXIT_CALL, _AWAIT, Exit, _Block


class BlockParts:
    """Where the parts of a block-stack construct end and how they leave; mixed into `BlockExceptionRules`."""

    # --- small helpers ------------------------------------------------------------------------

    def _ops_at(self, k: int, names: Sequence[str]) -> bool:
        instrs = self.instrs
        if k < 0 or k + len(names) > len(instrs):
            return False
        return all(instrs[k + j].opname == name for j, name in enumerate(names))

    def _op(self, k: int) -> str:
        return self.instrs[k].opname if 0 <= k < len(self.instrs) else ""

    def _block_stack(self) -> List[_Block]:
        blocks = self.__dict__.get("_open_blocks")
        if blocks is None:
            blocks = self._open_blocks = []
            self._unwind_from: Optional[Tuple[int, int]] = None
        return blocks

    def _run_in(self, block: Optional[_Block], start: int, end: int, stack: List[n.Expr]) -> List[n.Stmt]:
        blocks = self._block_stack()
        if block is not None:
            block.info["loops"] = len(self.loops)
            block.info["span"] = (start, end)
            block.info["stack"] = list(stack)
            blocks.append(block)
        try:
            return self.run_range(start, end, stack)
        finally:
            if block is not None:
                blocks.pop()

    def _is_copy(self, s: int, e: int) -> bool:
        """Is [s, e) a small straight block ending the function, as the compiler copies it?"""
        if not 0 < e - s <= _MAX_COPY:
            return False
        instrs = self.instrs
        if instrs[e - 1].opname not in TERMINAL:
            return False
        if instrs[s].opname in TERMINAL and not (e - s == 1 and instrs[s].opname == "RAISE_VARARGS"
                                                  and instrs[s].arg == 0):
            return False  # (a bare `raise` needs no value computed before: it can be a copy)
        if not self.version.copies_exit_blocks:
            return False
        # A `return value` inside a for loop drops the loop's iterator under the value first.
        loop = self.loops[-1] if self.loops else None
        below: List[n.Expr] = []
        value_end = e - 1
        if loop is not None and loop.iterator is not None and e - 3 > s \
                and self._ops_at(e - 3, ("ROT_TWO", "POP_TOP", "RETURN_VALUE")):
            below, value_end = [loop.iterator], e - 3
        if any(ins.is_jump or ins.opname in _BLOCK_OPS or ins.opname in _ROTATIONS
               or ins.opname in TERMINAL for ins in instrs[s:value_end]):
            return False
        # A copied block starts from an empty stack; the end of an unwinding that returns a value
        # computed before it (a finally body copied in front of the return) does not.
        # Running it can ask the same question of the same block again (a construct starting there
        # checks for a copied exit): inside that reading, the block is no copy.
        asking = (s, e, len(self.loops))
        if asking in self.copies_being_checked:
            return False
        self.copies_being_checked.add(asking)
        try:
            self.run_range(s, e, below)
        except NOT_A_MISREADING:
            raise  # out of stack or memory: every other reading would fail alike
        except Exception:
            return False
        finally:
            self.copies_being_checked.discard(asking)
        return True

    def _shared_way_out(self, k: int) -> bool:
        """Is the way out of a clause at `k` both jumped to and fallen into? 3.10 gives each way
        to a copied block (with the unwinding in front of it) its own copy; one shared block
        there holds a statement written out (`return`), not a copy of what follows."""
        return bool(self.jump_sources.get(k)) and self._op(k - 1) not in ENDS_FLOW

    def _is_handler_return_copy(self, s: int, e: int) -> bool:
        """Is [s, e) a copied `return value` that leaves the except clause around it: a small
        value, the clause's unwinding (rotations, POP_EXCEPT) and RETURN_VALUE? (3.10 copies it
        like any small block that ends the function.)"""
        if not self.version.copies_exit_blocks or not 0 < e - s <= _MAX_COPY:
            return False
        value_end = e - 3
        if value_end <= s or not self._ops_at(value_end, ("ROT_FOUR", "POP_EXCEPT", "RETURN_VALUE")):
            return False
        return not any(ins.is_jump or ins.opname in _BLOCK_OPS or ins.opname in _ROTATIONS
                       or ins.opname in TERMINAL for ins in self.instrs[s:value_end])

    def _same_code(self, a: Tuple[int, int], b: Tuple[int, int]) -> bool:
        return same_code(self.instrs, a, b)

    def _live_end(self, start: int, end: int) -> int:
        """The end of what [start, end) can reach from `start`: a body that never finishes may be
        followed by its dead normal way out, which the optimiser kept behind a SETUP_FINALLY."""
        instrs = self.instrs
        seen = set()
        todo = [start]
        furthest = start - 1
        while todo:
            k = todo.pop()
            while start <= k < end and k not in seen:
                seen.add(k)
                furthest = max(furthest, k)
                ins = instrs[k]
                if ins.target is not None and start <= ins.target < end:
                    todo.append(ins.target)
                if ins.opname in ENDS_FLOW:
                    break
                k += 1
        return furthest + 1 if furthest >= start else end

    def _outer_exit(self, k: int, end: int, loop_break: bool = False) -> Exit:
        """3.10: [k, end) leaves enclosing blocks and then runs a copied exit block: the part falls
        off the end of the enclosing constructs, whose way out was copied here. The outermost
        block left is told, so that its construct places the copied statements after itself."""
        if not self.version.copies_exit_blocks:
            return None
        blocks = self._block_stack()
        saved = list(self.stack)
        unwound: List[_Block] = []
        level = len(blocks) - 1
        start = k
        try:
            while level >= 0 and k < end:
                nk = self._match_unwind(blocks[level], k)
                if nk is None:
                    break
                unwound.append(blocks[level])
                k = nk
                level -= 1
        finally:
            self.stack = saved
        if self._op(k) == "RERAISE" and k + 1 == end and level >= 0 \
                and blocks[level].kind == "finally-handler":
            # The end of an enclosing finally body (its RERAISE), copied here: nothing to add.
            return ("outer", blocks[level], k, k)
        if not unwound and level >= 0 and blocks[level].kind == "finally-handler":
            original = self._finally_end_block(blocks[level], k, end)
            if original is not None:
                return ("jump", original)
        # The copied block is the enclosing construct's way out itself, so it is small; a longer
        # unwinding (a with's __exit__ call) followed by a return is a `return` of a constant.
        if not unwound or end - start > _MAX_COPY - 1 or not self._is_copy(k, end):
            return None
        if end - k == 2 and self._ops_at(k, ("LOAD_CONST", "RETURN_VALUE")) and (
                not self._const_return_elsewhere(k) or not self._copies_way_out(unwound[-1], k, end)):
            # (a `return <constant>` loads its value after the unwinding: with no such return
            # anywhere else to be a copy of, or when the outermost block left goes on to other
            # code, it is the part's own statement)
            return None
        if any(b.info.get("loops", len(self.loops)) < len(self.loops) for b in unwound):
            # (a loop lies between: leaving a block opened outside it leaves the loop, a `break`
            # whose loop exit, the rest of that block, was copied here: ("break",) if asked)
            return ("break",) if loop_break else None
        return ("outer", unwound[-1], k, end)

    def _copies_way_out(self, block: _Block, k: int, end: int) -> bool:
        """Can [k, end) be the copy of where `block`'s construct goes on? Unknown (the body never
        finishes, or its way out was copied too) counts as yes."""
        target = block.info.get("way_out")
        seen = set()
        while target is not None and self._op(target) == "JUMP" and target not in seen:
            seen.add(target)
            target = self.instrs[target].target
        return target is None or self._same_code((k, end), (target, target + end - k))

    def _const_return_elsewhere(self, k: int) -> bool:
        """Does the `LOAD_CONST; RETURN_VALUE` at `k` stand elsewhere too, where no unwinding
        comes before it (the code it could be a copy of)?"""
        instrs = self.instrs
        value = instrs[k].argval
        return any(p != k and self._ops_at(p, ("LOAD_CONST", "RETURN_VALUE")) and repr(instrs[p].argval) == repr(value)
                   and (p == 0 or self._op(p - 1) not in ("POP_BLOCK", "POP_EXCEPT", "POP_TOP"))
                   for p in range(len(instrs) - 1))

    def _note_outer(self, exit: Exit) -> bool:
        """Record an ("outer", block, start, end) way out on its block; True if it was one."""
        if exit is None or exit[0] != "outer":
            return False
        exit[1].info.setdefault("pending", (exit[2], exit[3]))
        return True

    def _tail_after(self, p: int, end: int, forward_from: int) -> Exit:
        """The way out after the unwinding instruction at `p` of a part ending at `end`."""
        if p + 2 == end and self.instrs[p + 1].opname == "JUMP":
            t = self.instrs[p + 1].target
            if t >= forward_from and not (t > self.end and self.loops and self._leaves_loop(t)):
                return ("jump", t)
            # (A jump out of the enclosing loop, past the range being read: a `break`.)
            return ("tail", p + 1, end)
        if self._is_copy(p + 1, end):
            return ("tail", p + 1, end)
        return None

    def _body_exit(self, start: int, h: int) -> Tuple[int, Exit]:
        """Where the protected body [start, h) ends normally, and how it leaves."""
        instrs = self.instrs
        if h - 2 >= start and instrs[h - 2].opname == "POP_BLOCK" and instrs[h - 1].opname == "JUMP":
            return h - 2, self._tail_after(h - 2, h, h)
        for pb in range(h - 2, max(start, h - _MAX_COPY - 1) - 1, -1):
            if instrs[pb].opname == "POP_BLOCK":
                while pb - 1 >= start and instrs[pb - 1].opname == "POP_BLOCK":
                    pb -= 1
                if pb + 2 == h and pb + 1 in self.finally_end_copies:
                    # (3.10: a copy of the closing re-raise of the finally body around that is a
                    # `break` of a loop in it: the try's else part)
                    return pb, ("tail", pb + 1, h)
                outer = self._outer_exit(pb + 1, h, loop_break=True)
                if outer == ("break",):
                    # The body ends in a `break` (read by the unwinding, `_unwind`).
                    return self._live_end(start, h), None
                if outer is not None:
                    return pb, outer
                if self._is_copy(pb + 1, h) or self._is_handler_return_copy(pb + 1, h):
                    # (3.10: the code after a try whose handlers never finish, up to its return,
                    # needs no jump: it follows the POP_BLOCK, even when that return leaves an
                    # enclosing except clause first)
                    return self._before_duplicate(start, pb, h), ("tail", pb + 1, h)
                break
        return self._live_end(start, h), None

    def _dead_pop_block_after_return(self, start: int, body_end: int, h: int) -> bool:
        """3.8/3.9: is the try body's POP_BLOCK (at `body_end`, before the jump to the else part)
        unreachable after a return? The optimiser removes the code after a return up to the next
        label, so one kept means that the body's last statement was compound (an if whose every
        branch returns: `if a: return x else: return y`)."""
        pb = body_end
        return self.version.removes_dead_code_to_label_only and start < pb == h - 2 and self._op(pb) == "POP_BLOCK" \
            and self._op(pb - 1) == "RETURN_VALUE" and not self.jump_sources.get(pb)

    def _dead_return_after_copy(self, body: List[n.Stmt], left: List[n.Expr], outer: List[n.Expr],
                                body_end: int, limit: int) -> None:
        """3.8/3.9: a block's body [.., body_end) ends in `return value` through the copy of an
        enclosing finally body that never finishes; the body stops before the RETURN_VALUE kept
        after that copy's raise (behind the POP_BLOCKs of the blocks further out), which nothing
        reaches. The value was computed before the copy (left on the stack, it and its side
        effects would be lost): append the return to `body`. (The value is the one thing left
        above the block's stack; a clause's unwinding inside the body, `ROT_FOUR; POP_EXCEPT`
        of `except E: try: return x`, took the handler's values from under it.)"""
        ret = self._dead_unwinding_end(body_end, limit)
        if left and not isinstance(left[-1], m.MARKER_TYPES) and all(v is not left[-1] for v in outer) \
                and len(left) <= len(outer) + 1 and ret < limit \
                and self.version.keeps_code_after_raise and self._op(ret) == "RETURN_VALUE" \
                and not self.jump_sources.get(ret) and self._op(body_end - 1) in ("RAISE_VARARGS", "RERAISE"):
            body.append(n.Return(left.pop()))

    def _dead_unwinding_end(self, k: int, limit: int) -> int:
        """Past the rest of a `return value`'s unwinding of enclosing blocks at `k`, kept after
        the raise of a finally body's copy (`_dead_return_after_copy`), which nothing jumps into:
        POP_BLOCKs, a for loop's iterator dropped under the value (`ROT_TWO; POP_TOP`), a with's
        exit call (`ROT_TWO`, `__exit__(None, None, None)`, awaited in an async with, `POP_TOP`)."""
        while k < limit and not self.jump_sources.get(k):
            if self._op(k) == "POP_BLOCK":
                k += 1
            elif self._ops_at(k, ("ROT_TWO", "POP_TOP")):
                k += 2
            elif self._op(k) == "ROT_TWO" and self._ops_at(k + 1, _EXIT_CALL) and self.instrs[k + 1].argval is None:
                j = k + 5 + (3 if self._ops_at(k + 5, _AWAIT) else 0)
                if self._op(j) != "POP_TOP" or any(self.jump_sources.get(r) for r in range(k + 1, j + 1)):
                    break
                k = j + 1
            else:
                break
        return k

    def _jumps_past(self, start: int, p: int) -> bool:
        """Does code in [start, p) jump past `p`? (Then `p` lies inside a branch, not where all
        of that code falls into.)"""
        return any(ins.target is not None and ins.target > p for ins in self.instrs[start:p])

    def _inside_block(self, start: int, p: int) -> bool:
        """Does a block set up in [start, p) still protect `p`? (A copy there belongs to that
        later statement, not to the code after the one being built.)"""
        return any(self.instrs[k].opname in _SETUPS and self.instrs[k].target > p for k in range(start, p))

    def _duplicates(self, starts: List[int]) -> bool:
        """Are the blocks at `starts` (ascending, adjacent) copies of one another?"""
        for a, b in zip(starts, starts[1:]):
            length = b - a
            if b + length > len(self.instrs) or not self._same_code((a, b), (b, b + length)):
                return False
        return True

    def _before_duplicate(self, start: int, end: int, upto: Optional[int] = None) -> int:
        """3.10 may end a part that falls into `end` with a duplicate of the code at `end` (the way
        out of an enclosing try/finally); the part stops where that duplicate begins. With `upto`,
        only a duplicate of exactly [end, upto) counts."""
        if upto is not None:
            # A loop in the part that leaves both by its end and by a `break` (or by its first
            # test) can hold more than one such duplicate, back to back.
            original, length = (end, upto), upto - end
            while self.version.copies_exit_blocks and end - length >= start \
                    and self._same_code((end - length, end), original):
                end -= length
            return end
        if not self.version.copies_exit_blocks:
            # (before 3.10 such code is written twice in the source: `else: if c: f(); return`
            # before the implicit `return None` is the if's body, which the test's jump skips)
            return end
        for length in range(end - start, 0, -1):
            if end + length <= len(self.instrs) and self._same_code((end - length, end), (end, end + length)) \
                    and self.instrs[end + length - 1].opname in TERMINAL:
                return end - length
        return end

    def _flows_to(self, start: int, k: int) -> bool:
        """Does ordinary control flow from `start` (jumps, not handlers) reach `k`?"""
        instrs = self.instrs
        seen: Set[int] = set()
        todo = [start]
        while todo:
            q = todo.pop()
            while 0 <= q < len(instrs) and q not in seen:
                if q == k:
                    return True
                seen.add(q)
                ins = instrs[q]
                if ins.is_jump and ins.opname not in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"):
                    todo.append(ins.target)
                if ins.opname in ENDS_FLOW:
                    break
                q += 1
        return False

    def _runs_straight_into(self, start: int, k: int) -> bool:
        """Does the code from `start` reach `k` without an unconditional jump or a return/raise
        (conditional jumps may be taken or not)?"""
        instrs = self.instrs
        q = start
        while q < k:
            if instrs[q].opname in ENDS_FLOW:
                return False
            q += 1
        return q == k

    def _mark_dead_span(self, start: int, end: int) -> None:
        for k in range(start, end):
            self.skip[k] = end

    def _leaves_loop(self, target: int) -> bool:
        return any(target in loop.continue_targets or target == loop.break_target or target >= loop.exit
                   for loop in self.loops)

    def _first_of_copies(self, pb: int, ce: int, h: int) -> int:
        """Where the first of back-to-back copies of one small way out, [ce, h), ends: 3.10 gives
        each way out of a copied finally body (a loop in it: its test's exit, its `break`, falling
        off it) its own copy of the enclosing construct's way out, and the copy of the body at
        [pb, ce) jumps to the later ones. `h` when [ce, h) is not such copies."""
        for size in range(1, _MAX_COPY + 1):
            if (h - ce) % size or h - ce < 2 * size:
                continue
            later = range(ce + size, h, size)
            if all(self._same_code((ce, ce + size), (p, p + size)) for p in later) \
                    and all(self.jump_sources.get(p) and all(pb < src < ce for src in self.jump_sources[p])
                            for p in later):
                return ce + size
        return h
