"""The unwinding of 3.8-3.10 blocks by `return`, `break` and `continue`.

A way out of a protected range first unwinds the blocks it leaves (POP_BLOCK, POP_EXCEPT,
CALL_FINALLY, the copied finally body, the `__exit__` call). The unwinding instructions are matched
against the open `_Block`s, innermost first, and dropped; the exit itself is left to the ordinary
return/jump rules. Block instructions met anywhere else are errors.
"""
from typing import List, Optional, Sequence

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.mangling import CO_OPTIMIZED
from depyf.decompiler.instructions import MAX_COPY as _MAX_COPY, TERMINAL, Instr
from depyf.decompiler.block_model import _ROTATIONS, _EXIT_CALL, _AWAIT, _Block
from depyf.decompiler.structure.except_clauses import is_unbinding


class BlockUnwind:
    """Recognises and drops the cleanup code of ways out; mixed into `BlockExceptionRules`."""

    def _remove_tokens(self, tokens: Sequence[n.Expr]) -> None:
        for tok in tokens:
            for k in range(len(self.stack) - 1, -1, -1):
                if self.stack[k] is tok:
                    del self.stack[k]
                    break

    # --- unwinding on return / break / continue ------------------------------------------------

    def _unwind(self, ins: Instr, i: int) -> int:
        """Match the unwinding that starts at `i` against the open blocks; return where it ends."""
        blocks = self._block_stack()
        level = len(blocks) - 1
        copied = self._copied_loop_exit(i, blocks)
        if copied is not None:
            return copied
        copied = self._copied_clause_exit(i, blocks)
        if copied is not None:
            return copied
        level = self._resumed_level(i, level)
        k = i
        matched = False
        while level >= 0:
            if matched and self.version.copies_exit_blocks and self.loops \
                    and blocks[level].info.get("loops", len(self.loops)) < len(self.loops) \
                    and blocks[level + 1].info.get("loops", len(self.loops)) == len(self.loops):
                # 3.10: the blocks inside the loop are left; the rest, unwinding blocks outside
                # it, is the loop's way out copied here (a `break`, `_copied_try_exit`)
                break
            if matched and self._op(k - 1) in ("RAISE_VARARGS", "RERAISE", "RETURN_VALUE") \
                    and any(not i <= src < k for src in self.jump_sources.get(k, ())):
                # The unwinding ran a copy of a finally body that never finishes; what follows,
                # reached by a jump from elsewhere, is that code's own (3.10 drops the dead rest
                # of this unwinding: `if c: return g()` ending a try body, whose test jumps to
                # the body's normal way out, POP_BLOCK and its own copy, right after it).
                break
            nk = self._match_unwind(blocks[level], k)
            if nk is None:
                break
            k = nk
            level -= 1
            matched = True
        if not matched:
            raise self.fail(ins, "block exit that does not match an open block")
        self._unwind_from = (k, level + 1)
        unwound = blocks[level + 1:]
        if self._unwinds_into_dead_end(i, k, unwound):
            return k
        if self.loops and all(b.info["loops"] == len(self.loops) for b in unwound):
            end = self._unwinding_break_copy(k, blocks[:level + 1])
            if end is not None:
                return end
        return k

    def _resumed_level(self, i: int, level: int) -> int:
        """The innermost block still open for an unwinding at `i`: where one ended just before
        (only rotations and pops in between, nothing jumps in), the compiler split one way out's
        unwinding in two (a value kept on the stack across it), and this one goes on below the
        blocks that one left."""
        state = self._unwind_from
        if state is not None:
            end, done = state
            if end <= i and all(self.instrs[k].opname in _ROTATIONS or self.instrs[k].opname == "POP_TOP"
                                for k in range(end, i)) \
                    and not any(self.jump_sources.get(k) for k in range(end, i + 1)):
                return done - 1
        return level

    def _unwinding_break_copy(self, k: int, outer: List[_Block]) -> Optional[int]:
        """3.10: an unwinding that ended at `k`, having left only blocks inside the innermost
        loop, is a `break` when a copy of a way out follows it (the loop's iterator popped
        first): the copied way out of the try in `outer` whose body the loop ends, or a loop
        exit copied here. Emits the break; returns where the copy ends, or None."""
        j = k
        if self._op(j) == "POP_TOP" and self.stack and isinstance(self.stack[-1], m.Iterator):
            j += 1
        outer_copy = self._copied_try_exit(j, outer)
        if outer_copy is not None:
            # A `break` that leaves the blocks inside the loop, then the loop, and then runs
            # the copied way out of the try whose body the loop ends.
            if j > k:
                self.stack.pop()
            self.emit(n.Break())
            return outer_copy
        end = self._copy_end(j)
        if end is not None and not (self._op(j) == "LOAD_CONST" and end == j + 2):
            # A value loaded only after the blocks are left: no `return` compiles so; it is a
            # `break` to a loop exit that 3.10 copied here.
            if j > k:
                self.stack.pop()
            self.emit(n.Break())
            self.note_copied_break(j, end)
            return end
        return None

    def _unwinds_into_dead_end(self, i: int, k: int, unwound: List[_Block]) -> bool:
        """3.10: does the unwinding [i, k) run a copy of a finally body that never finishes (it
        raises or returns on every path)? The compiler drops what would follow it as dead code:
        the `return`'s RETURN_VALUE, the `break`'s or `continue`'s jump. So the statement, which
        left the try body, is emitted here: `return value` with the value computed before the
        unwinding (still on the stack), else a bare `return` (a `break`, `continue` or `return
        <constant>` compile alike here, and none of them is ever completed); in a class or
        module body, which cannot return, a `break` of a loop around the whole try."""
        if self.version.keeps_code_after_raise or self.version.removes_dead_code_to_label_only:
            return False  # (3.9 keeps that dead code after the copy, and reads it as written)
        if not any(b.kind == "finally-body-copy" for b in unwound) or k <= i \
                or self._op(k - 1) not in ("RAISE_VARARGS", "RERAISE", "RETURN_VALUE") \
                or any(i <= src < k for src in self.jump_sources.get(k, ())):
            return False
        base = unwound[0].info.get("stack", [])
        value: Optional[n.Expr] = None
        if self.stack and (len(self.stack) > len(base) or self.stack[-1] is not base[len(self.stack) - 1]):
            value = self.pop()
        if value is None and not self.code.co_flags & CO_OPTIMIZED:
            if not self.loops or unwound[0].info.get("loops", 0) != len(self.loops):
                raise self.fail(self.instrs[i], "way out of a try body whose finally body never finishes")
            self.emit(n.Break())
            return True
        self.emit(n.Return(value))
        return True

    def _copy_end(self, j: int) -> Optional[int]:
        for e in range(j + 1, min(j + _MAX_COPY, len(self.instrs)) + 1):
            if self.instrs[e - 1].opname in TERMINAL:
                return e if self._is_copy(j, e) else None
        return None

    def _copied_loop_exit(self, i: int, blocks: List[_Block]) -> Optional[int]:
        """3.10: a `break` from a loop inside a try body whose exit (the try's way out) was copied."""
        end = self._copied_try_exit(i, blocks)
        if end is not None:
            self.emit(n.Break())
        return end

    def _copied_clause_exit(self, i: int, blocks: List[_Block]) -> Optional[int]:
        """3.10: a branch of an except clause that ends in a copy of the clause's way out
        (POP_EXCEPT and the copied block after the statement): the end of that branch, whose if
        has the rest of the clause as its else part (`markers.fold_end_copies`)."""
        if not blocks or (self._op(i), blocks[-1].kind) not in (("POP_EXCEPT", "handler"),
                                                                 ("POP_BLOCK", "named-handler"),
                                                                 ("POP_BLOCK", "except-body")):
            return None  # (`except E as e:` leaves its hidden try/finally first)
        span = blocks[-1].info.get("exit_span")
        if span is None or span[0] == i:
            return None
        if blocks[-1].kind == "except-body" and self._op(span[1] - 1) not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return None  # (a try body's `continue` is a statement of its own, not a copy)
        length = span[1] - span[0]
        if not self._same_code(span, (i, i + length)):
            return None
        self.emit(m.EndOfFinallyCopy())
        return i + length

    def _copied_try_exit(self, i: int, blocks: List[_Block]) -> Optional[int]:
        """Where a copy at `i` of the way out (POP_BLOCK and the copied block after it) of the try
        body innermost in `blocks` ends, when a loop inside that body is left there."""
        if not blocks or not self.loops or self._op(i) != "POP_BLOCK":
            return None
        block = blocks[-1]
        span = block.info.get("exit_span")
        if span is None or span[0] == i or len(self.loops) <= block.info["loops"]:
            return None
        length = span[1] - span[0]
        if not self._same_code(span, (i, i + length)):
            return None
        return i + length

    def _match_unwind(self, block: _Block, k: int) -> Optional[int]:
        """If the instructions at `k` unwind `block`, apply it to the stack and return what follows."""
        op = self._op(k)
        kind = block.kind
        nk: Optional[int] = None
        if kind == "except-body" and op == "POP_BLOCK":
            nk = k + 1
        elif kind == "finally-body-call" and op == "POP_BLOCK":
            nk = self._unwinds_finally_call(block, k)
        elif kind == "finally-body-copy" and op == "POP_BLOCK":
            nk = self._unwinds_finally_copy(block, k)
        elif kind == "with" and op == "POP_BLOCK":
            nk = self._unwinds_with(k)
        elif kind == "handler":
            nk = self._unwinds_handler(k)
        elif kind == "named-handler":
            nk = self._unwinds_named_handler(block, k)
        elif kind == "finally-handler":
            nk = self._unwinds_finally_handler(block, k, op)
        if nk is not None:
            self._remove_tokens(block.tokens)
        return nk

    def _unwinds_finally_call(self, block: _Block, k: int) -> Optional[int]:
        """3.8: the POP_BLOCK at `k` leaves a try body whose finally block is called (CALL_FINALLY)."""
        nk: Optional[int] = None
        # The slot kept for a finally body that returns is dropped first (`ROT_TWO; POP_TOP`
        # when a return value sits above it).
        j = k + 1
        dropped = not block.tokens
        if not dropped and self._ops_at(j, ("ROT_TWO", "POP_TOP")):
            j, dropped = j + 2, True
        elif not dropped and self._op(j) == "POP_TOP":
            j, dropped = j + 1, True
        if self._op(j) == "CALL_FINALLY":
            nk = j + 1
            if not dropped and self._op(nk) == "POP_TOP":
                nk += 1  # a constant return drops the slot after the finally block ran
        return nk

    def _unwinds_finally_copy(self, block: _Block, k: int) -> Optional[int]:
        """3.9+: the POP_BLOCK at `k` leaves a try body, a copy of the finally body follows."""
        self._copied_continuation = None
        nk = self._match_finally_copy(k + 1, block.info["start"], block.info["end"])
        cont = self._copied_continuation
        if nk is not None and cont is not None and cont[0] < nk \
                and not self._same_code(cont, (nk, nk + cont[1] - cont[0])):
            # 3.10: the finally body ends in a construct of its own (`try: ... finally:`),
            # whose normal way out holds the code that follows the unwinding (the
            # `return`) and whose handler comes after it: the unwinding ends at that code,
            # and the handler's copy is never reached from the source's point of view.
            # (Where one more copy of that code ends the copy, the unwinding ends there.)
            self._mark_dead_span(cont[1], nk)
            nk = cont[0]
        elif nk is not None and self._return_tail_length(nk) \
                and cont == (nk, nk + self._return_tail_length(nk)) \
                and self._same_code(cont, (cont[1], 2 * cont[1] - nk)) and self.jump_sources.get(cont[1]) \
                and all(k < src < nk for src in self.jump_sources[cont[1]]):
            # The branch of the finally body's last `if` goes on to a duplicate of the return
            # the copy ends at: both are that return.
            self._mark_dead_span(cont[1], 2 * cont[1] - nk)
        elif nk is not None and cont is None and self.version.copies_exit_blocks:
            self._drop_branch_copy_of_way_on(k + 1, nk)
        return nk

    def _unwinds_with(self, k: int) -> Optional[int]:
        """The POP_BLOCK at `k` leaves a with body: the exit call follows."""
        instrs = self.instrs
        nk: Optional[int] = None
        j = k + 1
        while self._op(j) in _ROTATIONS:
            j += 1
        if self._ops_at(j, ("BEGIN_FINALLY", "WITH_CLEANUP_START")):
            j += 2
            if self._ops_at(j, _AWAIT):
                j += 3
            if self._ops_at(j, ("WITH_CLEANUP_FINISH", "POP_FINALLY")):
                nk = j + 2
        elif self._ops_at(j, _EXIT_CALL) and instrs[j].argval is None:
            j += 4
            if self._ops_at(j, _AWAIT):
                j += 3
            if self._op(j) == "POP_TOP":
                nk = j + 1
        return nk

    def _unwinds_handler(self, k: int) -> Optional[int]:
        """An except clause's POP_EXCEPT at `k` (after rotations)."""
        nk: Optional[int] = None
        j = k
        while self._op(j) in _ROTATIONS:
            j += 1
        if self._op(j) == "POP_EXCEPT":
            nk = j + 1
        return nk

    def _unwinds_named_handler(self, block: _Block, k: int) -> Optional[int]:
        """An `except ... as name` clause left at `k`: its hidden try/finally, then POP_EXCEPT and the
        unbinding of the name."""
        nk: Optional[int] = None
        j = k
        while self._op(j) in _ROTATIONS:
            j += 1
        if self._op(j) == "POP_BLOCK":
            j += 1
            while self._op(j) in _ROTATIONS:
                j += 1
            if self._ops_at(j, ("POP_EXCEPT", "CALL_FINALLY")):
                nk = j + 2
            elif self._op(j) == "POP_EXCEPT" and self._is_name_cleanup(j + 1, block.info["name"]):
                nk = j + 4
        return nk

    def _unwinds_finally_handler(self, block: _Block, k: int, op: str) -> Optional[int]:
        """A finally block left at `k`: POP_FINALLY (3.8), or the handler's POP_TOPs and POP_EXCEPT."""
        nk: Optional[int] = None
        if op == "POP_FINALLY":
            nk = k + 1
        else:
            j = k
            while self._op(j) in _ROTATIONS or self._op(j) == "POP_TOP":
                j += 1
            if self._op(j) == "POP_EXCEPT":
                # The POP_TOPs before it may already have dropped some of the block's slots.
                for jj in range(k, j):
                    if self._op(jj) == "POP_TOP":
                        self._pop_token(block)
                nk = j + 1
        return nk

    def _pop_token(self, block: _Block) -> None:
        if self.stack and any(self.stack[-1] is t for t in block.tokens):
            self.stack.pop()

    def _is_name_cleanup(self, k: int, name: str) -> bool:
        """`e = None; del e` at `k`: the end of an `except ... as e` body."""
        return is_unbinding(self.instrs, k, name)

    def op_POP_BLOCK(self, ins: Instr, i: int) -> int:
        return self._unwind(ins, i)

    def op_POP_EXCEPT(self, ins: Instr, i: int) -> Optional[int]:
        if self.version.has_exception_table:
            return super().op_POP_EXCEPT(ins, i)  # type: ignore[misc]
        return self._unwind(ins, i)

    def op_POP_FINALLY(self, ins: Instr, i: int) -> int:
        return self._unwind(ins, i)

    def op_CALL_FINALLY(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "finally call outside a try body")

    def op_BEGIN_FINALLY(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "finally entry outside a try/finally")

    def op_END_FINALLY(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "end of a finally block outside a try/finally")

    def op_RERAISE(self, ins: Instr, i: int) -> int:
        if i in self.finally_end_copies:  # found where the finally statement was read
            self.emit(n.Break() if self._finally_end_leaves_loop(i) else m.EndOfFinallyCopy())
            return i + 1
        raise self.fail(ins, "re-raise outside an exception handler")

    def op_WITH_CLEANUP_START(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "with cleanup outside a with statement")

    op_WITH_CLEANUP_FINISH = op_WITH_CLEANUP_START

    op_WITH_EXCEPT_START = op_WITH_CLEANUP_START

    def op_JUMP_IF_NOT_EXC_MATCH(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "exception match outside an except clause")

    def op_END_ASYNC_FOR(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "end of an async for loop outside the loop")
