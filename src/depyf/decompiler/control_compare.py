"""Chained comparisons (`a < b < c`): DUP_TOP/SWAP + ROT/COPY, the cleanup block, and copied exits.
"""
from typing import NamedTuple, Optional, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import ENDS_FLOW, MAX_COPY, TERMINAL, Instr
from depyf.decompiler.control_model import COND_JUMPS


class _CompareChain(NamedTuple):
    """A chained comparison as `ControlCompare._read_compare_chain` reads its links."""
    expr: n.Compare  # the whole chain
    after: int  # the instruction after the last comparison: its jump where the chain is a test
    cleanup: int  # the cleanup (POP_TOP of the copied operand) where a failing link's jump goes


class ControlCompare:
    """Chained comparisons; mixed into `control.ControlRules`."""

    def chain_compare_start(self, i: int) -> bool:
        instrs = self.instrs
        if i + 2 >= len(instrs):
            return False
        a, b, c = instrs[i], instrs[i + 1], instrs[i + 2]
        if a.opname == "DUP_TOP" and b.opname == "ROT_THREE" and c.opname == "COMPARE_OP":
            return True
        if a.opname == "SWAP" and a.arg == 2 and b.opname == "COPY" and b.arg == 2 and \
                c.opname in ("COMPARE_OP", "IS_OP", "CONTAINS_OP"):
            return True
        if a.opname == "DUP_TOP" and b.opname == "ROT_THREE" and c.opname in ("IS_OP", "CONTAINS_OP"):
            return True
        return False

    def _spill_copied(self, value: n.Expr) -> None:
        """A value used twice is computed once, into a temporary (rewritten code only)."""
        if not isinstance(value, (n.Name, n.Const)) and not isinstance(value, m.MARKER_TYPES):
            self.spill_value(value)

    def op_DUP_TOP(self, ins: Instr, i: int) -> Optional[int]:
        if self.chain_compare_start(i):
            return self.chained_compare(i)
        if self.spill_mode and not self.pure_mode:
            self._spill_copied(self.stack[-1])
        self.stack.append(self.stack[-1])
        return None

    def op_SWAP(self, ins: Instr, i: int) -> Optional[int]:
        if ins.arg == 2 and self.chain_compare_start(i):
            return self.chained_compare(i)
        if ins.arg in (2, 3) and self.parallel_assignment(i + 1, ins.arg):
            return None
        s = self.stack
        s[-1], s[-ins.arg] = s[-ins.arg], s[-1]
        return None

    def _compare_parts(self, ins: Instr) -> str:
        if ins.opname == "IS_OP":
            return "is not" if ins.flag else "is"
        if ins.opname == "CONTAINS_OP":
            return "not in" if ins.flag else "in"
        return ins.argval

    def chained_compare(self, i: int) -> int:
        """`a < b < c` whose first link starts at `i` (DUP_TOP/ROT_THREE before 3.11, SWAP/COPY
        after), pushed as one value. Returns where reading goes on: the cleanup block that a
        failing link jumps to (the POP_TOP of the copied operand) is skipped, or read through,
        as the code after the chain lays it out."""
        chain = self._read_compare_chain(i)
        self.stack.append(chain.expr)
        instrs, k, cleanup = self.instrs, chain.after, chain.cleanup
        after = instrs[k] if k < len(instrs) else None
        if after is not None and after.opname == "JUMP" and after.target > k and cleanup == k + 1:
            return self._compare_value_jump_over_cleanup(after, k, cleanup)
        if after is not None and after.opname in COND_JUMPS:
            self._skip_test_cleanup(after, k, cleanup)
            return k
        return self._skip_value_cleanup(k, cleanup)

    def _read_compare_chain(self, i: int) -> _CompareChain:
        """Read the links of the chain at `i`: each one copies its right operand, compares, and
        jumps to the cleanup when false (`_compare_link_jump`); the last one compares without a
        copy."""
        instrs = self.instrs
        right = self.pop()
        left = self.pop()
        ops = [self._compare_parts(instrs[i + 2])]
        comparators = [right]
        k = i + 3
        while True:
            jump, k = self._compare_link_jump(k)
            cleanup = jump.target
            # (3.11+'s `... is None` last, fused into its jump, is spelled out by pass
            # `chain_none_tests`: a link like any other)
            operand, p = self._compare_operand(k)
            comparators.append(operand)
            if self.chain_compare_start(p):
                ops.append(self._compare_parts(instrs[p + 2]))
                k = p + 3
                continue
            ops.append(self._compare_parts(instrs[p]))
            k = p + 1
            break
        return _CompareChain(n.Compare(left, ops, comparators), k, cleanup)

    def _compare_link_jump(self, k: int) -> Tuple[Instr, int]:
        """The jump to the cleanup of the chain link whose comparison ends before `k`, and where
        the next operand starts: JUMP_IF_FALSE_OR_POP (before 3.12), or COPY 1, maybe TO_BOOL
        (3.13+), POP_JUMP_IF_FALSE and the POP_TOP of the copy (3.12+)."""
        instrs = self.instrs
        j = instrs[k]
        if j.opname == "COPY" and j.arg == 1:
            k += 1
            if instrs[k].opname == "TO_BOOL":
                k += 1
            jump = instrs[k]
            k += 2  # the jump and its POP_TOP
        else:
            jump = j
            k += 1
        if jump.opname not in ("JUMP_IF_FALSE_OR_POP", "POP_JUMP_IF_FALSE"):
            raise self.fail(jump, "unrecognised chained comparison")
        return jump, k

    def _compare_operand(self, k: int) -> Tuple[n.Expr, int]:
        """The chain's next operand, read from `k` up to its comparison (or the next link's
        start), and where that comparison is."""
        instrs = self.instrs
        saved, expr_start = self.stack, self.expr_start
        self.stack = list(saved)
        base = len(self.stack)
        self.pure_mode += 1
        try:
            p = k
            while not (instrs[p].opname in ("COMPARE_OP", "IS_OP", "CONTAINS_OP") and len(self.stack) == base + 1) \
                    and not self.chain_compare_start(p):
                p = self.step(p)
            operand = self.stack[-1]
        finally:
            self.pure_mode -= 1
            # (the operand starts from the stack the chain's own start had: the chain's value
            # began there, not at the operand)
            self.stack, self.expr_start = saved, expr_start
        return operand, p

    def _compare_value_jump_over_cleanup(self, after: Instr, k: int, cleanup: int) -> int:
        """Where reading goes on after a chain used as a value, whose JUMP at `k` goes over the
        cleanup (two instructions at `cleanup`) to where the value is used."""
        instrs = self.instrs
        nxt_jump = instrs[cleanup + 2] if cleanup + 2 < len(instrs) else None
        if self.end == cleanup + 2 and nxt_jump is not None and nxt_jump.opname == "JUMP" \
                and nxt_jump.target == after.target:
            # The chain ends the first arm of a conditional expression (`(a < b < c) if d
            # else e`, 3.8/3.9/3.11): its jump over the cleanup went to the arm's own JUMP
            # over the other arm, right after the cleanup, and was threaded on to where that
            # one goes. The arm ends at that JUMP, the end of the range being read.
            return self.end
        length = self.end - (cleanup + 2)
        if 0 < length <= 8 and after.target + length <= len(instrs) \
                and instrs[self.end - 1].opname == "RETURN_VALUE" \
                and self._same_test(cleanup + 2, after.target, length):
            # ... or that JUMP became a copy of the block it went to, which ends the function
            # (3.8/3.9 a bare return, `return b or (a < b < c if d else e)`).
            return cleanup + 2
        return after.target  # value form: skip the cleanup

    def _skip_test_cleanup(self, after: Instr, k: int, cleanup: int) -> None:
        """Mark the cleanup of a chain used as a test (its own jump `after` at `k`) to be
        skipped, with the jump over it that the compiler lays between them."""
        instrs = self.instrs
        nxt = instrs[k + 1] if k + 1 < len(instrs) else None
        branch_end = self._compare_ends_branch(k, cleanup)
        if branch_end is not None:
            # The chain ends the first branch of a conditional expression used as a test
            # (`if (0 < a < 2 if c else b) or d:`): the JUMP after it goes over the other
            # branch, and the cleanup leaves by its own JUMP (its false way). The JUMP stays
            # for the condition chain to read as that branch's end; the cleanup is skipped.
            self.skip[cleanup] = branch_end
        elif nxt is not None and nxt.opname == "JUMP" and nxt.target > k + 1 and cleanup == k + 2:
            self.fall_override[k] = nxt.target
            self.skip[k + 1] = nxt.target
        elif after.opname == "POP_JUMP_IF_TRUE" and after.target > k and self._copied_jump_over_cleanup(k, cleanup):
            # The same when that JUMP over the cleanup (a lone POP_TOP: a test that jumps when
            # true falls from its cleanup into where the chain goes on) became a copy of the
            # small exit block it went to (3.10, 3.12+), right before the cleanup and the block.
            # (Not a loop's bottom test, which jumps back: `_bottom_chain_copied_exit`.)
            self.fall_override[k] = cleanup + 1
            self.skip[k + 1] = cleanup + 1
        else:
            self._skip_cleanup_and_false_copy(after, k, cleanup)

    def _skip_cleanup_and_false_copy(self, after: Instr, k: int, cleanup: int) -> None:
        """Skip the cleanup of a chain used as a test that falls into what follows it, and a copy
        of where a false chain goes laid after the cleanup (3.10+); 3.12+'s pair spelling a
        backward jump-if-false between the test's jump and the cleanup goes with it."""
        instrs = self.instrs
        nxt = instrs[k + 1] if k + 1 < len(instrs) else None
        over = instrs[k + 2] if k + 2 < len(instrs) else None
        false_dest = k + 1 if after.opname == "POP_JUMP_IF_TRUE" else after.target
        if after.opname in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE") and after.target == k + 2 \
                and nxt is not None and nxt.opname == "JUMP" and nxt.target < k and over is not None \
                and over.opname == "JUMP" and cleanup == k + 3 \
                and (over.target > cleanup if after.opname == "POP_JUMP_IF_TRUE" else over.target == cleanup + 1):
            # 3.12+ spell a backward jump-if-false as a jump over a JUMP back; the jump
            # over the cleanup then follows that pair. A jump-if-false over the JUMP back
            # (the chain's true way goes back: `not (a < b < c)` as a comprehension's
            # filter) is a backward jump-if-true: the JUMP after the pair goes where a
            # false chain goes, where the cleanup falls into.
            self.skip[k + 2] = over.target
            self.fall_override[k + 1] = over.target  # (read by `_normalised_atom`)
            if after.opname == "POP_JUMP_IF_FALSE":
                false_dest = over.target
        self.skip[cleanup] = cleanup + 1
        # 3.10+ may follow the cleanup with a copy of where a false comparison goes
        # (a `raise` or `return` block) instead of a jump there: the text has it once.
        copy = cleanup + 1
        if false_dest is not None and not self.jump_sources.get(copy) and false_dest < copy:
            self._skip_copy(copy, false_dest)
        elif false_dest is not None and not self.jump_sources.get(copy) and false_dest > copy \
                and self.instrs[false_dest - 1].opname in ENDS_FLOW \
                and self._same_test(copy, false_dest, false_dest - copy):
            self.skip[copy] = false_dest  # (the copy right before the block it repeats)

    def _skip_value_cleanup(self, k: int, cleanup: int) -> int:
        """Where reading goes on after a chain used as a value whose way on falls from `k` (no
        jump over the cleanup): the cleanup is skipped, with the copy of a returning tail 3.10+
        lay after it; or, where that copy stands for the jump to a join, reading goes on there."""
        copied = self._copied_return_tail(k, cleanup)
        if copied and self.jump_sources.get(cleanup + 2) and cleanup + 2 <= self.end:
            # The chain ends a value whose other ways join at the block after the cleanup (`x = d
            # and (a < b < c)`, `return b or (d if d else a < b < c)`): the jump over the cleanup
            # to that join became a copy of it (3.10+; 3.8/3.9 a bare return). Going to the join
            # is the same code; the value ends there, like the other ways into it.
            return cleanup + 2
        if copied and cleanup + 2 + copied == self.end:
            # The same when the copy after the cleanup ends the range being read: the chain ends
            # the first arm of a conditional expression whose way out (its jump to the join) was
            # copied too (`return b or (a < b < c if d else e)`): the arm ends at that copy.
            return cleanup + 2
        if copied:
            # 3.10+ copies a short tail that returns into the cleanup path: the text has it once.
            self.skip[cleanup] = cleanup + 2 + copied
            return k
        self.skip[cleanup] = cleanup + 2
        return k

    def _compare_ends_branch(self, k: int, cleanup: int) -> Optional[int]:
        """Where the code after the cleanup at `cleanup` starts, when the chained comparison
        whose last jump is at `k` ends the first branch of a conditional expression used as a
        test: right after the jump comes the branch's way on (a JUMP over the other branch, or
        3.10+ a copy of the block it reached), then the cleanup, whose way out is a JUMP to where
        a false comparison goes (or a copy of that block), then the other branch, which an
        earlier test jumps to. 3.8/3.9 leave the JUMP they threaded to its target after it."""
        instrs = self.instrs
        after, on = instrs[k], k + 1
        if cleanup <= on or after.opname not in COND_JUMPS or cleanup + 2 >= len(instrs):
            return None
        false_dest = on if after.opname == "POP_JUMP_IF_TRUE" else after.target
        back = instrs[on]
        if self.version.conditional_jumps_forward_only and after.opname == "POP_JUMP_IF_TRUE" \
                and after.target == on + 1 and back.opname == "JUMP" and back.target < k \
                and not self.jump_sources.get(on) and cleanup == on + 2:
            # 3.12+ spell a backward jump-if-false (the chain's false way in a loop, a
            # comprehension's filter: back to the loop's head) as a jump-if-true over a JUMP back;
            # the branch's way on follows that pair (`_normalised_atom` reads the pair as one).
            false_dest, on = back.target, on + 1
        elif self.version.conditional_jumps_forward_only and after.opname == "POP_JUMP_IF_FALSE" \
                and after.target == on + 1 and back.opname == "JUMP" and back.target < k \
                and not self.jump_sources.get(on) and cleanup == on + 2:
            # (the same over a jump-if-false, a backward jump-if-true: the chain's true way goes
            # back, `not (a < b < c if t else e)` as a filter; false, it falls into the way on)
            false_dest = on = on + 1
        way_on = instrs[on]
        if way_on.opname == "JUMP" and cleanup == on + 1:
            branch_target = way_on.target
            if false_dest == on:
                false_dest = branch_target
        elif self.version.copies_exit_blocks and after.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") \
                and self._exit_block_length(on) and on + self._exit_block_length(on) == cleanup:
            # (`_copied_branch_exit` finds the block it copies. A test that jumps when true, as an
            # assert's, falls when false into the JUMP over its cleanup: a copy of where the
            # branch goes when false, a small exit block, the `raise`, which the cleanup reaches
            # through the branch's own JUMP after it, to another copy of that block: 3.13)
            branch_target = None
        else:
            return None
        if instrs[cleanup + 1].opname == "JUMP":
            out = instrs[cleanup + 1].target
            if out != false_dest and self._follow_jumps(out) != self._follow_jumps(false_dest) \
                    and not (after.opname == "POP_JUMP_IF_TRUE" and self._same_exit_block(out, false_dest)):
                # (3.8/3.9 may thread the cleanup's JUMP one step further, or each of the two
                # one step through a different JUMP of the chain of JUMPs out of nested
                # conditional expressions: where they end up is the same)
                return None
            end = cleanup + 2
        else:
            length = self._exit_block_length(cleanup + 1) if self.version.copies_exit_blocks else 0
            if not length or false_dest <= cleanup + 1 or not self._same_test(cleanup + 1, false_dest, length) \
                    or instrs[false_dest + length - 1].opname not in TERMINAL:
                return None
            end = cleanup + 1 + length
        if instrs[end].opname == "JUMP" and not self.jump_sources.get(end) and self.version.threads_jumps_once:
            end += 1  # (the JUMP threaded through: dead)
        sources = self.jump_sources.get(end, ())
        if not sources or any(src >= k for src in sources):
            return None
        if branch_target is not None and branch_target <= end:
            return None
        return end

    def _copied_jump_over_cleanup(self, k: int, cleanup: int) -> bool:
        """3.10/3.12+: is the code between the chained comparison's last jump at `k` and its
        cleanup (a lone POP_TOP at `cleanup`) a copy of the small exit block the cleanup falls
        into, standing for the JUMP over the cleanup to it?"""
        length = cleanup - (k + 1)
        if not self.version.copies_exit_blocks or length <= 0 or self.jump_sources.get(k + 1) \
                or self._exit_block_length(k + 1) != length or cleanup + 1 + length > len(self.instrs):
            return False
        return self._exit_block_length(cleanup + 1) == length and self._same_test(k + 1, cleanup + 1, length)

    def _exit_block_length(self, start: int) -> int:
        """The length of the small block at `start` that ends in a return or raise with no jump
        on the way and no jump into it after its start (what 3.10+ copy), else 0."""
        for length in range(1, MAX_COPY + 2):
            k = start + length - 1
            if k >= len(self.instrs) or self.instrs[k].is_jump or (length > 1 and self.jump_sources.get(k)):
                return 0
            if self.instrs[k].opname in TERMINAL:
                return length
        return 0

    def _copied_return_tail(self, start: int, cleanup: int) -> int:
        """The length of [start, cleanup) when it ends in a return and the chain's cleanup (two
        instructions at `cleanup`) is followed by a copy of it; else 0."""
        length = cleanup - start
        end = cleanup + 2 + length
        if length <= 0 or end > len(self.instrs) or self.instrs[cleanup - 1].opname != "RETURN_VALUE":
            return 0
        return length if self._same_test(start, cleanup + 2, length) else 0
