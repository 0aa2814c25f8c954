"""Turn the decompiler's tree (`nodes.py`) into source text.

The printer owns precedence and layout, nothing else: parentheses are added exactly where the
grammar needs them, using a precedence ladder like the one of CPython's own unparser.
"""
import math
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Type

from depyf.decompiler import nodes as n
from depyf.decompiler.code_check import is_source_name
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.template_strings import print_template

# Precedence ladder, loosest first.
NAMED, TUPLE, YIELD, TEST, OR, AND, NOT, CMP, EXPR, BOR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, \
    POWER, AWAIT, ATOM = range(1, 20)

BINOP_PREC = {
    "|": BOR, "^": BXOR, "&": BAND, "<<": SHIFT, ">>": SHIFT, "+": ARITH, "-": ARITH,
    "*": TERM, "/": TERM, "//": TERM, "%": TERM, "@": TERM, "**": POWER,
}
UNARY_PREC = {"not": NOT, "-": FACTOR, "+": FACTOR, "~": FACTOR}
# Node types whose precedence does not depend on their contents (the most common first).
_FIXED_PRECEDENCE: Dict[type, int] = {
    n.Name: ATOM, n.Attribute: ATOM, n.Call: ATOM, n.Subscript: ATOM, n.List_: ATOM, n.Dict_: ATOM,
    n.Set_: ATOM, n.JoinedStr: ATOM, n.TemplateStr: ATOM, n.ComprehensionExpr: ATOM,
    n.Compare: CMP, n.IfExp: TEST, n.Lambda: TEST, n.NamedExpr: NAMED, n.Yield: YIELD,
    n.YieldFrom: YIELD, n.Await: AWAIT, n.Starred: EXPR,
}

# Constants whose literal is an atom whatever its value (a number may be negative).
_ATOM_CONSTANTS = frozenset({str, bytes, bool, type(None), type(Ellipsis)})
# Of those, the ones printed as their repr (`Printer.constant`): `expr` writes them itself.
_ATOM_REPRS = frozenset({str, bytes, bool, type(None)})


def _escape(text: str, quote: str) -> str:
    """Escape `text` for a single-line literal delimited by `quote`."""
    body = repr(text)[1:-1]
    # repr chose its own quote; undo its escaping of the other one and escape ours.
    if repr(text)[0] == '"':
        body = body.replace('\\"', '"')
    else:
        body = body.replace("\\'", "'")
    return body.replace(quote, "\\" + quote)


def _unprintable(node: Any) -> DecompilationError:
    """A node the reader left in the tree that no source spells (a stack marker, a comprehension's
    append outside its comprehension): the reading went wrong, which is a decompilation error,
    never a bare TypeError escaping to the caller."""
    return DecompilationError(f"cannot print {type(node).__name__}: no source construct")


def _name(name: Any) -> Any:
    """`name`, where it can be written in source (names of keywords, classes and functions come
    from constants, which no table check has seen): anything else must not reach the text."""
    if not is_source_name(name):
        raise DecompilationError(f"the name {name!r} cannot be written in source")
    return name


