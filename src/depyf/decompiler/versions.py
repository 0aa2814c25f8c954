"""The one module that knows which Python version does what.

Everything else in the package asks a `BytecodeVersion` for a named capability instead of comparing
`sys.version_info`. The version is that of the bytecode being read, which is the running
interpreter's for live code objects.
"""
import os
import sys
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Dict, Tuple, TypeVar

from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.opcode_tables import TABLES

# Versions whose opcode tables exist (the decoder can read their code objects).
TABLED: Tuple[Tuple[int, int], ...] = tuple(sorted(TABLES))
# Versions whose tables exist but whose reading is still being completed: refused like an unknown
# version, unless DEPYF_EXPERIMENTAL_VERSIONS=1 (for the tools and tests that measure them).
_IN_PROGRESS: Tuple[Tuple[int, int], ...] = ()
# Versions depyf reads: what `for_key` accepts and what the error for any other names.
SUPPORTED: Tuple[Tuple[int, int], ...] = tuple(k for k in TABLED if k not in _IN_PROGRESS)

_Class = TypeVar("_Class", bound=type)


def _computed_once(cls: _Class) -> _Class:
    """Turn every property of `cls` into a cached one: the decompiler asks these questions for
    every instruction, and the answers of a version never change."""
    for name, member in list(vars(cls).items()):
        if isinstance(member, property):
            cached = cached_property(member.fget)  # type: ignore[arg-type]
            cached.__set_name__(cls, name)
            setattr(cls, name, cached)
    return cls


