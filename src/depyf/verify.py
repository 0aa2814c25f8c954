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

This module is deliberately self-contained (standard library only, no import of the rest of the
package at import time): benchmarks load it by path to judge other decompilers too, and it must
work unchanged on every supported CPython. It never branches on the interpreter version; it asks
the interpreter what it has (``ast.unparse``, ``co_exceptiontable``, the ``dis`` jump tables).
"""
from __future__ import annotations

import ast
import bisect
import copy
import dis
import inspect
import io
import time
import tokenize
from dataclasses import dataclass, field
from types import CodeType
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

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
]

DECOMPILE_ERROR = "decompile_error"
NO_COMPILE = "no_compile"
DIFFERS = "differs"
EQUAL = "equal"
#: From worst to best; a definition gets the first status whose step failed.
STATUSES = (DECOMPILE_ERROR, NO_COMPILE, DIFFERS, EQUAL)

# Path from the module code object to a definition's code object: one (co_name, n) per level,
# n counting the earlier code constants of the same name in the parent.  Positional rather than
# line-based, so that it finds the same definition after the canonical re-layout and after a splice.
CodeKey = Tuple[Tuple[str, int], ...]
Decompile = Callable[[CodeType], str]

# Instructions that say nothing about what the code computes: padding, line events, frame setup.
_IGNORED_OPNAMES = frozenset(
    {"NOP", "EXTENDED_ARG", "CACHE", "RESUME", "PRECALL", "COPY_FREE_VARS", "MAKE_CELL"}
)
_JUMP_OPCODES = frozenset(dis.hasjrel) | frozenset(dis.hasjabs) | frozenset(getattr(dis, "hasjump", ()))
_CONST_OPCODES = frozenset(dis.hasconst)
_SIGNATURE_FLAGS = (
    ("varargs", inspect.CO_VARARGS),
    ("varkw", inspect.CO_VARKEYWORDS),
    ("generator", inspect.CO_GENERATOR),
    ("coroutine", inspect.CO_COROUTINE),
    ("iterable coroutine", inspect.CO_ITERABLE_COROUTINE),
    ("async generator", inspect.CO_ASYNC_GENERATOR),
)
# The flag of code whose first constant is its docstring, where the interpreter has one.
_HAS_DOCSTRING: Optional[int] = getattr(inspect, "CO_HAS_DOCSTRING", None)
_COMPREHENSION_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


# --------------------------------------------------------------------------------------------
# Data


@dataclass(frozen=True)
class Definition:
    """A function, method or lambda of a source file that the oracle can check.

    The span is the AST node's: 1-based lines, UTF-8 byte columns (as ``ast`` reports them).
    For a ``def`` it starts at ``def``/``async def``, so decorators stay in place when the
    definition is replaced.
    """

    qualname: str
    kind: str  # "def" or "lambda"
    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int
    key: CodeKey

    @property
    def label(self) -> str:
        """How reports name the definition: qualified name and line."""
        return f"{self.qualname} (line {self.lineno})"


@dataclass(frozen=True)
class Difference:
    """The first point where two code objects stop matching."""

    where: str  # the (nested) code object, e.g. "f" or "f.<locals>.<lambda>"
    what: str  # "instruction", "signature", "exception table", "nested code"
    index: Optional[int]  # instruction (or table entry) index in the filtered stream
    original: str
    decompiled: str
    context: str = ""  # the instruction before, when it helps to read the difference
    category: Tuple[str, str] = ("", "")  # for grouping: opname pair, or (what, field)

    def __str__(self) -> str:
        at = f" #{self.index}" if self.index is not None else ""
        text = f"{self.where}: {self.what}{at}: original {self.original} | decompiled {self.decompiled}"
        if self.context:
            text += f" (after {self.context})"
        return text


@dataclass
class Result:
    """What the oracle concluded about one definition."""

    definition: Definition
    status: str
    detail: str = ""  # error message, compile error, or the first difference as text
    difference: Optional[Difference] = None
    decompiled: Optional[str] = None
    decompile_seconds: float = 0.0

    @property
    def qualname(self) -> str:
        return self.definition.qualname

    @property
    def lineno(self) -> int:
        return self.definition.lineno


# --------------------------------------------------------------------------------------------
# Interpreter capabilities (asked, never inferred from the version number)


def _canonical_source(tree: ast.Module) -> Optional[str]:
    """The canonical layout of a parsed module, or None where the interpreter cannot unparse.

    ``ast.unparse`` is missing on 3.8; there the compiler's output does not depend on line
    breaks, so sources are compared as they are.
    """
    unparse = getattr(ast, "unparse", None)
    return unparse(tree) if unparse is not None else None


def _compile(source_or_tree, filename: str) -> CodeType:
    # dont_inherit: the file's own __future__ imports count, the caller's never do.
    return compile(source_or_tree, filename, "exec", dont_inherit=True)


def canonical_compile(source: str, filename: str) -> CodeType:
    """Compile ``source`` in the canonical layout used for comparisons."""
    tree = ast.parse(source, filename)
    canonical = _canonical_source(tree)
    return _compile(canonical if canonical is not None else tree, filename)


# --------------------------------------------------------------------------------------------
# Finding definitions and their code objects


def _is_code(value: object) -> bool:
    return isinstance(value, CodeType)


def code_objects(code: CodeType) -> Iterator[CodeType]:
    """``code`` and every code object nested in it, depth first."""
    yield code
    for const in code.co_consts:
        if _is_code(const):
            yield from code_objects(const)


def _is_scope_to_search(code: CodeType) -> bool:
    """Whether definitions of interest can live directly inside ``code``'s constants.

    Class bodies (not optimized), comprehensions (lambdas written in a comprehension at module or
    class level) and the scopes of PEP 695 type parameters; not functions or lambdas.
    """
    if not code.co_flags & inspect.CO_OPTIMIZED:
        return True
    return code.co_name in _COMPREHENSION_NAMES or code.co_name.startswith("<generic parameters of")


def _candidate_codes(module: CodeType) -> Dict[Tuple[str, int], List[CodeKey]]:
    """Code objects reachable through module, class and comprehension scopes, by (name, line)."""
    found: Dict[Tuple[str, int], List[CodeKey]] = {}

    def visit(code: CodeType, prefix: CodeKey) -> None:
        seen: Dict[str, int] = {}
        for const in code.co_consts:
            if not _is_code(const):
                continue
            n = seen.get(const.co_name, 0)
            seen[const.co_name] = n + 1
            key = prefix + ((const.co_name, n),)
            found.setdefault((const.co_name, const.co_firstlineno), []).append(key)
            if _is_scope_to_search(const):
                visit(const, key)

    visit(module, ())
    return found


class _DefinitionCollector:
    """Walks a module's AST in the order the compiler creates code objects.

    Only the order among definitions with the same name on the same line matters (the code
    objects are matched by name and first line), e.g. several lambdas on one line: the defaults
    of a function are evaluated, and their lambdas created, before the function itself.
    """

    def __init__(self) -> None:
        self.found: List[Tuple[str, str, ast.AST, bool]] = []  # qualname, kind, node, usable

    def statements(self, body: Sequence[ast.stmt], prefix: str) -> None:
        for stmt in body:
            self.node(stmt, prefix, False)

    def node(self, node: ast.AST, prefix: str, in_fstring: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for child in node.decorator_list:
                self.node(child, prefix, in_fstring)
            self._signature(node.args, prefix, in_fstring)
            if node.returns is not None:
                self.node(node.returns, prefix, in_fstring)
            self.found.append((prefix + node.name, "def", node, not in_fstring))
        elif isinstance(node, ast.Lambda):
            self._signature(node.args, prefix, in_fstring)
            # Positions inside f-strings are unreliable on older versions: not spliceable.
            self.found.append((prefix + "<lambda>", "lambda", node, not in_fstring))
        elif isinstance(node, ast.ClassDef):
            for child in node.decorator_list:
                self.node(child, prefix, in_fstring)
            self.statements(node.body, prefix + node.name + ".")
            for child in list(node.bases) + [kw.value for kw in node.keywords]:
                self.node(child, prefix, in_fstring)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            generators = node.generators
            for i, gen in enumerate(generators):
                if i:
                    self.node(gen.iter, prefix, in_fstring)
                self.node(gen.target, prefix, in_fstring)
                for cond in gen.ifs:
                    self.node(cond, prefix, in_fstring)
            if isinstance(node, ast.DictComp):
                self.node(node.key, prefix, in_fstring)
                self.node(node.value, prefix, in_fstring)
            else:
                self.node(node.elt, prefix, in_fstring)
            self.node(generators[0].iter, prefix, in_fstring)
        else:
            inside = in_fstring or isinstance(node, ast.JoinedStr)
            for child in ast.iter_child_nodes(node):
                self.node(child, prefix, inside)

    def _signature(self, args: ast.arguments, prefix: str, in_fstring: bool) -> None:
        for default in list(args.defaults) + [d for d in args.kw_defaults if d is not None]:
            self.node(default, prefix, in_fstring)
        every = list(getattr(args, "posonlyargs", [])) + list(args.args) + list(args.kwonlyargs)
        every += [a for a in (args.vararg, args.kwarg) if a is not None]
        for arg in every:
            if arg.annotation is not None:
                self.node(arg.annotation, prefix, in_fstring)


def _code_name(node: ast.AST) -> str:
    """The name of the code object a definition is checked as.

    A generic ``def f[T]`` is the code of its type-parameter scope, ``<generic parameters of f>``,
    which makes ``T`` and then ``f``: ``f``'s own code alone does not say that ``T`` is a type
    parameter, so a decompiler given only it cannot write the brackets back.
    """
    name = getattr(node, "name", "<lambda>")
    if getattr(node, "type_params", None):
        return f"<generic parameters of {name}>"
    return name


def _first_line(node: ast.AST) -> int:
    """The line a definition's code object reports as ``co_firstlineno``."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decorators])