class Printer:
    """Renders nodes to text. One instance per decompilation; `indent` is spaces per level."""

    def __init__(self, indent: int = 4, dedented_docstrings: bool = False, fstring_any_quotes: bool = False) -> None:
        self.unit = " " * indent
        # 3.13+ strip a docstring's indentation when compiling: indent it back when printing.
        self.dedented_docstrings = dedented_docstrings
        # 3.12+ (PEP 701) allow any quote and backslashes in an f-string's expressions.
        self.fstring_any_quotes = fstring_any_quotes
        # Turns internal stack values that reach the printer into expressions (set by the builder).
        self.resolve: Optional[Callable[[n.Expr], n.Expr]] = None

    # --- expressions ----------------------------------------------------------------------

    def precedence(self, e: n.Expr) -> int:
        t = type(e)
        fixed = _FIXED_PRECEDENCE.get(t)
        if fixed is not None:
            return fixed
        if t is n.BinOp:
            return BINOP_PREC[e.op]
        if t is n.UnaryOp:
            return UNARY_PREC[e.op]
        if t is n.BoolOp:
            return OR if e.op == "or" else AND
        if t is n.Tuple_:
            return TUPLE if e.elts else ATOM
        if t is n.Const:
            v = e.value
            if isinstance(v, complex):
                return _complex_literal(v)[1]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                if v < 0 or (isinstance(v, float) and math.copysign(1.0, v) < 0):
                    return FACTOR
            return ATOM  # a tuple constant always prints in its own parentheses
        if t is n.Raw:
            return e.prec
        return ATOM

    def expr(self, e: n.Expr, need: int = TEST) -> str:
        kind = type(e)
        if kind is n.Name:
            return e.id  # the most common node: an atom, never in parentheses
        if kind is n.Const and type(e.value) in _ATOM_REPRS:
            return repr(e.value)  # (the next most common: `_const`, without the calls)
        render = _EXPR.get(kind)
        if render is None and isinstance(e, n.Name):
            render = _EXPR[n.Name]
        if render is None:
            if self.resolve is None:
                raise _unprintable(e)
            e = self.resolve(e)
            kind = type(e)
            render = _EXPR.get(kind)
            if render is None:
                raise _unprintable(e)
        text = render(self, e)
        prec = _FIXED_PRECEDENCE.get(kind)  # (most nodes: no call to `precedence`)
        if prec is None:
            if kind is n.Const and type(e.value) in _ATOM_CONSTANTS:
                return text  # (most constants: an atom)
            prec = self.precedence(e)
        if prec < need:
            return "(" + text + ")"
        return text

    def _const(self, e: n.Const) -> str:
        return self.constant(e.value)

    def constant(self, v: Any) -> str:
        if type(v) in _PLAIN_REPR:
            return repr(v)  # most constants: names, numbers, flags
        if v is Ellipsis:
            return "..."
        if isinstance(v, float):
            if math.isinf(v):
                return "1e309" if v > 0 else "-1e309"
            if math.isnan(v):
                return "float('nan')"
            return repr(v)
        if isinstance(v, complex):
            return _complex_literal(v)[0]
        if isinstance(v, tuple):
            if len(v) == 1:
                return "(" + self.constant(v[0]) + ",)"
            return "(" + ", ".join(self.constant(x) for x in v) + ")"
        if isinstance(v, frozenset):
            if not v:
                return "frozenset()"
            return "{" + ", ".join(sorted(self.constant(x) for x in v)) + "}"
        if not has_literal_form(v):
            return _stand_in_name(v)
        return repr(v)

    # Attribute, subscript and call chains (`x.a[0]()...`) nest to the left, one level per
    # trailer: they are printed by walking down the chain, so that its length sets no recursion
    # depth. Every link is an atom, printed without parentheses.

    def _trailers(self, e: n.Expr) -> str:
        chain = []
        while type(e) in _TRAILER_BASE:
            chain.append(e)
            e = getattr(e, _TRAILER_BASE[type(e)])
        text = e.id if type(e) is n.Name else self.expr(e, ATOM)  # (most chains start at a name)
        for link in reversed(chain):
            text = _TRAILER_TEXT[type(link)](self, link, text)
        return text

    def _attribute_text(self, e: n.Attribute, base: str) -> str:
        if isinstance(e.value, n.Const) and isinstance(e.value.value, int) and base[0] != "(":
            base = "(" + base + ")"
        return f"{base}.{e.attr}"

    def _subscript_text(self, e: n.Subscript, base: str) -> str:
        index = e.index
        if isinstance(index, n.Tuple_) and index.elts and not any(isinstance(x, n.Starred) for x in index.elts):
            inner = ", ".join(self._slice_item(x) for x in index.elts)
            if len(index.elts) == 1:
                inner += ","
        elif isinstance(index, n.Const) and isinstance(index.value, tuple) and index.value:
            inner = ", ".join(self.constant(x) for x in index.value)  # x[1, 2], folded to a constant
            if len(index.value) == 1:
                inner += ","
        else:
            inner = self._slice_item(index)
        return f"{base}[{inner}]"

    def _slice_item(self, e: n.Expr) -> str:
        if isinstance(e, n.Slice):
            return self._slice(e)
        return self.expr(e, TEST)

    def _slice(self, e: n.Slice) -> str:
        text = (self.expr(e.lower, TEST) if e.lower is not None else "") + ":"
        text += self.expr(e.upper, TEST) if e.upper is not None else ""
        if e.step is not None:
            text += ":" + self.expr(e.step, TEST)
        return text

    def _call_text(self, e: n.Call, func: str) -> str:
        args = e.args
        if len(args) == 1 and isinstance(args[0], n.ComprehensionExpr) and args[0].kind == "gen":
            return f"{func}{self.expr(args[0])}"
        if len(args) > 1 and isinstance(args[-1], n.Keyword) and isinstance(args[-2], n.Keyword):
            names = [a.name for a in args if isinstance(a, n.Keyword)]
            if len(set(names)) != len(names):  # (keyword names come from a constant: any tuple)
                raise DecompilationError("a call passes one keyword argument twice")
        # (a name, the commonest argument, printed without the call of `expr`)
        return f"{func}({', '.join([a.id if type(a) is n.Name else self.expr(a, TEST) for a in args])})"

    def _binop(self, e: n.BinOp) -> str:
        prec = BINOP_PREC[e.op]
        if e.op == "**":
            return f"{self.expr(e.left, AWAIT)} ** {self.expr(e.right, FACTOR)}"
        # `a + b - c + ...` nests to the left, one level per operator: walk down the operators of
        # this precedence (each printed without parentheses), so that the length of the chain sets
        # no recursion depth.
        chain = [e]
        left = e.left
        while type(left) is n.BinOp and left.op != "**" and BINOP_PREC[left.op] == prec:
            chain.append(left)
            left = left.left
        parts = [left.id if type(left) is n.Name else self.expr(left, prec)]  # (as in `_call_text`)
        for link in reversed(chain):
            right = link.right
            parts.append(f" {link.op} {right.id if type(right) is n.Name else self.expr(right, prec + 1)}")
        return "".join(parts)

    def _unary(self, e: n.UnaryOp) -> str:
        if e.op == "not":
            operand = e.operand
            if isinstance(operand, n.Compare) and len(operand.ops) == 1 and operand.ops[0] in n.NEGATED_COMPARISONS \
                    and not operand.keeps_not:
                # `not a is b` is `a is not b` to the compiler too; the latter is how people write it.
                return self._compare(n.Compare(operand.left, [n.NEGATED_COMPARISONS[operand.ops[0]]],
                                               operand.comparators))
            return "not " + self.expr(e.operand, NOT)
        operand = self.expr(e.operand, FACTOR)
        # `- -x` keeps a space; `-1` stays a literal the compiler folds.
        if operand[0] in "+-~" and e.op in "+-":
            return e.op + " " + operand
        return e.op + operand

    def _boolop(self, e: n.BoolOp) -> str:
        prec = OR if e.op == "or" else AND
        return f" {e.op} ".join([self.expr(v, prec + 1) for v in e.values])

    def _compare(self, e: n.Compare) -> str:
        left = e.left
        parts = [left.id if type(left) is n.Name else self.expr(left, CMP + 1)]  # (as in `_call_text`)
        for op, right in zip(e.ops, e.comparators):
            parts.append(op)
            parts.append(right.id if type(right) is n.Name else self.expr(right, CMP + 1))
        return " ".join(parts)

    def _tuple(self, e: n.Tuple_) -> str:
        if not e.elts:
            return "()"
        if len(e.elts) == 1:
            return self.expr(e.elts[0], TEST) + ","
        return ", ".join([self.expr(x, TEST) for x in e.elts])

    def _set(self, e: n.Set_) -> str:
        if not e.elts:
            return "set()"
        return "{" + ", ".join(self.expr(x, TEST) for x in e.elts) + "}"

    def _dict(self, e: n.Dict_) -> str:
        items = []
        for k, v in zip(e.keys, e.values):
            items.append("**" + self.expr(v, BOR) if k is None else f"{self.expr(k, TEST)}: {self.expr(v, TEST)}")
        return "{" + ", ".join(items) + "}"

    def _joined(self, e: n.JoinedStr) -> str:
        inner = [self._fstring_body(e, q) for q in ("'", '"')]
        for quote, body in zip(("'", '"'), inner):
            if body is not None:
                return "f" + quote + body + quote
        for quote in ("'''", '"""'):
            body = self._fstring_body(e, quote)
            if body is not None:
                return "f" + quote + body + quote
        return self._joined_as_concatenation(e)

    def _joined_as_concatenation(self, e: n.JoinedStr) -> str:
        """An f-string that no quoting spells (before 3.12 its expressions cannot reuse the quote
        or hold a backslash), as the `%` formatting it came from (3.11+ compile `'%s' % (x,)` to
        f-string code) or else the concatenation of the pieces it formats."""
        if all(isinstance(p, str) or (isinstance(p, n.FormattedValue) and p.spec is None
                                      and p.conversion in ("s", "r", "a")) for p in e.parts):
            template = "".join(p.replace("%", "%%") if isinstance(p, str) else "%" + p.conversion
                               for p in e.parts)
            values = [p.value for p in e.parts if not isinstance(p, str)]
            return "(" + self.constant(template) + " % " + self.expr(n.Tuple_(values), ATOM) + ")"
        pieces: List[str] = []
        for part in e.parts:
            if isinstance(part, str):
                pieces.append(self.constant(part))
            elif isinstance(part, n.JoinedStr):
                pieces.append(self.expr(part, ATOM))
            elif not isinstance(part, n.FormattedValue):
                raise _unprintable(part)
            else:
                value = self.expr(part.value, TEST)
                convert = {"s": "str", "r": "repr", "a": "ascii"}.get(part.conversion or "")
                if convert:
                    value = f"{convert}({value})"
                spec = self.expr(part.spec, TEST) if part.spec is not None else "''"
                pieces.append(f"format({value}, {spec})")
        return "(" + " + ".join(pieces or ["''"]) + ")"

    def _fstring_body(self, e: n.JoinedStr, quote: str) -> Optional[str]:
        """The inside of an f-string delimited by `quote`, or None if the quote cannot work."""
        out: List[str] = []
        for part in e.parts:
            if isinstance(part, str):
                out.append(_escape(part, quote[0]).replace("{", "{{").replace("}", "}}"))
                continue
            if isinstance(part, n.JoinedStr):  # literal f-string spliced as a part
                body = self._fstring_body(part, quote)
                if body is None:
                    return None
                out.append(body)
                continue
            if not isinstance(part, n.FormattedValue):
                raise _unprintable(part)  # (an f-string's part that is neither text nor formatted)
            text = self.expr(part.value, TEST)
            # Before 3.12 an expression cannot hold a backslash or the delimiter (inside triple
            # quotes a lone quote character is fine).
            if not self.fstring_any_quotes and ((quote if len(quote) == 3 else quote[0]) in text or "\\" in text):
                return None
            if text.startswith("{"):
                text = " " + text
            piece = "{" + text
            if part.conversion:
                piece += "!" + part.conversion
            if part.spec is not None:
                spec = self._fstring_body(part.spec, quote)
                if spec is None:
                    return None
                piece += ":" + spec
            out.append(piece + "}")
        return "".join(out)

    def _comprehension(self, e: n.ComprehensionExpr) -> str:
        if e.kind == "dict" and e.value is not None:
            head = f"{self.expr(e.elt, TEST)}: {self.expr(e.value, TEST)}"
        else:
            head = self.expr(e.elt, TEST)
        clauses = []
        for gen in e.generators:
            clause = ("async for " if gen.is_async else "for ") + self.target(gen.target)
            clause += " in " + self.expr(gen.iter, OR)
            for cond in gen.ifs:
                clause += " if " + self.expr(cond, OR)
            clauses.append(clause)
        body = head + " " + " ".join(clauses)
        return {"list": "[%s]", "set": "{%s}", "dict": "{%s}", "gen": "(%s)"}[e.kind] % body

    def target(self, e: n.Expr) -> str:
        """An assignment or loop target: tuples print without parentheses."""
        if type(e) is n.Name:
            return e.id  # (most targets)
        if isinstance(e, n.Tuple_) and e.elts:
            return self._tuple_target(e)
        return self.expr(e, ATOM if not isinstance(e, n.Starred) else EXPR)

    def _tuple_target(self, e: n.Tuple_) -> str:
        parts = []
        for x in e.elts:
            if isinstance(x, (n.Tuple_, n.List_)) and x.elts:
                parts.append("(" + self._tuple_target(n.Tuple_(x.elts)) + ")" if isinstance(x, n.Tuple_)
                             else "[" + self._tuple_target(n.Tuple_(x.elts)) + "]")
            else:
                parts.append(self.target(x))
        return ", ".join(parts) + ("," if len(parts) == 1 else "")

    # --- statements -----------------------------------------------------------------------

    def block(self, body: Sequence[n.Stmt], depth: int) -> List[str]:
        lines: List[str] = []
        pad = self.unit * depth
        for stmt in body:
            write = _STMT.get(type(stmt))  # (`stmt`, inlined: the indentation taken once)
            if write is None:
                raise _unprintable(stmt)
            write(self, stmt, pad, depth, lines)
        if not lines:
            lines.append(self.unit * depth + "pass")
        return lines

    def stmt(self, s: n.Stmt, depth: int, out: List[str]) -> None:
        write = _STMT.get(type(s))
        if write is None:
            raise _unprintable(s)
        write(self, s, self.unit * depth, depth, out)

    # --- one writer per statement type (`_STMT`): (statement, indentation, depth, lines) ----------

    def _expr_stmt(self, s: n.ExprStmt, pad: str, depth: int, out: List[str]) -> None:
        if isinstance(s.value, n.Const) and isinstance(s.value.value, str):
            out.extend(self.docstring(s.value.value, pad))
            return
        out.append(pad + self.expr(s.value, YIELD))

    def _assign(self, s: n.Assign, pad: str, depth: int, out: List[str]) -> None:
        targets = self.target(s.targets[0]) if len(s.targets) == 1 else " = ".join([self.target(x) for x in s.targets])
        out.append(f"{pad}{targets} = {self._value(s.value)}")

    def _aug_assign(self, s: n.AugAssign, pad: str, depth: int, out: List[str]) -> None:
        out.append(f"{pad}{self.target(s.target)} {s.op}= {self._value(s.value)}")

    def _ann_assign(self, s: n.AnnAssign, pad: str, depth: int, out: List[str]) -> None:
        target = self.target(s.target)
        if not s.simple and isinstance(s.target, n.Name):
            target = "(" + target + ")"
        text = f"{pad}{target}: {self.expr(s.annotation, TEST)}"
        if s.value is not None:
            text += " = " + self._value(s.value)
        out.append(text)

    def _return(self, s: n.Return, pad: str, depth: int, out: List[str]) -> None:
        out.append(pad + "return" + ("" if s.value is None else " " + self._value(s.value, yield_allowed=False)))

    def _assert(self, s: n.Assert, pad: str, depth: int, out: List[str]) -> None:
        text = pad + "assert " + self.expr(s.test, TEST)
        if s.msg is not None:
            text += ", " + self.expr(s.msg, TEST)
        out.append(text)

    def _raise(self, s: n.Raise, pad: str, depth: int, out: List[str]) -> None:
        text = pad + "raise"
        if s.exc is not None:
            text += " " + self.expr(s.exc, TEST)
            if s.cause is not None:
                text += " from " + self.expr(s.cause, TEST)
        out.append(text)

    def _import(self, s: n.Import, pad: str, depth: int, out: List[str]) -> None:
        lazy = "lazy " if s.lazy else ""
        out.append(pad + lazy + "import " + ", ".join(_alias(name, asname) for name, asname in s.names))

    def _import_from(self, s: n.ImportFrom, pad: str, depth: int, out: List[str]) -> None:
        names = ", ".join(_alias(name, asname) for name, asname in s.names)
        out.append(f"{pad}{'lazy ' if s.lazy else ''}from {'.' * s.level}{s.module} import {names}")

    def _while(self, s: n.While, pad: str, depth: int, out: List[str]) -> None:
        out.append(f"{pad}while {self.expr(s.test, NAMED)}:")
        out.extend(self.block(s.body, depth + 1))
        self._else(s.orelse, depth, out)

    def _for(self, s: n.For, pad: str, depth: int, out: List[str]) -> None:
        kw = "async for" if s.is_async else "for"
        iterable = self._value(s.iter, yield_allowed=False)
        if isinstance(s.iter, n.Tuple_) and any(isinstance(x, n.Starred) for x in s.iter.elts):
            iterable = f"({iterable})"  # (3.8's grammar wants `for x in (a, *b):`; the same code)
        out.append(f"{pad}{kw} {self.target(s.target)} in {iterable}:")
        out.extend(self.block(s.body, depth + 1))
        self._else(s.orelse, depth, out)

    def _with(self, s: n.With, pad: str, depth: int, out: List[str]) -> None:
        items = []
        for ctx, var in s.items:
            item = self.expr(ctx, TEST)
            if var is not None:
                item += " as " + self.target(var) if not (isinstance(var, n.Tuple_) and var.elts) \
                    else " as (" + self.target(var) + ")"
            items.append(item)
        out.append(f"{pad}{'async with' if s.is_async else 'with'} {', '.join(items)}:")
        out.extend(self.block(s.body, depth + 1))

    def _function_def(self, s: n.FunctionDef, pad: str, depth: int, out: List[str]) -> None:
        for dec in s.decorators:
            out.append(pad + "@" + self.expr(dec, NAMED))
        generic = f"[{s.type_params}]" if s.type_params else ""
        head = f"{pad}{'async def' if s.is_async else 'def'} {_name(s.name)}{generic}({s.params})"
        if s.returns is not None:
            head += " -> " + self.expr(s.returns, TEST)
        out.append(head + ":")
        out.extend(self.block(s.body, depth + 1))

    def _class_def(self, s: n.ClassDef, pad: str, depth: int, out: List[str]) -> None:
        for dec in s.decorators:
            out.append(pad + "@" + self.expr(dec, NAMED))
        bases = "(" + ", ".join(self.expr(b, TEST) for b in s.bases) + ")" if s.bases else ""
        generic = f"[{s.type_params}]" if s.type_params else ""
        out.append(f"{pad}class {_name(s.name)}{generic}{bases}:")
        out.extend(self.block(s.body, depth + 1))

    def _type_alias(self, s: n.TypeAlias, pad: str, depth: int, out: List[str]) -> None:
        generic = f"[{s.type_params}]" if s.type_params else ""
        out.append(f"{pad}type {s.name}{generic} = {self.expr(s.value, TEST)}")

    def _match(self, s: n.Match, pad: str, depth: int, out: List[str]) -> None:
        out.append(f"{pad}match {self._value(s.subject, yield_allowed=False)}:")
        for case in s.cases:
            guard = "" if case.guard is None else " if " + self.expr(case.guard, NAMED)
            out.append(f"{pad}{self.unit}case {case.pattern}{guard}:")
            out.extend(self.block(case.body, depth + 2))

    def _comment(self, s: n.Comment, pad: str, depth: int, out: List[str]) -> None:
        out.extend(pad + "# " + line if line else pad + "#" for line in s.lines)

    def docstring(self, text: str, pad: str) -> List[str]:
        """A string statement (in practice a docstring) as a triple-quoted literal, when that spells
        it exactly."""
        if not text.replace("\n", "").replace("\t", "").isprintable():
            return [pad + repr(text)]
        if self.dedented_docstrings:
            text = _indented_docstring(text, pad)
        body = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
        if body.endswith('"'):
            body = body[:-1] + '\\"'
        return (pad + '"""' + body + '"""').split("\n")

    def _value(self, e: n.Expr, yield_allowed: bool = True) -> str:
        """A right-hand side: a bare tuple needs no parentheses here; a bare yield neither, after
        `=` (not after `return`, `for ... in` or `match`, where the grammar wants them)."""
        if type(e) is n.Name:
            return e.id  # (the most common value)
        if isinstance(e, n.Tuple_) and e.elts:
            return self._tuple(e)
        return self.expr(e, YIELD if yield_allowed else TEST)

    def _if(self, s: n.If, depth: int, out: List[str], keyword: str) -> None:
        pad = self.unit * depth
        out.append(f"{pad}{keyword} {self.expr(s.test, NAMED)}:")
        out.extend(self.block(s.body, depth + 1))
        orelse = s.orelse
        if len(orelse) == 1 and isinstance(orelse[0], n.If):
            self._if(orelse[0], depth, out, "elif")
        else:
            self._else(orelse, depth, out)

    def _else(self, orelse: Sequence[n.Stmt], depth: int, out: List[str]) -> None:
        if orelse:
            out.append(self.unit * depth + "else:")
            out.extend(self.block(orelse, depth + 1))

    def _try(self, s: n.Try, depth: int, out: List[str]) -> None:
        pad = self.unit * depth
        out.append(pad + "try:")
        out.extend(self.block(s.body, depth + 1))
        star = "*" if s.star else ""
        for h in s.handlers:
            head = pad + "except" + star
            if h.type is not None:
                head += " " + self.expr(h.type, TEST)
                if h.name:
                    head += " as " + h.name
            out.append(head + ":")
            out.extend(self.block(h.body, depth + 1))
        self._else(s.orelse, depth, out)
        if s.finalbody or not s.handlers:
            out.append(pad + "finally:")
            out.extend(self.block(s.finalbody, depth + 1))


