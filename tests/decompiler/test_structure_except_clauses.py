"""The except clauses of a handler (depyf.decompiler.structure.except_clauses), on the running
version's own compiled code, laid out as the rules read it.

The assertions are about the source ("the second clause binds no name", "the body calls b"),
never about one version's instruction numbers; where the two exception models differ (the
3.11+ exception table, 3.8-3.10's block stack) the expectation asks the capability of
versions.py that names it."""
from __future__ import annotations

import ast
import dataclasses
import types
from typing import Dict, Iterator, List, Set

import pytest

from depyf.decompiler import passes
from depyf.decompiler.graph import FlowGraph
from depyf.decompiler.structure.except_clauses import ClauseChain, clause_chain, star_clause_chain
from depyf.decompiler.versions import host

from .stdlib_sample import module_path
from .support import compiled_definition, first_load_of, loads_of

VERSION = host()


def _graph(code: types.CodeType) -> FlowGraph:
    return FlowGraph.of(passes.lay_out(passes.read(code, VERSION)))


class Handlers:
    """A function's graph and the chains of its handlers."""

    def __init__(self, source: str, name: str = "f") -> None:
        self.graph = _graph(compiled_definition(source, name))
        self.instrs = self.graph.instrs

    def calls(self, name: str) -> List[int]:
        return loads_of(self.instrs, name)

    def call(self, name: str) -> int:
        return first_load_of(self.instrs, name)

    def handler_of(self, name: str) -> int:
        """The handler that the call of `name` (in a try body) goes to on an exception."""
        region = self.graph.region_at(self.call(name))
        assert region is not None, name
        return region.handler

    def chain_of(self, name: str) -> ClauseChain:
        return clause_chain(self.graph, self.handler_of(name))


THREE_CLAUSES = """
    def f():
        try:
            g()
        except ValueError as e:
            a(e)
        except (KeyError, TypeError):
            b()
        except:
            c()
        after()
"""


def test_a_chain_of_named_tuple_and_bare_clauses():
    h = Handlers(THREE_CLAUSES)
    chain = h.chain_of("g")
    assert chain.unread is None
    named, tested, bare = chain.clauses
    assert (named.name, tested.name, bare.name) == ("e", None, None)
    assert not named.is_bare and not tested.is_bare and bare.is_bare
    assert bare.test is None and bare.match is None and bare.next is None
    # a bare clause ends the chain: nothing is re-raised, and where its body ends is the reader's
    assert chain.reraise is None and chain.end is None
    # each failed match goes to the next clause
    assert named.next == tested.start and tested.next == bare.start
    assert h.instrs[named.match].target == named.next
    # the types are the instructions of their expressions
    assert [h.instrs[k].argval for k in range(*named.test) if h.instrs[k].opname.startswith("LOAD_")] \
        == ["ValueError"]
    assert {h.instrs[k].argval for k in range(*tested.test)} >= {"KeyError", "TypeError"}
    # each body lies between its binding and the next clause
    assert named.body_start <= h.call("a") < named.next
    assert tested.body_start <= h.call("b") < tested.next
    assert bare.body_start <= h.call("c")
    assert bare.body_start > bare.start
    if VERSION.has_exception_table:
        # (3.11+: the bare clause ends at the handler's cleanup, `COPY 3; POP_EXCEPT; RERAISE 1`)
        assert h.call("c") < bare.body_end
        assert (h.instrs[bare.body_end].opname, h.instrs[bare.body_end].arg) == ("COPY", 3)
    else:
        assert bare.body_end is None  # (3.8-3.10: where the reading of the code after it says)


def test_a_named_clause_unbinds_its_name_on_an_exception():
    h = Handlers(THREE_CLAUSES)
    named = h.chain_of("g").clauses[0]
    assert named.unbinding is not None
    start, end = named.unbinding
    assert [h.instrs[k].opname for k in range(start, start + 3)][0] == "LOAD_CONST"
    assert h.instrs[start + 1].argval == h.instrs[start + 2].argval == "e"
    assert h.instrs[end - 1].opname in ("RERAISE", "END_FINALLY")
    if VERSION.has_exception_table:
        # (laid right before the next clause, where the body's own handler goes)
        assert end == named.next
        assert h.graph.region_at(h.call("a")).handler == start
    else:
        # (the target of the SETUP_FINALLY that opens the body)
        setup = h.instrs[named.body_start]
        assert setup.opname == "SETUP_FINALLY" and setup.target == start
    assert h.chain_of("g").clauses[1].unbinding is None


def test_a_named_clause_unbinds_its_name_on_each_normal_way_out():
    h = Handlers("""
        def f():
            try:
                g()
            except ValueError as e:
                if a(e):
                    return 1
                b(e)
            except KeyError:
                c()
            after()
    """)
    named, unnamed = h.chain_of("g").clauses
    assert unnamed.normal_unbindings == ()
    if VERSION.uses_call_finally:
        # (3.8 runs the unbinding handler itself on each way out: BEGIN_FINALLY, CALL_FINALLY)
        assert named.normal_unbindings == ()
        return
    # (the return and the fall out of the clause: each unbinds the name after the POP_EXCEPT)
    assert len(named.normal_unbindings) == 2
    for u in named.normal_unbindings:
        assert h.instrs[u - 1].opname == "POP_EXCEPT"
        assert h.instrs[u].opname == "LOAD_CONST" and h.instrs[u].argval is None
        assert h.instrs[u + 1].argval == h.instrs[u + 2].argval == "e"
        assert h.call("a") < u < named.unbinding[0]
    assert list(named.normal_unbindings) == sorted(named.normal_unbindings)


