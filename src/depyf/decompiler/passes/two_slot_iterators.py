"""3.15's two-slot iterators, in the one-slot spelling of 3.14 (capability
`keeps_iterators_in_two_slots`).

3.15 keeps an iterator on the stack as a pair: GET_ITER pushes the iterator and an index (or
NULL) above it, FOR_ITER, SEND and END_SEND read both, and POP_ITER pops both. An await or an
`async for` step pushes a NULL of its own below the value it sends. So every way out of a loop
pops one slot more, and every argument that counts stack slots across a loop counts one more:

    break:                  POP_TOP; POP_TOP              (3.14: POP_TOP)
    return v:               SWAP 3; POP_TOP; POP_TOP      (3.14: SWAP 2; POP_TOP)
    [x for x in xs]:        LIST_APPEND 3                 (3.14: LIST_APPEND 2)
    await a:                GET_AWAITABLE; PUSH_NULL; LOAD_CONST None; SEND
    list(genexpr):          <the generator>; PUSH_NULL; FOR_ITER ...   (the builtin's fast path)
    yield from g:           GET_ITER 3; LOAD_CONST None; SEND    (3.14: GET_YIELD_FROM_ITER)

This pass follows the stack through the code (the effects come from the version's tables) and
marks the slot each pair adds; it removes the instructions that push or pop such a slot, lowers
the arguments that count past one, and the depths of the exception table with them. Where the
code does something else with such a slot (or the stack cannot be followed), the bytecode is
left as it was.
"""
from typing import Dict, List, Optional, Set, Tuple

from depyf.decompiler.instructions import TERMINAL, Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite
from depyf.decompiler.passes.stack_effects import effect

# A stack state: its depth, and the slots (counted from the bottom, ascending) that hold a pair's
# extra slot.
State = Tuple[int, Tuple[int, ...]]

# Instructions that add the value on top to a container `arg` slots down (after the pop).
_ADDS_DOWN = frozenset({"LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE"})
# The instructions `_step` reads for themselves; any other one only changes the depth.
_OWN = _ADDS_DOWN | {"MAP_ADD", "PUSH_NULL", "POP_TOP", "END_SEND", "SWAP", "COPY"}


class _Unfollowable(Exception):
    """The stack does something this pass does not read: leave the code as it is."""


def canonicalize(bytecode: Bytecode) -> Bytecode:
    names = bytecode.opnames()
    if "GET_ITER" not in names and "SEND" not in names:
        return bytecode
    try:
        flow = _Flow(bytecode)
    except _Unfollowable:
        return bytecode
    if not flow.removed and not flow.changed:
        return bytecode
    return rewrite(bytecode, flow.edits(), depths=flow.region_depths())


def _marked(marks: Tuple[int, ...], low: int, high: int) -> int:
    """How many of the slots [low, high) hold a pair's extra slot."""
    return sum(1 for m in marks if low <= m < high)