def _complex_literal(v: complex) -> "tuple[str, int]":
    """Source text and precedence of a complex constant: the first of the constant expressions
    that fold to it with both signs of its zeros kept. `repr` is not enough: `-1j` folds to
    complex(-0.0, -1.0), which `repr` writes `(-0-1j)`, and that text folds to complex(0.0, -1.0)
    (the int 0 minus 1j); complex(1.0, -0.0) needs `-(-1.0+0j)`. A part that is a NaN has no
    literal: the call `complex(...)` keeps the value (not the constant)."""
    if math.isnan(v.real) or math.isnan(v.imag):
        return f"complex({_float_text(v.real)}, {_float_text(v.imag)})", ATOM
    for text, prec in _complex_candidates(v):
        if _same_complex(eval(text, {"__builtins__": {}}), v):  # our own numeric text
            return text, prec
    raise DecompilationError(f"no literal folds to the complex constant {v!r}")


def _complex_candidates(v: complex) -> "Iterator[tuple[str, int]]":
    """Constant expressions close to `v`, simplest first: `yj`, `-yj`, `0-yj`, `-(0-yj)`,
    `x+yj`, `x-yj` and their negations (float + complex adds the float's 0.0 imaginary part,
    int 0 - complex subtracts from a positive zero: the forms differ in the signs of zeros)."""
    mag = _float_text(abs(v.imag))
    yield mag + "j", ATOM
    yield "-" + mag + "j", FACTOR
    yield "0-" + mag + "j", ARITH
    yield "-(0-" + mag + "j)", FACTOR
    for real, negate in ((v.real, False), (-v.real, True)):
        for sign in "+-":
            text = _float_text(real) + sign + mag + "j"
            yield ("-(" + text + ")", FACTOR) if negate else (text, ARITH)


