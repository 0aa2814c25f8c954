"""Preparation of the control-flow tables: the jump tables and the loops of the code's graph
(structure/loop_regions.py), the empty tables the rules fill as they read, and what starts at an
instruction (`control_at`).
"""
from bisect import bisect_left
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.graph.jumps import SourceTable
from depyf.decompiler.instructions import Instr
from depyf.decompiler.structure.loop_regions import loop_table


class _NotAValue(Exception):
    """A range parsed as a value turned out to hold statements."""


class ControlPrepare:
    """The control tables, prepared once per reading; mixed into `control.ControlRules`."""

    def prepare_control(self) -> None:
        """Set up this reading's control tables: the jump tables of the code's graph, its loops
        (`loop_table`: each header's last instruction, merged where 3.10+ tests overlap, extended
        over handler code and returning tails), and the empty tables the rules fill as they read."""
        self._prepare_join_tables()
        # The jump tables come from the graph of the code as decoded (one per `Bytecode`,
        # shared by every reading of it; `redirect` re-points a jump only in this reading's
        # view, and no instruction becomes a jump or stops being one).
        graph = FlowGraph.of(self.bc)
        jumps = graph.jumps
        self.graph = graph
        # Target -> the jumps to it, in order: the graph's read-only table (`_fall_out`, the one
        # rule that re-points a jump, does not record it there).
        self.jump_sources: SourceTable = graph.jump_table
        # The indices of the jumps and of the conditional ones, in order, for `jumps_in`.
        self.jump_indices: Sequence[int] = jumps.indices
        self.cond_jump_indices: Sequence[int] = jumps.conditional
        # Ends of ranges whose last statement, a loop, breaks to the enclosing loop's next
        # iteration (`_else_end_before_enclosing_continue`).
        self.breaks_to_next_iteration: Set[int] = set()
        # Ends of ranges whose last statement, a try, falls out past the range to the index given
        # (3.12+: an except clause's jump over the rest of an enclosing if statement).
        self.range_falls_to: Dict[int, int] = {}
        # The false targets among those whose if body's rest, read from handler code, jumps
        # there over the else part: that jump must be read as the else part's end.
        self.tail_else_joins: Set[int] = set()
        # 3.13: kept jumps out of try else parts, right after an else part being read (a test
        # in it that goes back to the loop's head stops there unless written as a `continue`).
        self.kept_else_exits: Set[int] = set()
        # (asked first here, before any `redirect`: what handler code is, a fact of the code as
        # decoded, is kept by exception_regions for the rest of the reading)
        self.handler_only_code()
        loops = loop_table(graph, self)
        # (the loop tables are facts of the bytecode, fixed once prepared: "The reading's state")
        self.handler_closed: FrozenSet[int] = loops.handler_closed
        self.handler_overrun: Mapping[int, int] = loops.handler_overrun
        self.returning_tails: FrozenSet[int] = loops.returning_tails
        self.loop_end: Mapping[int, int] = loops.loop_end
        self.loop_extra_headers: Mapping[int, FrozenSet[int]] = loops.extra_headers
        self.active_loops: Set[int] = set()
        self.chain_copies: List[Tuple[int, int]] = []  # (copy, original) exits of the chain being built
        self.chain_jumps: FrozenSet[int] = frozenset()  # the conditional jumps of the chain being built
        self.no_copied_exits = False  # (patterns: reading a guard, whose tests never leave by copies)
        self.copied_fall_outs: Set[int] = set()  # exception_table: handler exits that are copies of the way out

    def _prepare_join_tables(self) -> None:
        """The empty tables of skipped code and of where the statements being read join or go on,
        which the rules fill as they read (the first thing `prepare_control` sets up)."""
        self.skip: Dict[int, int] = {}
        # 3.11+: copies of a finally body that never finishes on a way out of the try body, with
        # the stack of the try: the way out is emitted there (`exit_into_dead_end`).
        self.dead_end_exits: Dict[int, Tuple[List[n.Expr], int]] = {}
        self.value_only_dead_ends: Set[int] = set()  # (of those, the ones past the protected code)
        # The end of code only handlers reach, moved past the range it ends -> where that range goes on.
        self.tail_ways_on: Dict[int, int] = {}
        self.fall_override: Dict[int, int] = {}

    def jumps_in(self, start: int, end: int) -> List[Instr]:
        """The jumps among the instructions [start, end), in order: what a scan of the range for
        instructions with a target finds (most of a range's instructions are no jump; the list
        of those, taken once, answers without looking at the others)."""
        indices, instrs = self.jump_indices, self.instrs
        return [instrs[k] for k in indices[bisect_left(indices, start):bisect_left(indices, end)]]

    def jumps_back_in(self, start: int, end: int) -> bool:
        """Does a jump among [start, end) go back (a loop's, or a `continue`'s)?"""
        return any(ins.target <= ins.index for ins in self.jumps_in(start, end))

    def _inlined_comprehension_at(self, i: int) -> bool:
        """Does a 3.12+ inlined comprehension's loop start at `i` (its accumulator, still empty,
        right below the iterator)?"""
        if not self.version.comprehensions_inlined or self.instrs[i].opname != "FOR_ITER" or len(self.stack) < 2:
            return False
        acc = self.stack[-2]
        return isinstance(acc, (n.List_, n.Set_)) and not acc.elts or isinstance(acc, n.Dict_) and not acc.keys

    def _pure_comprehension(self, i: int) -> int:
        """An inlined comprehension inside a value being parsed (`[x for x in y] if c else d`): its
        loop runs as usual and must become the comprehension, emitting nothing."""
        saved_pure, saved_out = self.pure_mode, self.out
        self.pure_mode, self.out = 0, []
        try:
            after = self.loop_at(i)
            emitted = self.out
        finally:
            self.pure_mode, self.out = saved_pure, saved_out
        if emitted:
            raise _NotAValue()  # a real loop: the value being parsed is not pure
        return after

    def control_at(self, i: int) -> Optional[int]:
        """The index after the construct that starts at `i` (a loop, a try block, a match
        statement, or a range registered to be skipped), or None for a plain instruction."""
        if i in self.skip:
            if i in self.dead_end_exits and not self.pure_mode:
                self.exit_into_dead_end(i)  # exception_table
            elif self.version.has_exception_table:
                self.step_over_exit_call(i)  # table_with
            return self.skip[i]
        if i in self.loop_end and i not in self.active_loops and not self.pure_mode:
            if self.version.has_exception_table and self.try_holds_loop(i, self.loop_end[i]):
                found = self.try_at(i)  # `try: while True:` (exception_table), the loop inside
            else:
                found = self.loop_at(i)
        elif i in self.loop_end and i not in self.active_loops and self._inlined_comprehension_at(i):
            found = self._pure_comprehension(i)
        elif self.version.has_exception_table and not self.pure_mode:
            found = self.try_at(i)  # exception_table
        else:
            found = None
        if found is None and i in self.match_starts and not self.pure_mode and not self.spill_mode:
            # (code that needs temporaries was not written as source: no match statement)
            return self.match_at(i)  # patterns
        return found
