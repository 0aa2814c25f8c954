"""try/except/finally, `with`/`async with` and `async for` on the block-stack bytecode (3.8-3.10).

Before 3.11 a protected range is opened by SETUP_FINALLY / SETUP_WITH / SETUP_ASYNC_WITH (whose
argument is the handler) and closed by POP_BLOCK. A construct is recognised at its SETUP
instruction from the shape of its handler, and its parts are decompiled by running sub-ranges:

* try/except: the handler compares the exception (`DUP_TOP; E; exception match; jump to the next
  handler`) or is bare (`POP_TOP` x3); `except E as e` wraps its body in a hidden try/finally that
  runs `e = None; del e`;
* try/finally: 3.8 enters the finally block with BEGIN_FINALLY / CALL_FINALLY and leaves it with
  END_FINALLY / POP_FINALLY; 3.9 and 3.10 copy the finally body onto every way out of the try body
  and end the exceptional copy with RERAISE;
* with: SETUP_WITH pushes `__exit__`; the way out calls it (3.8: WITH_CLEANUP_START/FINISH, 3.9+:
  `__exit__(None, None, None)`), the handler is WITH_CLEANUP_* or WITH_EXCEPT_START.

Every `return`, `break` and `continue` inside such a range first *unwinds* the blocks it leaves
(POP_BLOCK, POP_EXCEPT, CALL_FINALLY, the copied finally body, the `__exit__` call). Each construct
pushes a `_Block` while its parts run; the unwinding instructions are matched against those blocks,
innermost first, and dropped, so the exit itself is left to the ordinary return/jump rules.

The normal way out of a part is either a jump to the end of the construct or, on 3.10, a copy of a
small block that ends the function (`return None`): such a tail is decompiled as the statements that
follow the construct, which the compiler copies back into every path.
"""
from typing import Any, List, Optional, Sequence, Set, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.mangling import CO_OPTIMIZED
from depyf.decompiler.errors import NOT_A_MISREADING
from depyf.decompiler.control import COND_JUMPS, _drop_trailing_continue, fold_tail_into_else
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY as _MAX_COPY, TERMINAL, Instr

_SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
_BLOCK_OPS = frozenset({"POP_BLOCK", "POP_EXCEPT", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
                        "CALL_FINALLY", "POP_FINALLY", "BEGIN_FINALLY", "END_FINALLY"})
_ROTATIONS = frozenset({"ROT_TWO", "ROT_THREE", "ROT_FOUR"})
_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_DELETES = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})
_EXIT_CALL = ("LOAD_CONST", "DUP_TOP", "DUP_TOP", "CALL_FUNCTION")
_AWAIT = ("GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM")
#: The longest way on after a finally body's copy that `_drop_branch_copy_of_way_on` compares.
_MAX_WAY_ON = 64

# Exit shape: ("jump", target) for a jump past the construct's parts, ("tail", start, end) for code
# that continues after the part (a backward jump, a copied return), None when the part never ends.
Exit = Optional[Tuple[Any, ...]]


def _never_falls_through(stmts: List[n.Stmt]) -> bool:
    """Does the last statement of `stmts` leave the block (return, raise)?"""
    return bool(stmts) and isinstance(stmts[-1], (n.Return, n.Raise))


class _Block:
    """One open block while its part is decompiled.

    `kind` says how a way out unwinds it; `tokens` are the stack slots the block occupies (removed
    when it is unwound); `info` holds what a kind needs (the finally body range, the name bound by
    `except ... as`).
    """

    __slots__ = ("kind", "tokens", "info")

    def __init__(self, kind: str, tokens: Sequence[n.Expr] = (), **info: Any) -> None:
        self.kind = kind
        self.tokens = list(tokens)
        self.info = info


class _AsyncContext(n.Expr):
    """The context manager of an `async with` between BEFORE_ASYNC_WITH and SETUP_ASYNC_WITH."""
    __slots__ = ("value",)

    def __init__(self, value: n.Expr) -> None:
        self.value = value


def _token(what: str) -> m.Sentinel:
    return m.Sentinel(what)


