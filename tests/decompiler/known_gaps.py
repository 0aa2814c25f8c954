"""The one list of decompiler gaps that the tests expect to fail, per Python version.

Each entry turns matching test cases into ``xfail(strict=True)``: the gap stays visible in every
run, and when the decompiler learns the construct the case passes, the strict xfail fails, and
the entry must be removed. Add an entry only for a real, named decompiler gap (never to hide a
broken test), with the smallest failing case in GAPS.md.

``test`` names the kind of check: the test module's name without ``test_`` ("roundtrip",
"execution", "golden", "idioms", "api", "bad_input", "stdlib_sample"); ``case`` is an fnmatch
pattern over the test's parameter id (for the corpus: ``<corpus file>::<qualname>``), or over
the test function's name when it has no parameters. conftest.py applies the list.
"""
from fnmatch import fnmatchcase
from typing import Any, List, NamedTuple, Tuple

from .support import VERSION_KEY

ALL = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


class Gap(NamedTuple):
    test: str
    case: str
    versions: Tuple[str, ...]
    reason: str


GAPS: List[Gap] = [
    # Measured on every interpreter with `gap_report.py --known-gaps`; one entry per failing test,
    # the reason from its failure on the newest failing version.
    Gap('golden', 'comprehensions::list_comprehensions', ALL, 'differs from golden/comprehensions.list_comprehensions.py'),
    Gap('roundtrip', 'copied_exits::clause_if_else_then_return', ('3.12', '3.13'), 'clause_if_else_then_return: instruction #25: original POP_EXCEPT | decompiled LOAD_FAST msg (after STORE_FAST msg)'),
    Gap('roundtrip', 'copied_exits::else_part_inside_last_statement', ('3.12',), 'else_part_inside_last_statement: instruction #43: original RETURN_CONST None | decompiled LOAD_FAST kind (after RETURN_VALUE)'),
    Gap('roundtrip', 'exceptions::break_inside_try_except', ('3.12', '3.13'), 'break_inside_try_except: exception table entry #0: original [#2 LOAD_FAST n .. #10) -> #24 PUSH_EXC_INFO, depth 0 | decompiled [#2 LOAD_FAST n .. #11)'),
    Gap('roundtrip', 'exceptions::raise_in_else', ('3.11', '3.12', '3.13'), "raise_in_else: instruction #8: original PUSH_EXC_INFO | decompiled <end> (after RETURN_CONST 'else-ok')"),
    Gap('roundtrip', 'finally_nesting::_nested_finally_with_handler', ('3.11', '3.12', '3.13'), 'DecompilationError: unsupported instruction'),
    Gap('roundtrip', 'generics_py312::first', ('3.12', '3.13'), 'first: code object: original <code first> | decompiled <missing>'),
    Gap('roundtrip', 'handler_shapes::clause_if_else_each_copy_the_way_out', ('3.13',), 'clause_if_else_each_copy_the_way_out: instruction #29: original POP_EXCEPT | decompiled LOAD_FAST_LOAD_FAST loc, tokens (after STORE_FAST tokens)'),
    Gap('roundtrip', 'handler_shapes::if_try_elif_in_try_body', ('3.12', '3.13'), 'if_try_elif_in_try_body: exception table entry #2: original [#13 JUMP_FORWARD to #33 .. #24) -> #53 PUSH_EXC_INFO, depth 0 | decompiled [#13 JUMP_FORW'),
    Gap('roundtrip', 'loop_heads::while_chained_compare_in_for', ('3.8', '3.9'), 'while_chained_compare_in_for: instruction #21: original POP_JUMP_IF_FALSE to #4 | decompiled POP_JUMP_IF_FALSE to #40 (after COMPARE_OP <=)'),
    Gap('roundtrip', 'loop_heads::while_true_first_in_while_true', ('3.8', '3.9'), 'while_true_first_in_while_true: instruction #17: original JUMP_ABSOLUTE to #19 | decompiled LOAD_FAST n (after POP_JUMP_IF_FALSE to #2)'),
    Gap('roundtrip', 'match_py310::match_in_loop', ('3.10',), 'match_in_loop: instruction #12: original JUMP_ABSOLUTE to #4 | decompiled JUMP_FORWARD to #28 (after POP_TOP)'),
    Gap('roundtrip', 'statements::expression_statements', ('3.10', '3.12', '3.13'), 'expression_statements: instruction #20: original LOAD_CONST None | decompiled LOAD_FAST v (after RETURN_VALUE)'),
    Gap('roundtrip', 'threaded_jumps::while_true_ending_in_continue', ('3.8', '3.9'), 'while_true_ending_in_continue: instruction #16: original JUMP_ABSOLUTE to #2 | decompiled LOAD_CONST None (after JUMP_ABSOLUTE to #2)'),
    Gap('roundtrip', 'with_async::async_for_loop', ('3.10',), 'async_for_loop: instruction #44: original POP_TOP | decompiled LOAD_FAST out (after POP_JUMP_IF_FALSE to #49)'),
]


def gaps_for(test: str, case: str, version: str = VERSION_KEY) -> List[Gap]:
    return [g for g in GAPS if g.test == test and version in g.versions and fnmatchcase(case, g.case)]


def apply(item: Any) -> None:
    """Mark one collected test as a strict xfail if a gap matches it on this interpreter.

    The kind of check is the test module's name without ``test_``; the case is the test's
    parameter id, or its name when it has no parameters.
    """
    import pytest

    kind = item.module.__name__.rsplit(".", 1)[-1]
    kind = kind[len("test_"):] if kind.startswith("test_") else kind
    callspec = getattr(item, "callspec", None)
    case = callspec.id if callspec is not None else item.originalname
    found = gaps_for(kind, case)
    if found:
        reason = "; ".join(g.reason for g in found)
        item.add_marker(pytest.mark.xfail(strict=True, reason=f"known gap: {reason}"))


def param(case: str, *values: Any) -> Any:
    """`pytest.param(*values, id=case)`: the id is what GAPS entries match."""
    import pytest

    return pytest.param(*values, id=case)
