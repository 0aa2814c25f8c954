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
    Gap('dynamo_samples', 'no_grad_original_1_torch_dynamo_resume_in_break_in_no_grad_at_84', ('3.11',), 'DecompilationError: jump that does not belong to any construct (the with-block cleanup Dynamo re-creates in a resume function)'),
    Gap('execution', 'finally_shapes::finally_ends_with_if', ('3.10',), 'decompile failed: DecompilationError: block exit that does not match an open block (the normal copy of the finally body, with the code after the statement copied into its branches, is not recognised)'),
    Gap('execution', 'finally_shapes::finally_ends_with_if_elif_else', ('3.10', '3.12'), 'different outcome on 3.12: the normal copy of the finally body, with the return after the statement copied into each branch, is read as code after the try (3.10: not decompiled)'),
    Gap('execution', 'finally_shapes::return_through_finally_with_if', ('3.10', '3.11', '3.12', '3.13'), 'decompile failed: stack does not match any source construct (a return value kept across the finally copy whose last statement is an if)'),
    Gap('roundtrip', 'finally_shapes::finally_ends_with_if', ('3.10',), 'DecompilationError: block exit that does not match an open block'),
    Gap('roundtrip', 'finally_shapes::finally_ends_with_if_elif_else', ('3.10', '3.12'), 'the normal copy of the finally body is not recognised as a copy'),
    Gap('roundtrip', 'finally_shapes::return_through_finally_with_if', ('3.10', '3.11', '3.12', '3.13'), 'DecompilationError: stack does not match any source construct'),
    Gap('roundtrip', 'handler_shapes::handler_raises_then_code', ('3.12', '3.13'), "a handler's `return` after POP_EXCEPT is read as falling out to a return after the statement, which keeps the rest in `else`"),
    Gap('execution', 'except_star_py311::except_star_basic', ('3.11',), "different outcome: call except_star_basic(0): original ('returned', [('value', 1), ('type-or-key', ['TypeError']), 'finally']), rebuilt ('returned', ["),
    Gap('execution', 'except_star_py311::except_star_reraise', ('3.11', '3.12', '3.13'), 'decompile failed: DecompilationError: unrecognised except* clause'),
    Gap('execution', 'exceptions::break_continue_in_finally', ('3.11', '3.12', '3.13'), "different outcome: call break_continue_in_finally(4): original ('returned', [('body', 0), ('finally', 0), ('finally', 1), ('body', 2), ('finally', 2)]"),
    Gap('execution', 'exceptions::break_inside_try_except', ('3.10',), "different outcome: call break_inside_try_except(3): original ('returned', [2, 'caught']), rebuilt ('returned', None)"),
    Gap('execution', 'exceptions::continue_inside_finally_block', ('3.11', '3.12', '3.13'), "different outcome: call continue_inside_finally_block(4): original ('returned', [0, 'after', 1, 2, 'after', 3]), rebuilt ('returned', [0])"),
    Gap('execution', 'exceptions::raise_in_else', ('3.11', '3.12', '3.13'), 'decompile failed: DecompilationError: re-raise outside an exception handler'),
    Gap('execution', 'exceptions::try_in_loop_in_try', ('3.11',), "different outcome: call try_in_loop_in_try(0): original ('returned', [('inner', (0,)), 'f0', 1, 'f1', 2, 'f2', 'outer-else']), rebuilt ('returned', [("),
    Gap('execution', 'exceptions::try_inside_finally', ('3.11',), 'decompile failed: DecompilationError: jump that does not belong to any construct'),
    Gap('execution', 'nesting/in_tryexcept_handler_loopexit::nestx_for_tryexcept_continue_in_handler', ('3.12',), 'decompile failed: DecompilationError: jump that does not belong to any construct'),
    Gap('execution', 'nesting/in_tryexcept_handler_loopexit::nestx_tryexcept_tryexcept_continue_in_handler', ('3.12',), 'decompile failed: DecompilationError: jump that does not belong to any construct'),
    Gap('execution', 'nesting/in_tryexcept_handler_loopexit::nestx_while_tryexcept_continue_in_handler', ('3.13',), 'decompile failed: DecompilationError: jump that does not belong to any construct'),
    Gap('execution', 'nesting/in_tryfinally_handler_funcexit::nestx_for_tryfinally_raise_in_handler', ('3.12', '3.13'), "different outcome: call nestx_for_tryfinally_raise_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('for-e"),
    Gap('execution', 'nesting/in_tryfinally_handler_funcexit::nestx_for_tryfinally_return_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_for_tryfinally_return_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('for-"),
    Gap('execution', 'nesting/in_tryfinally_handler_funcexit::nestx_while_tryfinally_raise_in_handler', ('3.12', '3.13'), "different outcome: call nestx_while_tryfinally_raise_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('whi"),
    Gap('execution', 'nesting/in_tryfinally_handler_funcexit::nestx_while_tryfinally_return_in_handler', ('3.12', '3.13'), "different outcome: call nestx_while_tryfinally_return_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('wh"),
    Gap('execution', 'nesting/in_tryfinally_handler_funcexit::nestx_with_tryfinally_return_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_with_tryfinally_return_in_handler(50): original ('returned', [('with-enter', 1), ('enter', 1), ('enter', 2), 'inner', ('"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_for_tryfinally_break_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_for_tryfinally_break_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('for-e"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_for_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_for_tryfinally_continue_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('fo"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_tryexcept_tryfinally_break_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_tryexcept_tryfinally_break_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ("),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_tryexcept_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_tryexcept_tryfinally_continue_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2)"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_tryfinally_tryfinally_break_in_handler', ('3.12', '3.13'), "different outcome: call nestx_tryfinally_tryfinally_break_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), "),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_tryfinally_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_tryfinally_tryfinally_continue_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_while_tryfinally_break_in_handler', ('3.12', '3.13'), "different outcome: call nestx_while_tryfinally_break_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('whi"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_while_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_while_tryfinally_continue_in_handler(50): original ('returned', [('enter', 1), ('enter', 2), 'inner', ('finally', 2), ('"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_with_tryfinally_break_in_handler', ('3.12', '3.13'), "different outcome: call nestx_with_tryfinally_break_in_handler(50): original ('returned', [('with-enter', 1), ('enter', 1), ('enter', 2), 'inner', ('f"),
    Gap('execution', 'nesting/in_tryfinally_handler_loopexit::nestx_with_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), "different outcome: call nestx_with_tryfinally_continue_in_handler(50): original ('returned', [('with-enter', 1), ('enter', 1), ('enter', 2), 'inner', "),
    Gap('execution', 'with_async::async_for_loop', ('3.12', '3.13'), "different outcome: call async_for_loop(3): original ('coroutine', ([0, 2, 'else'], 1), [('tick', 0), ('tick', 1), ('tick', 2), ('tick', 0), ('tick', 1"),
    Gap('execution', 'with_async::async_with_exit_paths', ('3.12', '3.13'), "different outcome: call async_with_exit_paths(1): original ('coroutine', ('late', [('aenter', 's'), ('aexit', 's', 'ValueError')]), [('aenter', 's')])"),
    Gap('golden', 'comprehensions::list_comprehensions', ALL, 'differs from golden/comprehensions.list_comprehensions.py: two filters `if a if b` print as `if a and b` (the same bytecode)'),
    Gap('golden', 'exceptions::try_in_loop_in_try', ('3.11',), 'differs from golden/exceptions.try_in_loop_in_try.py'),
    Gap('roundtrip', 'conditions::if_in_loop_with_compound_conditions', ('3.10', '3.12', '3.13'), 'if_in_loop_with_compound_conditions: instruction #35: original POP_TOP | decompiled LOAD_FAST hits (after JUMP_BACKWARD to #6)'),
    Gap('roundtrip', 'conditions::while_with_boolean_condition', ('3.12', '3.13'), 'while_with_boolean_condition: instruction #22: original POP_JUMP_IF_FALSE to #32 | decompiled POP_JUMP_IF_TRUE to #24 (after COMPARE_OP bool(<))'),
    Gap('roundtrip', 'control_flow::break_outer_via_flag', ('3.10', '3.12', '3.13'), 'break_outer_via_flag: instruction #32: original POP_TOP | decompiled LOAD_FAST found (after JUMP_BACKWARD to #6)'),
    Gap('roundtrip', 'control_flow::empty_bodies', ('3.8', '3.9', '3.10', '3.11'), 'empty_bodies: instruction #6: original LOAD_FAST i | decompiled JUMP_BACKWARD to #6 (after POP_JUMP_FORWARD_IF_FALSE to #10)'),
    Gap('roundtrip', 'control_flow::for_else', ('3.10', '3.12', '3.13'), 'for_else: instruction #13: original POP_TOP | decompiled LOAD_FAST found (after STORE_FAST found)'),
    Gap('roundtrip', 'control_flow::loop_with_if_elif_continue_break', ('3.8', '3.9', '3.10', '3.12', '3.13'), 'loop_with_if_elif_continue_break: instruction #15: original POP_TOP | decompiled LOAD_FAST out (after POP_JUMP_IF_FALSE to #18)'),
    Gap('roundtrip', 'control_flow::while_with_complex_condition', ('3.12', '3.13'), 'while_with_complex_condition: instruction #25: original POP_JUMP_IF_FALSE to #37 | decompiled POP_JUMP_IF_TRUE to #29 (after COMPARE_OP bool(<))'),
    Gap('roundtrip', 'except_star_py311::except_star_basic', ('3.11',), 'except_star_basic: instruction #103: original JUMP_FORWARD to #115 | decompiled JUMP_FORWARD to #110 (after POP_EXCEPT)'),
    Gap('roundtrip', 'except_star_py311::except_star_reraise', ('3.11', '3.12', '3.13'), 'DecompilationError: unrecognised except* clause'),
    Gap('roundtrip', 'exceptions::break_continue_in_finally', ('3.11', '3.12', '3.13'), 'break_continue_in_finally: instruction #23: original JUMP_BACKWARD to #6 | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #24)'),
    Gap('roundtrip', 'exceptions::break_inside_try_except', ('3.10', '3.12', '3.13'), 'break_inside_try_except: instruction #35: original JUMP_BACKWARD to #2 | decompiled JUMP_BACKWARD_NO_INTERRUPT to #23 (after POP_EXCEPT)'),
    Gap('roundtrip', 'exceptions::continue_inside_finally_block', ('3.11', '3.12', '3.13'), 'continue_inside_finally_block: instruction #17: original POP_JUMP_IF_FALSE to #19 | decompiled POP_JUMP_IF_TRUE to #21 (after TO_BOOL)'),
    Gap('roundtrip', 'exceptions::raise_in_else', ('3.11', '3.12', '3.13'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'exceptions::try_in_loop_in_try', ('3.11',), 'try_in_loop_in_try: instruction #73: original LOAD_FAST log | decompiled JUMP_FORWARD to #100 (after RERAISE 1)'),
    Gap('roundtrip', 'exceptions::try_inside_finally', ('3.11',), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'generics_py312::first', ('3.12', '3.13'), 'a bare code object does not carry its PEP 695 type parameters (they live in the wrapper): decompiled <missing> `def first[T]`'),
    Gap('roundtrip', 'match_py310::match_in_loop', ('3.10', '3.12', '3.13'), 'match_in_loop: instruction #18: original POP_TOP | decompiled LOAD_FAST out (after POP_TOP)'),
    Gap('roundtrip', 'nesting/depth2_for_loopexit::nest2_for_tryexcept_break', ('3.12', '3.13'), 'nest2_for_tryexcept_break: instruction #24: original POP_TOP | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #27)'),
    Gap('roundtrip', 'nesting/depth2_for_loopexit::nest2_for_tryfinally_break', ('3.12', '3.13'), 'nest2_for_tryfinally_break: instruction #25: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_for_loopexit::nest2_for_with_break', ('3.12', '3.13'), 'nest2_for_with_break: instruction #30: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #38)'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_for_break', ('3.12', '3.13'), 'nest2_tryexcept_for_break: instruction #24: original POP_TOP | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #27)'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_tryexcept_break', ('3.12', '3.13'), 'nest2_tryexcept_tryexcept_break: instruction #24: original POP_TOP | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #27)'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_tryfinally_break', ('3.12', '3.13'), 'nest2_tryexcept_tryfinally_break: instruction #25: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_while_break', ('3.10', '3.12', '3.13'), 'nest2_tryexcept_while_break: exception table entry #0: original [#2 LOAD_FAST log .. #28) -> #47 PUSH_EXC_INFO, depth 0 | decompiled [#2 LOAD_FAST log'),
    Gap('roundtrip', 'nesting/depth2_tryexcept_loopexit::nest2_tryexcept_with_break', ('3.12', '3.13'), 'nest2_tryexcept_with_break: instruction #30: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #38)'),
    Gap('roundtrip', 'nesting/depth2_tryfinally_loopexit::nest2_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest2_tryfinally_tryexcept_break: instruction #25: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_tryfinally_loopexit::nest2_tryfinally_tryfinally_break', ('3.12', '3.13'), 'nest2_tryfinally_tryfinally_break: instruction #25: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_tryfinally_loopexit::nest2_tryfinally_while_break', ('3.10',), 'nest2_tryfinally_while_break: instruction #44: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #14)'),
    Gap('roundtrip', 'nesting/depth2_tryfinally_loopexit::nest2_tryfinally_with_break', ('3.12', '3.13'), 'nest2_tryfinally_with_break: instruction #30: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #43)'),
    Gap('roundtrip', 'nesting/depth2_while_loopexit::nest2_while_tryexcept_break', ('3.12', '3.13'), 'nest2_while_tryexcept_break: exception table entry #0: original [#17 LOAD_FAST log .. #28) -> #47 PUSH_EXC_INFO, depth 0 | decompiled [#17 LOAD_FAST l'),
    Gap('roundtrip', 'nesting/depth2_while_loopexit::nest2_while_tryfinally_break', ('3.12', '3.13'), 'nest2_while_tryfinally_break: instruction #29: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_while_loopexit::nest2_while_with_break', ('3.12', '3.13'), 'nest2_while_with_break: instruction #34: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #41)'),
    Gap('roundtrip', 'nesting/depth2_with_loopexit::nest2_with_tryexcept_break', ('3.12', '3.13'), 'nest2_with_tryexcept_break: instruction #30: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #38)'),
    Gap('roundtrip', 'nesting/depth2_with_loopexit::nest2_with_tryfinally_break', ('3.12', '3.13'), 'nest2_with_tryfinally_break: instruction #31: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth2_with_loopexit::nest2_with_while_break', ('3.10',), 'nest2_with_while_break: instruction #49: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #19)'),
    Gap('roundtrip', 'nesting/depth2_with_loopexit::nest2_with_with_break', ('3.12', '3.13'), 'nest2_with_with_break: instruction #36: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #49)'),
    Gap('roundtrip', 'nesting/depth3_for_loopexit::nest3_for_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest3_for_tryfinally_tryexcept_break: instruction #30: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_funcexit::nest3_tryexcept_tryfinally_while_raise', ('3.10',), 'nest3_tryexcept_tryfinally_while_raise: instruction #55: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_funcexit::nest3_tryexcept_tryfinally_while_return', ('3.10',), 'nest3_tryexcept_tryfinally_while_return: instruction #58: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_for_tryexcept_break', ('3.10', '3.12', '3.13'), 'nest3_tryexcept_for_tryexcept_break: instruction #29: original POP_TOP | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #32)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest3_tryexcept_tryfinally_tryexcept_break: instruction #30: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_tryfinally_while_break', ('3.10',), 'nest3_tryexcept_tryfinally_while_break: instruction #50: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryexcept_loopexit::nest3_tryexcept_tryfinally_while_continue', ('3.10',), 'nest3_tryexcept_tryfinally_while_continue: instruction #50: original POP_BLOCK | decompiled LOAD_FAST log (after POP_JUMP_IF_TRUE to #20)'),
    Gap('roundtrip', 'nesting/depth3_tryfinally_loopexit::nest3_tryfinally_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest3_tryfinally_tryfinally_tryexcept_break: instruction #30: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth3_while_loopexit::nest3_while_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest3_while_tryfinally_tryexcept_break: instruction #34: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/depth3_with_loopexit::nest3_with_tryfinally_tryexcept_break', ('3.12', '3.13'), 'nest3_with_tryfinally_tryexcept_break: instruction #36: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_for_tryexcept_break_in_handler', ('3.12', '3.13'), 'nestx_for_tryexcept_break_in_handler: instruction #62: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #69)'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_for_tryexcept_continue_in_handler', ('3.12',), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_tryexcept_tryexcept_break_in_handler', ('3.12', '3.13'), 'nestx_tryexcept_tryexcept_break_in_handler: instruction #57: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #64)'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_tryexcept_tryexcept_continue_in_handler', ('3.12',), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_tryfinally_tryexcept_break_in_handler', ('3.12', '3.13'), 'nestx_tryfinally_tryexcept_break_in_handler: instruction #62: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #74)'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_while_tryexcept_break_in_handler', ('3.12', '3.13'), 'nestx_while_tryexcept_break_in_handler: instruction #68: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #74)'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_while_tryexcept_continue_in_handler', ('3.13',), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'nesting/in_tryexcept_handler_loopexit::nestx_with_tryexcept_break_in_handler', ('3.12', '3.13'), 'nestx_with_tryexcept_break_in_handler: instruction #68: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #80)'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_funcexit::nestx_for_tryfinally_raise_in_handler', ('3.12', '3.13'), 'nestx_for_tryfinally_raise_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #49 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE_OP bool('),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_funcexit::nestx_for_tryfinally_return_in_handler', ('3.11', '3.12', '3.13'), 'nestx_for_tryfinally_return_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #47 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE_OP bool'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_funcexit::nestx_while_tryfinally_raise_in_handler', ('3.12', '3.13'), 'nestx_while_tryfinally_raise_in_handler: instruction #46: original POP_JUMP_IF_FALSE to #53 | decompiled POP_JUMP_IF_TRUE to #49 (after COMPARE_OP boo'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_funcexit::nestx_while_tryfinally_return_in_handler', ('3.12', '3.13'), 'nestx_while_tryfinally_return_in_handler: instruction #46: original POP_JUMP_IF_FALSE to #49 | decompiled POP_JUMP_IF_TRUE to #49 (after COMPARE_OP bo'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_funcexit::nestx_with_tryfinally_return_in_handler', ('3.11', '3.12', '3.13'), 'nestx_with_tryfinally_return_in_handler: instruction #51: original LOAD_CONST None | decompiled LOAD_FAST log (after RETURN_VALUE)'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_for_tryfinally_break_in_handler', ('3.11', '3.12', '3.13'), 'nestx_for_tryfinally_break_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #46 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE_OP bool('),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_for_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), 'nestx_for_tryfinally_continue_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #44 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE_OP bo'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_tryexcept_tryfinally_break_in_handler', ('3.11', '3.12', '3.13'), 'nestx_tryexcept_tryfinally_break_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #46 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE_OP'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_tryexcept_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), 'nestx_tryexcept_tryfinally_continue_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #44 | decompiled POP_JUMP_IF_TRUE to #46 (after COMPARE'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_tryfinally_tryfinally_break_in_handler', ('3.12', '3.13'), 'nestx_tryfinally_tryfinally_break_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #51 | decompiled POP_JUMP_IF_TRUE to #51 (after COMPARE_O'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_tryfinally_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), 'nestx_tryfinally_tryfinally_continue_in_handler: instruction #42: original POP_JUMP_IF_FALSE to #49 | decompiled POP_JUMP_IF_TRUE to #51 (after COMPAR'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_while_tryfinally_break_in_handler', ('3.12', '3.13'), 'nestx_while_tryfinally_break_in_handler: instruction #46: original POP_JUMP_IF_FALSE to #49 | decompiled POP_JUMP_IF_TRUE to #49 (after COMPARE_OP boo'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_while_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), 'nestx_while_tryfinally_continue_in_handler: instruction #46: original POP_JUMP_IF_FALSE to #48 | decompiled POP_JUMP_IF_TRUE to #49 (after COMPARE_OP '),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_with_tryfinally_break_in_handler', ('3.12', '3.13'), 'nestx_with_tryfinally_break_in_handler: instruction #48: original POP_JUMP_IF_FALSE to #57 | decompiled POP_JUMP_IF_TRUE to #57 (after COMPARE_OP bool'),
    Gap('roundtrip', 'nesting/in_tryfinally_handler_loopexit::nestx_with_tryfinally_continue_in_handler', ('3.11', '3.12', '3.13'), 'nestx_with_tryfinally_continue_in_handler: instruction #48: original POP_JUMP_IF_FALSE to #55 | decompiled POP_JUMP_IF_TRUE to #57 (after COMPARE_OP b'),
    Gap('roundtrip', 'statements::expression_statements', ('3.10', '3.12', '3.13'), 'expression_statements: instruction #20: original LOAD_CONST None | decompiled LOAD_FAST v (after RETURN_VALUE)'),
    Gap('roundtrip', 'with_async::async_for_loop', ('3.10', '3.12', '3.13'), 'async_for_loop: instruction #49: original POP_JUMP_IF_TRUE to #51 | decompiled POP_JUMP_IF_FALSE to #51 (after COMPARE_OP bool(==))'),
    Gap('roundtrip', 'with_async::async_with_exit_paths', ('3.12', '3.13'), "async_with_exit_paths: instruction #61: original LOAD_CONST 'late' | decompiled RETURN_CONST None (after POP_TOP)"),
    Gap('roundtrip', 'with_async::with_in_loop_break_continue', ('3.12', '3.13'), 'with_in_loop_break_continue: instruction #30: original LOAD_CONST None | decompiled LOAD_FAST log (after POP_JUMP_IF_FALSE to #38)'),
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