@_computed_once
@dataclass(frozen=True)
class BytecodeVersion:
    """Named facts about the bytecode of one CPython minor version."""

    major: int
    minor: int

    @property
    def key(self) -> Tuple[int, int]:
        return (self.major, self.minor)

    @property
    def tables(self) -> Dict[str, Any]:
        return TABLES[self.key]

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}"

    # --- instruction encoding -------------------------------------------------------------
    @property
    def jump_args_in_instructions(self) -> bool:
        """3.10 counts jump arguments in 2-byte code units rather than bytes."""
        return self.key >= (3, 10)

    @property
    def has_inline_caches(self) -> bool:
        return self.key >= (3, 11)

    @property
    def line_table_field(self) -> str:
        """The code object's field for its line numbers: 3.10 replaced `co_lnotab`."""
        return "co_linetable" if self.key >= (3, 10) else "co_lnotab"

    @property
    def compiler_guards_its_stack(self) -> bool:
        """3.10+ compile any source without overflowing the C stack (they raise RecursionError);
        3.8/3.9 crash on a long enough chain of binary operators (`x+x+...`, 200,000 terms)."""
        return self.key >= (3, 10)

    @property
    def has_exception_table(self) -> bool:
        """3.11 replaced SETUP_* blocks with a table of protected ranges."""
        return self.key >= (3, 11)

    @property
    def lays_exits_inside_loops(self) -> bool:
        """3.11+ lay code that only a handler reaches (a while loop's test at the bottom, when
        only an except clause goes on to the next turn) at the end, so code the loop exits to
        can lie inside the loop's span (pass `loop_exits_after_loops` moves it after the loop)."""
        return self.has_exception_table

    @property
    def regions_leave_out_added_jumps_back(self) -> bool:
        """3.11-3.14 draw the exception table before adding the JUMP back that completes a
        backward conditional jump (3.12+: a test over a jump back), so no region covers that
        jump, while a written `continue` is covered. 3.15 covers both: they compile the same."""
        return self.has_exception_table and self.key < (3, 15)

    @property
    def has_column_positions(self) -> bool:
        """3.11+ record each instruction's line and column range (`co_positions`)."""
        return self.key >= (3, 11)

    # --- argument packing ------------------------------------------------------------------
    @property
    def load_global_pushes_null_bit(self) -> bool:
        return self.key >= (3, 11)

    @property
    def load_attr_method_bit(self) -> bool:
        return self.key >= (3, 12)

    @property
    def unpacks_in_comprehensions(self) -> bool:
        """3.15 (PEP 798): `[*x for x in y]`, `{**d for d in m}`: the loop extends or updates
        its accumulator (LIST_EXTEND / SET_UPDATE / DICT_UPDATE past the loop's iterator)."""
        return self.key >= (3, 15)

    @property
    def compare_op_shift(self) -> int:
        """How far COMPARE_OP's argument is shifted left of the comparison index."""
        if self.key >= (3, 13):
            return 5
        if self.key >= (3, 12):
            return 4
        return 0

    @property
    def format_uses_separate_ops(self) -> bool:
        """3.13 splits FORMAT_VALUE into CONVERT_VALUE / FORMAT_SIMPLE / FORMAT_WITH_SPEC."""
        return self.key >= (3, 13)

    # --- calling convention ------------------------------------------------------------------
    @property
    def call_pushes_null(self) -> bool:
        """3.11+ calls have a NULL (or self) below the callable."""
        return self.key >= (3, 11)

    @property
    def null_above_callable(self) -> bool:
        """3.13 pushes the NULL after the callable (callable, NULL|self, args...)."""
        return self.key >= (3, 13)

    @property
    def comprehensions_inlined(self) -> bool:
        """PEP 709: list/set/dict comprehensions compile inline from 3.12."""
        return self.key >= (3, 12)

    @property
    def makes_function_with_qualname(self) -> bool:
        """MAKE_FUNCTION pops a qualified name before 3.11."""
        return self.key < (3, 11)

    @property
    def function_attributes_set_separately(self) -> bool:
        """3.13 sets defaults/annotations/closure with SET_FUNCTION_ATTRIBUTE."""
        return self.key >= (3, 13)

    @property
    def while_condition_duplicated(self) -> bool:
        """From 3.10 the compiler repeats a while loop's test at the bottom."""
        return self.key >= (3, 10)

    @property
    def while_jumps_back_to_test(self) -> bool:
        """3.14 ends a while loop's body with a jump back to the test at the top instead of a copy
        of the test; pass `while_bottom_tests` writes the copy back, so that the rules read
        `while_condition_duplicated` code."""
        return self.key >= (3, 14)

    @property
    def threads_breaks_to_while_true_heads(self) -> bool:
        """3.14 ends a `while True:` body with a jump back to the NOP of the `while` line, which
        carries no line of its own: an inner `while True:` loop's `break` that ends the body is
        threaded straight to the head (pass `while_true_breaks` lays it out as 3.13 does)."""
        return self.key >= (3, 14)

    @property
    def copies_jumps_back_to_body_ends(self) -> bool:
        """3.14 copies a `while True:` body's closing jump (no line of its own) to each place the
        body ends, so a lone jump back that those places jump to, with a line of its own, is a
        written `continue` (pass `written_continues` keeps it as 3.8/3.9 do)."""
        return self.key >= (3, 14)

    @property
    def copies_for_jumps_back_to_body_ends(self) -> bool:
        """3.12+ copy a for loop's closing jump to each place its body ends, so a lone jump back
        that a test jumps to, with a line of its own, is an `else: continue` (pass
        `written_continues.for_loops`)."""
        return self.key >= (3, 12)

    @property
    def while_back_jump_has_line(self) -> bool:
        """From 3.10 the jump that closes a while loop carries the loop's line, so the optimiser
        does not send other jumps through it: a jump from the body straight to the loop's head
        is a `continue`, never the end of an if threaded there."""
        return self.key >= (3, 10)

    @property
    def break_keeps_own_jump(self) -> bool:
        """From 3.10 a written `break` keeps a jump of its own (its line number stops the
        optimiser from sending a conditional jump straight on): `if not t: break` never compiles
        to a test that jumps to the loop's exit, so such a test is `if t: ...; continue` before
        a `break` that became a fall into the exit."""
        return self.key >= (3, 10)

    @property
    def classdef_stores_firstlineno(self) -> bool:
        return self.key >= (3, 13)

    @property
    def copies_exit_blocks(self) -> bool:
        """From 3.10 a jump to a small block that ends the function (`return x`) is replaced by a
        copy of that block, so one statement can appear at the end of several paths."""
        return self.key >= (3, 10)

    @property
    def fuses_none_tests_into_jumps(self) -> bool:
        """3.11+ fuse a test of `x is None` into its jump (POP_JUMP_IF_NONE / _NOT_NONE), the last
        link of a chained comparison's too: pass `chain_none_tests` writes that link out."""
        return self.key >= (3, 11)

    @property
    def threads_value_jumps_into_tests(self) -> bool:
        """Before 3.12 the peephole pass threads a JUMP_IF_X_OR_POP of an `and`/`or` operand that
        lands on the POP_JUMP_IF_X testing the whole value: the operand's jump goes straight to
        that test's target (same sense) or just past it (opposite sense), so an operand of
        `(b or c) and x` can jump out of an if-expression's arm."""
        return self.key < (3, 12)

    @property
    def copies_closing_reraises(self) -> bool:
        """From 3.10 each jump to the closing re-raise of a finally body's exceptional copy gets a
        copy of it (`copies_exit_blocks`): pass `finally_reraises` sends the conditional jumps
        back to the last one."""
        return self.copies_exit_blocks

    @property
    def uses_call_finally(self) -> bool:
        return self.key == (3, 8)

    @property
    def uses_intrinsics(self) -> bool:
        return self.key >= (3, 12)

    @property
    def has_binary_op(self) -> bool:
        return self.key >= (3, 11)

    @property
    def conditional_jumps_forward_only(self) -> bool:
        """3.12 dropped backward conditional jumps: a jump over a JUMP back stands for one."""
        return self.key >= (3, 12)

    @property
    def locals_plus(self) -> bool:
        """3.11+ index locals, cells and free variables in one table (co_localsplusnames)."""
        return self.key >= (3, 11)

    @property
    def marshal_version(self) -> int:
        """The marshal format of .pyc files: 4 up to 3.13, 5 from 3.14 (slices, which the
        compiler now makes constants), 6 from 3.15 (frozendicts)."""
        return 4 if self.key < (3, 14) else 5 if self.key < (3, 15) else 6

    @property
    def end_for_then_pop_top(self) -> bool:
        """3.13 leaves a loop through END_FOR then POP_TOP (3.12: END_FOR alone)."""
        return self.key >= (3, 13)

    @property
    def has_load_assertion_error(self) -> bool:
        """3.8 loads AssertionError by name in assert statements; 3.9-3.13 by LOAD_ASSERTION_ERROR,
        3.14+ by LOAD_COMMON_CONSTANT (which the decoder reads as LOAD_ASSERTION_ERROR)."""
        return "LOAD_ASSERTION_ERROR" in self.tables["opmap"] or \
            ["builtin", "AssertionError"] in self.tables["common_constants"]

    @property
    def has_to_bool(self) -> bool:
        return self.key >= (3, 13)

    @property
    def keeps_not_over_is_in(self) -> bool:
        """3.14 no longer rewrites `not (a is b)` as `a is not b` (`in` likewise) before compiling:
        a test of it compiles `is` and jumps the other way, and `not a is None` as a value is
        `IS_OP is; UNARY_NOT` (other values still fuse to `is not`). The `not` is written."""
        return self.key >= (3, 14)

    @property
    def fuses_local_pairs(self) -> bool:
        """3.13 fuses two local loads (or stores) next to each other in one basic block into
        LOAD_FAST_LOAD_FAST (STORE_FAST_LOAD_FAST, STORE_FAST_STORE_FAST)."""
        return "LOAD_FAST_LOAD_FAST" in self.tables["opmap"]

    @property
    def marks_borrowed_loads(self) -> bool:
        """3.14 writes a local load that its basic block consumes as LOAD_FAST_BORROW, in the
        blocks its borrow pass reaches: which loads are borrowed tells where the compiler's
        blocks ended, between layouts that 3.13 compiles alike (`borrows.py`)."""
        return "LOAD_FAST_BORROW" in self.tables["opmap"]

    @property
    def borrows_stop_at_empty_blocks(self) -> bool:
        """3.14's borrow pass does not go on past an empty block: it never reaches the block
        after a try statement that the body only falls into (no handler falls out, or the body
        ends in a compound statement), nor the code after a `while True:` loop that its last
        `break` falls out of, nor any code only those lead to. Their loads stay LOAD_FAST, while
        the same code in the try's else part, or a `return` inside the loop, borrows them
        (`borrows.py`). 3.15 reaches them."""
        return self.marks_borrowed_loads and self.key == (3, 14)

    @property
    def with_enters_by_load_special(self) -> bool:
        """3.14 enters a with block by LOAD_SPECIAL of `__exit__` and `__enter__` instead of
        BEFORE_WITH, keeping the exit unbound beside its manager (pass `with_load_special`)."""
        return "LOAD_SPECIAL" in self.tables["opmap"]

    @property
    def keeps_iterators_in_two_slots(self) -> bool:
        """3.15 keeps an iterator as two stack slots (GET_ITER pushes an index or NULL above it,
        POP_ITER pops both) and sends from below a NULL: pass `two_slot_iterators`."""
        return self.tables.get("stack_effects", {}).get("POP_ITER") == -2

    @property
    def call_ex_pushes_null_kwargs(self) -> bool:
        """3.14's CALL_FUNCTION_EX has no argument: a missing keyword mapping is a pushed NULL
        (pass `call_ex_kwargs`)."""
        opmap = self.tables["opmap"]
        return "CALL_FUNCTION_EX" in opmap and opmap["CALL_FUNCTION_EX"] < self.tables["have_argument"]

    @property
    def threads_known_value_tests(self) -> bool:
        """3.14 sends a short-circuit value's jump past the next test of the same value, whose
        outcome it knows (`a and b or c`: a false `a` goes straight to `c`; pass
        `threaded_values`)."""
        return self.key >= (3, 14)

    @property
    def inlines_builtin_genexpr_calls(self) -> bool:
        """3.14 compiles `all(genexpr)` (any, tuple; 3.15 list, set) with a guarded fast path
        that loads the builtin by LOAD_COMMON_CONSTANT (pass `builtin_genexpr_calls`)."""
        return "LOAD_COMMON_CONSTANT" in self.tables["opmap"]

    @property
    def import_name_packs_lazy_bits(self) -> bool:
        """3.15 (PEP 810) packs `lazy import` (bit 0) and eager (bit 1) into IMPORT_NAME's
        argument, the name index above them; the decoder sets `flag` for lazy."""
        return self.key >= (3, 15)

    @property
    def has_return_const(self) -> bool:
        """3.12 returns a constant with one RETURN_CONST (3.14 in the canonical spelling of pass
        `older_raw_names`)."""
        return "RETURN_CONST" in self.tables["opmap"] or self.spells_loads_anew

    @property
    def spells_loads_anew(self) -> bool:
        """3.14 drops RETURN_CONST and renames local and small-int loads: pass `older_raw_names`
        gives them 3.13's raw names, which some rules compare."""
        return "LOAD_FAST_BORROW" in self.tables["opmap"]

    @property
    def fstring_expressions_any_quotes(self) -> bool:
        """PEP 701 (3.12): an f-string's expressions may reuse its quote and hold backslashes."""
        return self.key >= (3, 12)

    @property
    def defers_annotations(self) -> bool:
        """PEP 649/749 (3.14): annotations are computed by a generated `__annotate__` function
        instead of being stored where they are written (`deferred_annotations.py`)."""
        return self.key >= (3, 14)

    @property
    def flags_docstrings(self) -> bool:
        """3.14 sets CO_HAS_DOCSTRING on code whose first constant is its docstring."""
        return self.key >= (3, 14)

    @property
    def dedents_docstrings(self) -> bool:
        """3.13 removes a docstring's common indentation when compiling it."""
        return self.key >= (3, 13)

    @property
    def handler_code_at_end(self) -> bool:
        """3.12+ moves code that only exceptions reach to the end of the function."""
        return self.key >= (3, 12)

    @property
    def keeps_try_else_exit(self) -> bool:
        """3.13 keeps the jump out of a try's else part: jumps from the else part stop there
        instead of being sent on to where it leads (a loop's head)."""
        return self.key >= (3, 13)

    @property
    def handler_exit_skips_interrupt_check(self) -> bool:
        """3.13 leaves an except clause that falls out by a jump that skips the interrupt check
        (JUMP_BACKWARD_NO_INTERRUPT when it goes back); a `break` or `continue` written in the
        clause keeps a plain JUMP_BACKWARD. 3.12 uses JUMP_BACKWARD for both."""
        return self.key >= (3, 13)

    @property
    def copies_each_jump_to_small_exit(self) -> bool:
        """3.12/3.13 replace every jump to a small block that returns by a copy of it, so a jump
        to one left in the code was laid before the block was one (a value's join, the rest of
        the statement joined on later); 3.14 keeps some (`argparse._get_nargs_pattern`'s jumps
        to `return nargs_pattern` after assignments in an if/else)."""
        return (3, 12) <= self.key < (3, 14)

    @property
    def copies_exits_with_line_numbers(self) -> bool:
        """3.12+ copies any small exit block into its predecessors; 3.11 only an implicit return."""
        return self.key >= (3, 12)

    @property
    def removes_dead_code_to_label_only(self) -> bool:
        """3.8/3.9's peephole pass removes the code after a return only up to the next label, so
        the end of a compound statement keeps what the compiler put after it (a POP_BLOCK, the
        implicit `return None`); 3.10+ remove every unreachable block."""
        return self.key < (3, 10)

    @property
    def keeps_code_after_raise(self) -> bool:
        """3.8/3.9's peephole pass drops unreachable code only after a return: the statements
        that follow a `raise` in the same block stay, compiled as if reachable (3.10+ remove
        every unreachable block)."""
        return self.key < (3, 10)

    @property
    def threads_jumps_once(self) -> bool:
        """3.8/3.9's peephole pass retargets a jump to an unconditional jump once, not along a
        chain of them: a test whose false branch reaches a loop's head through the jump over an
        else part stops at that jump's target."""
        return self.key < (3, 10)

    @property
    def has_match_statement(self) -> bool:
        """3.10 added `match`; older bytecode never holds one."""
        return self.key >= (3, 10)

    @property
    def keeps_lone_jump_to_loop_back_jump(self) -> bool:
        """3.10 does not send a jump that alone carries its line (the end of `case 2: pass`)
        through the loop's closing jump it goes to: a case body that is only a jump straight back
        to the loop's head is a `continue`. 3.11+ send it straight back."""
        return self.key == (3, 10)

    @property
    def keeps_jump_to_written_continue(self) -> bool:
        """3.10 does not send a jump on through a written `continue` (a jump back that carries its
        own line): the POP_BLOCK of `try: ... except E: ...` followed by `continue` jumps forward
        to that `continue`, so a jump back right after a POP_BLOCK is the body's own `continue`.
        3.8/3.9 send the jump over the handlers on to the loop's head."""
        return self.key == (3, 10)

    @property
    def match_pushes_success_flag(self) -> bool:
        """3.10's MATCH_CLASS / MATCH_KEYS push a success flag above their result; 3.11+ push None on failure."""
        return self.key == (3, 10)


