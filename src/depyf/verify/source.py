"""Source side of the round trip: the canonical layout and compile, finding every definition and
its code object, and splicing a decompiled text in place of a definition.

Interpreter capabilities are asked (``ast.unparse``), never inferred from the version number.
"""
from __future__ import annotations

import ast
import copy
import inspect
import io
import tokenize
from types import CodeType
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from .model import CodeKey, Decompile, Definition


COMPREHENSION_NAMES = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def canonical_source(tree: ast.Module) -> Optional[str]:
    """The canonical layout of a parsed module, or None where the interpreter cannot unparse.

    ``ast.unparse`` is missing on 3.8; there the compiler's output does not depend on line
    breaks, so sources are compared as they are.
    """
    unparse = getattr(ast, "unparse", None)
    return unparse(tree) if unparse is not None else None


def compile_module(source_or_tree, filename: str) -> CodeType:
    # dont_inherit: the file's own __future__ imports count, the caller's never do.
    return compile(source_or_tree, filename, "exec", dont_inherit=True)


def canonical_compile(source: str, filename: str) -> CodeType:
    """Compile ``source`` in the canonical layout used for comparisons."""
    tree = ast.parse(source, filename)
    canonical = canonical_source(tree)
    return compile_module(canonical if canonical is not None else tree, filename)


def is_code(value: object) -> bool:
    return isinstance(value, CodeType)


def code_objects(code: CodeType) -> Iterator[CodeType]:
    """``code`` and every code object nested in it, depth first."""
    yield code
    for const in code.co_consts:
        if is_code(const):
            yield from code_objects(const)


def _is_scope_to_search(code: CodeType) -> bool:
    """Whether definitions of interest can live directly inside ``code``'s constants.

    Class bodies (not optimized), comprehensions (lambdas written in a comprehension at module or
    class level) and the scopes of PEP 695 type parameters; not functions or lambdas.
    """
    if not code.co_flags & inspect.CO_OPTIMIZED:
        return True
    return code.co_name in COMPREHENSION_NAMES or code.co_name.startswith("<generic parameters of")


def _candidate_codes(module: CodeType) -> Dict[Tuple[str, int], List[CodeKey]]:
    """Code objects reachable through module, class and comprehension scopes, by (name, line)."""
    found: Dict[Tuple[str, int], List[CodeKey]] = {}

    def visit(code: CodeType, prefix: CodeKey) -> None:
        seen: Dict[str, int] = {}
        for const in code.co_consts:
            if not is_code(const):
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
    module = compile_module(tree, filename)
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
        same_name = [c for c in code.co_consts if is_code(c) and c.co_name == name]
        if n >= len(same_name):
            raise KeyError(f"no code object {name!r} #{n} in {code.co_name!r}")
        code = same_name[n]
    return code


def tokenizer_lines(source: str) -> List[str]:
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
    lines = tokenizer_lines(source)
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
    lines = tokenizer_lines(source)
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
    module = compile_module(source, filename)
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
