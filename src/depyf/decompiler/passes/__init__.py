"""Canonicalization passes: each rewrites one compiler habit of some versions into the spelling the
structuring core reads, switched on by one capability of versions.py.

`canonicalize` runs after decoding, so every reader sees canonical instructions. A pass returns a
new `Bytecode` (see `rewrite.py`); the decoded instructions are never changed.
"""
from types import CodeType
from typing import Callable, List, Tuple

from depyf.decompiler.instructions import Bytecode, decode
from depyf.decompiler.versions import BytecodeVersion
from depyf.decompiler.passes import (builtin_genexpr_calls, call_ex_kwargs, chain_none_tests, finally_reraises,
                                     loop_exits_after_loops,
                                     older_raw_names, threaded_values, two_slot_iterators, while_bottom_tests,
                                     while_true_breaks, with_load_special, written_continues)

# (capability of BytecodeVersion, pass): in the order they run.
PASSES: List[Tuple[str, Callable[[Bytecode], Bytecode]]] = [
    # (first: it follows the stack by the raw instructions' effects, before any pass renames them)
    ("keeps_iterators_in_two_slots", two_slot_iterators.canonicalize),
    ("with_enters_by_load_special", with_load_special.canonicalize),
    ("call_ex_pushes_null_kwargs", call_ex_kwargs.canonicalize),
    ("threads_known_value_tests", threaded_values.canonicalize),
    ("inlines_builtin_genexpr_calls", builtin_genexpr_calls.canonicalize),
    ("spells_loads_anew", older_raw_names.canonicalize),
    ("threads_breaks_to_while_true_heads", while_true_breaks.canonicalize),
    ("copies_jumps_back_to_body_ends", written_continues.canonicalize),
    ("copies_for_jumps_back_to_body_ends", written_continues.for_loops),
    ("while_jumps_back_to_test", while_bottom_tests.canonicalize),
    # (last: the passes above read a chain's fused `is None` as compiled; the rules never see it)
    ("fuses_none_tests_into_jumps", chain_none_tests.canonicalize),
    ("copies_closing_reraises", finally_reraises.canonicalize),
]


# Passes that move whole blocks: they run where a function's body is read (`lay_out`, code_text.py),
# after `read`. A reading that fails lays the code out anew from what `read` gave
# (`resume_layout`), and other readers of `read` (generics.py) see the code as compiled.
LAYOUT_PASSES: List[Tuple[str, Callable[[Bytecode], Bytecode]]] = [
    ("lays_exits_inside_loops", loop_exits_after_loops.canonicalize),
]


def canonicalize(bytecode: Bytecode) -> Bytecode:
    return _run(PASSES, bytecode)


def lay_out(bytecode: Bytecode) -> Bytecode:
    """`bytecode` (what `read` gives) with its blocks where the structuring core reads them."""
    return _run(LAYOUT_PASSES, bytecode)


def _run(passes: List[Tuple[str, Callable[[Bytecode], Bytecode]]], bytecode: Bytecode) -> Bytecode:
    version = bytecode.version
    for capability, run in passes:
        if getattr(version, capability):
            bytecode = run(bytecode)
    return bytecode


def read(code: CodeType, version: BytecodeVersion) -> Bytecode:
    """The decoded and canonicalized instructions of `code` (what the structuring core reads)."""
    return canonicalize(decode(code, version))
