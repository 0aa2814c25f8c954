"""Print template strings (PEP 750, Python 3.14+): `t"..."`.

A template keeps each field's source text (`Interpolation.expression`) as a constant, so the
text is part of what the program sees and of the bytecode. Where that stored text still spells
the decompiled expression it is printed as it was written (spacing included), else the printer's
own text is used. A literal that ends in the field's text and `=` came from a `{x=}` field and
prints as one again. Any quote and backslash may appear inside fields: every version with
t-strings has PEP 701's grammar.
"""
import ast
from typing import Any, Callable, List, Optional, Tuple

from depyf.decompiler import nodes as n
from depyf.decompiler.errors import DecompilationError

# (printer's expression text at TEST level, a JoinedStr spec's body for a quote)
ExprText = Callable[[n.Expr], str]
SpecBody = Callable[[n.JoinedStr, str], Optional[str]]


def _same_expression(stored: str, printed: str) -> bool:
    """Whether `stored` parses to the expression `printed` spells (comments already dropped by
    the compiler; an interpreter older than the code's own may not parse it: then not)."""
    try:
        a = ast.parse("(" + stored + "\n)", mode="eval")
        b = ast.parse("(" + printed + "\n)", mode="eval")
    except (SyntaxError, ValueError):
        return False
    return ast.dump(a) == ast.dump(b)


def _field_text(field: n.Interpolation, expr_text: ExprText) -> Tuple[str, bool]:
    """The text inside the braces and whether it is the stored source text."""
    printed = expr_text(field.value)
    stored = field.expression
    if stored.strip() and not stored.startswith("{") and _same_expression(stored, printed):
        return stored, True
    return (" " + printed if printed.startswith("{") else printed), False


def _debug_split(literal: str, text: str, field: n.Interpolation) -> Optional[Tuple[str, str]]:
    """(the literal before a `{x=}` field, the spacing after its `=`) where `literal` ends as
    that field's self-documenting text does, else None."""
    if field.conversion is None and field.spec is None:
        return None  # `{x=}` would add `!r`
    head = literal.rstrip(" \t")
    trailing = literal[len(head):]
    if not head.endswith(text + "="):
        return None
    return head[: len(head) - len(text) - 1], trailing


def template_body(e: n.TemplateStr, quote: str, expr_text: ExprText, spec_body: SpecBody,
                  escape: Callable[[str, str], str]) -> Optional[str]:
    """The inside of a t-string delimited by `quote`, or None if a spec cannot be written so."""
    parts: List[Any] = list(e.parts)
    out: List[str] = []
    for k, part in enumerate(parts):
        if isinstance(part, str):
            continue  # (written with the field after it, or at the end)
        text, stored = _field_text(part, expr_text)
        before = parts[k - 1] if k and isinstance(parts[k - 1], str) else None
        split = _debug_split(before, text, part) if stored and before is not None else None
        if before is not None:
            out.append(_literal(split[0] if split else before, quote, escape))
        piece = "{" + text
        conversion = part.conversion
        if split:
            piece += "=" + split[1]
            if conversion == "r" and part.spec is None:
                conversion = None  # the default of `{x=}`
        if conversion:
            piece += "!" + conversion
        if part.spec is not None:
            spec = spec_body(part.spec, quote)
            if spec is None:
                return None
            piece += ":" + spec
        out.append(piece + "}")
    if parts and isinstance(parts[-1], str):
        out.append(_literal(parts[-1], quote, escape))
    return "".join(out)


def _literal(text: str, quote: str, escape: Callable[[str, str], str]) -> str:
    return escape(text, quote[0]).replace("{", "{{").replace("}", "}}")


def print_template(e: n.TemplateStr, expr_text: ExprText, spec_body: SpecBody,
                   escape: Callable[[str, str], str]) -> str:
    for quote in ("'", '"', "'''", '"""'):
        body = template_body(e, quote, expr_text, spec_body, escape)
        if body is not None:
            return "t" + quote + body + quote
    raise DecompilationError("cannot print a template string: no quoting writes its format specs")