# The running interpreter's (major, minor), supported or not: what errors name.
RUNNING: Tuple[int, int] = (sys.version_info[0], sys.version_info[1])


def host() -> BytecodeVersion:
    """The version of the running interpreter; `DecompilationError` if its bytecode is unknown."""
    if RUNNING in SUPPORTED:
        return _shared(*RUNNING)  # (the common case, asked a few times per decompilation)
    return for_key(RUNNING)


def for_key(key: Tuple[int, int]) -> BytecodeVersion:
    """The version whose bytecode depyf reads; `DecompilationError` for any other."""
    key = tuple(key)  # type: ignore[assignment]
    if not reads(key):
        raise DecompilationError(unsupported_reason(key))
    return _shared(key[0], key[1])


def reads(key: Tuple[int, int]) -> bool:
    """Whether depyf reads the bytecode of this (major, minor)."""
    key = tuple(key)  # type: ignore[assignment]
    return key in SUPPORTED or (key in TABLES and experimental_enabled())


def experimental_enabled() -> bool:
    """Whether versions with tables but not yet supported are read (DEPYF_EXPERIMENTAL_VERSIONS=1)."""
    return os.environ.get("DEPYF_EXPERIMENTAL_VERSIONS") == "1"


def unsupported_reason(key: Tuple[int, int]) -> str:
    """One line saying that a version's bytecode cannot be read, and which versions can."""
    return "Python %d.%d bytecode is not supported; %s" % (key[0], key[1], supported_text())


def supported_text() -> str:
    """Which versions depyf reads, as every message says it: "depyf reads 3.8 to 3.15"."""
    first, last = SUPPORTED[0], SUPPORTED[-1]
    return "depyf reads %d.%d to %d.%d" % (first + last)


@lru_cache(maxsize=None)
def _shared(major: int, minor: int) -> BytecodeVersion:
    """One instance per version, so that its cached answers are computed once per process."""
    return BytecodeVersion(major, minor)


def host_is(min_key: Tuple[int, int]) -> bool:
    """For the few places outside the decoder that must know the host version (tests, tools)."""
    return sys.version_info[:2] >= min_key
