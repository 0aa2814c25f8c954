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

# A stack state: one flag per slot, bottom first; True marks the extra slot of a pair.
State = Tuple[bool, ...]

# Instructions that add the value on top to a container `arg` slots down (after the pop).
_ADDS_DOWN = frozenset({"LIST_APPEND", "SET_ADD", "LIST_EXTEND", "SET_UPDATE", "DICT_UPDATE", "DICT_MERGE"})


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
        work = [0]
        self.states[0] = ()
        while work:
            k = work.pop()
            state = self.states[k]
            assert state is not None
            r = self.region_of[k]
            region = self.bc.regions[r] if r >= 0 else None
            # (3.15 makes a generator expression's iterator before the code's one region starts,
            # at its depth, and lets the region run on past where the loop popped it: no
            # exception arrives there that would need the handler's depth)
            if region is not None and len(state) >= region.depth:
                entry = state[:region.depth] + (False,) * (1 + int(region.lasti))
                self._reach(region.handler, entry, work)
            ins = self.instrs[k]
            after = self._step(k, ins, state)
            if ins.opname in TERMINAL:
                continue
            if ins.target is not None:
                self._reach(ins.target, after, work)
            if ins.opname != "JUMP":
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

    def _step(self, k: int, ins: Instr, s: State) -> State:
        """The state after `ins`; notes what its canonical form is."""
        op, raw = ins.opname, ins.raw_opname
        if raw == "GET_ITER":
            _need(len(s) >= 1 and not s[-1])
            self._get_iter(k, ins)
            return s[:-1] + (False, True)
        if op == "PUSH_NULL" and (self._sends_next(k + 1) or self._iterates_next(k + 1)):
            self.removed.add(k)
            return s + (True,)
        if raw == "POP_ITER":
            _need(s[-2:] == (False, True))
            return s[:-2]
        if op == "POP_TOP":
            _need(len(s) >= 1)
            if s[-1]:
                self.removed.add(k)
            return s[:-1]
        if op == "END_SEND":
            _need(len(s) >= 3 and s[-3:] == (False, True, False))
            return s[:-3] + (False,)
        if op == "SWAP":
            n = ins.arg
            _need(n is not None and 2 <= n <= len(s) and not s[-1] and not s[-n])
            self._recount(k, ins, n - sum(s[len(s) - n + 1:-1]))
            return s
        if op == "COPY":
            n = ins.arg
            _need(n is not None and 1 <= n <= len(s) and not s[-n])
            self._recount(k, ins, n - sum(s[len(s) - n + 1:]))
            return s + (False,)
        if op in _ADDS_DOWN or op == "MAP_ADD":
            popped = 2 if op == "MAP_ADD" else 1
            n = ins.arg
            _need(n is not None and n >= 1 and n + popped <= len(s) and not any(s[-popped:]))
            _need(not s[len(s) - popped - n])
            self._recount(k, ins, n - sum(s[len(s) - popped - n + 1:len(s) - popped]))
            return s[:-popped]
        change = effect(self.bc.version, ins)
        _need(change is not None)
        assert change is not None
        if change < 0:
            _need(len(s) >= -change and not any(s[change:]))
            return s[:change]
        return s + (False,) * change

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
            state = next((self.states[k] for k in range(region.start, min(region.end, len(self.instrs)))
                          if self.states[k] is not None and len(self.states[k]) >= region.depth), None)
            if state is not None and any(state[:region.depth]):
                depths[r] = region.depth - sum(state[:region.depth])
        return depths


def _need(condition: bool) -> None:
    if not condition:
        raise _Unfollowable
