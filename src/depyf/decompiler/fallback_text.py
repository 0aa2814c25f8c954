"""Valid source for code that could not be decompiled: the error and the disassembly as comments
in a `def` that raises, so that `on_error="comment"` never returns text that does not compile.
"""

from types import CodeType
from typing import Any, Optional

from depyf.decompiler.code_check import comment_text, safe_identifier
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.instructions import decode
from depyf.decompiler.printer import Printer
from depyf.decompiler.signature import parameters
from depyf.decompiler.versions import host
from depyf.decompiler.unwrapping import unwrap


def compile_problem(text: str, deep_is_fine: bool = False) -> Optional[str]:
    """Why `text` does not compile, or None. (Compiling runs nothing.) `deep_is_fine`: text too
    deep for the compiler from this far down the stack is not counted (it came from code that
    compiled)."""
    try:
        compile(text, "<decompiled>", "exec", dont_inherit=True)
    except (RecursionError, MemoryError) as exc:
        return None if deep_is_fine else f"{type(exc).__name__}: {exc}"
    except (SyntaxError, ValueError, OverflowError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def fallback_text(obj: Any, error: DecompilationError, name: Optional[str], indent: int) -> str:
    """Valid source that shows why and where decompilation failed, with the disassembly.

    Everything taken from the code object is checked or escaped: its names may be anything
    (`<lambda>`, a keyword, a line break that would end a comment and start a line of code)."""
    comment = "# depyf could not decompile this code: " + comment_text(str(error))
    try:
        text = _fallback_definition(obj, error, name, indent, comment)
    except (Exception, RecursionError, MemoryError):  # (the fallback of the fallback: a comment)
        return comment + "\n"
    return text if compile_problem(text) is None else comment + "\n"


def _fallback_definition(obj: Any, error: DecompilationError, name: Optional[str], indent: int,
                         comment: str) -> str:
    unit = " " * indent
    try:
        target = unwrap(obj)
    except DecompilationError:
        return comment + "\n"
    if isinstance(target, type):
        return comment + "\n"
    code = target[0]
    def_name = safe_identifier(name or (code.co_name if isinstance(code.co_name, str) else "_"))
    lines = [f"def {def_name}({_fallback_parameters(code)}):", unit + comment, unit + "# disassembly:"]
    try:
        for ins in decode(code, host()).instrs:
            arg = "" if ins.arg is None else " " + (f"-> {ins.target}" if ins.target is not None else repr(ins.argval))
            lines.append(unit + "#   " + comment_text(f"{ins.index:4d} {ins.raw_opname}{arg}"[:200]))
    except DecompilationError as decode_error:
        lines.append(unit + "#   " + comment_text(f"(the bytecode cannot be decoded: {decode_error})"))
    lines.append(f"{unit}raise NotImplementedError({str(error)!r})")
    return "\n".join(lines) + "\n"


def _fallback_parameters(code: CodeType) -> str:
    """The parameters as the code declares them, where they are names source can spell (a
    comprehension's `.0`, a duplicate or a keyword are not): else `*args, **kwargs`."""
    try:
        text = parameters(code, Printer().expr)
        compile(f"def _({text}): pass", "<parameters>", "exec", dont_inherit=True)
        return text
    except (Exception, RecursionError, MemoryError):
        return "*args, **kwargs"