def _float_text(x: float) -> str:
    if math.isinf(x):
        return "1e309" if x > 0 else "-1e309"
    if math.isnan(x):
        return "float('nan')"
    negative_zero = x == 0 and math.copysign(1.0, x) < 0
    if x.is_integer() and abs(x) < 2 ** 53 and not negative_zero:
        return str(int(x))  # `1j`, as written, not `1.0j` (same value; -0.0 keeps its point)
    return repr(x)


def _same_complex(a: complex, b: complex) -> bool:
    """Equal parts with equal signs (a negative zero is not a positive one)."""
    return all(x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
               for x, y in ((a.real, b.real), (a.imag, b.imag)))


def _alias(name: str, asname: Optional[str]) -> str:
    return name if asname is None else f"{name} as {asname}"


def _indented_docstring(text: str, pad: str) -> str:
    """The literal value that 3.13's docstring dedent turns back into `text`, its lines after the
    first indented by `pad`; `text` itself where the dedent would not give it back."""
    lines = text.split("\n")
    later = [pad + line if line else line for line in lines[1:]]
    if later and not later[-1]:
        later[-1] = pad  # the closing quotes line up with the text; the dedent empties the line
    indented = "\n".join([lines[0]] + later)
    return indented if _dedent_docstring(indented) == text else text