class _Flow:
    """The stack state before each instruction, and what the pairs' extra slots cost there."""

    def __init__(self, bytecode: Bytecode) -> None:
        self.bc = bytecode
        self.instrs = bytecode.instrs
        size = len(self.instrs)
        self.states: List[Optional[State]] = [None] * size
        self.region_of: List[int] = [-1] * size
        for r, region in enumerate(bytecode.regions):
            for k in range(region.start, min(region.end, size)):
                self.region_of[k] = r
        self.removed: Set[int] = set()
        self.changed: Dict[int, Instr] = {}  # index -> its canonical form
        self._run()

    # --- following the stack ------------------------------------------------------------------

    def _run(self) -> None:
        if not self.instrs:
            return
        instrs, regions, region_of, version = self.instrs, self.bc.regions, self.region_of, self.bc.version
        work = [0]
        self.states[0] = (0, ())
        while work:
            k = work.pop()
            state = self.states[k]
            assert state is not None
            depth, marks = state
            r = region_of[k]
            # (3.15 makes a generator expression's iterator before the code's one region starts,
            # at its depth, and lets the region run on past where the loop popped it: no
            # exception arrives there that would need the handler's depth)
            if r >= 0 and depth >= regions[r].depth:
                region = regions[r]
                self._reach(region.handler, (region.depth + 1 + int(region.lasti),
                                             tuple(m for m in marks if m < region.depth)), work)
            ins = instrs[k]
            op = ins.opname
            if op in _OWN or ins.raw_opname in ("GET_ITER", "POP_ITER"):
                after = self._step(k, ins, depth, marks)
            else:  # (most instructions: they only change the depth, above every pair)
                change = effect(version, ins)
                _need(change is not None and depth + change >= 0)
                assert change is not None
                _need(change >= 0 or not marks or marks[-1] < depth + change)
                after = (depth + change, marks)
            if op in TERMINAL:
                continue
            if ins.target is not None:
                self._reach(ins.target, after, work)
            if op != "JUMP":
                self._reach(k + 1, after, work)

    def _reach(self, k: int, state: State, work: List[int]) -> None:
        if k >= len(self.instrs):
            return  # (the end of the code: nothing runs there)
        known = self.states[k]
        if known is None:
            self.states[k] = state
            work.append(k)
        elif known != state:
            raise _Unfollowable

    def _step(self, k: int, ins: Instr, d: int, marks: Tuple[int, ...]) -> State:
        """The state after `ins`, one that reads or moves the slots; notes its canonical form."""
        op, raw = ins.opname, ins.raw_opname
        top = marks[-1] if marks else -1  # (the highest marked slot)
        if raw == "GET_ITER":
            _need(d >= 1 and top < d - 1)
            self._get_iter(k, ins)
            return d + 1, marks + (d,)
        if op == "PUSH_NULL":
            if self._sends_next(k + 1) or self._iterates_next(k + 1):
                self.removed.add(k)
                return d + 1, marks + (d,)
            return d + 1, marks
        if raw == "POP_ITER":
            _need(top == d - 1 and _marked(marks, d - 2, d - 1) == 0)
            return d - 2, marks[:-1]
        if op == "POP_TOP":
            _need(d >= 1)
            if top == d - 1:
                self.removed.add(k)
                return d - 1, marks[:-1]
            return d - 1, marks
        if op == "END_SEND":  # (receiver, its extra slot, value -> value)
            _need(d >= 3 and top == d - 2 and _marked(marks, d - 3, d - 2) == 0)
            return d - 2, marks[:-1]
        n = ins.arg
        _need(n is not None)
        assert n is not None
        if op == "SWAP":
            _need(2 <= n <= d and top < d - 1 and (d - n) not in marks)
            self._recount(k, ins, n - _marked(marks, d - n + 1, d - 1))
            return d, marks
        if op == "COPY":
            _need(1 <= n <= d and (d - n) not in marks)
            self._recount(k, ins, n - _marked(marks, d - n + 1, d))
            return d + 1, marks
        popped = 2 if op == "MAP_ADD" else 1  # (then the container is `n` slots down)
        into = d - popped - n
        _need(n >= 1 and into >= 0 and top < d - popped and into not in marks)
        self._recount(k, ins, n - _marked(marks, into + 1, d - popped))
        return d - popped, marks

    def _sends_next(self, k: int) -> bool:
        """Do `LOAD_CONST None; SEND` start at `k` (the value an await or a `yield from` sends)?"""
        instrs = self.instrs
        return k + 1 < len(instrs) and instrs[k].opname == "LOAD_CONST" and instrs[k].argval is None \
            and instrs[k + 1].opname == "SEND"

    def _iterates_next(self, k: int) -> bool:
        """Does a FOR_ITER run at `k` (a generator made into the pair by hand: the fast path of
        `list(genexpr)`, which pass `builtin_genexpr_calls` then drops)?"""
        return k < len(self.instrs) and self.instrs[k].opname == "FOR_ITER"

    def _get_iter(self, k: int, ins: Instr) -> None:
        if ins.arg == 0:  # (a loop's iterator)
            self.changed[k] = copy_instr(ins, arg=None, argval=None)
        else:  # (`yield from`: 3.14's GET_YIELD_FROM_ITER)
            _need(self._sends_next(k + 1))
            self.changed[k] = copy_instr(ins, opname="GET_YIELD_FROM_ITER", arg=None, argval=None)

    def _recount(self, k: int, ins: Instr, n: int) -> None:
        if n != ins.arg:
            self.changed[k] = copy_instr(ins, arg=n, argval=n)

    # --- the canonical code ---------------------------------------------------------------------

    def edits(self) -> Edits:
        instrs = self.instrs
        removed = self._keeping_targets()
        edits: Edits = {k: [] for k in removed}
        for k, ins in self.changed.items():
            edits[k] = [ins]
        for k, ins in enumerate(instrs):
            t = ins.target
            if t is not None and t in removed and ins.target_offset == instrs[t].offset and k not in edits:
                # (a jump to a removed instruction goes to the next one, from that one's offset:
                # a raw target before the instruction means a dropped NOP there)
                after = next((j for j in range(t, len(instrs)) if j not in removed), None)
                if after is not None:
                    edits[k] = [copy_instr(ins, target_offset=instrs[after].offset)]
        return edits

    def _keeping_targets(self) -> Set[int]:
        """The instructions to remove: of two POP_TOPs in a row where the first pops the extra
        slot (`break`), the second goes instead, so that jumps keep landing where they did."""
        instrs = self.instrs
        targets = {ins.target for ins in instrs if ins.target is not None}
        out: Set[int] = set()
        for k in sorted(self.removed):
            nxt = k + 1
            if k in targets and instrs[k].opname == "POP_TOP" and nxt < len(instrs) \
                    and instrs[nxt].opname == "POP_TOP" and nxt not in self.removed and nxt not in targets \
                    and self.region_of[nxt] == self.region_of[k] and self.states[nxt] is not None:
                out.add(nxt)
            else:
                out.add(k)
        return out

    def region_depths(self) -> Dict[int, int]:
        """Region index -> its depth without the extra slots below it."""
        depths: Dict[int, int] = {}
        for r, region in enumerate(self.bc.regions):
            state = next((st for st in self.states[region.start:region.end]
                          if st is not None and st[0] >= region.depth), None)
            below = _marked(state[1], 0, region.depth) if state is not None else 0
            if below:
                depths[r] = region.depth - below
        return depths


def _need(condition: bool) -> None:
    if not condition:
        raise _Unfollowable
