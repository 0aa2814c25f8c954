"""What each handler is the handler of (depyf.decompiler.structure.handler_kinds), on the
running version's own compiled code.

Which kinds a version makes is a fact of its exception model: the compiler code that only the
3.11+ exception table protects (the exception restored after a clause, a named clause's
unbinding, an await's throw, a generator's StopIteration, a 3.12+ inlined comprehension)
is asked of versions.py's capabilities or of the opcodes the version has."""
from __future__ import annotations

import ast
import types
import warnings
from typing import Dict, Iterator, List

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.structure.except_clauses import clause_chain
from depyf.decompiler.structure.handler_kinds import CONSTRUCTS, handler_kind
from depyf.decompiler.structure.with_regions import with_table
from depyf.decompiler.versions import host

from .stdlib_sample import module_path
from .support import compiled_definition, first_load_of

VERSION = host()
TABLE = VERSION.has_exception_table


def _graph(code: types.CodeType) -> FlowGraph:
    return FlowGraph.of(passes.lay_out(passes.read(code, VERSION)))


def _kinds(graph: FlowGraph) -> Dict[int, str]:
    return {r.handler: handler_kind(graph, r.handler) for r in graph.regions}


def _kind_around(source: str, name: str, *, definition: str = "f") -> str:
    """The kind of the innermost handler around the call of `name`."""
    graph = _graph(compiled_definition(source, definition))
    k = first_load_of(graph.instrs, name)
    region = graph.region_at(k)
    assert region is not None, name
    return handler_kind(graph, region.handler)


def test_the_statements():
    assert _kind_around("def f():\n try:\n  g()\n except E:\n  pass\n", "g") == "except"
    assert _kind_around("def f():\n try:\n  g()\n except:\n  h()\n", "g") == "except"
    assert _kind_around("def f():\n try:\n  g()\n finally:\n  done()\n", "g") == "finally"
    assert _kind_around("def f():\n with m:\n  g()\n", "g") == "with"
    assert _kind_around("async def f():\n async with m:\n  g()\n", "g") == "with"
    assert {"except", "finally", "with"} <= CONSTRUCTS


@pytest.mark.skipif(VERSION.key < (3, 11), reason="except* (3.11+)")
def test_except_star():
    assert _kind_around("def f():\n try:\n  g()\n except* E:\n  pass\n", "g") == "star"


def test_a_finally_body_that_returns_at_once():
    """3.9/3.10 begin such a finally body, as a bare clause begins, with `POP_TOP` x3;
    `POP_EXCEPT`: its copy on the body's normal way out tells it apart. (3.11+ compile it
    exactly as `except: return 1` with `else: return 1`, and it is read so.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # (3.14+: a return in a finally block)
        kind = _kind_around("def f():\n try:\n  g()\n finally:\n  return 1\n", "g")
    assert kind == ("except" if TABLE else "finally")


def test_a_bare_clause_that_ends_the_function():
    """`except: pass` before the implicit `return None` (3.10 copies that return into the
    clause) compiles as a finally body that only returns would: it is the clause."""
    assert _kind_around("def f():\n try:\n  g()\n except:\n  pass\n", "g") == "except"


def test_async_for():
    graph = _graph(compiled_definition("async def f():\n async for x in y:\n  g(x)\n"))
    assert "asyncfor" in _kinds(graph).values()


@pytest.mark.skipif(not TABLE, reason="compiler code the 3.11+ exception table protects")
def test_the_compiler_code_the_table_protects():
    graph = _graph(compiled_definition("def f():\n try:\n  g()\n except E as e:\n  h(e)\n"))
    kinds = sorted(_kinds(graph).values())
    # the clause restores the previous exception; the named clause's body unbinds its name
    assert kinds == ["ascleanup", "cleanup", "except"]
    assert _kind_around("def f():\n try:\n  g()\n except E as e:\n  h(e)\n", "h") == "ascleanup"


@pytest.mark.skipif(VERSION.key < (3, 12), reason="3.12+: CLEANUP_THROW, the StopIteration intrinsic, inlined comprehensions")
def test_the_compiler_code_of_312():
    assert "send" in _kinds(_graph(compiled_definition("async def f():\n await g()\n"))).values()
    assert "genwrap" in _kinds(_graph(compiled_definition("def f():\n yield g()\n"))).values()
    assert "comp" in _kinds(_graph(compiled_definition("def f(y):\n return [x for x in y]\n"))).values()
    # none of them is a statement
    assert not {"send", "genwrap", "comp", "cleanup", "ascleanup"} & CONSTRUCTS


def test_kinds_are_made_once_per_graph():
    graph = _graph(compiled_definition("def f():\n try:\n  g()\n except E:\n  pass\n"))
    handler = graph.regions[0].handler
    assert handler_kind(graph, handler) is handler_kind(graph, handler)
    assert graph.kept("handler_kinds", dict)[handler] == "except"


def _definitions(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _definitions(const)


def _tries_with_clauses(source: str) -> List[int]:
    """The first lines of the try statements with except clauses (except* ones apart)."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if type(node) is ast.Try and node.handlers)


@pytest.mark.parametrize("module", ("contextlib", "tempfile", "shutil", "subprocess", "argparse", "os"))
def test_the_kinds_of_the_standard_library_agree_with_the_constructs(module):
    """Every handler read as an except clause's has a whole clause chain, every with handler is
    one of a with statement found, and there are as many except handlers as the source writes
    try statements with clauses (more where a finally body is copied)."""
    path = module_path(module)
    source = path.read_text(encoding="utf-8")
    handlers = 0
    for definition in _definitions(compile(source, str(path), "exec")):
        graph = _graph(definition)
        withs = with_table(graph)
        for handler, kind in _kinds(graph).items():
            if kind == "except":
                chain = clause_chain(graph, handler)
                assert chain.clauses and chain.unread is None, (definition.co_name, handler, chain)
                handlers += 1
            elif kind == "with":
                assert withs.by_handler(handler) is not None, (definition.co_name, handler)
            assert kind in CONSTRUCTS or TABLE or kind in ("asyncfor", "other"), (definition.co_name, kind)
    assert handlers >= len(_tries_with_clauses(source)) > 0
