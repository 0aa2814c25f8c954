"""`decompile(obj)`: the decompiler's front door.

Finds the code object behind whatever the user passed (`unwrapping`), reads it with `Decompiler`
(`code_text`) or rebuilds a class object from its members (`class_objects`), and turns any failure
into a `DecompilationError` or, with `on_error="comment"`, into valid source that shows it
(`fallback_text`).
"""

from types import CodeType
from typing import Any, List, Optional

from depyf.decompiler import nodes as n
from depyf.decompiler.deep_stack import call_deep
from depyf.decompiler.code_check import check_code
from depyf.decompiler.errors import DecompilationError, internal_error, naming_function
from depyf.decompiler.mangling import demangled_code
from depyf.decompiler.printer import Printer
from depyf.decompiler.versions import RUNNING, host
from depyf.decompiler.class_objects import decompile_class_object
from depyf.decompiler.code_text import Decompiler
from depyf.decompiler.fallback_text import compile_problem, fallback_text
from depyf.decompiler.unwrapping import describe, owner_class_name, unwrap


def decompile(obj: Any, *, on_error: str = "raise", name: Optional[str] = None, indent: int = 4,
              rewritten: bool = False) -> str:
    """Decompile a function, method, lambda, class, code object or callable wrapper to source.

    `on_error="raise"` raises `DecompilationError`; `on_error="comment"` never raises and returns
    valid source whose undecompilable part is shown as disassembly in comments.
    `rewritten=True` says the bytecode was made by a tool, not compiled from source (Dynamo's
    transformed code): values that stay on the stack across statements are then kept in named
    temporaries from the start, instead of after a first reading as source has failed. The text
    is the same, except that a name evaluated only to be dropped is not written as a statement.
    """
    if on_error not in ("raise", "comment"):
        raise ValueError("on_error must be 'raise' or 'comment'")
    try:
        host()  # an interpreter without opcode tables: one plain line, whatever the object
    except DecompilationError as unsupported:
        if on_error == "raise":
            raise
        return fallback_text(obj, unsupported, name, indent)

    def run() -> str:
        return _decompile(obj, name, indent, rewritten, on_error)

    try:
        try:
            text = run()
            nested_too_deeply = False
        except RecursionError:
            nested_too_deeply = True  # (the deep call is made outside this handler's frame)
        if nested_too_deeply:
            text = call_deep(run)  # code nested deeper than the default recursion limit allows
        if on_error == "comment":
            problem = compile_problem(text, deep_is_fine=True)
            if problem is not None:
                # (a bug of the reading: the text is wrong, so it is shown as failed)
                raise DecompilationError(f"internal error: the decompiled text does not compile ({problem})",
                                         function=describe(obj), python_version=RUNNING)
        return text
    except DecompilationError as raised:
        error = naming_function(raised, describe(obj), RUNNING)
        if on_error == "raise":
            if error is raised:
                raise
            raise error from raised.__cause__
        return fallback_text(obj, error, name, indent)
    except RecursionError:
        error = DecompilationError("nested too deeply", function=describe(obj),
                                   python_version=RUNNING)
        if on_error == "raise":
            raise error from None
        return fallback_text(obj, error, name, indent)
    except (Exception, MemoryError) as exc:
        # Nothing but DecompilationError leaves `decompile`: an exception from inside is a bug of
        # the decompiler on this input, reported as such (`error.internal`, the cause kept).
        error = internal_error(exc, describe(obj), RUNNING)
        if on_error == "raise":
            raise error from exc
        return fallback_text(obj, error, name, indent)


def _decompile(obj: Any, name: Optional[str], indent: int, rewritten: bool, on_error: str) -> str:
    target = unwrap(obj)
    if isinstance(target, type):
        return decompile_class_object(target, indent, name, on_error)
    code, fn = target
    check_code(code, host())  # (before `code.replace`, which reads co_code)
    owner = owner_class_name(fn) if not rewritten else None
    if owner is not None:
        code = demangled_code(code, owner)  # `self.__x` as written, not `self._C__x`
    return Decompiler(code, host(), indent, rewritten).definition_text(fn, name)


class DecompiledFunction:
    """A function's statement tree as the decompiler read it (`node`), with the printer that
    prints it: tools may rewrite the tree (`nodes.py` types) and print the result."""

    def __init__(self, node: n.FunctionDef, printer: Printer) -> None:
        self.node = node
        self.printer = printer

    def text(self) -> str:
        lines: List[str] = []
        self.printer.stmt(self.node, 0, lines)
        return "\n".join(lines) + "\n"


def decompile_function(code: CodeType, *, name: Optional[str] = None, indent: int = 4,
                       rewritten: bool = False) -> DecompiledFunction:
    """The statement tree of a function's code object, unprinted (`decompile` prints it);
    raises `DecompilationError` where the code cannot be read. `rewritten`: as in `decompile`."""
    if not isinstance(code, CodeType):
        raise TypeError(f"expected a code object, got {type(code).__name__}")
    try:
        decompiler = Decompiler(code, host(), indent, rewritten)
        return DecompiledFunction(decompiler.definition_node(None, name), decompiler.printer)
    except DecompilationError:
        raise
    except RecursionError:
        raise DecompilationError("nested too deeply", function=describe(code), python_version=RUNNING) from None
    except (Exception, MemoryError) as exc:  # (the same contract as `decompile`: one exception type)
        raise internal_error(exc, describe(code), RUNNING) from exc