def test_tested_clauses_end_in_the_reraise_of_an_unmatched_exception():
    h = Handlers("""
        def f():
            try:
                g()
            except A:
                a()
            except B as e:
                b(e)
            after()
    """)
    chain = h.chain_of("g")
    assert chain.unread is None and len(chain.clauses) == 2
    assert chain.reraise is not None and h.instrs[chain.reraise].opname in ("RERAISE", "END_FINALLY")
    assert chain.clauses[-1].next == chain.reraise
    assert chain.end == chain.reraise + 1
    assert all(k < chain.end for k in h.calls("a") + h.calls("b"))


def test_handlers_that_are_not_except_clauses_are_unread():
    h = Handlers("""
        def f():
            try:
                g()
            finally:
                done()
            with m:
                w()
    """)
    for name in ("g", "w"):
        chain = h.chain_of(name)
        assert chain.clauses == () and chain.end is None
        at, reason = chain.unread
        assert 0 <= at < len(h.instrs) and reason
    # (nor is an instruction that starts no handler)
    assert clause_chain(h.graph, h.call("done")).unread is not None


def test_a_chain_is_made_once_and_frozen():
    h = Handlers(THREE_CLAUSES)
    handler = h.handler_of("g")
    chain = clause_chain(h.graph, handler)
    assert clause_chain(h.graph, handler) is chain
    with pytest.raises(dataclasses.FrozenInstanceError):
        chain.reraise = 0  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        chain.clauses[0].name = "x"  # type: ignore[misc]


def test_the_builder_reads_the_chain_of_the_graph():
    from depyf.decompiler.builder import CodeBuilder
    from depyf.decompiler.printer import Printer

    code = compiled_definition(THREE_CLAUSES)
    bytecode = passes.lay_out(passes.read(code, VERSION))
    builder = CodeBuilder(bytecode, lambda *a, **k: [], code.co_name, Printer())
    handler = builder.graph.region_at(first_load_of(builder.instrs, "g")).handler
    assert builder.except_chain(handler) is clause_chain(builder.graph, handler)


def _definitions(code: types.CodeType) -> Iterator[types.CodeType]:
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _definitions(const)


class _WrittenClauses(ast.NodeVisitor):
    """The `except` clauses each definition's own code writes (not its nested definitions'),
    by the definition's first line (`co_firstlineno`: a decorated one's first decorator); and
    the definitions holding a `finally` body, whose code the compiler copies (a try in it is
    in every copy)."""

    def __init__(self) -> None:
        self.scopes: List[int] = [1]
        self.clauses: Dict[int, int] = {}
        self.copied: Set[int] = set()

    def _scope(self, node: ast.AST) -> None:
        decorators = getattr(node, "decorator_list", [])
        self.scopes.append(decorators[0].lineno if decorators else node.lineno)  # type: ignore[attr-defined]
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scope

    def visit_Try(self, node: ast.Try) -> None:
        here = self.scopes[-1]
        self.clauses[here] = self.clauses.get(here, 0) + len(node.handlers)
        if node.finalbody:
            self.copied.add(here)
        self.generic_visit(node)


@pytest.mark.parametrize("module", ("json/decoder", "contextlib", "tempfile", "shutil", "subprocess",
                                    "argparse", "os"))
def test_every_except_clause_of_the_standard_library_is_in_one_chain(module):
    """Each `except` clause the source writes is a clause of exactly one handler's whole chain
    (of one per copy, in a finally body), and a chain's clauses follow each other."""
    path = module_path(module)
    source = path.read_text(encoding="utf-8")
    written = _WrittenClauses()
    written.visit(ast.parse(source))
    assert sum(written.clauses.values()) > 0
    module_code = compile(source, str(path), "exec")
    for definition in _definitions(module_code):
        # (3.8/3.9 give a module's code the line of its first instruction)
        first_line = 1 if definition is module_code else definition.co_firstlineno
        graph = _graph(definition)
        found = 0
        for handler in sorted({r.handler for r in graph.regions}):
            chain = clause_chain(graph, handler)
            if chain.unread is not None:
                continue
            found += len(chain.clauses)
            for clause, following in zip(chain.clauses, chain.clauses[1:]):
                assert clause.next == following.start, (definition.co_name, chain)
            for clause in chain.clauses:
                assert clause.start < clause.body_start < len(graph.instrs), (definition.co_name, clause)
                if clause.name is not None:
                    assert clause.unbinding is not None, (definition.co_name, clause)
            if chain.end is not None:
                assert all(c.next is not None and c.next < chain.end for c in chain.clauses)
        expected = written.clauses.get(first_line, 0)
        if first_line in written.copied:
            assert found >= expected, definition.co_name
        else:
            assert found == expected, definition.co_name


@pytest.mark.skipif(VERSION.key < (3, 11), reason="except* (3.11+)")
def test_an_except_star_chain():
    h = Handlers("""
        def f():
            try:
                g()
            except* ValueError as e:
                a(e)
            except* (KeyError, TypeError):
                b()
            after()
    """)
    handler = h.handler_of("g")
    chain = star_clause_chain(h.graph, handler)
    assert chain.unread is None and chain.reraise is None
    named, tested = chain.clauses
    assert (named.name, tested.name) == ("e", None)
    assert named.unbinding is not None and tested.unbinding is None
    # each body lies between its binding and its own end, before the next clause
    assert named.body_start <= h.call("a") < named.body_end < named.next <= tested.start
    assert tested.body_start <= h.call("b") < tested.body_end < tested.next
    assert [h.instrs[k].argval for k in range(*named.test) if h.instrs[k].opname.startswith("LOAD_")] \
        == ["ValueError"]
    # the recombined groups' normal exit comes after every clause
    assert chain.exit_at is not None and chain.exit_at > tested.next
    assert star_clause_chain(h.graph, handler) is chain
    # (as plain except clauses the chain is not one)
    assert clause_chain(h.graph, handler).unread is not None
