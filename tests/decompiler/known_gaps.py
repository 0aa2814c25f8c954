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
# An execution gap whose reason starts with this is a silent wrong result (the decompiled code
# runs and computes something else); any other execution gap must fail with a decompile error.
SILENT = "silent wrong result"


class Gap(NamedTuple):
    test: str
    case: str
    versions: Tuple[str, ...]
    reason: str


GAPS: List[Gap] = [
    # Measured on every interpreter with `gap_report.py --known-gaps`; one entry per failing test,
    # the reason from its failure on the newest failing version.
    Gap('golden', 'comprehensions::list_comprehensions', ALL, 'differs from golden/comprehensions.list_comprehensions.py'),
    Gap('roundtrip', 'copied_exits::else_part_inside_last_statement', ('3.12',), 'else_part_inside_last_statement: instruction #43: original RETURN_CONST None | decompiled LOAD_FAST kind (after RETURN_VALUE)'),
    Gap('roundtrip', 'fuzz_values::conditional_with_true_arm_or', ('3.10', '3.11', '3.12', '3.13'), 'the constant true arm leaves no code (3.8/3.9 read it): the test is printed as the or-chain it behaves as (`not b or a or c`), which compiles to other jumps'),
    Gap('roundtrip', 'fuzz_values::conditional_with_chained_arm_and_true_arm_or', ('3.10', '3.11', '3.12', '3.13'), 'see conditional_with_true_arm_or'),
    Gap('roundtrip', 'fuzz_negations::returned_conditional_with_not_chained_arm', ('3.10',), "returned_conditional_with_not_chained_arm: instruction #14: original JUMP_FORWARD to #17 | decompiled UNARY_NOT (after COMPARE_OP ==)"),
    Gap('roundtrip', 'try_in_clause_shapes::finally_body_raises_into_clause*', ('3.12', '3.13'), 'the return after the outer try/finally is read into its body (the same behaviour: the code after the except clause is reached only from it, and 3.12+ copies the finally body onto that way out)'),
    Gap('roundtrip', 'try_in_clause_shapes::clause_if_else_try_finally', ('3.13',), 'the code after the try is read as a return ending the if body, the else branch after the if (the same behaviour: that branch always raises)'),
    Gap('roundtrip', 'try_in_clause_shapes::while_true_continue_through_finally_with_clause', ('3.10', '3.11', '3.12', '3.13'), '`try: continue / finally: B` at the end of a loop body is read as `B` alone (the same behaviour: the try body protects no instruction)'),
    Gap('roundtrip', 'try_in_clause_shapes::while_true_if_rest_after_clause_continues', ('3.12', '3.13'), 'the `continue` ending the try bodies is read as an else part, and after the second try (the same behaviour)'),
    Gap('roundtrip', 'try_continue_then_break::retry_clause_breaks_or_continues', ('3.11', '3.12'), 'the clause\'s `if c: break` then `continue` is read as `if c: pass / else: continue` (the same behaviour: the `break` goes where the try goes on, the `break` after it)'),
    Gap('roundtrip', 'nested_try_const_return_through_finally::try_return_const_in_try_finally', ('3.12', '3.13'), 'the `return log` after the try/finally, which only the except clause reaches through its copy of the finally body, is read inside the try body (the same behaviour)'),
    Gap('roundtrip', 'nested_try_const_return_then_more::load_*', ('3.12', '3.13'), 'the return after the enclosing try, which the rest of its body (reached only through the inner except clause) falls into, is read inside the try body, and the inner `return CONST` as the inner try\'s else part (the same behaviour)'),
    Gap('roundtrip', 'exceptions::raise_in_else', ('3.11', '3.12', '3.13'), "raise_in_else: instruction #8: original PUSH_EXC_INFO | decompiled <end> (after RETURN_CONST 'else-ok')"),
    Gap('roundtrip', 'finally_with_returns::clause_try_return_in_finally_raising_in_try', ('3.12',), 'the return after the outer try is read into its else part and after it too (`else: return log` then `return log` in the else part; the same behaviour: 3.12 copies that return onto the else way)'),
    Gap('roundtrip', 'try_branch_returns_past_range::try_else_branch_returns', ('3.10', '3.12', '3.13', '3.14', '3.15'), 'the `return log` after the try, which 3.10+ copy onto the if body\'s way out, is read inside the if body, and `else: return 3` as the try\'s else part (the same behaviour)'),
    Gap('roundtrip', 'try_branch_returns_past_range::with_try_clause_way_on_then_return', ('3.11',), 'the `return 7` that ends the try body, reached only through the inner clause\'s way on, is read after the try (the same behaviour: the return raises nothing)'),
    Gap('roundtrip', 'finally_body_with_exits::if_with_in_finally_then_loop', ('3.8', '3.9'), 'the `while True:` after the try, whose body returns or breaks at once and so never jumps back, is read as an if statement (the same behaviour)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_true*elif_else_break', ('3.8', '3.9'), 'the `while True:` that never jumps back is read as an if statement, its last `break` as the way on of the elif (the same behaviour)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_else_break_skips_rest_then_return', ('3.8', '3.9'), 'DecompilationError: conditional jump past the end of the enclosing block (3.8/3.9 send the test of the if whose else part is the `break` straight past the loop\'s else part)'),
    Gap('execution', 'loops_rarely_jumping_back::while_else_break_skips_rest_then_return', ('3.8', '3.9'), 'DecompilationError: conditional jump past the end of the enclosing block (see the roundtrip entry)'),
    Gap('roundtrip', 'while_try_body_breaks::try_break_then_rest_of_body', ('3.14',), 'the code after the loop, which only the try body\'s `break` falls into, is read as the try\'s else part ending in a return (the same behaviour; 3.14 borrows the loads there differently)'),
    Gap('roundtrip', 'finally_shapes::return_in_for_through_handler_and_finally_ending_in_if', ('3.13',), 'return_in_for_through_handler_and_finally_ending_in_if: instruction #44: original POP_JUMP_IF_FALSE to #51 | decompiled POP_JUMP_IF_TRUE to #46 (after TO_BOOL)'),
    Gap('roundtrip', 'stdlib_nested_try_shapes::if_nested_try_else_in_try', ('3.11',), 'mailbox._lock_file: `try: if c:` around try/except whose body is try/except/else: 3.11 leaves the copied `return None`s and the inner handler code outside the outer try\'s range, so the if\'s jump to the end reads as leaving it (conditional jump past the end of the enclosing block)'),
    Gap('execution', 'stdlib_nested_try_shapes::if_nested_try_else_in_try', ('3.11',), 'mailbox._lock_file: `try: if c:` around try/except whose body is try/except/else: 3.11 leaves the copied `return None`s and the inner handler code outside the outer try\'s range, so the if\'s jump to the end reads as leaving it (conditional jump past the end of the enclosing block)'),
    Gap('execution', 'stdlib_nested_try_shapes::finally_retry_loop_then_try_except', ('3.11', '3.12', '3.13'), "decompile error: a finally body whose `while True:` retry loop is followed by a try/except whose clause falls out to the end of the finally body: in the handler's copy that clause ends in the (merged) closing re-raise after its POP_EXCEPT (re-raise outside an exception handler)"),
    Gap('roundtrip', 'stdlib_nested_try_shapes::finally_retry_loop_then_try_except', ('3.11', '3.12', '3.13'), 'see the execution gap'),
    Gap('roundtrip', 'clause_loop_break_out::clause_for_break_else_return', ('3.12',), 'the `break` ending the try body is read as the try\'s else part, the except clause as `continue` (the same behaviour; see for_break_in_try_inside_clause)'),
    Gap('roundtrip', 'clause_loop_break_out::clause_for_continue_break_else_return', ('3.10',), 'clause_for_continue_break_else_return: instruction #60: original JUMP_ABSOLUTE to #17 | decompiled JUMP_FORWARD to #62 (after POP_EXCEPT)'),
    Gap('roundtrip', 'clause_loop_break_out::clause_for_continue_break_else_return', ('3.12',), 'the `break` ending the try body is read as the try\'s else part, the except clause as `continue` (the same behaviour; see for_break_in_try_inside_clause)'),
    Gap('roundtrip', 'handler_loop_exits::for_break_in_try_inside_clause', ('3.10', '3.12', '3.13'), 'for_break_in_try_inside_clause: instruction #23: original POP_TOP | decompiled JUMP_FORWARD to #35 (after STORE_FAST found)'),
    Gap('roundtrip', 'handler_loop_exits::for_else_continue_in_try_finally_with_handler', ('3.11',), 'for_else_continue_in_try_finally_with_handler: instruction #44: original POP_TOP | decompiled JUMP_FORWARD to #55 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::for_handler_if_try_else', ('3.13',), 'for_handler_if_try_else: instruction #33: original POP_EXCEPT | decompiled JUMP_FORWARD to #45 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::for_handler_try_finally_continue', ('3.13',), 'for_handler_try_finally_continue: instruction #52: original POP_EXCEPT | decompiled JUMP_FORWARD to #63 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::try_holding_while_true_then_clause_continue', ('3.13',), 'try_holding_while_true_then_clause_continue: exception table entry #0: original [#2 LOAD_FAST n .. #17) -> #26 PUSH_EXC_INFO, depth 0 | decompiled [#2 LOAD_FAST n .. #19) -> #26 PUSH_EXC_INFO, depth 0'),
    Gap('roundtrip', 'handler_loop_exits::while_true_in_while_true_clause_continue', ('3.8', '3.9', '3.12', '3.13'), 'while_true_in_while_true_clause_continue: instruction #39: original JUMP_BACKWARD to #2 | decompiled JUMP_BACKWARD_NO_INTERRUPT to #20 (after POP_EXCEPT)'),
    Gap('roundtrip', 'handler_loop_exits::while_true_in_while_true_then_try_continue', ('3.8', '3.9'), 'while_true_in_while_true_then_try_continue: instruction #17: original JUMP_ABSOLUTE to #19 | decompiled SETUP_FINALLY to #27 (after POP_JUMP_IF_FALSE to #2)'),
    Gap('roundtrip', 'handler_loop_exits::while_true_try_else_if_else_break', ('3.8', '3.9'), 'while_true_try_else_if_else_break: instruction #51: original POP_JUMP_IF_FALSE to #61 | decompiled POP_JUMP_IF_TRUE to #53 (after COMPARE_OP <)'),
    Gap('roundtrip', 'handler_loop_exits::while_true_try_first_in_while_true', ('3.8', '3.9'), 'while_true_try_first_in_while_true: instruction #33: original JUMP_ABSOLUTE to #35 | decompiled LOAD_FAST n (after POP_JUMP_IF_FALSE to #2)'),
    Gap('roundtrip', 'loop_heads::while_true_continue_then_raise_or_return', ('3.8', '3.9'), 'while_true_continue_then_raise_or_return: instruction #20: original LOAD_FAST item | decompiled JUMP_ABSOLUTE to #22 (after RAISE_VARARGS 1)'),
    Gap('roundtrip', 'loop_heads::while_true_continue_then_returning_blocks', ('3.8', '3.9'), 'while_true_continue_then_returning_blocks: instruction #20: original LOAD_FAST done | decompiled JUMP_ABSOLUTE to #22 (after RETURN_VALUE)'),
    Gap('roundtrip', 'loop_heads::while_true_two_continues_then_returning_blocks', ('3.8', '3.9'), 'while_true_two_continues_then_returning_blocks: instruction #44: original LOAD_FAST seen | decompiled JUMP_ABSOLUTE to #46 (after RETURN_VALUE)'),
    Gap('roundtrip', 'loop_heads::while_true_first_in_while_true', ('3.8', '3.9'), 'while_true_first_in_while_true: instruction #17: original JUMP_ABSOLUTE to #19 | decompiled LOAD_FAST n (after POP_JUMP_IF_FALSE to #2)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::handler_continue_then_returning_branch', ('3.10',), 'the loop\'s exit read as the returning else part, the breaks as returns (same behaviour)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::retry_until_ready_or_fail', ('3.12', '3.13'), 'a while True whose try body ends in break after a continue in it: the final break read inside the if branch, the try body\'s protected range shorter (same behaviour)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_try_break_or_raise', ('3.10', '3.11', '3.12', '3.13'), 'a while loop that never jumps back leaves no trace of the loop: read as an if whose else part is the loop\'s (same behaviour)'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_break_through_finally', ('3.13',), 'decompile error: jump that does not belong to any construct (a while loop that never jumps back, its except clause breaking through a finally body; 3.13 marks the jump a written `break`, which no loop claims)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_break_through_finally', ('3.10', '3.11', '3.12', '3.13'), 'a while loop that never jumps back leaves no trace of the loop: read as an if whose else part is the loop\'s (same behaviour; 3.12+: see the execution gap)'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_if_break_with_else', ('3.8', '3.9', '3.10', '3.11', '3.12', '3.13'), 'decompile error: a while loop that never jumps back, with an else part, read as an if: its except clause\'s `break` (in an if) jumps past the else part; read again as the loop only where the break goes to the test\'s false target (break or continue of a loop that never jumps back)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_if_break_with_else', ('3.8', '3.9', '3.10', '3.11', '3.12', '3.13'), 'see the execution gap'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_if_break_through_finally_then_return', ('3.12', '3.13'), 'decompile error: a while loop that never jumps back, read as an if, its except clause\'s `break` (in an if) through a finally body fails loudly; read as the loop, the rest of the body (the try\'s way on, laid with the handler code at the end) is not found (break or continue of a loop that never jumps back)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_if_break_through_finally_then_return', ('3.12', '3.13'), 'see the execution gap'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_true_first_pass_decides', ('3.11', '3.13'), 'a while True that never jumps back leaves no trace of the loop: its break, a jump past the else part to the raise after the loop, written as a copy of that raise (same behaviour)'),
    Gap('roundtrip', 'loop_else_breaks::while_else_after_try_else_break', ('3.10',), 'the breaks read as copies of the return after the loop (same behaviour)'),
    Gap('roundtrip', 'with_loop_exits::with_while_true_try_break_except_falls_out', ('3.10',), 'the code after the loop (the with\'s return, a copy of the return after it) read inside the loop body behind `if w > 4: pass else: ...`; same behaviour'),
    Gap('roundtrip', 'loops_rarely_jumping_back::scan_until_stop_or_other', ('3.8', '3.9'), 'the inner while loop\'s test after its break read as part of the enclosing if chain (other jumps, same behaviour)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::scan_until_stop_or_other', ('3.10',), 'the `else: break` whose jump goes to a copy of the loop\'s exit block (POP_BLOCK, return) read as that copy, a return inside the try (same behaviour)'),
    Gap('roundtrip', 'copied_returns::elif_arm_inner_ifs_leave_by_copied_returns', ('3.10', '3.11'), 'inner ifs of an elif arm that leave by copied returns: other bytecode (same behaviour)'),
    Gap('roundtrip', 'fuzz_shapes::while_returning_tail_with_breaks', ('3.10',), 'a `break` ending a try body (with except clauses only) read after the try: other bytecode (same behaviour)'),
    Gap('roundtrip', 'fuzz_shapes::while_never_jumping_back_break_in_finally_try', ('3.9', '3.11', '3.12', '3.13'), 'a while loop that never jumps back, read as an if (same behaviour)'),
    Gap('execution', 'fuzz_shapes::finally_try_except_*_then_end*', ('3.12', '3.13'), 'decompile error: a try in a finally body whose body never falls out, its except clause ending the finally body: re-raise outside an exception handler (3.12+ lay the code after the statement inside the normal copy\'s handler code, between the clause\'s way out and its handler code)'),
    Gap('roundtrip', 'fuzz_shapes::finally_try_except_*_then_end*', ('3.12', '3.13'), 'see the execution gap'),
    Gap('roundtrip', 'fuzz_shapes::try_break_in_while_in_try', ('3.10',), "an except clause's continue read as pass then continue after the try, the code after the loop as the outer try's else part: other bytecode (same behaviour)"),
    Gap('roundtrip', 'fuzz_shapes::dead_loop_after_return', ('3.8', '3.9'), 'what 3.8/3.9 keep of the statements after a return (from the next jump target on) is left out: no source compiles to that fragment alone (same behaviour)'),
    Gap('roundtrip', 'finally_never_finishes::while_true_return_finally_raises', ('3.8', '3.9'), 'a while loop that never jumps back, read as an if (same behaviour)'),
    Gap('roundtrip', 'finally_never_finishes::elif_returns_finally_raises', ('3.9',), 'the `return value` ending a try body whose finally body raises, kept by 3.9 as dead code after the copy (POP_BLOCK; RETURN_VALUE), is left out (same behaviour)'),
    Gap('execution', 'finally_never_finishes::except_as_try_return_finally_raises', ('3.13',), 'decompile error: an except clause whose inner try returns, under a finally body that raises: 3.13 sends the clause\'s way out back to the finally copy on the try body\'s normal way out (re-raise outside an exception handler)'),
    Gap('roundtrip', 'finally_never_finishes::except_as_try_return_finally_raises', ('3.13',), 'see the execution gap'),
    Gap('roundtrip', 'finally_never_finishes::for_except_with_return_call_finally_raises', ('3.13',), 'in a for loop, an except clause ending in a with, in a try whose finally body raises: the clause\'s way out after the with (where a swallowing manager goes on, to the copy of the finally body) is read as `break` (dead: the copy raises; pre-existing without the return too) (same behaviour)'),
    Gap('roundtrip', 'finally_never_finishes::with_if_*_last_finally_raises', ('3.10', '3.12', '3.13'), 'a bare `return` or `return <constant>` ending an if body, the with body\'s last statement, in a try whose finally body raises: the exit call and the copy follow, nothing after them, and the return is left out (never completed: same behaviour)'),
    Gap('execution', 'finally_never_finishes::with_if_*_last_finally_raises', ('3.11',), 'decompile error: a bare `return` or `return <constant>` ending an if body, the with body\'s last statement, in a try whose finally body raises: the test jumps past the exit call and the copy (conditional jump past the end of the enclosing block)'),
    Gap('roundtrip', 'finally_never_finishes::with_if_*_last_finally_raises', ('3.11',), 'see the execution gap'),
    Gap('roundtrip', 'finally_clause_tails::clause_with_return_constant', ('3.12', '3.13'), 'a try body that never falls out: the code after the try, copied into the with handler\'s swallowing way out, is read in the clause after the with, and the with\'s `return 7` once more after the try, unreachable (same behaviour)'),
    # 3.14 and 3.15, from `gap_report.py --known-gaps` (DEPYF_TEST_PYTHONS=3.14=...,3.15=...); no
    # execution gap of theirs runs differently (those are never listed: they fail).
    Gap('execution', 'finally_never_finishes::except_as_try_return_finally_raises', ('3.14', '3.15'), 'decompile error: re-raise outside an exception handler'),
    Gap('execution', 'fuzz_shapes::finally_try_except_if_then_end', ('3.14', '3.15'), 'decompile error: re-raise outside an exception handler'),
    Gap('execution', 'fuzz_shapes::finally_try_except_if_then_end_return_in_body', ('3.14', '3.15'), 'decompile error: re-raise outside an exception handler'),
    Gap('execution', 'fuzz_shapes::finally_try_except_with_loop_then_end', ('3.14', '3.15'), 'decompile error: re-raise outside an exception handler'),
    Gap('execution', 'fuzz_shapes::while_true_nested_with_continuing', ('3.14', '3.15'), 'decompile error: jump that does not belong to any construct'),
    Gap('execution', 'handler_loop_exits::try_holding_while_true_then_clause_continue', ('3.14',), 'decompile error: stack does not match any source construct'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_break_through_finally', ('3.14', '3.15'), 'decompile error: jump that does not belong to any construct'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_if_break_through_finally_then_return', ('3.14', '3.15'), 'decompile error: break or continue of a loop that never jumps back'),
    Gap('execution', 'loops_rarely_jumping_back::while_test_handler_if_break_with_else', ('3.14', '3.15'), 'decompile error: break or continue of a loop that never jumps back'),
    Gap('execution', 'stdlib_nested_try_shapes::finally_retry_loop_then_try_except', ('3.14', '3.15'), 'decompile error: re-raise outside an exception handler'),
    Gap('golden', 'comprehensions::list_comprehensions', ('3.14', '3.15'), 'differs from golden/comprehensions.list_comprehensions.py'),
    Gap('roundtrip', 'borrowed_load_layouts::loop_handler_breaks_else_code', ('3.15',), 'loop_handler_breaks_else_code: instruction #11: original POP_JUMP_IF_NONE to #19 | decompiled POP_JUMP_IF_NOT_NONE to #14 (after LOAD_FAST_BORROW work'),
    Gap('roundtrip', 'continue_through_finally_if::while_continue_through_finally_if', ('3.14', '3.15'), 'while_continue_through_finally_if: instruction #17: original LOAD_FAST_BORROW i | decompiled JUMP_FORWARD to #23 (after NOT_TAKEN)'),
    Gap('roundtrip', 'control_flow::elif_after_branch_that_loops_again', ('3.14',), 'elif_after_branch_that_loops_again: instruction #86: original LOAD_FAST_BORROW taken | decompiled LOAD_FAST taken (after RAISE_VARARGS 1)'),
    Gap('roundtrip', 'exceptions::raise_in_else', ('3.14', '3.15'), 'raise_in_else: instruction #10: original PUSH_EXC_INFO | decompiled <end> (after RETURN_VALUE)'),
    Gap('roundtrip', 'finally_clause_tails::clause_with_return_constant', ('3.14', '3.15'), 'clause_with_return_constant: instruction #47: original POP_EXCEPT | decompiled JUMP_FORWARD to #51 (after POP_TOP)'),
    Gap('roundtrip', 'finally_never_finishes::except_as_try_return_finally_raises', ('3.14', '3.15'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'finally_never_finishes::for_except_with_return_call_finally_raises', ('3.14', '3.15'), 'for_except_with_return_call_finally_raises: instruction #60: original POP_EXCEPT | decompiled JUMP_FORWARD to #64 (after POP_TOP)'),
    Gap('roundtrip', 'finally_never_finishes::with_if_bare_return_last_finally_raises', ('3.14', '3.15'), 'with_if_bare_return_last_finally_raises: instruction #30: original LOAD_COMMON_CONSTANT None | decompiled PUSH_EXC_INFO (after RAISE_VARARGS 1)'),
    Gap('roundtrip', 'finally_never_finishes::with_if_return_constant_last_finally_raises', ('3.14', '3.15'), 'with_if_return_constant_last_finally_raises: instruction #30: original LOAD_COMMON_CONSTANT None | decompiled PUSH_EXC_INFO (after RAISE_VARARGS 1)'),
    Gap('roundtrip', 'finally_shapes::return_in_for_through_handler_and_finally_ending_in_if', ('3.14', '3.15'), 'return_in_for_through_handler_and_finally_ending_in_if: instruction #48: original POP_JUMP_IF_FALSE to #56 | decompiled POP_JUMP_IF_TRUE to #51 (after'),
    Gap('roundtrip', 'fuzz_shapes::finally_try_except_if_then_end', ('3.14', '3.15'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'fuzz_shapes::finally_try_except_if_then_end_return_in_body', ('3.14', '3.15'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'fuzz_shapes::finally_try_except_with_loop_then_end', ('3.14', '3.15'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'fuzz_shapes::while_never_jumping_back_break_in_finally_try', ('3.14', '3.15'), 'while_never_jumping_back_break_in_finally_try: instruction #33: original PUSH_EXC_INFO | decompiled <end> (after RETURN_VALUE)'),
    Gap('roundtrip', 'fuzz_shapes::while_true_nested_with_continuing', ('3.14', '3.15'), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'fuzz_values::conditional_with_chained_arm_and_true_arm_or', ('3.14', '3.15'), 'conditional_with_chained_arm_and_true_arm_or: instruction #16: original JUMP_FORWARD to #18 | decompiled LOAD_FAST_BORROW c (after POP_TOP)'),
    Gap('roundtrip', 'fuzz_values::conditional_with_true_arm_or', ('3.14', '3.15'), 'conditional_with_true_arm_or: instruction #8: original JUMP_FORWARD to #10 | decompiled LOAD_FAST_BORROW c (after NOT_TAKEN)'),
    Gap('roundtrip', 'handler_loop_exits::for_break_in_try_inside_clause', ('3.14', '3.15'), 'for_break_in_try_inside_clause: instruction #27: original POP_EXCEPT | decompiled JUMP_FORWARD to #46 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::for_handler_if_try_else', ('3.14', '3.15'), 'for_handler_if_try_else: instruction #35: original POP_EXCEPT | decompiled JUMP_FORWARD to #48 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::for_handler_try_finally_continue', ('3.14', '3.15'), 'for_handler_try_finally_continue: instruction #54: original POP_EXCEPT | decompiled JUMP_FORWARD to #65 (after POP_TOP)'),
    Gap('roundtrip', 'handler_loop_exits::try_holding_while_true_then_clause_continue', ('3.14', '3.15'), 'try_holding_while_true_then_clause_continue: instruction #22: original POP_JUMP_IF_TRUE to #25 | decompiled POP_JUMP_IF_FALSE to #26 (after COMPARE_OP'),
    Gap('roundtrip', 'handler_loop_exits::while_true_in_while_true_clause_continue', ('3.14', '3.15'), 'while_true_in_while_true_clause_continue: instruction #29: original POP_JUMP_IF_TRUE to #32 | decompiled POP_JUMP_IF_FALSE to #33 (after COMPARE_OP bo'),
    Gap('roundtrip', 'handler_loop_exits::while_true_in_while_true_then_try_continue', ('3.14', '3.15'), 'while_true_in_while_true_then_try_continue: instruction #29: original POP_JUMP_IF_TRUE to #32 | decompiled POP_JUMP_IF_FALSE to #33 (after COMPARE_OP '),
    Gap('roundtrip', 'handler_loop_exits::while_true_try_first_in_while_true', ('3.15',), 'while_true_try_first_in_while_true: instruction #18: original POP_JUMP_IF_TRUE to #21 | decompiled POP_JUMP_IF_FALSE to #28 (after COMPARE_OP bool(==)'),
    Gap('roundtrip', 'loop_else_copied_exits::for_else_while_true_in_if_body', ('3.14',), 'for_else_while_true_in_if_body: instruction #37: original LOAD_FAST_BORROW found | decompiled LOAD_FAST found (after STORE_FAST found)'),
    Gap('roundtrip', 'loop_exit_shapes::while_if_while_continue_else_raise', ('3.14',), 'while_if_while_continue_else_raise: instruction #51: original LOAD_FAST_BORROW n | decompiled LOAD_FAST n (after LOAD_GLOBAL ValueError + NULL)'),
    Gap('roundtrip', 'loop_heads::statement_then_try_holding_while_true', ('3.14',), 'statement_then_try_holding_while_true: instruction #42: original JUMP_BACKWARD to #8 | decompiled JUMP_FORWARD to #47 (after POP_EXCEPT)'),
    Gap('roundtrip', 'loop_heads::while_and_test_then_break_in_while', ('3.14', '3.15'), 'while_and_test_then_break_in_while: instruction #22: original POP_JUMP_IF_TRUE to #25 | decompiled POP_JUMP_IF_FALSE to #28 (after COMPARE_OP bool(<))'),
    Gap('roundtrip', 'loop_heads::while_chained_compare_in_for', ('3.14', '3.15'), 'while_chained_compare_in_for: instruction #25: original JUMP_BACKWARD to #4 | decompiled JUMP_FORWARD to #27 (after NOT_TAKEN)'),
    Gap('roundtrip', 'loop_heads::while_else_break_then_return', ('3.14', '3.15'), 'while_else_break_then_return: instruction #31: original JUMP_BACKWARD to #8 | decompiled JUMP_BACKWARD to #17 (after POP_TOP)'),
    Gap('roundtrip', 'loop_heads::while_true_continue_then_returning_blocks', ('3.14',), 'while_true_continue_then_returning_blocks: instruction #21: original LOAD_FAST_BORROW done | decompiled LOAD_FAST done (after RETURN_VALUE)'),
    Gap('roundtrip', 'loop_heads::while_true_first_in_while_true', ('3.14',), 'while_true_first_in_while_true: instruction #19: original LOAD_FAST n | decompiled LOAD_FAST_BORROW n (after JUMP_BACKWARD to #2)'),
    Gap('roundtrip', 'loop_heads::while_true_two_continues_then_returning_blocks', ('3.14',), 'while_true_two_continues_then_returning_blocks: instruction #52: original LOAD_FAST_BORROW seen | decompiled LOAD_FAST seen (after RETURN_VALUE)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::handler_continue_then_rest_and_break', ('3.14',), 'handler_continue_then_rest_and_break: instruction #34: original LOAD_FAST log | decompiled LOAD_FAST_BORROW log (after POP_TOP)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::retry_until_ready_or_fail', ('3.14', '3.15'), 'retry_until_ready_or_fail: exception table entry #0: original [#14 LOAD_FAST_BORROW_LOAD_FAST_BORROW n, k .. #31) -> #39 PUSH_EXC_INFO, depth 0 | deco'),
    Gap('roundtrip', 'loops_rarely_jumping_back::scan_until_stop_or_other', ('3.14', '3.15'), 'scan_until_stop_or_other: instruction #60: original JUMP_BACKWARD to #9 | decompiled JUMP_FORWARD to #67 (after NOT_TAKEN)'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_break_through_finally', ('3.14', '3.15'), 'DecompilationError: jump that does not belong to any construct'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_if_break_through_finally_then_return', ('3.14', '3.15'), 'DecompilationError: break or continue of a loop that never jumps back'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_handler_if_break_with_else', ('3.14', '3.15'), 'DecompilationError: break or continue of a loop that never jumps back'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_test_try_break_or_raise', ('3.14', '3.15'), 'while_test_try_break_or_raise: exception table entry #0: original [#13 LOAD_FAST_BORROW n .. #18) -> #31 PUSH_EXC_INFO, depth 0 | decompiled [#13 LOAD'),
    Gap('roundtrip', 'loops_rarely_jumping_back::while_true_first_pass_decides', ('3.14', '3.15'), 'while_true_first_pass_decides: instruction #29: original JUMP_FORWARD to #36 | decompiled LOAD_GLOBAL KeyError + NULL (after NOT_TAKEN)'),
    Gap('roundtrip', 'nested_try_const_return_then_more::load_or_default', ('3.14', '3.15'), 'load_or_default: exception table entry #4: original [#25 COPY 3 .. #33) -> #35 PUSH_EXC_INFO, depth 0 | decompiled [#25 COPY 3 .. #34) -> #35 PUSH_EXC'),
    Gap('roundtrip', 'nested_try_const_return_then_more::load_or_raise', ('3.14', '3.15'), 'load_or_raise: exception table entry #4: original [#25 COPY 3 .. #42) -> #45 PUSH_EXC_INFO, depth 0 | decompiled [#25 COPY 3 .. #44) -> #45 PUSH_EXC_I'),
    Gap('roundtrip', 'nested_try_const_return_then_more::load_then_check', ('3.14', '3.15'), 'load_then_check: instruction #59: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_TOP)'),
    Gap('roundtrip', 'nested_try_const_return_through_finally::try_return_const_in_try_finally', ('3.14', '3.15'), 'try_return_const_in_try_finally: instruction #39: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'stdlib_nested_try_shapes::finally_retry_loop_then_try_except', ('3.14', '3.15'), 'DecompilationError: re-raise outside an exception handler'),
    Gap('roundtrip', 'ternary_test_returns::same_arms_distinct_tests', ('3.14', '3.15'), 'same_arms_distinct_tests: instruction #16: original LOAD_FAST a | decompiled LOAD_FAST_BORROW a (after RETURN_VALUE)'),
    Gap('roundtrip', 'ternary_test_returns::same_name_everywhere', ('3.14', '3.15'), 'same_name_everywhere: instruction #16: original LOAD_FAST x | decompiled LOAD_FAST_BORROW x (after RETURN_VALUE)'),
    Gap('roundtrip', 'ternary_test_returns::same_name_three_deep', ('3.14', '3.15'), 'same_name_three_deep: instruction #25: original LOAD_FAST x | decompiled LOAD_FAST_BORROW x (after RETURN_VALUE)'),
    Gap('roundtrip', 'ternary_test_returns::test_in_the_other_arm', ('3.14', '3.15'), 'test_in_the_other_arm: instruction #22: original LOAD_FAST a | decompiled LOAD_FAST_BORROW a (after RETURN_VALUE)'),
    Gap('roundtrip', 'threaded_jumps::assert_then_break', ('3.14',), 'assert_then_break: instruction #22: original LOAD_FAST_BORROW seen | decompiled LOAD_FAST seen (after LOAD_GLOBAL len + NULL)'),
    Gap('roundtrip', 'try_continue_then_break::redo_except_continue_then_break', ('3.14',), 'redo_except_continue_then_break: instruction #21: original LOAD_FAST_BORROW log | decompiled LOAD_FAST log (after POP_TOP)'),
    Gap('roundtrip', 'try_continue_then_break::redo_except_else_then_break', ('3.14',), 'redo_except_else_then_break: instruction #21: original LOAD_FAST_BORROW log | decompiled LOAD_FAST log (after POP_TOP)'),
    Gap('roundtrip', 'try_continue_then_break::retry_finally_then_more_statements', ('3.14',), 'retry_finally_then_more_statements: instruction #31: original LOAD_FAST_BORROW tries | decompiled LOAD_FAST tries (after POP_TOP)'),
    Gap('roundtrip', 'try_continue_then_break::retry_raise_or_continue', ('3.14',), 'retry_raise_or_continue: instruction #55: original LOAD_FAST_BORROW_LOAD_FAST_BORROW log, name | decompiled LOAD_FAST_LOAD_FAST log, name (after STORE'),
    Gap('roundtrip', 'try_in_clause_shapes::clause_if_else_try_finally', ('3.14', '3.15'), 'clause_if_else_try_finally: instruction #25: original POP_EXCEPT | decompiled LOAD_FAST log (after POP_TOP)'),
    Gap('roundtrip', 'try_in_clause_shapes::finally_body_raises_into_clause', ('3.14', '3.15'), 'finally_body_raises_into_clause: instruction #42: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'try_in_clause_shapes::finally_body_raises_into_clause_as', ('3.14', '3.15'), 'finally_body_raises_into_clause_as: instruction #51: original LOAD_ATTR append + NULL|self | decompiled LOAD_FAST log (after LOAD_FAST log)'),
    Gap('roundtrip', 'try_in_clause_shapes::while_true_continue_through_finally_with_clause', ('3.14', '3.15'), 'while_true_continue_through_finally_with_clause: instruction #47: original PUSH_EXC_INFO | decompiled <end> (after JUMP_BACKWARD to #4)'),
    Gap('roundtrip', 'try_in_clause_shapes::while_true_if_rest_after_clause_continues', ('3.14', '3.15'), 'while_true_if_rest_after_clause_continues: instruction #34: original JUMP_BACKWARD to #4 | decompiled JUMP_FORWARD to #50 (after POP_TOP)'),
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
        expected: Any = None
        if kind == "execution" and not any(g.reason.startswith(SILENT) for g in found):
            # (a loud gap must stay loud: wrong code in its place fails the run)
            from .execution import DecompileFailed

            expected = DecompileFailed
        item.add_marker(pytest.mark.xfail(strict=True, raises=expected, reason=f"known gap: {reason}"))


def param(case: str, *values: Any) -> Any:
    """`pytest.param(*values, id=case)`: the id is what GAPS entries match."""
    import pytest

    return pytest.param(*values, id=case)