class BlockExceptionRules:
    """Exception-handling constructs of 3.8-3.10; mixed into `builder.CodeBuilder`."""

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
        (s1, e1), (s2, e2) = a, b
        if e1 - s1 != e2 - s2:
            return False
        for x, y in zip(self.instrs[s1:e1], self.instrs[s2:e2]):
            if x.opname != y.opname or (x.argval != y.argval and not x.is_jump):
                return False
            if x.is_jump and x.target != y.target:
                return False
        return True

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

    def _finally_end_block(self, block: _Block, k: int, end: int) -> Optional[int]:
        """3.10: is [k, end) a copy of the small block that closes the exceptional copy of a
        finally body (the statements after the last construct in it, then RERAISE)? Where that
        block starts, if so: the construct's way out goes there.

        `try: f() finally: if c: try: g() except E: pass` + `x = 1`: the ways out of the inner
        try each get `x = 1; RERAISE`, which the `if`'s false branch reaches as written."""
        closing = block.info.get("closing")
        if closing is None or self._op(end - 1) != "RERAISE" or end - k > _MAX_COPY:
            return None
        start = closing + 1 - (end - k)
        if start <= k or not self._same_code((k, end), (start, closing + 1)):
            return None
        if any(ins.is_jump or ins.opname in _BLOCK_OPS or ins.opname in TERMINAL
               for ins in self.instrs[start:closing]):
            return None
        return start

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
        state = self._unwind_from
        if state is not None:
            end, done = state
            if end <= i and all(self.instrs[k].opname in _ROTATIONS or self.instrs[k].opname == "POP_TOP"
                                for k in range(end, i)) \
                    and not any(self.jump_sources.get(k) for k in range(end, i + 1)):
                level = done - 1
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
            j = k
            if self._op(j) == "POP_TOP" and self.stack and isinstance(self.stack[-1], m.Iterator):
                j += 1
            outer_copy = self._copied_try_exit(j, blocks[:level + 1])
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
        return k

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
        instrs = self.instrs
        op = self._op(k)
        kind = block.kind
        nk: Optional[int] = None
        if kind == "except-body" and op == "POP_BLOCK":
            nk = k + 1
        elif kind == "finally-body-call" and op == "POP_BLOCK":
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
        elif kind == "finally-body-copy" and op == "POP_BLOCK":
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
        elif kind == "with" and op == "POP_BLOCK":
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
        elif kind == "handler":
            j = k
            while self._op(j) in _ROTATIONS:
                j += 1
            if self._op(j) == "POP_EXCEPT":
                nk = j + 1
        elif kind == "named-handler":
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
        elif kind == "finally-handler":
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
        if nk is not None:
            self._remove_tokens(block.tokens)
        return nk

    def _pop_token(self, block: _Block) -> None:
        if self.stack and any(self.stack[-1] is t for t in block.tokens):
            self.stack.pop()

    def _is_name_cleanup(self, k: int, name: str) -> bool:
        """`e = None; del e` at `k`: the end of an `except ... as e` body."""
        instrs = self.instrs
        return self._op(k) == "LOAD_CONST" and instrs[k].argval is None \
            and self._op(k + 1) in _STORES and instrs[k + 1].argval == name \
            and self._op(k + 2) in _DELETES and instrs[k + 2].argval == name

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

    def _finally_end_leaves_loop(self, i: int) -> bool:
        """Is the copy of a finally body's closing re-raise at `i` a `break` out of a loop inside
        that body (3.10+ copy the re-raise to where the break jumps)? The loop's head is then
        handler code in the same protected range as `i`; a loop around the whole try is not."""
        if not self.loops:
            return False
        if not self.version.has_exception_table:
            # 3.10: the loop was opened while the finally body was read.
            handler = next((b for b in reversed(self._block_stack()) if b.kind == "finally-handler"), None)
            return handler is not None and handler.info.get("loops", len(self.loops)) < len(self.loops)
        loop = self.loops[-1]
        head = min(loop.continue_targets)
        if not head < i < loop.body_end:
            return False
        region_at = self._xt_state.region_at  # type: ignore[attr-defined]
        inside, own = region_at[head], region_at[i]
        if own is None:
            return False
        # (a try that starts the loop body protects the head with its own handler, whose code
        # the same range protects in turn: `while True: try: f() / except E: pass / else: break`)
        for _ in range(50):
            if inside is None or inside.handler == own.handler:
                break
            nxt = region_at[inside.handler] if inside.handler < len(region_at) else None
            if nxt is None or nxt.handler <= inside.handler:
                return False
            inside = nxt
        return inside is not None and inside.handler == own.handler

    def fold_end_copies(self, finalbody: List[n.Stmt], h: int) -> List[n.Stmt]:
        """The finally body read from `h`, with the branches that reach a copy of its closing
        re-raise folded into if/else (`markers.fold_end_copies`)."""
        folded = m.fold_end_copies(finalbody)
        if m.has_end_copies(folded):
            raise self.fail(self.instrs[h], "copied end of a finally body in an unexpected place")
        return folded

    def op_WITH_CLEANUP_START(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "with cleanup outside a with statement")

    op_WITH_CLEANUP_FINISH = op_WITH_CLEANUP_START
    op_WITH_EXCEPT_START = op_WITH_CLEANUP_START

    def op_JUMP_IF_NOT_EXC_MATCH(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "exception match outside an except clause")

    def op_END_ASYNC_FOR(self, ins: Instr, i: int) -> int:
        raise self.fail(ins, "end of an async for loop outside the loop")

    def op_BEFORE_ASYNC_WITH(self, ins: Instr, i: int) -> Optional[int]:
        if self.version.has_exception_table:
            return super().op_BEFORE_ASYNC_WITH(ins, i)  # type: ignore[misc]
        self.stack.append(_AsyncContext(self.pop()))
        return None

    # --- try ----------------------------------------------------------------------------------

    def op_SETUP_FINALLY(self, ins: Instr, i: int) -> int:
        h = ins.target
        if self._op(i + 1) == "GET_ANEXT":
            if i in self.active_loops:
                raise self.fail(ins, "async for loop header reached twice")
            return self.async_for_loop(i)  # a loop whose body never goes back (no back edge)
        if self._op(h) == "DUP_TOP" or (self._ops_at(h, ("POP_TOP", "POP_TOP", "POP_TOP"))
                                        and not self._finally_exit_at(h)):
            return self._try_except(i, h)
        if self.version.uses_call_finally:
            return self._try_finally_calls(i, h)
        return self._try_finally_copies(i, h)

    def _finally_exit_at(self, h: int) -> bool:
        """3.9+: a finally body that starts with return/break unwinds its handler at once
        (`POP_TOP` x3; `POP_EXCEPT`), which only a bare `except: pass` resembles, and that one jumps.
        A bare `except: return` looks the same; there the body ends by jumping past the handler,
        where a finally body's normal-path copy would begin with its return."""
        if self._op(h + 3) != "POP_EXCEPT" or self._op(h + 4) == "JUMP":
            return False
        # A bare `except: return ...` looks the same; only a finally body copies the handler's
        # code (up to its return) onto the body's normal path, right after the POP_BLOCK.
        ret = next((k for k in range(h + 4, len(self.instrs)) if self._op(k) in TERMINAL), None)
        if ret is None:
            return False
        first = h + 4
        while self._op(first) == "POP_EXCEPT":
            first += 1
        if first > h + 4 and self._op(ret) == "RETURN_VALUE" \
                and not (ret == first + 1 and self._op(first) == "LOAD_CONST"):
            # Enclosing clauses left before the value is computed: a copy of the code after them
            # (3.10); a finally body's `return value` computes the value before unwinding.
            return False
        size = ret + 1 - (h + 4)
        return self._op(h - size - 1) == "POP_BLOCK" and self._same_code((h - size, h), (h + 4, ret + 1))

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

    def _try_except(self, i: int, h: int) -> int:
        handlers, exits, hend = self._handler_chain(h)
        body_end, body_exit = self._body_exit(i + 1, h)
        if body_exit is not None and body_exit[0] == "outer" and any(self._goes_on_inside(e, body_exit[1]) for e in exits):
            # A clause goes on to more of the enclosing block: the try is not its last statement,
            # so the body's unwinding of the enclosing blocks is a `return` of its own.
            body_end, body_exit = self._live_end(i + 1, h), None
        body_exit = self._through_jump_after(body_exit, hend)
        exits = [self._through_jump_after(e, hend) for e in exits]
        outer = list(self.stack)
        # The POP_BLOCK and the copied way out after it (duplicates of it before are not part).
        exit_span = (body_exit[1] - 1, h) if body_exit is not None and body_exit[0] == "tail" else None
        # Where the body goes on when it finishes: a copy of the try's way out is a copy of that.
        way_out = body_exit[1] if body_exit is not None and body_exit[0] == "jump" else None
        block = _Block("except-body", exit_span=exit_span, way_out=way_out)
        body = self._run_in(block, i + 1, body_end, list(outer))
        self._dead_return_after_copy(body, self.last_stack, outer, body_end, h)
        if exit_span is not None and self.version.copies_exit_blocks and m.has_end_copies(body):
            # A branch of the body's last statement ends in a copy of the body's way out.
            folded = m.fold_end_copies(body)
            if m.has_end_copies(folded):
                block = _Block("except-body")
                body = self._run_in(block, i + 1, body_end, list(outer))
            else:
                body = folded
        if self._dead_pop_block_after_return(i + 1, body_end, h):
            fold_tail_into_else(body)
        # A clause may jump to a duplicate of the code where the enclosing part ends (3.10).
        # Or it jumps straight where the jump that closes that part goes (an if body's jump over
        # its else part): the jump optimiser threaded its jump to the end of the part.
        exits = [("jump", self.end) if e is not None and e[0] == "jump" and e[1] > self.end > hend
                 and (self._duplicates([self.end, e[1]]) or self._closing_jump_to(e[1])) else e for e in exits]
        targets = {e[1] for e in exits if e is not None and e[0] == "jump" and hend <= e[1] <= self.end}
        end = max(targets) if targets else hend
        if self._note_outer(body_exit):
            body_exit = ("jump", hend if end == hend else end)
        elif body_exit is None and "pending" in block.info:
            body_exit = ("tail",) + block.info["pending"]
        # (3.10) A clause whose way out is the copy of the closing re-raise of the finally body
        # around the try goes to that body's end, past what follows the handlers.
        to_finally_end = any(e is not None and e[0] == "outer" and e[2] == e[3] and e[1].kind == "finally-handler"
                             for e in exits)
        exits = [None if self._note_outer(e) else e for e in exits]
        first_end = min(targets) if targets else hend
        if len(targets) > 1 and not self._duplicates(sorted(targets)):
            raise self.fail(self.instrs[h], "except clauses that end in different places")
        orelse: List[n.Stmt] = []
        after: List[n.Stmt] = []
        closing_else = False
        if body_exit is not None and body_exit[0] == "jump":
            t = body_exit[1]
            if t == hend and end > hend:
                orelse = self.run_range(hend, self._before_duplicate(hend, first_end), list(outer))
            elif t not in (hend, end) and self._threaded_through(t, hend) and not self.jump_sources.get(hend) \
                    and end == hend and not any(self.instrs[k].target == t for k in range(h, hend)):
                # 3.8/3.9: the body's jump went through the else part's only statement, a jump
                # (`else: break`), which nothing reaches any more. (Where a clause's way out goes
                # there too, even a dead one after a raise, that jump is a `break` after the try.)
                orelse = self.run_range(hend, hend + 1, list(outer))
                end = hend + 1
                loop = self.loops[-1] if self.loops else None
                # The clauses' way out went through the loop's closing jump too: no `continue`.
                closing_else = loop is not None and end == self.end == loop.body_end
            elif t not in (hend, end) and t < self.end:
                body_exit = ("tail", h - 1, h)
        tails = [(k, e) for k, e in enumerate(exits) if e is not None and e[0] == "tail"]
        loop = self.loops[-1] if self.loops else None
        if body_exit is not None and body_exit[0] == "jump" and body_exit[1] == hend == end and not targets \
                and loop is not None and self.end == loop.body_end and hend < self.end:
            # (A `continue` may jump elsewhere than the loop's closing jump, as to the NOP that
            # heads a 3.10 `while True`; a clause threaded to that jump goes where it goes.)
            back = self.instrs[self.end]
            heads = [(k, e) for k, e in tails if e[2] - e[1] == 1 and self.instrs[e[1]].opname == "JUMP"
                     and self.instrs[e[1]].target in loop.continue_targets
                     and (back.opname != "JUMP" or back.target_offset == self.instrs[e[1]].target_offset)]
            if heads:
                # A clause's way out, threaded to the loop head: the try ends the loop body, so
                # what follows the clauses up to there is its else part.
                orelse = self.run_range(hend, self.end, list(outer))
                end = self.end
                tails = [t for t in tails if t not in heads]
        if body_exit is not None and body_exit[0] == "jump" and body_exit[1] == hend == end and tails \
                and self.version.copies_exit_blocks:
            # 3.10 copies the small block after the statement into the handlers' ways out; the
            # original stays where the else part falls into it.
            span = (tails[0][1][1], tails[0][1][2])
            # (up to the end of the range: the if whose body the try ends falls into it there)
            last = min(self.end, len(self.instrs) - (span[1] - span[0]))
            for p in range(hend, last + 1):
                if self._same_code(span, (p, p + span[1] - span[0])) and not self._inside_block(hend, p) \
                        and not self._jumps_past(hend, p):
                    end = p
                    orelse = self.run_range(hend, end, list(outer))
                    tails = [(k, e) for k, e in tails if not self._same_code(span, (e[1], e[2]))]
                    break
        if body_exit is not None and body_exit[0] == "tail":
            span = (body_exit[1], body_exit[2])
            stmts = self.run_range(span[0], span[1], list(outer))
            back = self.instrs[span[0]]
            if self.version.keeps_jump_to_written_continue and span[1] - span[0] == 1 \
                    and back.opname == "JUMP" and back.target < span[0] \
                    and len(stmts) == 1 and isinstance(stmts[0], n.Continue):
                # 3.10: a `continue` that ends the body, right after its POP_BLOCK (a `continue`
                # after the try would be reached by a JUMP_FORWARD of its own), even where a
                # clause ends with the same jump back: that is the clause's own `continue`.
                body.extend(stmts)
            elif not targets and all(self._same_code(span, (e[1], e[2])) for _, e in tails):
                after = stmts
                tails = []
            elif not targets and self._copies_with_constant_returns(span, tails):
                # 3.10: the clauses that finish end in the copy of the code after the try; the
                # others end in a `return <constant>` of their own (loaded after the POP_EXCEPT).
                after = stmts
                tails = [(k, e) for k, e in tails if not self._same_code(span, (e[1], e[2]))]
            elif span[1] - span[0] == 1 and back.opname == "JUMP" and back.target < span[0] \
                    and len(stmts) == 1 and isinstance(stmts[0], n.Continue):
                # A `continue` that ends the body, right after its POP_BLOCK (an else part's
                # `continue` would be reached by a JUMP_FORWARD of its own).
                body.extend(stmts)
            elif span[1] - span[0] == 1 and back.opname == "JUMP" and len(stmts) == 1 \
                    and isinstance(stmts[0], n.Break) and not orelse and self.version.copies_exit_blocks \
                    and not (self._op(hend) == "JUMP" and self.instrs[hend].target == back.target):
                # 3.10: a `break` that ends the body, right after its POP_BLOCK: an else part's
                # `break` stays where the clauses' ways out meet (the body's jump is threaded
                # through it).
                body.extend(stmts)
            elif not orelse:
                orelse = stmts  # what runs only when the body finishes: the else part
            else:
                body.extend(stmts)
        if body_exit is None and not targets and tails and len(tails) == sum(e is not None for e in exits) \
                and all(self._same_code((tails[0][1][1], tails[0][1][2]), (e[1], e[2])) for _, e in tails):
            # The body never finishes and every clause ends in the same copied block: the
            # statements after the try, copied into each clause (3.10).
            after = self.run_range(tails[0][1][1], tails[0][1][2], list(outer))
            tails = []
        elif body_exit is None and not targets and tails and len(tails) == sum(e is not None for e in exits) \
                and (copy := next((e for _, e in tails if self._is_handler_return_copy(e[1], e[2])), None)) \
                and self._copies_with_constant_returns((copy[1], copy[2]), tails):
            # The same where the other clauses end in a `return <constant>` of their own: the
            # copy is the `return value` after the try, written in the enclosing clause.
            after = self.run_range(copy[1], copy[2], list(outer))
            tails = [(k, e) for k, e in tails if not self._same_code((copy[1], copy[2]), (e[1], e[2]))]
        tails = self._copied_break_tails(handlers, tails)
        if tails and not targets and not after and orelse and _never_falls_through(orelse) \
                and self._after_try_copies([e for _, e in tails]):
            # The else part never finishes and every clause that does ends in the same copy of
            # a small block (after its POP_EXCEPT): the code after the try, which nothing else
            # reaches (3.10). `try: x = f() except E: pass else: return x` + `return g()`.
            after = self.run_range(tails[0][1][1], tails[0][1][2], list(outer))
            tails = []
        if tails and not targets and not after and not orelse and body_exit == ("jump", hend) and end == hend \
                and self._else_part_to_end(hend) and self._after_try_copies([e for _, e in tails]):
            # The same, with the else part after the handlers (the body jumps over them): it
            # runs to the end of the enclosing block, which nothing else jumps into.
            rest = self.run_range(hend, self.end, list(outer))
            if _never_falls_through(rest):
                orelse, end = rest, self.end
                after = self.run_range(tails[0][1][1], tails[0][1][2], list(outer))
                tails = []
        for k, e in tails:
            handlers[k].body.extend(self.run_range(e[1], e[2], list(outer)))
        if not orelse and not after and not targets and body_exit is not None and body_exit[0] == "jump" \
                and body_exit[1] == hend == end and all(e is None for e in exits):
            # No except clause finishes, yet the code after the handlers ends in a return that is
            # followed by the function's implicit `return None`: only an else part keeps that.
            dead = len(self.instrs) - 2
            if self.end == len(self.instrs) and hend < dead and self._op(dead - 1) in TERMINAL \
                    and self._ops_at(dead, ("LOAD_CONST", "RETURN_VALUE")) \
                    and self.instrs[dead].argval is None and not self.jump_sources.get(dead):
                orelse = self.run_range(hend, dead, list(outer))
                end = dead
        if to_finally_end and not orelse and not after and not targets and body_exit == ("jump", hend) \
                and end == hend < self.end and self._else_part_to_closing(i, hend):
            # Only the body reaches the code between the handlers and the end of the finally
            # body: the else part (`finally: try: f() / except E: pass / else: g()`).
            orelse, end = self.run_range(hend, self.end, list(outer)), self.end
        if closing_else:
            for handler in handlers:
                _drop_trailing_continue(handler.body)
        self.emit(n.Try(body, handlers, orelse, []))
        for stmt in after:
            self.emit(stmt)
        self._skip_overrun_reraise(hend)
        return end

    def _goes_on_inside(self, exit: Exit, block: _Block) -> bool:
        """Does a clause's way out go on to more statements of `block`, an enclosing block that
        the try body's way out leaves: a jump into that block's code that does not unwind it, or
        a copied `return value` that unwinds a clause after the value is computed (a `return`
        written in that clause)?"""
        if exit is None:
            return False
        if exit[0] == "jump":
            span = block.info.get("span")
            t = exit[1]
            return span is not None and span[0] <= t < span[1] \
                and self._op(t) not in _BLOCK_OPS and self._op(t) not in _ROTATIONS
        return exit[0] == "tail" and self._is_handler_return_copy(exit[1], exit[2])

    def _copies_with_constant_returns(self, span: Tuple[int, int], tails: List[Tuple[int, Exit]]) -> bool:
        """Does some clause's ("tail", start, end) way out repeat `span`, and is each other one a
        `return <constant>` (LOAD_CONST; RETURN_VALUE, which a statement of the clause can be)?"""
        same = [self._same_code(span, (e[1], e[2])) for _, e in tails]
        return any(same) and all(
            ok or e[2] - e[1] == 2 and self._ops_at(e[1], ("LOAD_CONST", "RETURN_VALUE"))
            for ok, (_, e) in zip(same, tails))

    def _else_part_to_closing(self, start: int, hend: int) -> bool:
        """Is [hend, self.end) reached only from the try at `start` (its body's jump) and from
        inside itself?"""
        return all(start <= src < self.end for k in range(hend, self.end) for src in self.jump_sources.get(k, ()))

    def _else_part_to_end(self, hend: int) -> bool:
        """Can [hend, self.end) be one else part: it ends the function's flow (a return or raise
        last) and no jump from outside it lands inside it?"""
        end = self.end
        if not hend < end <= len(self.instrs) or self.instrs[end - 1].opname not in ("RETURN_VALUE", "RAISE_VARARGS"):
            return False
        return not any(not hend <= src < end for k in range(hend + 1, end) for src in self.jump_sources.get(k, ()))

    def _after_try_copies(self, tails: List[Tuple[Any, ...]]) -> bool:
        """Are the ("tail", start, end) ways out of except clauses all the same copied block, one
        that no statement of the clause can be (a `return` of a computed value unwinds after
        computing it; only `return <constant>` loads after the POP_EXCEPT)?"""
        first = (tails[0][1], tails[0][2])
        if any(not self._same_code(first, (e[1], e[2])) for e in tails[1:]):
            return False
        start, end = first
        return not (end - start == 2 and self._ops_at(start, ("LOAD_CONST", "RETURN_VALUE"))) \
            and self.instrs[end - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS")

    def _copied_break_tails(self, handlers: List[n.ExceptHandler],
                            tails: List[Tuple[int, Exit]]) -> List[Tuple[int, Exit]]:
        """3.10: an except clause inside a loop that ends in `break`, whose small exit block (the
        code at the loop's exit, ending the function) was copied after the clause's POP_EXCEPT.
        Each such clause gets its `break`; the other tails are returned."""
        loop = self.loops[-1] if self.loops else None
        if loop is None or not self.version.copies_exit_blocks:
            return tails
        left = []
        for k, e in tails:
            assert e is not None
            start, end = e[1], e[2]
            original = loop.exit
            # (a loop that ends the function and is left only by `break`s: the code after it
            # exists only as their copies)
            only_copies = original >= len(self.instrs)
            if original != start and self.instrs[end - 1].opname in ("RETURN_VALUE", "RAISE_VARARGS") \
                    and not (end - start == 2 and self._ops_at(start, ("LOAD_CONST", "RETURN_VALUE"))) \
                    and (only_copies or original + (end - start) <= len(self.instrs)
                         and self._same_code((start, end), (original, original + end - start))):
                handlers[k].body.append(n.Break())
                self.note_copied_break(start, end)
                continue
            left.append((k, e))
        return left

    def _through_jump_after(self, exit: Exit, hend: int) -> Exit:
        """3.8/3.9: a part's way out that jumps out of the loop to `t`, where the try (or its
        else part, from `hend` on) is followed by a JUMP (a `break`) that nothing reaches and that
        goes to `t` or where the JUMP at `t` goes: the peephole pass threaded the part's jump to
        the try's end through that `break` (and maybe the `break` itself through `t`:
        `while True: try: ... except: continue` then `break`, inside a for loop or an if). The
        way out is the end of the try."""
        if exit is None or not self.version.threads_jumps_once:
            return exit
        instrs = self.instrs
        if exit[0] == "jump" and exit[1] > self.end:
            # (an `except E as e:` clause's jump after its name's cleanup, past the range: the
            # same threaded jump, through the `break` after the else part)
            t = exit[1]
        elif exit[0] != "tail" or exit[2] - exit[1] != 1:
            return exit
        else:
            jump = instrs[exit[1]]
            t = jump.target
            if jump.opname != "JUMP" or t is None:
                return exit
        if t <= hend:
            return exit
        loop = self.loops[-1] if self.loops else None
        inside = hend  # (how far the else part's own forward jumps go)
        for p in range(hend, t):
            ins = instrs[p]
            if ins.target is not None and not hend <= ins.target <= p:
                if not self.jump_sources.get(p) and (
                        ins.opname in COND_JUMPS and (ins.target == t or p < ins.target < t)
                        or ins.opname == "JUMP" and loop is not None and ins.target in loop.continue_targets
                        and ins.target < hend):
                    # (an if in the else part, whose false branch may go where the `break` after
                    # the try goes, threaded through it too, or a `continue` in the else part:
                    # `else: f(); if c: continue` then `break`)
                    if ins.target < t:
                        inside = max(inside, ins.target)
                    continue
                if ins.opname != "JUMP" or self.jump_sources.get(p) or inside > p:
                    return exit  # (the else part jumps elsewhere: not a plain statement list)
                if ins.target == t or instrs[t].opname == "JUMP" and instrs[t].target == ins.target:
                    return ("jump", p)
                return exit
        return exit

    def _closing_jump_to(self, target: int) -> bool:
        """Does the enclosing part end at a forward JUMP to `target` (an if body's jump over its
        else part, where the code after the try goes on)?"""
        end = self.end
        return end < len(self.instrs) and self.instrs[end].opname == "JUMP" and self.instrs[end].target == target \
            and target > end

    def _skip_overrun_reraise(self, hend: int) -> None:
        """A try that ends a loop body whose last clause jumps back to the loop's head leaves the
        chain's closing re-raise (no clause matched) after the loop's jump back: it belongs to the
        try, not to the code after the loop."""
        last = hend - 1
        if hend > self.end and self._op(last) in ("RERAISE", "END_FINALLY") and self._op(last - 1) in ENDS_FLOW:
            self.skip[last] = hend

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

    def _handler_chain(self, h: int) -> Tuple[List[n.ExceptHandler], List[Exit], int]:
        """The except clauses starting at `h`: handlers, how each leaves, and where the chain ends."""
        instrs = self.instrs
        handlers: List[n.ExceptHandler] = []
        exits: List[Exit] = []
        k = h
        outer = list(self.stack)
        tokens = [_token("exc"), _token("exc"), _token("exc")]
        while True:
            if self._op(k) == "DUP_TOP":
                match = k + 1
                while match < len(instrs) and not (
                        instrs[match].opname == "JUMP_IF_NOT_EXC_MATCH"
                        or (instrs[match].opname == "COMPARE_OP" and instrs[match].argval == "exception match")):
                    match += 1
                if match >= len(instrs):
                    raise self.fail(instrs[k], "except clause without an exception match")
                jump = match if instrs[match].opname == "JUMP_IF_NOT_EXC_MATCH" else match + 1
                if instrs[jump].opname not in ("JUMP_IF_NOT_EXC_MATCH", "POP_JUMP_IF_FALSE"):
                    raise self.fail(instrs[jump], "except clause without an exception match")
                exc_type = self.pure_value(k + 1, match)
                if exc_type is None:
                    raise self.fail(instrs[k + 1], "except clause type is not an expression")
                nxt = instrs[jump].target
                a = jump + 1
                if self._ops_at(a, ("POP_TOP", "POP_TOP", "POP_TOP")):
                    name = None
                elif self._op(a) == "POP_TOP" and self._op(a + 1) in _STORES and self._op(a + 2) == "POP_TOP":
                    name = instrs[a + 1].argval
                else:
                    raise self.fail(instrs[a], "except clause does not bind its exception")
                if name is None:
                    body, exit = self._handler_body(a + 3, nxt, outer, tokens)
                else:
                    body, exit = self._named_handler_body(a + 3, nxt, name, outer, tokens)
                handlers.append(n.ExceptHandler(exc_type, name, body))
                exits.append(exit)
                k = nxt
                if self._op(k) in ("END_FINALLY", "RERAISE"):
                    return handlers, exits, k + 1
                continue
            if self._ops_at(k, ("POP_TOP", "POP_TOP", "POP_TOP")):
                start = k + 3
                end, hend = self._bare_handler_end(h, start)
                body, exit = self._handler_body(start, end, outer, tokens)
                handlers.append(n.ExceptHandler(None, None, body))
                exits.append(exit)
                return handlers, exits, hend
            raise self.fail(instrs[k], "unrecognised except clause")

    def _handler_body(self, start: int, end: int, outer: List[n.Expr],
                      tokens: List[n.Expr]) -> Tuple[List[n.Stmt], Exit]:
        instrs = self.instrs
        body_end, exit = end, None
        if end - 2 >= start and instrs[end - 2].opname == "POP_EXCEPT" and instrs[end - 1].opname == "JUMP":
            body_end, exit = end - 2, self._tail_after(end - 2, end, end)
        else:
            for p in range(end - 2, max(start, end - _MAX_COPY - 3) - 1, -1):
                if instrs[p].opname == "POP_EXCEPT":
                    while p - 1 >= start and instrs[p - 1].opname == "POP_EXCEPT" \
                            and not (end - p == 3 and self._ops_at(end - 2, ("LOAD_CONST", "RETURN_VALUE"))):
                        # 3.10: the later ones leave enclosing clauses, then comes a copy of the
                        # code after them (a `return <constant>` there is the clause's own).
                        p -= 1
                    if instrs[p - 1].opname not in _ROTATIONS:
                        found = self._outer_exit(p + 1, end)
                        if found is None and self._is_copy(p + 1, end) and not self._shared_way_out(p):
                            found = ("tail", p + 1, end)
                        if found is not None:
                            body_end, exit = p, found
                    else:
                        # 3.10: the clause's own POP_EXCEPT, then a copy of the `return value`
                        # after the try that leaves the enclosing clause (`_is_handler_return_copy`).
                        q = next((q for q in range(p - 2, max(start, end - _MAX_COPY - 1) - 1, -1)
                                  if instrs[q].opname in _BLOCK_OPS), None)
                        if q is not None and instrs[q].opname == "POP_EXCEPT" \
                                and self._is_handler_return_copy(q + 1, end) and not self._shared_way_out(q):
                            body_end, exit = q, ("tail", q + 1, end)
                    break
        span = (body_end, end) if exit is not None and exit[0] == "tail" and body_end < end \
            and instrs[body_end].opname == "POP_EXCEPT" and self.version.copies_exit_blocks else None
        block = _Block("handler", tokens, exit_span=span)
        body = self._run_in(block, start, body_end, outer + tokens)
        if span is not None:
            folded = m.fold_end_copies(body)
            if m.has_end_copies(folded):  # a copy of the way out where no if/else can place it
                block = _Block("handler", tokens)
                body = self._run_in(block, start, body_end, outer + tokens)
            else:
                body = folded
        if exit is None and "pending" in block.info:
            exit = ("tail",) + block.info["pending"]
        return body, exit

    def _named_handler_body(self, start: int, end: int, name: str, outer: List[n.Expr],
                            tokens: List[n.Expr]) -> Tuple[List[n.Stmt], Exit]:
        """`except E as name:` - its body sits in a hidden try/finally that unbinds `name`."""
        instrs = self.instrs
        setup = instrs[start]
        if setup.opname != "SETUP_FINALLY":
            raise self.fail(setup, "except ... as without its cleanup block")
        c = setup.target
        if not self._is_name_cleanup(c, name):
            raise self.fail(instrs[c], "except ... as without its cleanup block")
        body_end, exit = c, None
        if self._op(c + 3) == "END_FINALLY":
            # 3.8: POP_BLOCK; BEGIN_FINALLY; cleanup; END_FINALLY; POP_EXCEPT; way out.
            if self._ops_at(c - 2, ("POP_BLOCK", "BEGIN_FINALLY")):
                body_end = c - 2
            rest = c + 4
            if rest < end and instrs[rest].opname == "POP_EXCEPT":
                if rest + 1 == end:
                    exit = None
                else:
                    exit = self._tail_after(rest, end, end)
        else:
            # 3.9+: POP_BLOCK; POP_EXCEPT; cleanup; way out; then the exceptional cleanup + RERAISE.
            for q in range(c - 5, start, -1):
                if self._ops_at(q, ("POP_BLOCK", "POP_EXCEPT")) and self._is_name_cleanup(q + 2, name):
                    rest = q + 5
                    if rest == c:
                        continue
                    if rest + 1 == c and instrs[rest].opname == "JUMP":
                        t = instrs[rest].target
                        exit = ("jump", t) if t >= end else ("tail", rest, c)
                    elif self._is_copy(rest, c) and not self._shared_way_out(q):
                        exit = ("tail", rest, c)
                    else:
                        exit = self._outer_exit(rest, c)
                        if exit is None:
                            continue
                    body_end = q
                    break
        span = (body_end, c) if exit is not None and exit[0] == "tail" and body_end < c \
            and instrs[body_end].opname == "POP_BLOCK" and self.version.copies_exit_blocks else None
        block = _Block("named-handler", tokens, name=name, exit_span=span)
        body = self._run_in(block, start + 1, body_end, outer + tokens)
        if span is not None:
            folded = m.fold_end_copies(body)
            if m.has_end_copies(folded):  # a copy of the way out where no if/else can place it
                block = _Block("named-handler", tokens, name=name)
                body = self._run_in(block, start + 1, body_end, outer + tokens)
            else:
                body = folded
        if exit is None and "pending" in block.info:
            exit = ("tail",) + block.info["pending"]
        return body, exit

    def _bare_handler_end(self, h: int, start: int) -> Tuple[int, int]:
        """Where a final bare `except:` body ends (its range has no marker after 3.9's dead code
        removal), and where the handler chain ends."""
        instrs = self.instrs
        limit = max(self.end, min((loop.exit for loop in self.loops), default=len(instrs)))
        k = start
        while k < limit:
            op = instrs[k].opname
            if k > start:
                if any(src < h for src in self.jump_sources.get(k, ())):
                    return k, k
                if op in ("END_FINALLY", "RERAISE") and not self.jump_sources.get(k):
                    prev = instrs[k - 1].opname
                    if prev == "JUMP" and instrs[k - 2].opname == "POP_EXCEPT" \
                            or prev == "RAISE_VARARGS" \
                            or (prev == "RETURN_VALUE" and "POP_EXCEPT" in
                                [x.opname for x in instrs[max(start, k - 4):k - 1]]):
                        return k, k + 1
            if op == "SETUP_FINALLY" and instrs[k].target > k:
                # A try/except nested in the clause ends in a marker of its own, which looks
                # just like this clause's end: read on after that try.
                nested = self._nested_clauses_end(instrs[k].target)
                if nested is not None and k < nested < limit:
                    k = nested
                    continue
            k += 1
        return limit, limit

    def _nested_clauses_end(self, h: int) -> Optional[int]:
        """Where the except clauses of a try whose handler is at `h` end (after their closing
        END_FINALLY / RERAISE, or after a final bare clause), found from the clauses'
        exception-match jumps alone; None when `h` is no except clause."""
        instrs = self.instrs
        k = h
        while self._op(k) == "DUP_TOP":
            match = k + 1
            while match < len(instrs) and instrs[match].opname != "JUMP_IF_NOT_EXC_MATCH" \
                    and not (instrs[match].opname == "COMPARE_OP" and instrs[match].argval == "exception match"):
                match += 1
            jump = match if self._op(match) == "JUMP_IF_NOT_EXC_MATCH" else match + 1
            if self._op(jump) not in ("JUMP_IF_NOT_EXC_MATCH", "POP_JUMP_IF_FALSE"):
                return None
            k = instrs[jump].target
            if self._op(k) in ("END_FINALLY", "RERAISE"):
                return k + 1
        if self._ops_at(k, ("POP_TOP", "POP_TOP", "POP_TOP")) and (k > h or not self._finally_exit_at(k)):
            return self._bare_handler_end(k, k + 3)[1]
        return None

    # --- try/finally ----------------------------------------------------------------------------

    def _end_finally_of(self, h: int) -> int:
        """3.8: the END_FINALLY closing the finally block at `h` (blocks opened inside nest)."""
        depth = 0
        instrs = self.instrs
        for k in range(h, len(instrs)):
            op = instrs[k].opname
            if op in ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH") and self._op(k + 1) != "GET_ANEXT":
                depth += 1
            elif op == "END_FINALLY":
                if depth == 0:
                    return k
                depth -= 1
        raise self.fail(instrs[h], "finally block without its end")

    def _try_finally_calls(self, i: int, h: int) -> int:
        """3.8 try/finally: BEGIN_FINALLY/CALL_FINALLY enter the finally block, END_FINALLY ends it."""
        e = self._end_finally_of(h)
        end = e + 1
        outer = list(self.stack)
        slots: List[n.Expr] = []
        prev = self.instrs[i - 1] if i > 0 else None
        if prev is not None and prev.opname == "LOAD_CONST" and prev.argval is None and outer \
                and isinstance(outer[-1], n.Const) and outer[-1].value is None and self._op(e + 1) == "POP_TOP":
            # A finally body that returns or breaks keeps a slot below the finally state.
            outer.pop()
            self.stack.pop()
            slots = [_token("finally-slot")]
            end = e + 2
        state = _token("finally-state")
        finalbody = self._run_in(_Block("finally-handler", [state]), h, e, outer + slots + [state])
        body_end = h - 2 if self._ops_at(h - 2, ("POP_BLOCK", "BEGIN_FINALLY")) else self._live_end(i + 1, h)
        body = self._run_in(_Block("finally-body-call", slots), i + 1, body_end, outer + slots)
        self.emit(self._finally_statement(body, finalbody))
        return end

    def _finally_statement(self, body: List[n.Stmt], finalbody: List[n.Stmt]) -> n.Try:
        if len(body) == 1 and isinstance(body[0], n.Try) and not body[0].finalbody and body[0].handlers \
                and not body[0].star:
            inner = body[0]
            return n.Try(inner.body, inner.handlers, inner.orelse, finalbody)
        return n.Try(body, [], [], finalbody)

    def _finally_handler_end(self, h: int) -> Tuple[int, bool]:
        """3.9+: the end of the exceptional copy of the finally body at `h`: the RERAISE it reaches
        by ordinary control flow (handlers nested in it are reached only through exceptions), or,
        when it never finishes, the end of what it reaches."""
        instrs = self.instrs
        limit = len(instrs)  # 3.10 may place the handler after the end of an enclosing loop body
        setups = ("SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH")

        nested_handlers: List[int] = []
        nested_setups: List[int] = []
        seen: Set[int] = set()

        def reach(through_handlers: bool) -> Tuple[int, List[int]]:
            seen.clear()
            todo = [h]
            reraises: List[int] = []
            furthest = h
            while todo:
                k = todo.pop()
                while h <= k < limit and k not in seen:
                    seen.add(k)
                    furthest = max(furthest, k)
                    ins = instrs[k]
                    op = ins.opname
                    if op == "RERAISE":
                        reraises.append(k)
                        break
                    if op in setups:
                        nested_handlers.append(ins.target)
                        nested_setups.append(k)
                    if ins.is_jump and (through_handlers or op not in setups):
                        if h < ins.target < limit and not self._leaves_loop(ins.target):
                            todo.append(ins.target)
                        if op == "JUMP":
                            break
                    if op in TERMINAL:
                        break
                    k += 1
            return furthest, reraises

        _, reraises = reach(False)
        # 3.10 copies the closing RERAISE into the ways out of constructs nested in the finally
        # body (right after their POP_BLOCK / POP_EXCEPT); those are not its end.
        # A construct nested in the finally body whose handler lies after such a RERAISE (its own
        # normal way out ends in the copy, `try: ... finally: h()` as the last statement) puts
        # the end of the finally body past its handler.
        ends = [k for k in reraises if self._op(k - 1) not in ("POP_BLOCK", "POP_EXCEPT")
                and not any(s < k < t for s, t in zip(nested_setups, nested_handlers))]
        if not ends and reraises and self.version.copies_exit_blocks:
            last = max(reraises)
            reach(True)
            if self._loop_closes_finally(h, last, seen):
                # 3.10: the same loop, its `break` the else part of a try (the copy follows the
                # try's POP_BLOCK) and its jump back laid after the try's handler code.
                self.finally_end_copies.update(k for k in reraises if self._op(k - 1) == "POP_BLOCK")
                return max(seen) + 1, False
            reach(False)
        if ends and self.version.copies_exit_blocks and self._loop_closes_finally(h, max(ends), seen):
            # 3.10: the finally body ends in a loop left only by `break`s, each a copy of the
            # closing re-raise, which has no original after the loop (`while True: ... break`).
            self.finally_end_copies.update(ends)
            return max(seen) + 1, False
        if ends and self.version.copies_exit_blocks and max(seen) > max(ends) \
                and self._op(max(seen)) in ("RAISE_VARARGS", "RETURN_VALUE") \
                and all(k in seen for k in range(max(ends) + 1, max(seen) + 1)) \
                and not any(max(ends) < k <= max(seen) for k in nested_setups):
            # 3.10: the finally body ends in an if whose last branch never finishes (it raises),
            # laid after the other branch, into which the closing RERAISE was copied: there is
            # no closing RERAISE after the body, each copy ends its branch.
            self.finally_end_copies.update(ends)
            return max(seen) + 1, False
        if ends:
            last = max(ends)
            if self.version.copies_exit_blocks:
                # 3.10 copies that closing RERAISE into the branches that reach it (`if c: A` as
                # the last statement): each copy ends its branch of the finally body. Each
                # conditional jump to the end gets its own copy too (`if a and b:`), which is that
                # end itself.
                ends = self._merge_jumped_end_copies(ends, last)
                self.finally_end_copies.update(
                    k for k in ends if k < last and instrs[k].arg == instrs[last].arg
                    and not self.jump_sources.get(k))
            return last, True
        furthest, _ = reach(True)
        if self._op(furthest + 1) == "RERAISE" \
                and not any(src in seen for src in self.jump_sources.get(furthest + 1, ())):
            # Left behind after a finally body that never finishes (3.9 keeps the dead jumps
            # to it after the raises of an if/else).
            return furthest + 1, True
        if self._op(furthest) == "RERAISE" and any(self._op(t) == "WITH_EXCEPT_START" and furthest - t in (8, 11)
                                                   for t in nested_handlers) \
                and self._ops_at(furthest - 5, ("POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP")):
            # 3.10: a `with` ends the finally body; the way on after its handler swallowed the
            # exception is the closing RERAISE, copied there.
            return furthest, True
        if self._op(furthest) == "RERAISE" and self._op(furthest - 1) not in ("POP_BLOCK", "POP_EXCEPT") \
                and not any(s < furthest < t for s, t in zip(nested_setups, nested_handlers)) \
                and not any(self._runs_straight_into(t, furthest) for t in nested_handlers) \
                and any((self._ops_at(k - 1, ("POP_EXCEPT", "JUMP")) and instrs[k].target is not None
                         and self._flows_to(instrs[k].target, furthest))
                        or (self._with_swallow_exit(k) and self._flows_to(k + 1, furthest)) for k in seen):
            # A try in the finally body whose body never falls out (it raises or returns): the
            # rest of the finally body is reached only through that try's except clauses (their
            # jump on, after POP_EXCEPT), and ends in the closing re-raise, the last code that
            # they reach. (Not the re-raise of a nested finally or with handler, which that
            # handler runs straight into, nor a 3.10 copy after an unwinding.) The same for a
            # with whose body never ends normally: the rest is reached only after its exit
            # swallowed the exception (3.9/3.10).
            return furthest, True
        if self.version.copies_exit_blocks:
            _, reraises = reach(True)
            copies = [k for k in reraises if self._op(k - 1) == "POP_EXCEPT"
                      and not any(s < k < t for s, t in zip(nested_setups, nested_handlers))]
            if copies and not ends:
                # 3.10: a try in the finally body whose body never falls out, its except clauses
                # ending the finally body: each of their ways out (after POP_EXCEPT) holds a copy
                # of the closing re-raise, which has no original after them.
                self.finally_end_copies.update(copies)
        return furthest + 1, False

    def _with_swallow_exit(self, k: int) -> bool:
        """Is `k` the last instruction of a with handler's way on after its `__exit__` swallowed
        the exception (3.9/3.10: `WITH_EXCEPT_START; POP_JUMP_IF_TRUE s; RERAISE; s: POP_TOP x3;
        POP_EXCEPT; POP_TOP`)?"""
        s = k - 4
        return s >= 3 and self._ops_at(s, ("POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP")) \
            and self._ops_at(s - 3, ("WITH_EXCEPT_START", "POP_JUMP_IF_TRUE", "RERAISE")) \
            and self.instrs[s - 2].target == s

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

    def _loop_closes_finally(self, h: int, last: int, seen: Set[int]) -> bool:
        """Does the finally body's exceptional copy at `h` go on past its last re-raise `last` only
        by a jump back to before it (the loop's jump back, laid after the copied re-raise)?"""
        back = max(seen)
        ins = self.instrs[back]
        return back > last and ins.opname == "JUMP" and h <= ins.target < last

    def _mark_dead_span(self, start: int, end: int) -> None:
        for k in range(start, end):
            self.skip[k] = end

    def _leaves_loop(self, target: int) -> bool:
        return any(target in loop.continue_targets or target == loop.break_target or target >= loop.exit
                   for loop in self.loops)

    def _match_finally_copy(self, k: int, start: int, end: int) -> Optional[int]:
        """If [k, ...) repeats the finally body [start, end), return where the copy ends.

        The exceptional copy also unwinds its own handler before a return/break inside the finally
        body (`POP_TOP` x3, `POP_EXCEPT`), which the other copies lack."""
        instrs = self.instrs
        copy_start = k
        # Depth-first over (copy index, handler index); a bare `except: pass` inside the finally
        # body looks like such an unwinding too, so the plain match is tried first.
        todo = [(k, start)]
        seen = set()
        outlined: Set[int] = set()  # jumps of this copy laid apart, matched where they were jumped to
        while todo:
            a, b = todo.pop()
            if b >= end:
                return a
            if (a, b) in seen or a >= len(instrs):
                continue
            seen.add((a, b))
            if a in outlined:
                todo.append((a + 1, b))
                continue
            j = b
            while j < end and (instrs[j].opname in _ROTATIONS or instrs[j].opname == "POP_TOP"):
                j += 1
            if j < end and instrs[j].opname == "POP_EXCEPT" and j > b:
                todo.append((a, j + 1))
            x, y = instrs[b], instrs[a]
            if x.opname == "RERAISE" and not self.jump_sources.get(b) \
                    and self._op(b - 1) not in ("POP_BLOCK", "POP_EXCEPT") and self.version.copies_exit_blocks:
                # (Tried last.) The closing RERAISE copied into the branch of an `if` that ends
                # the finally body; in this copy the branch falls into the code that follows,
                # where the `if`'s other way goes too.
                todo.append((a, b + 1))
            if y.opname == "JUMP" and x.opname != "JUMP" and self.version.copies_exit_blocks \
                    and y.target is not None and y.target > a:
                # (A jump back, to a loop's head, is no jump to a version of the copy's own: it
                # is the copy's way on, a `continue` through a finally body ending in an `if`.)
                closing_copy = self._closing_block_copy(b, end)
                if closing_copy is not None:
                    # The statements that close the finally body, copied (with its RERAISE) into
                    # a way out of a construct nested in it; this copy jumps to its own version.
                    todo.append((a + 1, closing_copy))
            if x.opname == "NOP" != y.opname and self._op(b + 1) == "RERAISE" and self.version.copies_exit_blocks:
                # (3.10) The line of a `break` copied with the closing re-raise into a loop that
                # ends the finally body; the other copies jump on or copy their own way on.
                todo.append((a, b + 1))
            if x.opname == y.opname and (x.argval == y.argval or (x.is_jump and y.is_jump)):
                todo.append((a + 1, b + 1))
            elif x.is_jump and x.target == end and y.opname == "RETURN_VALUE":
                # A jump to the end of the finally body, in a copy followed by a return: the jump
                # optimiser turned it into the return itself.
                todo.append((a + 1, b + 1))
            elif x.opname == "RERAISE" and self._return_tail_length(a) \
                    and (not self.jump_sources.get(b) or self._op(b - 1) in ("POP_BLOCK", "POP_EXCEPT")):
                # The closing RERAISE copied into the branch of a last `if`, in a copy on the way
                # of a `return value`: the copy ends at that return (the branch's jump goes to a
                # duplicate of it). Inside a for loop the return drops the iterator first.
                self._copied_continuation = (a, a + self._return_tail_length(a))
                if b + 1 == end and self._op(b - 1) not in ("POP_BLOCK", "POP_EXCEPT"):
                    return a
                # ... or into the way out of a construct nested in the finally body (after its
                # POP_BLOCK / POP_EXCEPT, or in front of its handler).
                todo.append((self._copied_continuation[1], b + 1))
            elif x.opname == "RERAISE" and (self._op(b - 1) in ("POP_BLOCK", "POP_EXCEPT")
                                            or not self.jump_sources.get(b)):
                # 3.10: the closing RERAISE copied into a nested exit or into the branch of a
                # last `if`; the other copies have the block that follows the whole statement
                # copied there instead.
                e = self._copy_end(a)
                if e is not None:
                    self._copied_continuation = (a, e)
                    todo.append((e, b + 1))
                elif self.version.copies_exit_blocks:
                    # The statement ends an enclosing try body: its way out (POP_BLOCK) comes
                    # first, and the construct that owns it places the copied block after itself.
                    k = a
                    while self._op(k) == "POP_BLOCK":
                        k += 1
                    e = self._copy_end(k) if k > a else None
                    tail = self._return_tail_length(k) if k > a else 0
                    if e is not None:
                        # (a `return <constant>`, loaded after the unwinding: the code after
                        # the enclosing try or this try body's own return, the same code; the
                        # try statement places it after itself)
                        if self._op(k) == "LOAD_CONST" and e == k + 2:
                            self._copied_continuation = (a, e)
                        todo.append((e, b + 1))
                    elif tail:
                        # ... or a `return value` of the try body, which leaves the enclosing
                        # try too: the value was computed before the copy.
                        self._copied_continuation = (a, k + tail)
                        todo.append((k + tail, b + 1))
                    elif y.opname == "JUMP" and not (y.target is not None and y.target < copy_start
                                                     and any(copy_start <= src < a
                                                             for src in self.jump_sources.get(a, ()))):
                        # The way on was not copied: the branch jumps where the statement ends
                        # (or back to the head of the loop that it ends). (Not a jump back that
                        # the copy's last `if` jumps to as well, where the template's jumps to
                        # its closing re-raise: that jump follows the copy, the way on of the
                        # whole unwinding, 3.10's `continue` through a finally body ending in
                        # an `if`.)
                        todo.append((a + 1, b + 1))
                        if self._op(b - 1) == "POP_BLOCK" and a < y.target < len(instrs) \
                                and self._op(y.target) == "JUMP" and self.jump_sources.get(y.target) == [a]:
                            # (3.10: the try's else part, a `break` that the exceptional copy
                            # copied the re-raise for: here a jump laid after the handler code)
                            outlined.add(y.target)
        return None

    def _drop_branch_copy_of_way_on(self, start: int, nk: int) -> None:
        """3.10: the copy [start, nk) of a finally body that ends in an `if`, on the way of a
        `return` that leaves more blocks after it (`try: try: return x finally: if c: f()`
        `finally: g()`): the if's false branch jumps to a copy of that way on (the outer
        unwinding and the return), which the block it belongs to never reads. Mark it read."""
        instrs = self.instrs
        length = 0
        while nk + length < len(instrs) and length < _MAX_WAY_ON:
            ins = instrs[nk + length]
            length += 1
            if ins.is_jump or ins.opname in ENDS_FLOW:
                if ins.opname != "RETURN_VALUE":
                    return
                break
        else:
            return
        if any(self.jump_sources.get(q) for q in range(nk + 1, nk + length)):
            return
        for q in range(start, nk):
            p = instrs[q].target
            if p is not None and p >= nk + length and self._same_code((nk, nk + length), (p, p + length)) \
                    and all(start <= src < nk for src in self.jump_sources.get(p, ())) \
                    and not any(self.jump_sources.get(r) for r in range(p + 1, p + length)):
                self._mark_dead_span(p, p + length)

    def _unwound_return_tail(self, span: Tuple[int, int]) -> bool:
        """Is `span` the `return` of a value already computed (`_return_tail_length`), after
        the POP_BLOCKs of enclosing try bodies it leaves?"""
        k = span[0]
        while k < span[1] and self._op(k) == "POP_BLOCK":
            k += 1
        return span[1] - k == self._return_tail_length(k) > 0

    def _return_tail_length(self, k: int) -> int:
        """The length of the `return` of a value already computed that starts at `k`: RETURN_VALUE,
        or `ROT_TWO; POP_TOP; RETURN_VALUE` inside a for loop (the iterator under the value is
        dropped first); 0 if there is none."""
        if self._op(k) == "RETURN_VALUE":
            return 1
        return 3 if self._ops_at(k, ("ROT_TWO", "POP_TOP", "RETURN_VALUE")) else 0

    def _closing_block_copy(self, b: int, closing: int) -> Optional[int]:
        """Where a copy at `b` of the small block that ends at the closing RERAISE of a finally
        body's exceptional copy (`closing`) ends, if [b, ...) is one (`_finally_end_block`)."""
        r = next((k for k in range(b, min(b + _MAX_COPY, closing)) if self._op(k) in ENDS_FLOW), None)
        if r is None or self._op(r) != "RERAISE":
            return None
        if self._op(closing) != "RERAISE":
            # No closing RERAISE to compare with: the finally body ends in a try/finally whose
            # handler comes last (it re-raises its own exception), and the closing RERAISE
            # exists only as the copies in the branches of that statement's normal copy (3.10).
            straight = not any(ins.is_jump or ins.opname in _BLOCK_OPS for ins in self.instrs[b:r])
            return r + 1 if straight and not self.jump_sources.get(b) else None
        size = r + 1 - b
        if not self._same_code((b, r + 1), (closing + 1 - size, closing + 1)):
            return None
        return r + 1

    def _try_finally_copies(self, i: int, h: int) -> int:
        """3.9/3.10 try/finally: the finally body is copied onto every way out of the try body."""
        fin_end, reraises = self._finally_handler_end(h)
        outer = list(self.stack)
        tokens = [_token("exc") for _ in range(6)]
        handler = _Block("finally-handler", tokens, closing=fin_end if reraises else None)
        finalbody = self.fold_end_copies(self._run_in(handler, h, fin_end, outer + tokens), h)
        end = fin_end + 1 if reraises else fin_end
        instrs = self.instrs
        body_end, after_copy = self._live_end(i + 1, h), None
        continuation: Optional[Tuple[int, int]] = None
        for pb in range(h - 1, i, -1):
            if instrs[pb].opname != "POP_BLOCK":
                continue
            self._copied_continuation = None
            ce = self._match_finally_copy(pb + 1, h, fin_end)
            continuation = self._copied_continuation
            if ce is None or ce > h:
                continue
            if continuation is None and ce + 2 == h and self._op(ce) == "RETURN_VALUE" == self._op(ce + 1) \
                    and self.version.copies_exit_blocks:
                # 3.10: the return after the copy was copied into the branch of the finally body's
                # last `if` too (the exceptional copy's branch falls into its closing RERAISE).
                continuation = (ce, ce + 1)
            tail = self._return_tail_length(ce)
            if tail and continuation is not None and self._same_code(continuation, (ce, ce + tail)) \
                    and self._same_code(continuation, (ce + tail, h)) \
                    and all(pb < src < ce for src in self.jump_sources.get(ce + tail, ())):
                # The branch of the finally body's last `if` goes on to a duplicate of the return
                # that follows the copy (`return x` through the finally): both are that return.
                self._mark_dead_span(ce + tail, h)
                continuation = None
            if ce == h and continuation is not None \
                    and self._unwound_return_tail(continuation):
                # 3.10: a lone RETURN_VALUE copied into each way out of the copy returns a value
                # the body computed before its unwinding: the body's own `return value` (code
                # after the statement starts from an empty stack). The body reads it there.
                break
            if ce == h or (ce + 1 == h and instrs[ce].opname == "JUMP") or self._is_copy(ce, h) \
                    or self._is_handler_return_copy(ce, h):
                body_end, after_copy = self._before_duplicate(i + 1, pb, h), ce
            elif self._note_outer(self._outer_exit(ce, self._first_of_copies(pb, ce, h))):
                body_end = self._before_duplicate(i + 1, pb, h)
            elif pb < body_end <= ce and self._op(ce) == "RETURN_VALUE":
                # Every way out of the copy became the return that follows it (the optimiser
                # turned each jump to the copy's end into a return), which nothing reaches any
                # more; it is still the try body's `return value`. The copy may end in dead code
                # too (the jump back of a `while True` loop left only by a break).
                body_end = ce + 1
            break
        block = _Block("finally-body-copy", start=h, end=fin_end)
        body = self._run_in(block, i + 1, body_end, list(outer))
        left = self.last_stack
        if after_copy is not None and len(left) == len(outer) + 1 and body_end < h \
                and self._op(body_end) == "POP_BLOCK" and self._op(after_copy - 1) in ("RAISE_VARARGS", "RETURN_VALUE") \
                and not self.version.keeps_code_after_raise:
            # The body ends in `return value` and the finally body never finishes: the value
            # is computed before the copy, and the RETURN_VALUE after it was dropped as dead.
            body.append(n.Return(left[-1]))
        after_stmts: List[n.Stmt] = []
        if after_copy is None and body_end >= h - 1 and "pending" in block.info:
            pending = block.info["pending"]
            after_stmts = self.run_range(pending[0], pending[1], list(outer))
        elif after_copy == h and continuation is not None:
            after_stmts = self.run_range(continuation[0], continuation[1], list(outer))
        self.emit(self._finally_statement(body, finalbody))
        if after_copy is not None and after_copy < h:
            jump = instrs[after_copy]
            # (3.8/3.9 thread a jump to a jump: the copy's way on to a statement at `end` that
            # is a jump, a `break` after the try, went straight where that goes)
            if not (after_copy + 1 == h and jump.opname == "JUMP"
                    and (jump.target == end or self._threaded_through(jump.target, end))):
                for stmt in self.run_range(after_copy, h, list(outer)):
                    self.emit(stmt)
        for stmt in after_stmts:
            self.emit(stmt)
        return end

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

    # --- with -----------------------------------------------------------------------------------

    def op_SETUP_WITH(self, ins: Instr, i: int) -> int:
        return self._with(ins, i, False)

    def op_SETUP_ASYNC_WITH(self, ins: Instr, i: int) -> int:
        return self._with(ins, i, True)

    def _with(self, ins: Instr, i: int, is_async: bool) -> int:
        instrs = self.instrs
        manager = self.pop()
        if is_async:
            if isinstance(manager, n.Await):
                manager = manager.value
            if not isinstance(manager, _AsyncContext):
                raise self.fail(ins, "async with without BEFORE_ASYNC_WITH")
            manager = manager.value
        h = ins.target
        awaits = 3 if is_async else 0
        if self._op(h) == "WITH_CLEANUP_START":
            end = h + 3 + awaits
            if self._op(end - 1) != "END_FINALLY":
                raise self.fail(instrs[h], "unrecognised with cleanup")
            body_end = h - 2 if self._ops_at(h - 2, ("POP_BLOCK", "BEGIN_FINALLY")) \
                else self._live_end(i + 1, h)
            tail: Optional[Tuple[int, int]] = None
        elif self._op(h) == "WITH_EXCEPT_START":
            end = h + 8 + awaits
            if not self._ops_at(end - 5, ("POP_TOP", "POP_TOP", "POP_TOP", "POP_EXCEPT", "POP_TOP")):
                raise self.fail(instrs[h], "unrecognised with cleanup")
            body_end, tail = self._live_end(i + 1, h), None
            for pb in range(h - 1, i, -1):
                if instrs[pb].opname != "POP_BLOCK":
                    continue
                j = pb + 1
                if not (self._ops_at(j, _EXIT_CALL) and instrs[j].argval is None):
                    if pb > h - 2 * _MAX_COPY:
                        continue  # an enclosing block left on the way to a copied exit
                    break
                width = 6 + awaits
                while self._is_with_exit(pb - width, awaits):
                    pb -= width  # the way out of enclosing withs follows: a return from inside
                j = pb + 1 + 4 + awaits
                if self._op(j) == "POP_TOP":
                    j += 1
                    # A copy of the code after the with is what the handler, having swallowed
                    # the exception, falls into too; other code there is a `return <constant>`
                    # that ends the body (its value loaded after the with is left).
                    copied_after = self._same_code((j, h), (end, end + h - j))
                    if j == h or (j + 1 == h and instrs[j].opname == "JUMP") \
                            or (self._is_copy(j, h) and copied_after):
                        # 3.10 may also have duplicated this way out in front of it, for a loop
                        # in the body that leaves by its end and by a break.
                        body_end, tail = self._before_duplicate(i + 1, pb, h), (j, h)
                    elif copied_after and self._note_outer(self._outer_exit(j, h)):
                        body_end = self._before_duplicate(i + 1, pb, h)
                break
        else:
            raise self.fail(instrs[h], "unrecognised with handler")
        if tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP":
            t = instrs[tail[0]].target
            if t > end and self._duplicates([end, t]):
                # 3.10: the way out jumps to a duplicate of the code after the handler (the exit of
                # an enclosing with); the statement ends where that duplicate starts.
                end, tail = t, None
        outer = list(self.stack)
        exit_slot = m.WithExit()
        self.for_targets.append(None)
        try:
            block = _Block("with", [exit_slot])
            body = self._run_in(block, i + 1, body_end, outer + [exit_slot, m.Sentinel("for-target")])
            target = self.for_targets[-1]
            # (`with m: return g()` through such a copy: the with's exit call, then the copy)
            self._dead_return_after_copy(body, self.last_stack, outer, body_end, h)
            if tail is None and body_end == h and "pending" in block.info:
                tail = block.info["pending"]
        finally:
            self.for_targets.pop()
        if tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP" and self.loops \
                and instrs[tail[0]].target in self.loops[-1].continue_targets and instrs[tail[0]].target < i \
                and not self._same_code(tail, (end, end + 1)):
            # The body's way out, after the exit call, is a jump back to the loop's head that the
            # handler's way on (having swallowed the exception) is not: a `continue` that ends
            # the body (to a `while True:` line's NOP, the body's end going past it; or with more
            # of the loop body after the with). Read after the with, a swallowed exception would
            # go back to the head too.
            body.append(n.Continue(required=True))
            tail = None
        elif tail is not None and tail[0] + 1 == tail[1] and instrs[tail[0]].opname == "JUMP" and self.loops \
                and instrs[tail[0]].target != end and self._past_loop(self.loops[-1], tail[0], instrs[tail[0]].target) \
                and not self._same_code(tail, (end, end + 1)) and self._op(end - 1) == "POP_TOP" \
                and not self._leaves_loop(end):
            # Likewise a jump out of the loop that the handler's way on, more of the loop body,
            # is not: a `break` that ends the body (`with m: ...; break` then more statements).
            body.append(n.Break())
            tail = None
        items: List[Tuple[n.Expr, Optional[n.Expr]]] = [(manager, target)]
        if len(body) == 1 and isinstance(body[0], n.With) and body[0].is_async == is_async:
            items += body[0].items
            body = body[0].body
        self.emit(n.With(items, body, is_async))
        if tail is not None and tail[0] < tail[1] and not self._same_code(tail, (end, end + tail[1] - tail[0])):
            jump = instrs[tail[0]]
            if not (tail[0] + 1 == tail[1] and jump.opname == "JUMP" and jump.target == end):
                for stmt in self.run_range(tail[0], tail[1], list(outer)):
                    self.emit(stmt)
        return end

    def _is_with_exit(self, k: int, awaits: int) -> bool:
        """`POP_BLOCK; __exit__(None, None, None); [await]; POP_TOP` at `k` (3.9+)."""
        if self._op(k) != "POP_BLOCK" or not self._ops_at(k + 1, _EXIT_CALL) or self.instrs[k + 1].argval is not None:
            return False
        j = k + 5
        if awaits and not self._ops_at(j, _AWAIT):
            return False
        return self._op(j + awaits) == "POP_TOP"

    # --- async for ------------------------------------------------------------------------------

    def async_for_loop(self, h: int) -> int:
        """`async for` before 3.11: SETUP_FINALLY around GET_ANEXT, END_ASYNC_FOR at the handler."""
        from depyf.decompiler.control import LoopInfo
        instrs = self.instrs
        ins = instrs[h]
        if not self._ops_at(h + 1, ("GET_ANEXT", "LOAD_CONST", "YIELD_FROM", "POP_BLOCK")):
            raise self.fail(ins, "unrecognised async for loop")
        handler = ins.target
        if self._op(handler) != "END_ASYNC_FOR":
            raise self.fail(ins, "async for loop without END_ASYNC_FOR")
        iterator = self.pop()
        iterable = iterator.value if isinstance(iterator, m.Iterator) else iterator
        if not isinstance(iterator, m.Iterator):
            iterator = m.Iterator(iterator, is_async=True)
        j = self.loop_end.get(h, handler - 1)
        body_start = h + 5
        body_end = j if instrs[j].opname == "JUMP" and instrs[j].target == h else j + 1
        real_exit = max(handler + 1, j + 1)
        break_target = self._break_target(body_start, body_end, real_exit, {j})
        info = LoopInfo({h}, break_target, real_exit, body_end)
        # (a `break` drops the iterator; 3.10 may copy the code after the loop there)
        info.iterator, info.outer_end = iterator, self.end
        self.loops.append(info)
        self.active_loops.add(h)
        self.for_targets.append(None)
        try:
            body = self.run_range(body_start, body_end, list(self.stack) + [iterator, m.Sentinel("for-target")])
            target = self.for_targets[-1]
        finally:
            self.loops.pop()
            self.active_loops.discard(h)
            self.for_targets.pop()
        if target is None:
            raise self.fail(ins, "async for loop without a target")
        _drop_trailing_continue(body)
        if break_target is None and info.copied_exit is not None:
            break_target = self._exit_original(info, *info.copied_exit)
        orelse: List[n.Stmt] = []
        after = real_exit
        if break_target is not None and real_exit < break_target <= self.end:
            orelse = self.run_range(real_exit, break_target, list(self.stack))
            after = break_target
        after = self.finish_for(n.For(target, iterable, body, orelse, True), after)
        self._place_copied_exit(info, after)
        return after