def definitions_in_source(source: str, filename: str) -> List[Definition]:
    """Every function, method and lambda defined at module level or in a class body.

    Nested classes are searched recursively; functions are not (what they define is checked as
    part of them).  Lambdas in decorators, defaults and comprehensions outside functions count;
    lambdas inside f-strings do not (their positions cannot be trusted for splicing).
    Raises ``SyntaxError`` if ``source`` does not compile.
    """
    tree = ast.parse(source, filename)
    module = _compile(tree, filename)
    candidates = _candidate_codes(module)
    collector = _DefinitionCollector()
    collector.statements(tree.body, "")
    taken: Dict[Tuple[str, int], int] = {}
    definitions = []
    for qualname, kind, node, usable in collector.found:
        name = _code_name(node)
        line = _first_line(node)
        n = taken.get((name, line), 0)
        taken[(name, line)] = n + 1
        keys = candidates.get((name, line), [])
        if not usable or n >= len(keys):
            continue
        definitions.append(
            Definition(
                qualname=qualname,
                kind=kind,
                lineno=node.lineno,
                col_offset=node.col_offset,
                end_lineno=node.end_lineno,
                end_col_offset=node.end_col_offset,
                key=keys[n],
            )
        )
    return definitions


def find_code(module: CodeType, key: CodeKey) -> CodeType:
    """The code object at ``key`` under a module code object; ``KeyError`` if there is none."""
    code = module
    for name, n in key:
        same_name = [c for c in code.co_consts if _is_code(c) and c.co_name == name]
        if n >= len(same_name):
            raise KeyError(f"no code object {name!r} #{n} in {code.co_name!r}")
        code = same_name[n]
    return code


