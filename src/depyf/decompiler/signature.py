"""Function signatures: parameter lists rebuilt from a code object plus optional defaults and annotations."""
import ast
from types import CodeType
from typing import Callable, Dict, List, Optional, Sequence

from depyf.decompiler import nodes as n

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08
CO_FUTURE_ANNOTATIONS = 0x1000000  # the same flag on every supported version


def postponed_annotation(value: n.Expr, postponed: bool) -> n.Expr:
    """An annotation as written, when `from __future__ import annotations` (PEP 563) is on.

    The compiler then stores every annotation as the text of its expression, so the constant
    `'list[int]'` stands for `list[int]` in the source (and `"'A'"` for the string `'A'`).
    `postponed` says whether the code holding the annotation was compiled that way."""
    if not postponed or not isinstance(value, n.Const) or not isinstance(value.value, str):
        return value
    try:
        ast.parse(value.value, mode="eval")
    except (SyntaxError, ValueError):
        return value  # (not an expression's text: keep the string)
    return n.Raw(value.value)


def parameters(code: CodeType, render: Callable[[n.Expr], str],
               defaults: Sequence[n.Expr] = (), kwdefaults: Optional[Dict[str, n.Expr]] = None,
               annotations: Optional[Dict[str, n.Expr]] = None) -> str:
    """The text between the parentheses of `def name(...)` (or after `lambda`)."""
    kwdefaults = kwdefaults or {}
    annotations = annotations or {}
    names = code.co_varnames
    posonly = getattr(code, "co_posonlyargcount", 0)
    argcount = code.co_argcount
    kwonly = code.co_kwonlyargcount
    flags = code.co_flags

    def param(name: str, default: "Optional[n.Expr]" = None) -> str:  # (a string: not evaluated per call)
        if default is None and name not in annotations:
            return name  # (most parameters)
        text = name
        if name in annotations:
            text += ": " + render(annotations[name])
            if default is not None:
                return text + " = " + render(default)
        if default is not None:
            text += "=" + render(default)
        return text

    parts: List[str] = []
    first_default = argcount - len(defaults)
    if first_default >= argcount and not annotations:
        parts += names[:argcount]  # (no default, no annotation: the names as they are)
        if 0 < posonly <= argcount:
            parts.insert(posonly, "/")
    else:
        for k in range(argcount):
            default = defaults[k - first_default] if k >= first_default else None
            parts.append(param(names[k], default))
            if k == posonly - 1:
                parts.append("/")
    index = argcount + kwonly
    if flags & CO_VARARGS:
        vararg = names[index]
        parts.append("*" + param(vararg))
        index += 1
    elif kwonly:
        parts.append("*")
    for k in range(argcount, argcount + kwonly):
        parts.append(param(names[k], kwdefaults.get(names[k])))
    if flags & CO_VARKEYWORDS:
        parts.append("**" + param(names[index]))
    return ", ".join(parts)
