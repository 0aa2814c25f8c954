"""Short-circuit values whose jump 3.14 threads past a test it knows the outcome of, in the
spelling of 3.13 (capability `threads_known_value_tests`).

A short-circuit value is tested by `COPY 1; TO_BOOL; POP_JUMP_IF_*`. Where such a jump lands on
the next such test of the same value, 3.13 jumps to that test; 3.14 goes straight on to where the
test sends the value, since the outcome is known:

- the other sense (`a and b or c`: a false `a` is tested again by `or`): 3.14 jumps to the
  test's fall-through, its `POP_TOP`;
- the same sense (`a and (b or c) or d`: a true `b` makes `a and ...` true, which `or` tests
  again; `(x if t else b or c) or d` likewise): 3.14 jumps to where that test jumps.

This pass sends such a jump back to the test, as 3.13 does: the same run, one way of reading it.
The other sense names its test (the one before the `POP_TOP`). The same sense does not: any later
test of the same sense and destination could be it. 3.13's is the test where the expression that
holds the jump's and/or ends, the first one after the jump where another part of that expression
ends too: a jump over an arm of a conditional expression lands on it, or a value of the other
sense was threaded past it (the `a` of `a and (b or c)`). That part must start outside the stretch
from the jump to the test: one that starts inside it (`a and (b or (c and d) or e) or f`: `c`;
`a and (b or ((x if t else y) and c))`: the conditional expression) is an operand that follows
the jump inside its own and/or.
"""
from typing import Dict, List, Optional, Set

from depyf.decompiler.instructions import OPPOSITE_JUMPS, Bytecode, Instr
from depyf.decompiler.passes.rewrite import Edits, copy_instr, rewrite

_VALUE_TESTS = ("POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE")


def canonicalize(bytecode: Bytecode) -> Bytecode:
    instrs = bytecode.instrs
    tests = [k for k, ins in enumerate(instrs) if ins.opname in _VALUE_TESTS and _keeps_value(instrs, k)]
    if len(tests) < 2:
        return bytecode
    marks = _marks(instrs, tests)
    edits: Edits = {}
    for k in tests:
        ins = instrs[k]
        test = _same_sense_test(instrs, tests, marks, k)
        if test is None:
            test = _test_before(instrs, ins.target, OPPOSITE_JUMPS[ins.opname])
        if test is not None:
            edits[k] = [copy_instr(ins, target=test, target_offset=instrs[test].offset)]
    return rewrite(bytecode, edits)


def _keeps_value(instrs: List[Instr], k: int) -> bool:
    """Is the jump at `k` the test of a short-circuit value (`COPY 1; TO_BOOL` before it)?"""
    return k >= 2 and instrs[k - 1].opname == "TO_BOOL" and instrs[k - 2].opname == "COPY" \
        and instrs[k - 2].arg == 1


def _test_before(instrs: List[Instr], target: Optional[int], opposite: str) -> Optional[int]:
    """The start of the value test `COPY 1; TO_BOOL; <opposite>` that falls through to the
    `POP_TOP` at `target`, if that is where the jump went."""
    if target is None or target < 3 or target >= len(instrs) or instrs[target].opname != "POP_TOP":
        return None
    if instrs[target - 1].opname == opposite and _keeps_value(instrs, target - 1):
        return target - 3
    return None


def _marks(instrs: List[Instr], tests: List[int]) -> Dict[int, Set[int]]:
    """test jump index -> where the expressions start that show, by a jump, that they end at
    that test: a conditional expression whose arm jumps to the test's start over the other (its
    first test that goes to that other arm), and a value test of the other sense threaded past
    the test (that test itself)."""
    starts = {k - 2: k for k in tests}
    arms: Dict[int, int] = {}  # start of a conditional expression's second arm -> its first test
    for j, ins in enumerate(instrs):
        if ins.opname in OPPOSITE_JUMPS and ins.target is not None and ins.target > j:
            arms.setdefault(ins.target, j)
    marks: Dict[int, Set[int]] = {}
    for j, ins in enumerate(instrs):
        if ins.opname == "JUMP" and ins.target in starts and not _skips_chain_cleanup(instrs, j):
            marks.setdefault(starts[ins.target], set()).add(arms.get(j + 1, j))
    for j in tests:
        test = _test_before(instrs, instrs[j].target, OPPOSITE_JUMPS[instrs[j].opname])
        if test is not None:
            marks.setdefault(test + 2, set()).add(j)
    return marks


def _skips_chain_cleanup(instrs: List[Instr], j: int) -> bool:
    """Is the jump at `j` a chained comparison's jump over its cleanup (`SWAP 2; POP_TOP`)? It
    ends no expression that holds an earlier jump: the chain is one operand."""
    return instrs[j].target == j + 3 and instrs[j + 1].opname == "SWAP" and instrs[j + 1].arg == 2 \
        and instrs[j + 2].opname == "POP_TOP"


def _same_sense_test(instrs: List[Instr], tests: List[int], marks: Dict[int, Set[int]],
                     k: int) -> Optional[int]:
    """The start of the test 3.13 sends the value test at `k` to when 3.14 sent it on to where
    that test, of the same sense, jumps (see the module's docstring); None if none is."""
    ins = instrs[k]
    for t in tests:
        if t <= k or t >= ins.target:
            continue
        other = instrs[t]
        if other.opname != ins.opname or other.target != ins.target:
            continue
        if any(not k < j < t for j in marks.get(t, ())):
            return t - 2
    return None