def _dedent_docstring(doc: str) -> str:
    """What the 3.13 compiler stores for a docstring literal: the first line without leading
    spaces, the later lines without their common indentation (blank lines do not count)."""
    if "\t" in doc:
        return ""  # tabs are expanded first; never reproduced here
    lines = doc.split("\n")
    widths = [len(line) - len(line.lstrip(" ")) for line in lines[1:] if line.strip(" ")]
    margin = min(widths) if widths else 0
    rest = [line[min(margin, len(line) - len(line.lstrip(" "))):] for line in lines[1:]]
    return "\n".join([lines[0].lstrip(" ")] + rest)


# Expression renderers by node type: functions of (printer, node), shared by every printer
# (built once: a printer is made for every decompilation).
# The trailers of `Printer._trailers`: the field holding what each applies to, and its text.
_TRAILER_BASE: Dict[type, str] = {n.Attribute: "value", n.Subscript: "value", n.Call: "func"}
_TRAILER_TEXT: Dict[type, Callable[[Printer, Any, str], str]] = {
    n.Attribute: Printer._attribute_text, n.Subscript: Printer._subscript_text, n.Call: Printer._call_text,
}

#: How each statement type is written: (printer, statement, indentation, depth, lines).
_STMT: Dict[Type[n.Stmt], Callable[[Printer, Any, str, int, List[str]], None]] = {
    n.ExprStmt: Printer._expr_stmt,
    n.Assign: Printer._assign,
    n.AugAssign: Printer._aug_assign,
    n.AnnAssign: Printer._ann_assign,
    n.Return: Printer._return,
    n.Pass: lambda self, s, pad, depth, out: out.append(pad + "pass"),
    n.Break: lambda self, s, pad, depth, out: out.append(pad + "break"),
    n.Continue: lambda self, s, pad, depth, out: out.append(pad + "continue"),
    n.Delete: lambda self, s, pad, depth, out: out.append(pad + "del " + ", ".join(self.target(x) for x in s.targets)),
    n.Global: lambda self, s, pad, depth, out: out.append(pad + "global " + ", ".join(s.names)),
    n.Nonlocal: lambda self, s, pad, depth, out: out.append(pad + "nonlocal " + ", ".join(s.names)),
    n.Assert: Printer._assert,
    n.Raise: Printer._raise,
    n.Import: Printer._import,
    n.ImportFrom: Printer._import_from,
    n.If: lambda self, s, pad, depth, out: self._if(s, depth, out, "if"),
    n.While: Printer._while,
    n.For: Printer._for,
    n.Try: lambda self, s, pad, depth, out: self._try(s, depth, out),
    n.With: Printer._with,
    n.FunctionDef: Printer._function_def,
    n.ClassDef: Printer._class_def,
    n.TypeAlias: Printer._type_alias,
    n.Match: Printer._match,
    n.Comment: Printer._comment,
}

