"""Private names: `__x` written inside `class C` is stored as `_C__x`.

The compiler mangles every such identifier of the class body and of the functions nested in it
(names, attributes, locals, parameters, cells). Text printed inside the class must spell the name
as written: the compiler mangles it again, while `self._C__x` printed there would read as a
compiler artifact. Renaming in the code object, before decompiling, reaches every place a name
can appear at once.
"""
from types import CodeType
from typing import Optional, Tuple

CO_OPTIMIZED = 0x01


def private_prefix(class_name: str) -> Optional[str]:
    """`_C` for class `C` (leading underscores dropped); None when the name is only underscores."""
    stripped = class_name.lstrip("_")
    return "_" + stripped if stripped else None


def demangle(name: str, prefix: str) -> str:
    """`_C__x` -> `__x`; names the compiler would not have mangled stay as they are."""
    if not name.startswith(prefix + "__"):
        return name
    written = name[len(prefix):]
    if written.endswith("__") or "." in written:
        return name  # dunder names and dotted import paths are never mangled
    return written


def demangled_code(code: CodeType, class_name: str) -> CodeType:
    """`code` (a class body or a function in one) with the names of `class_name` as written.

    Nested functions, lambdas and comprehensions share the class's mangling; a nested class body
    (a code object that is not CO_OPTIMIZED) mangles with its own name and is left for its turn.
    """
    prefix = private_prefix(class_name)
    if prefix is None:
        return code
    return _rename(code, prefix)


def _rename(code: CodeType, prefix: str) -> CodeType:
    def names(values: Tuple[str, ...]) -> Tuple[str, ...]:
        return tuple(demangle(v, prefix) for v in values)

    consts = tuple(_rename(c, prefix) if isinstance(c, CodeType) and c.co_flags & CO_OPTIMIZED else c
                   for c in code.co_consts)
    return code.replace(co_names=names(code.co_names), co_varnames=names(code.co_varnames),
                        co_cellvars=names(code.co_cellvars), co_freevars=names(code.co_freevars),
                        co_consts=consts)
