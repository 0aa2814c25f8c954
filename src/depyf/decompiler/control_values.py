"""Value-level `and`/`or` (JUMP_IF_*_OR_POP, and 3.12+ `COPY 1` + conditional jump + POP_TOP).
"""
from typing import Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.instructions import TERMINAL, Instr
from depyf.decompiler.control_model import _flatten


# The longest rest of a return statement the compiler copies into a branch (its exit blocks
# have at most four instructions).
_MAX_VALUE_TAIL = 6


_OR_POP = ("JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP")


class ControlValues:
    """Value-level and/or; mixed into `control.ControlRules`."""

    def op_JUMP_IF_FALSE_OR_POP(self, ins: Instr, i: int) -> int:
        left = self.pop()
        op = "and" if ins.opname == "JUMP_IF_FALSE_OR_POP" else "or"
        return self._short_circuit(op, left, i + 1, ins.target)

    op_JUMP_IF_TRUE_OR_POP = op_JUMP_IF_FALSE_OR_POP

    def _short_circuit(self, op: str, left: n.Expr, start: int, target: int) -> int:
        """`left and <operand>` (or `or`) whose operand starts at `start` and whose jump, right
        before it, goes to `target`: the operand is the value read up to where the jump lands
        (`_short_circuit_operand`). Returns where reading goes on."""
        # `a and b and c` reads as a, then the rest as one operand (all jumps go to the end). A
        # left operand that is already a finished `a and b` had its own jump land on this test:
        # the source grouped it, `(a and b) and c`, and 3.12+ compile the two differently.
        grouped = isinstance(left, n.BoolOp) and left.op == op
        end = self.end
        if target > end and end < len(self.instrs) and self.instrs[end].opname == "JUMP" \
                and (self.instrs[end].target == target or self._threaded_alike(end, target)):
            target = end  # threaded through the jump that ends this branch (`(a or b) if c else d`)
        elif target > end and end < len(self.instrs) and self.instrs[start - 1].opname in _OR_POP \
                and self.instrs[end].opname == self.instrs[start - 1].opname and self.instrs[end].target == target:
            # 3.8-3.11: the operand being read ends right before a jump that tests the same way to
            # the same place (`(a or (b and c)) and d`: `b and c` is the left operand of that
            # `and`); this jump was threaded through it. The operand ends there.
            target = end
        read = self._short_circuit_operand(start, target)
        if read is None:
            raise self.fail(self.instrs[start - 1], "short-circuit operand is not an expression")
        right, on = read
        self.stack.append(_flatten(op, left, right) if not grouped else n.BoolOp(op, [left, right]))
        return on

    def _threaded_alike(self, end: int, target: int) -> bool:
        """3.8/3.9: do the JUMP ending the branch at `end` and the JUMP at the short circuit's
        `target` go to the same place? Both were threaded on from where the branch's value
        is used: the short circuit lands on the jump past an inner conditional expression's
        else arm (`x = ((a and b) if c else c) if d else b`), the branch's own jump over it
        went straight on. Or that jump past the else arm became a copy of the bare return the
        branch's jump goes to (`return ((c and c) if c else c) if d else b`)."""
        instrs = self.instrs
        landing = instrs[target] if target < len(instrs) else None
        way_on = instrs[end].target
        if landing is None or way_on is None:
            return False
        if landing.opname == "JUMP":
            return landing.target == way_on
        return landing.opname == "RETURN_VALUE" and not self.version.copies_exit_blocks \
            and way_on < len(instrs) and instrs[way_on].opname == "RETURN_VALUE"

    def _short_circuit_operand(self, start: int, target: int) -> Optional[Tuple[n.Expr, int]]:
        """The right operand of a short circuit read from `start`, and where it ends: at the
        jump's `target`, or where the compiler laid the operand's own copy of the block there (a
        return, 3.8/3.9; a POP_TOP and small exit block, 3.10+), or the operand's own return.
        None where no reading of it is a value."""
        right = self.pure_value(start, target)
        if right is not None:
            return right, target
        # The jump may go to a return that another branch shares (3.8/3.9 `return (a or b) if c
        # else d`): the operand ends at this branch's own return.
        if target < len(self.instrs) and self.instrs[target].opname == "RETURN_VALUE":
            own = next((k for k in range(start, target) if self.instrs[k].opname == "RETURN_VALUE"), None)
            right = self.pure_value(start, own) if own is not None else None
            if right is not None:
                return right, own
        # `return a and b` may have its return duplicated into both paths.
        if self.instrs[target - 1].opname == "RETURN_VALUE":
            right = self.pure_value(start, target - 1)
            if right is not None:
                return right, target - 1
        # `a and b` as a statement before a small exit block: its POP_TOP and the block after it
        # were copied (3.10+), the fall-through copy ends right before the jump's target.
        own = self._copied_pop_exit(start, target)
        if own is not None:
            right = self.pure_value(start, own)
            if right is not None:
                self.skip[target] = target + (target - own)
                return right, own
        return self._operand_before_function_end(start, target)

    def _operand_before_function_end(self, start: int, target: int) -> Optional[Tuple[n.Expr, int]]:
        """The short circuit's operand from `start` and where it ends, when the block at the
        jump's `target` ends the function (`_function_end_block`) and the compiler copied it into
        the operand's first arm (`return a and (b if c else d)`); None otherwise."""
        # The compiler copies the block at the target (the rest of the return) into the first
        # arm in place of its jump there, so the operand is that arm's copy, then the other arm
        # falling into the target. Read with the block in view, the if is one value before the
        # copied exit (`_value_before_copied_exit`).
        tail = self._function_end_block(target)
        if tail is None:
            return None
        right = self.pure_value(start, target, view_end=tail)
        if right is not None:
            return right, target
        # The operand may fall into its own copy of that block before the target, with more
        # code in between (3.10+: `x = ((c and d) if a else c) if b else 1`, where the arm
        # `c and d` ends in a copy of the join, and the other arm `c` falls into the join
        # the `and` jumps to): the operand ends where the copy starts.
        length = tail - target
        for own in range(start + 1, min(target - length, self.end - length) + 1):
            if not self.version.copies_exit_blocks:
                break
            if self._same_test(own, target, length) \
                    and not any(self.jump_sources.get(q) for q in range(own, own + length)):
                right = self.pure_value(start, own)
                if right is not None:
                    return right, own
                break
        return None

    def _function_end_block(self, k: int) -> Optional[int]:
        """The end of the small straight block at `k` that returns (3.10+ copy such a block into
        each jump to it, 3.8/3.9 a bare return), or None."""
        instrs = self.instrs
        if not self.version.copies_exit_blocks:
            # (before 3.10 only a jump to a bare return becomes a copy of it)
            return k + 1 if instrs[k].opname == "RETURN_VALUE" else None
        for e in range(k, min(k + _MAX_VALUE_TAIL, len(instrs))):
            if instrs[e].is_jump or instrs[e].opname in TERMINAL and instrs[e].opname != "RETURN_VALUE":
                return None
            if instrs[e].opname == "RETURN_VALUE":
                return e + 1
        return None

    def _copied_pop_exit(self, start: int, target: int) -> Optional[int]:
        """Where the fall-through copy of `POP_TOP; <exit block>` at `target` starts, when 3.10+
        copied that block (`egg and f(egg)` ending a function: `POP_TOP; return None` twice)."""
        instrs = self.instrs
        if not self.version.copies_exit_blocks or instrs[target].opname != "POP_TOP":
            return None
        e = target + 1
        while e < len(instrs) and e - target < 8 and instrs[e].opname not in TERMINAL:
            if instrs[e].is_jump:
                return None
            e += 1
        own = 2 * target - e - 1
        if e >= len(instrs) or instrs[e].opname not in TERMINAL or own < start \
                or any(not start - 2 <= src < own for src in self.jump_sources.get(target, ())):
            return None
        for k in range(e + 1 - target):
            a, b = instrs[own + k], instrs[target + k]
            if a.opname != b.opname or a.argval != b.argval or (k and self.jump_sources.get(target + k)):
                return None
        return own

    def op_COPY(self, ins: Instr, i: int) -> Optional[int]:
        instrs = self.instrs
        if self.spill_mode and not self.pure_mode:
            self._spill_copied(self.stack[-ins.arg])
        if ins.arg == 1 and i + 2 < len(instrs):
            j = i + 1
            if instrs[j].opname == "TO_BOOL":
                j += 1
            jump = instrs[j]
            if jump.opname in ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE") and instrs[j + 1].opname == "POP_TOP" \
                    and jump.target > j:
                left = self.pop()
                op = "and" if jump.opname == "POP_JUMP_IF_FALSE" else "or"
                return self._short_circuit(op, left, j + 2, jump.target)
        self.stack.append(self.stack[-ins.arg])
        return None