_EXPR: Dict[Type[n.Expr], Callable[[Printer, Any], str]] = {
    n.Name: lambda self, e: e.id,
    n.Const: Printer._const,
    n.Attribute: Printer._trailers,
    n.Subscript: Printer._trailers,
    n.Slice: Printer._slice,
    n.Starred: lambda self, e: "*" + self.expr(e.value, EXPR),
    n.DoubleStarred: lambda self, e: "**" + self.expr(e.value, BOR),
    n.Keyword: lambda self, e: f"{_name(e.name)}={self.expr(e.value, TEST)}",
    n.Call: Printer._trailers,
    n.BinOp: Printer._binop,
    n.UnaryOp: Printer._unary,
    n.BoolOp: Printer._boolop,
    n.Compare: Printer._compare,
    n.IfExp: lambda self, e: f"{self.expr(e.body, OR)} if {self.expr(e.test, OR)} else {self.expr(e.orelse, TEST)}",
    n.NamedExpr: lambda self, e: f"{self.expr(e.target, ATOM)} := {self.expr(e.value, TEST)}",
    n.Tuple_: Printer._tuple,
    n.List_: lambda self, e: "[" + ", ".join(self.expr(x, TEST) for x in e.elts) + "]",
    n.Set_: Printer._set,
    n.Dict_: Printer._dict,
    n.JoinedStr: Printer._joined,
    n.FormattedValue: lambda self, e: self._joined(n.JoinedStr([e])),
    n.TemplateStr: lambda self, e: print_template(e, self.expr, self._fstring_body, _escape),
    n.Lambda: lambda self, e: (f"lambda {e.params}: " if e.params else "lambda: ") + self.expr(e.body, TEST),
    n.Yield: lambda self, e: "yield" if e.value is None else "yield " + self.expr(e.value, TUPLE),
    n.YieldFrom: lambda self, e: "yield from " + self.expr(e.value, TEST),
    n.Await: lambda self, e: "await " + self.expr(e.value, ATOM),
    n.ComprehensionExpr: Printer._comprehension,
    n.Raw: lambda self, e: e.text,
}


