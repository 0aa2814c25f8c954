"""The round-trip oracle: does decompiled source compile back to the same bytecode?

For every function, method and lambda defined at module level or in a class body of a source
file, the oracle

1. compiles the file as it is and takes the definition's code object;
2. decompiles that code object;
3. splices the decompiled text into the file in place of the original definition, so that it is
   compiled in its real context (a class body gives ``super()`` its ``__class__`` cell and mangles
   ``__private`` names; module-level imports change how some versions compile attribute calls);
4. compiles the original and the spliced file in one canonical layout (``ast.unparse`` of the
   parsed source where the running Python has it, because the compiler's output depends on line
   breaks from 3.10 on) and compares the definition's two code objects instruction by instruction.

The comparison (`compare_code`) looks at argument counts, parameter names, the
varargs/varkw/generator/coroutine flags, the docstring, the ``(opname, argument)`` stream of
``dis.get_instructions`` without the instructions that only reflect layout or frame setup, jump
arguments as indices into that filtered stream, constants by ``repr`` (code objects recursively,
frozensets sorted), the exception table (where the code object has one) in the same index space,
and nested code objects recursively.

This package is deliberately self-contained (standard library only, no import of the rest of
depyf, and only relative imports among its modules): benchmarks and the gate load it by path, under
another name, to judge other decompilers too, and it must work unchanged on every supported
CPython. It never branches on the interpreter version; it asks
the interpreter what it has (``ast.unparse``, ``co_exceptiontable``, the ``dis`` jump tables).

Its modules: `model` (statuses and results), `source` (finding definitions, splicing, the
canonical compile), `compare` (comparing two code objects) and `roundtrip` (the round trip).
"""
from __future__ import annotations

from .compare import code_docstring, compare_code, first_difference
from .model import DECOMPILE_ERROR, DIFFERS, EQUAL, NO_COMPILE, STATUSES, Definition, Difference, Result
from .roundtrip import SourceRoundTrip, describe_exception, roundtrip_source_file
from .source import canonical_compile, code_objects, control_decompiler, definitions_in_source, find_code, splice

__all__ = [
    "Definition",
    "Difference",
    "Result",
    "DECOMPILE_ERROR",
    "NO_COMPILE",
    "DIFFERS",
    "EQUAL",
    "STATUSES",
    "definitions_in_source",
    "find_code",
    "splice",
    "canonical_compile",
    "compare_code",
    "first_difference",
    "roundtrip_source_file",
    "SourceRoundTrip",
    "control_decompiler",
    "code_objects",
    "code_docstring",
    "describe_exception",
]
