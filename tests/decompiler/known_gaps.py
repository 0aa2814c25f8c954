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
    Gap('bad_input', 'truncated_one_instruction', ('3.11', '3.12', '3.13'), 'the error does not name the instruction: jump target outside the code'),
    Gap('execution', 'classes::Counter', ALL, "different outcome: probe _probe_counter: original ('returned', (5, 10, 'counter:5/5', 'counter:5', 'Counter', ('mangled', ('hidden',)), 'Counter(5, n="),
    Gap('execution', 'classes::WithClassVars', ALL, "different outcome: probe _probe_class_vars: original ('returned', ((2, [1, 2, 0, 1], {'a': 1, 'b': 2}, True), False)), rebuilt ('raised', 'AttributeEr"),
    Gap('execution', 'comprehensions::comprehension_shadowing', ALL, "different outcome: call comprehension_shadowing(3): original ('returned', ('outer', [0, 1, 2], [0, 0, 1])), rebuilt ('returned', (2, [0, 1, 2], []))"),
    Gap('execution', 'comprehensions::list_comprehensions', ALL, "different outcome: call list_comprehensions(4): original ('returned', ([0, 1, 2, 3], [0, 0, 0, 6], [(0, 1), (0, 3), (1, 3), (2, 3)], [[], [0], [0, 1],"),
    Gap('execution', 'comprehensions::set_and_dict_comprehensions', ALL, "different outcome: call set_and_dict_comprehensions(4): original ('returned', ({0, 1, 2}, {1: 1, 2: 4, 3: 9}, {2: 4, 3: 9}, {'0': set(), '1': {0}, '2'"),
    Gap('execution', 'except_star_py311::except_star_basic', ('3.11',), "different outcome: call except_star_basic(0): original ('returned', [('value', 1), ('type-or-key', ['TypeError']), 'finally']), rebuilt ('returned', ["),
    Gap('execution', 'except_star_py311::except_star_reraise', ('3.11', '3.12', '3.13'), 'decompile failed: DecompilationError: unrecognised except* clause'),
    Gap('execution', 'expressions::chained_comparisons', ('3.10', '3.12', '3.13'), 'decompile failed: DecompilationError: stack does not match any source construct'),
    Gap('execution', 'expressions::starred_calls', ALL, 'decompile failed: TypeError: cannot print CompAppend'),
    Gap('execution', 'expressions::unary_and_power', ('3.13',), "different outcome: call unary_and_power(2, 3): original ('returned', (2, True, 3, -8, -8, 0.125)), rebuilt ('returned', (2, 2, 3, -8, -8, 0.125))"),
    Gap('execution', 'generics_py312::first', ('3.12', '3.13'), "the text does not execute: NameError: name 'T' is not defined"),
    Gap('execution', 'generics_py312::uses_generic_class', ('3.12', '3.13'), 'the text does not execute: SyntaxError: invalid syntax (<rebuilt uses_generic_class>, line 2)'),
    Gap('execution', 'with_async::async_comprehensions', ('3.8', '3.9', '3.10', '3.11'), "different outcome: call async_comprehensions(3): original ('coroutine', ([0, 1, 2], {1: (1, 6), 2: (2, 8)}, [(0, 9), (1, 10), (2, 11)]), [('tick', 0),"),
    Gap('golden', 'classes::Counter', ALL, 'differs from golden/classes.Counter.py'),
    Gap('golden', 'comprehensions::list_comprehensions', ALL, 'differs from golden/comprehensions.list_comprehensions.py'),
    Gap('golden', 'definitions::docstring_then_code', ('3.13',), 'differs from golden/definitions.docstring_then_code.py'),
    Gap('idioms', 'classes', ALL, 'Counter: _Counter__private, _Counter__slots_like'),
    Gap('idioms', 'conditions', ('3.10', '3.12', '3.13'), 'assert_with_boolean_condition: AssertionError'),
    Gap('idioms', 'generics_py312', ('3.12', '3.13'), 'Box: Generic'),
    Gap('roundtrip', 'comprehensions::comprehension_shadowing', ALL, 'comprehension_shadowing: instruction #22: original LOAD_FAST_AND_CLEAR i | decompiled FOR_ITER to #25 (after GET_ITER)'),
    Gap('roundtrip', 'comprehensions::list_comprehensions', ALL, 'list_comprehensions: instruction #20: original LOAD_FAST_AND_CLEAR i | decompiled FOR_ITER to #27 (after GET_ITER)'),
    Gap('roundtrip', 'comprehensions::set_and_dict_comprehensions', ALL, 'set_and_dict_comprehensions: instruction #44: original LOAD_FAST_AND_CLEAR k | decompiled FOR_ITER to #48 (after GET_ITER)'),
    Gap('roundtrip', 'conditions::assert_with_boolean_condition', ('3.10', '3.12', '3.13'), 'assert_with_boolean_condition: instruction #30: original LOAD_ASSERTION_ERROR | decompiled JUMP_FORWARD to #32 (after POP_JUMP_IF_TRUE to #39)'),
    Gap('roundtrip', 'definitions::<lambda>#2', ('3.8', '3.9', '3.10', '3.12', '3.13'), 'DecompilationError: lambda body is not a single expression'),
    Gap('roundtrip', 'except_star_py311::except_star_basic', ('3.11',), 'except_star_basic: instruction #103: original JUMP_FORWARD to #115 | decompiled JUMP_FORWARD to #110 (after POP_EXCEPT)'),
    Gap('roundtrip', 'except_star_py311::except_star_reraise', ('3.11', '3.12', '3.13'), 'DecompilationError: unrecognised except* clause'),
    Gap('roundtrip', 'exceptions::break_inside_try_except', ('3.10', '3.12', '3.13'), 'break_inside_try_except: instruction #35: original JUMP_BACKWARD to #2 | decompiled JUMP_BACKWARD_NO_INTERRUPT to #23 (after POP_EXCEPT)'),
    Gap('roundtrip', 'exceptions::raise_in_else', ('3.11', '3.12', '3.13'), "raise_in_else: instruction #8: original PUSH_EXC_INFO | decompiled <end> (after RETURN_CONST 'else-ok')"),
    Gap('roundtrip', 'expressions::boolean_shapes', ('3.12', '3.13'), 'boolean_shapes: instruction #79: original POP_JUMP_IF_FALSE to #82 | decompiled POP_JUMP_IF_FALSE to #87 (after TO_BOOL)'),
    Gap('roundtrip', 'expressions::chained_comparisons', ('3.10', '3.12', '3.13'), 'DecompilationError: stack does not match any source construct'),
    Gap('roundtrip', 'expressions::starred_calls', ALL, 'TypeError: cannot print CompAppend'),
    Gap('roundtrip', 'expressions::unary_and_power', ('3.13',), 'unary_and_power: instruction #3: original LOAD_FAST a | decompiled LOAD_FAST_LOAD_FAST a, b (after UNARY_NEGATIVE)'),
    Gap('roundtrip', 'expressions::walrus', ('3.10', '3.12', '3.13'), 'walrus: instruction #61: original LOAD_FAST_LOAD_FAST first, total | decompiled LOAD_FAST items (after STORE_FAST x)'),
    Gap('roundtrip', 'generics_py312::first', ('3.12', '3.13'), 'first: code object: original <code first> | decompiled <missing>'),
    Gap('roundtrip', 'generics_py312::uses_generic_class', ('3.12', '3.13'), "SyntaxError: invalid syntax at line 12: 'Stack = __function_<generic parameters of Stack>__()'"),
    Gap('roundtrip', 'match_py310::match_in_loop', ('3.10',), 'match_in_loop: instruction #18: original POP_TOP | decompiled LOAD_FAST out (after POP_TOP)'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_while_break', ('3.10',), 'nest2_tryexcept_while_break: exception table entry #0: original [#2 LOAD_FAST log .. #28) -> #47 PUSH_EXC_INFO, depth 0 | decompiled [#2 LOAD_FAST log'),
    Gap('roundtrip', 'nesting/depth2_tryfinally_loopexit::nest2_tryfinally_while_break', ('3.10',), 'nest2_tryfinally_while_break: instruction #44: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #14)'),
    Gap('roundtrip', 'nesting/depth2_with_loopexit::nest2_with_while_break', ('3.10',), 'nest2_with_while_break: instruction #49: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #19)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_funcexit::nest3_tryexcept_tryfinally_while_raise', ('3.10',), 'nest3_tryexcept_tryfinally_while_raise: instruction #55: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_funcexit::nest3_tryexcept_tryfinally_while_return', ('3.10',), 'nest3_tryexcept_tryfinally_while_return: instruction #58: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_for_tryexcept_break', ('3.10',), 'nest3_tryexcept_for_tryexcept_break: instruction #29: original POP_TOP | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #32)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_tryfinally_while_break', ('3.10',), 'nest3_tryexcept_tryfinally_while_break: instruction #50: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_tryfinally_while_continue', ('3.10',), 'nest3_tryexcept_tryfinally_while_continue: instruction #50: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'statements::expression_statements', ('3.10', '3.12', '3.13'), 'expression_statements: instruction #20: original LOAD_CONST None | decompiled LOAD_FAST v (after RETURN_VALUE)'),
    Gap('roundtrip', 'statements::unpacking', ALL, 'unpacking: instruction #29: original COPY 1 | decompiled UNPACK_SEQUENCE 3 (after LOAD_CONST (3, 2, 1))'),
    Gap('roundtrip', 'with_async::async_comprehensions', ('3.8', '3.9', '3.10', '3.11'), 'async_comprehensions: instruction #40: original STORE_FAST c | decompiled GET_AWAITABLE 0 (after JUMP_BACKWARD_NO_INTERRUPT to #37)'),
    Gap('roundtrip', 'with_async::async_for_loop', ('3.10',), 'async_for_loop: instruction #49: original POP_JUMP_IF_TRUE to #51 | decompiled POP_JUMP_IF_FALSE to #51 (after COMPARE_OP bool(==))'),
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