_LITERAL_ATOMS = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


# Types whose repr is their literal, with no special case below.
_PLAIN_REPR = frozenset({str, int, bool, type(None), bytes})


def has_literal_form(v: Any, depth: int = 0) -> bool:
    """Whether `repr(v)` is a Python literal that evaluates back to `v`."""
    if isinstance(v, _LITERAL_ATOMS) and type(v) in _LITERAL_ATOMS:
        return True
    if depth > 20:
        return False
    if type(v) in (tuple, list, set, frozenset):
        return all(has_literal_form(x, depth + 1) for x in v)
    if type(v) is dict:
        return all(has_literal_form(k, depth + 1) and has_literal_form(x, depth + 1) for k, x in v.items())
    return False


def has_source_form(v: Any) -> bool:
    """Whether the decompiled text writes the constant `v` itself: a literal, or a folded
    subscript index. The compiler folds the constant index of `a[1:2]` (and of `a[1:2, 3]`) into
    one `slice` (tuple) constant, which the text writes back as that subscript; a placeholder in
    its place would make `[x][...]` a subscript by a string, which the compiler warns about."""
    if type(v) is slice:
        return all(has_literal_form(x) for x in (v.start, v.stop, v.step))
    if type(v) is tuple and any(type(x) is slice for x in v):
        return all(has_source_form(x) if type(x) is slice else has_literal_form(x) for x in v)
    return has_literal_form(v)


def _stand_in_name(v: Any) -> str:
    """A name for a constant no literal can write (tool-made code embeds code objects, dicts of
    modules...): `__constant_code_inner`, `__constant_dict`. The text stays valid Python and
    says what the bytecode loads there."""
    kind = type(v).__name__
    label = getattr(v, "co_name", None) if kind == "code" else None
    words = [kind] + ([label] if isinstance(label, str) else [])
    ident = "_".join("".join(c if c.isalnum() else "_" for c in w) for w in words)
    return "__constant_" + ident