# --------------------------------------------------------------------------------------------
# Splicing


def _lines(source: str) -> List[str]:
    # Only \n, \r\n and \r end a line for the tokenizer (str.splitlines also splits at \f etc.).
    return io.StringIO(source, newline="").readlines()


def _char_column(line: str, byte_column: int) -> int:
    return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))


def _lines_inside_tokens(text: str) -> Set[int]:
    """1-based lines that begin inside a multi-line token (a triple-quoted string).

    Their leading whitespace is part of a string's value, so re-indenting must leave them alone.
    """
    inside: Set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.start[0] < tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                inside.update(range(tok.start[0] + 1, tok.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        pass  # Not valid Python: it will not compile whatever the indentation.
    return inside


def _indent(text: str, prefix: str) -> str:
    """Indent every line after the first by ``prefix``, except continuation lines of strings."""
    keep = _lines_inside_tokens(text)
    out = []
    for number, line in enumerate(text.split("\n"), start=1):
        if number == 1 or number in keep or not line.strip():
            out.append(line)
        else:
            out.append(prefix + line)
    return "\n".join(out)


def splice(source: str, definition: Definition, text: str) -> str:
    """``source`` with ``definition`` replaced by ``text`` (decompiled source at column 0).

    A ``def`` is replaced from its ``def`` keyword to the end of its body, so its decorators stay,
    and ``text`` is indented to the column of the ``def``.  A lambda's text replaces the lambda
    expression, in parentheses so that it binds as one expression wherever it stands.
    """
    lines = _lines(source)
    first, last = lines[definition.lineno - 1], lines[definition.end_lineno - 1]
    start = _char_column(first, definition.col_offset)
    end = _char_column(last, definition.end_col_offset)
    head, tail = first[:start], last[end:]
    text = text.strip()
    if definition.kind == "lambda":
        middle = f"({text})"
    else:
        middle = _indent(text, head if not head.strip() else "")
    return "".join(lines[: definition.lineno - 1]) + head + middle + tail + "".join(lines[definition.end_lineno :])


def _original_text(source: str, definition: Definition, inside_tokens: Set[int]) -> str:
    """A definition's own source text at column 0: what a perfect decompiler would return."""
    lines = _lines(source)
    first = lines[definition.lineno - 1]
    start = _char_column(first, definition.col_offset)
    prefix = first[:start] if definition.kind == "def" else ""
    parts = []
    for number in range(definition.lineno, definition.end_lineno + 1):
        line = lines[number - 1]
        if number == definition.end_lineno:
            line = line[: _char_column(line, definition.end_col_offset)]
        if number == definition.lineno:
            line = line[start:]
        elif prefix and number not in inside_tokens and line.startswith(prefix):
            line = line[len(prefix) :]
        parts.append(line)
    return "".join(parts)


def control_decompiler(source: str, filename: str, *, unparse: bool = False) -> Decompile:
    """A stand-in decompiler that returns each definition's original source.

    It validates the oracle itself: every definition must come out ``equal``.  With
    ``unparse=True`` it returns ``ast.unparse`` of the definition instead (where the interpreter
    has it): the same program in a different layout, which checks that layout does not count.
    The code objects handed to it are matched by equality with a compile of the same source.
    """
    module = _compile(source, filename)
    tree = ast.parse(source, filename) if unparse else None
    nodes = _definition_nodes(tree) if tree is not None else {}
    inside = _lines_inside_tokens(source)
    texts: Dict[CodeType, str] = {}
    for definition in definitions_in_source(source, filename):
        node = nodes.get((definition.lineno, definition.col_offset))
        text = _unparsed(node) if node is not None else None
        if text is None:
            text = _original_text(source, definition, inside)
        texts.setdefault(find_code(module, definition.key), text)

    def decompile(code: CodeType) -> str:
        return texts[code]

    return decompile


def _definition_nodes(tree: ast.AST) -> Dict[Tuple[int, int], ast.AST]:
    return {(n.lineno, n.col_offset): n for n in ast.walk(tree) if isinstance(n, _FUNCTION_NODES)}


def _unparsed(node: ast.AST) -> Optional[str]:
    unparse = getattr(ast, "unparse", None)
    if unparse is None:
        return None
    if isinstance(node, ast.Lambda):
        return unparse(node)
    bare = copy.copy(node)
    bare.decorator_list = []  # decorators stay in the file; the definition starts at "def"
    return unparse(bare)


# --------------------------------------------------------------------------------------------
# Comparing code objects


@dataclass
class _Stream:
    """A code object's instructions as the comparison sees them."""

    items: List[Tuple[str, object]] = field(default_factory=list)  # (opname, normalized argument)
    shown: List[str] = field(default_factory=list)  # the same, readable
    offsets: List[int] = field(default_factory=list)
    nested: List[CodeType] = field(default_factory=list)  # code constants, in order of loading


def _const_key(value: object) -> object:
    """Constants compared by ``repr``; code objects by name here (recursively later)."""
    if _is_code(value):
        return ("<code>", value.co_name)
    if isinstance(value, frozenset):
        return ("frozenset", tuple(sorted(repr(_const_key(v)) for v in value)))
    if isinstance(value, tuple):
        return ("tuple", tuple(_const_key(v) for v in value))
    return repr(value)


def _show_const(value: object) -> str:
    if _is_code(value):
        return f"<code {value.co_name}>"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _stores_firstlineno(kept: List[dis.Instruction], position: int) -> bool:
    """Is the instruction at `position` the load of a class body's `__firstlineno__` (3.13+)?"""
    nxt = kept[position + 1] if position + 1 < len(kept) else None
    return nxt is not None and nxt.opname == "STORE_NAME" and nxt.argval == "__firstlineno__" \
        and kept[position].opname in ("LOAD_CONST", "LOAD_SMALL_INT")


def _stream(code: CodeType) -> _Stream:
    kept = [i for i in dis.get_instructions(code) if i.opname not in _IGNORED_OPNAMES]
    offsets = [i.offset for i in kept]
    stream = _Stream(offsets=offsets)
    seen_nested: Set[int] = set()
    for position, instr in enumerate(kept):
        arg: object
        if instr.opcode in _JUMP_OPCODES:
            target = bisect.bisect_left(offsets, instr.argval)
            arg = ("jump", target)
            shown = f"{instr.opname} to #{target}"
        elif _stores_firstlineno(kept, position):
            # A class body records its first line: layout, not computation (3.14 loads the
            # number by LOAD_SMALL_INT when it is below 256).
            arg, shown = "<firstlineno>", f"{instr.opname} <firstlineno>"
        elif instr.opcode in _CONST_OPCODES and instr.arg is not None:
            # From co_consts, not argval: some versions' dis leaves KW_NAMES unresolved.
            value = code.co_consts[instr.arg]
            arg, shown = _const_key(value), f"{instr.opname} {_show_const(value)}"
            if _is_code(value) and id(value) not in seen_nested:
                seen_nested.add(id(value))
                stream.nested.append(value)
        elif instr.arg is None:
            arg, shown = None, instr.opname
        else:
            # argrepr carries flags that argval lacks (method loads, NULL pushes, bool()).
            arg = (repr(instr.argval), instr.argrepr)
            detail = instr.argrepr or repr(instr.argval)
            shown = f"{instr.opname} {detail}"
        stream.items.append((instr.opname, arg))
        stream.shown.append(shown)
    return stream


def _read_varint(table: bytes, pos: int) -> Tuple[int, int]:
    byte = table[pos]
    value = byte & 63
    while byte & 64:
        pos += 1
        byte = table[pos]
        value = (value << 6) | (byte & 63)
    return value, pos + 1


def _exception_entries(code: CodeType, offsets: List[int]) -> List[Tuple[int, int, int, int, bool]]:
    """The exception table as (start, end, handler, depth, lasti) in filtered-stream indices.

    Empty where the code object has no table (exceptions are then set up by instructions,
    which the instruction comparison already covers).
    """
    table = getattr(code, "co_exceptiontable", b"")
    entries: List[Tuple[int, int, int, int, bool]] = []
    pos = 0
    while pos < len(table):
        start, pos = _read_varint(table, pos)
        length, pos = _read_varint(table, pos)
        target, pos = _read_varint(table, pos)
        depth_lasti, pos = _read_varint(table, pos)
        first = bisect.bisect_left(offsets, start * 2)
        stop = bisect.bisect_left(offsets, (start + length) * 2)
        if first == stop:
            continue  # covers only ignored instructions
        entry = (first, stop, bisect.bisect_left(offsets, target * 2), depth_lasti >> 1, bool(depth_lasti & 1))
        if entries and entries[-1][1] == first and entries[-1][2:] == entry[2:]:
            entries[-1] = (entries[-1][0],) + entry[1:]  # split only by ignored instructions
        else:
            entries.append(entry)
    return entries


def _show_entry(entry: Optional[Tuple[int, int, int, int, bool]], shown: List[str]) -> str:
    if entry is None:
        return "<none>"
    start, stop, target, depth, lasti = entry

    def at(index: int) -> str:
        return f"#{index} {shown[index]}" if index < len(shown) else f"#{index} <end>"

    return f"[{at(start)} .. #{stop}) -> {at(target)}, depth {depth}{', lasti' if lasti else ''}"



def _docstring(code: CodeType) -> Optional[str]:
    """A function's docstring: no instruction loads it, so the streams alone would not see it.

    For a function the compiler always puts the docstring, or None, first among the constants;
    an interpreter that flags code with a docstring (``inspect.CO_HAS_DOCSTRING``) puts None
    there only where the flag is set, any constant otherwise.
    """
    if not code.co_flags & inspect.CO_NEWLOCALS or code.co_name == "<lambda>" or code.co_name in _COMPREHENSION_NAMES:
        return None
    if _HAS_DOCSTRING is not None and not code.co_flags & _HAS_DOCSTRING:
        return None
    first = code.co_consts[0] if code.co_consts else None
    return first if isinstance(first, str) else None


def _parameters(code: CodeType) -> Tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


def _signature_difference(a: CodeType, b: CodeType, where: str) -> Optional[Difference]:
    fields = [
        ("name", a.co_name, b.co_name),
        ("argcount", a.co_argcount, b.co_argcount),
        ("posonlyargcount", getattr(a, "co_posonlyargcount", 0), getattr(b, "co_posonlyargcount", 0)),
        ("kwonlyargcount", a.co_kwonlyargcount, b.co_kwonlyargcount),
        ("parameters", _parameters(a), _parameters(b)),
    ]
    fields += [(label, bool(a.co_flags & flag), bool(b.co_flags & flag)) for label, flag in _SIGNATURE_FLAGS]
    for label, left, right in fields:
        if left != right:
            return Difference(where, "signature", None, f"{label}={left!r}", f"{label}={right!r}",
                              category=("signature", label))
    return None


def _shape(item: Tuple[str, object]) -> Tuple[str, object]:
    opname, arg = item
    return (opname, "jump") if isinstance(arg, tuple) and arg[:1] == ("jump",) else item


def _instruction_difference(left: _Stream, right: _Stream, where: str) -> Difference:
    """Where two different instruction streams first diverge.

    A jump whose target index differs is usually a symptom: something was added or lost after
    it.  So the first difference in the streams with jump targets left out is reported when
    there is one; only streams that differ in nothing but targets report a target.
    """
    index = None
    for i, (x, y) in enumerate(zip(left.items, right.items)):
        if _shape(x) != _shape(y):
            index = i
            break
    if index is None and len(left.items) != len(right.items):
        index = min(len(left.items), len(right.items))
    if index is None:
        index = next(i for i, (x, y) in enumerate(zip(left.items, right.items)) if x != y)
    ours = left.shown[index] if index < len(left.items) else "<end>"
    theirs = right.shown[index] if index < len(right.items) else "<end>"
    context = left.shown[index - 1] if index else ""
    return Difference(where, "instruction", index, ours, theirs, context,
                      category=(ours.split()[0], theirs.split()[0]))


def _difference(a: CodeType, b: CodeType, where: str, check_exceptions: bool) -> Optional[Difference]:
    found = _signature_difference(a, b, where)
    if found:
        return found
    left, right = _stream(a), _stream(b)
    if left.items != right.items:
        return _instruction_difference(left, right, where)
    doc_a, doc_b = _docstring(a), _docstring(b)
    if doc_a != doc_b:
        return Difference(where, "docstring", None, _show_const(doc_a), _show_const(doc_b),
                          category=("docstring", "docstring"))
    if check_exceptions:
        ex_left, ex_right = _exception_entries(a, left.offsets), _exception_entries(b, right.offsets)
        for index in range(max(len(ex_left), len(ex_right))):
            x = ex_left[index] if index < len(ex_left) else None
            y = ex_right[index] if index < len(ex_right) else None
            if x != y:
                return Difference(where, "exception table entry", index, _show_entry(x, left.shown),
                                  _show_entry(y, right.shown),
                                  category=("exception table", "exception table"))
    # The streams agree, so the nested code objects are loaded in the same order with the same
    # names; compare each pair.  Repeated names get a #n suffix in the path.
    counts: Dict[str, int] = {}
    for x, y in zip(left.nested, right.nested):
        n = counts.get(x.co_name, 0)
        counts[x.co_name] = n + 1
        suffix = f"#{n + 1}" if n else ""
        inner = f"{where}.{x.co_name}{suffix}" if where else x.co_name
        found = _difference(x, y, inner, check_exceptions)
        if found:
            return found
    return None


def first_difference(original: CodeType, decompiled: CodeType, *, exception_table: bool = True) -> Optional[Difference]:
    """The first difference between two code objects, or None if they are bytecode-equal."""
    return _difference(original, decompiled, original.co_name, exception_table)


def compare_code(original: CodeType, decompiled: CodeType, *, exception_table: bool = True) -> Optional[str]:
    """None if the code objects are bytecode-equal, else their first difference, readable."""
    found = first_difference(original, decompiled, exception_table=exception_table)
    return None if found is None else str(found)


# --------------------------------------------------------------------------------------------
# The round trip


def _describe_exception(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def _describe_syntax_error(exc: SyntaxError, spliced: str) -> str:
    where = f" at line {exc.lineno}" if exc.lineno else ""
    line = ""
    if exc.lineno:
        lines = _lines(spliced)
        if 0 < exc.lineno <= len(lines):
            line = f": {lines[exc.lineno - 1].strip()[:80]!r}"
    return f"{type(exc).__name__}: {exc.msg}{where}{line}"


def _default_decompile() -> Decompile:
    import depyf  # late: this module must load without the package (benchmarks load it by path)

    return depyf.decompile


def _kept_apart(module: CodeType, canonical: CodeType, key: CodeKey) -> bool:
    """Does the canonical compile have the same code objects as the original along ``key``?

    The canonical layout can put identical definitions on one line (a dict of ``lambda x:
    True`` entries), where they compile to equal code objects that the compiler stores once; the
    numbering of the ones after them shifts, and no comparison could tell them apart.
    """
    original, layout = module, canonical
    for name, n in key:
        in_original = [c for c in original.co_consts if _is_code(c) and c.co_name == name]
        in_layout = [c for c in layout.co_consts if _is_code(c) and c.co_name == name]
        if len(in_original) != len(in_layout) or n >= len(in_original):
            return False
        original, layout = in_original[n], in_layout[n]
    return True


class SourceRoundTrip:
    """The round trip over one source file, one definition at a time.

    Compiles the original once (as it is, and in the canonical layout); `check` then runs steps
    2-4 for one definition.  `roundtrip_source_file` is the whole-file shortcut; benchmarks use
    this class to time, guard and report each definition separately.
    """

    def __init__(self, source: str, filename: str, *, exception_table: bool = True) -> None:
        self.source = source
        self.filename = filename
        self.exception_table = exception_table
        self.module = _compile(source, filename)
        self._canonical = canonical_compile(source, filename)
        # Only the definitions the canonical layout keeps apart can be compared (see
        # `_kept_apart`); the others are not checked rather than compared with a neighbour.
        self.definitions: List[Definition] = [
            d for d in definitions_in_source(source, filename) if _kept_apart(self.module, self._canonical, d.key)]

    def code(self, definition: Definition) -> CodeType:
        """The definition's code object, as compiled from the original file."""
        return find_code(self.module, definition.key)

    def check(self, definition: Definition, decompile: Decompile) -> Result:
        """Decompile, splice, recompile and compare one definition."""
        code = self.code(definition)
        started = time.perf_counter()
        try:
            text = decompile(code)
            if not isinstance(text, str):
                raise TypeError(f"decompiler returned {type(text).__name__}, not str")
        except Exception as exc:  # the decompiler under test may fail in any way
            return Result(definition, DECOMPILE_ERROR, _describe_exception(exc),
                          decompile_seconds=time.perf_counter() - started)
        seconds = time.perf_counter() - started
        return self.check_text(definition, text, seconds)

    def check_text(self, definition: Definition, text: str, decompile_seconds: float = 0.0) -> Result:
        """Steps 3-4 for a definition's already decompiled ``text``."""
        spliced = splice(self.source, definition, text)
        try:
            tree = ast.parse(spliced, self.filename)
            layout = _canonical_source(tree)
            try:
                # The canonical source has the same AST, so it compiles exactly when the spliced
                # file does; one compile is enough.
                spliced_code = _compile(layout if layout is not None else tree, self.filename)
            except SyntaxError:
                _compile(tree, self.filename)  # the error again, with the spliced file's lines
                raise
        except SyntaxError as exc:
            return Result(definition, NO_COMPILE, _describe_syntax_error(exc, spliced), decompiled=text,
                          decompile_seconds=decompile_seconds)
        except Exception as exc:  # e.g. ValueError for NUL bytes, RecursionError on deep nesting
            return Result(definition, NO_COMPILE, _describe_exception(exc), decompiled=text,
                          decompile_seconds=decompile_seconds)
        original = find_code(self._canonical, definition.key)
        try:
            candidate = find_code(spliced_code, definition.key)
        except KeyError:
            missing = Difference(definition.qualname, "code object", None, f"<code {original.co_name}>",
                                 "<missing>", category=("code object", "missing"))
            return Result(definition, DIFFERS, str(missing), missing, text, decompile_seconds)
        found = _difference(original, candidate, definition.qualname, self.exception_table)
        if found is not None:
            return Result(definition, DIFFERS, str(found), found, text, decompile_seconds)
        return Result(definition, EQUAL, "", None, text, decompile_seconds)


    def check_texts(self, items: Sequence[Tuple[Definition, str]]) -> List[Result]:
        """`check_text` for many definitions of the file, with far fewer compiles; same results.

        Compiling the whole spliced file is most of a check's cost, and a file of n definitions
        costs n compiles.  Here definitions whose spans do not overlap are spliced together and
        compiled once; each whose code object comes out equal is equal.  Every other one (and
        every one of a group that does not compile, after halving it down to one) is checked
        alone with `check_text`, so a differing definition's verdict and detail are exactly
        its own.  The shortcut is sound because a definition's code object depends only on its
        own text, the classes around it (their names, for mangling) and the module's
        ``__future__`` imports, none of which a neighbouring definition's text changes; the
        neighbours only move lines, which the canonical layout makes irrelevant.
        """
        results: Dict[int, Result] = {}
        for group in _non_overlapping_groups([d for d, _ in items]):
            self._check_group([(i, items[i][0], items[i][1]) for i in group], results)
        return [results[i] for i in range(len(items))]

    def _check_group(self, group: List[Tuple[int, Definition, str]], results: Dict[int, Result]) -> None:
        if len(group) == 1:
            index, definition, text = group[0]
            results[index] = self.check_text(definition, text)
            return
        spliced = self.source
        for _, definition, text in sorted(group, key=lambda item: (item[1].lineno, item[1].col_offset), reverse=True):
            spliced = splice(spliced, definition, text)
        try:
            tree = ast.parse(spliced, self.filename)
            layout = _canonical_source(tree)
            together = _compile(layout if layout is not None else tree, self.filename)
        except Exception:  # one of the texts does not compile: find it (them) by halves
            half = len(group) // 2
            self._check_group(group[:half], results)
            self._check_group(group[half:], results)
            return
        for index, definition, text in group:
            original = find_code(self._canonical, definition.key)
            try:
                candidate = find_code(together, definition.key)
            except KeyError:
                candidate = None
            if candidate is not None and _difference(original, candidate, definition.qualname, self.exception_table) is None:
                results[index] = Result(definition, EQUAL, "", None, text)
            else:
                results[index] = self.check_text(definition, text)


def _non_overlapping_groups(definitions: Sequence[Definition]) -> List[List[int]]:
    """Indices of ``definitions`` in groups whose spans do not overlap (a lambda in a default
    value lies inside its ``def``), first fit in source order."""
    groups: List[List[int]] = []
    ends: List[Tuple[int, int]] = []  # the end of the last span in each group
    order = sorted(range(len(definitions)), key=lambda i: (definitions[i].lineno, definitions[i].col_offset))
    for i in order:
        start = (definitions[i].lineno, definitions[i].col_offset)
        end = (definitions[i].end_lineno, definitions[i].end_col_offset)
        for g, last in enumerate(ends):
            if last <= start:
                groups[g].append(i)
                ends[g] = end
                break
        else:
            groups.append([i])
            ends.append(end)
    return groups


def roundtrip_source_file(
    source: str,
    filename: str,
    decompile: Optional[Decompile] = None,
    *,
    exception_table: bool = True,
) -> List[Result]:
    """Run the round trip on every definition of ``source``; one `Result` each, in source order.

    ``decompile`` defaults to ``depyf.decompile``.  Any exception it raises is recorded as
    ``decompile_error``; the oracle itself raises only if ``source`` does not compile.
    """
    if decompile is None:
        decompile = _default_decompile()
    trip = SourceRoundTrip(source, filename, exception_table=exception_table)
    return [trip.check(definition, decompile) for definition in trip.definitions]
