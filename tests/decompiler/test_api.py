"""`depyf.decompile` on every kind of object the contract lists, and its options."""
from __future__ import annotations

import ast
import functools
import sys
import textwrap
from typing import Any

import pytest

import depyf
from depyf import DecompilationError

from . import support
from .test_golden import lookup


def parse_def(text: str) -> Any:
    node = support.first_statement(text)
    assert node is not None, text
    return node


class Callable:
    def __init__(self, k: int) -> None:
        self.k = k

    def __call__(self, x):
        return x * self.k


def make_closure(n):
    def closure(x):
        return x + n

    return closure


def plain(a, b=1):
    return a + b


def test_plain_function_round_trips_through_exec() -> None:
    text = depyf.decompile(plain)
    ns: dict = {}
    exec(text, ns)
    assert ns["plain"](2) == 3 and ns["plain"](2, 5) == 7


def test_bound_and_unbound_methods() -> None:
    Counter = lookup("classes", "Counter")
    for obj in (Counter.describe, Counter(1).describe):
        node = parse_def(depyf.decompile(obj))
        assert isinstance(node, ast.FunctionDef) and node.name == "describe"
        assert [a.arg for a in node.args.args] == ["self"]


def test_static_and_class_methods_as_stored_in_the_class() -> None:
    Base = lookup("classes", "Base")
    helper = parse_def(depyf.decompile(Base.__dict__["helper"]))
    assert helper.name == "helper" and [a.arg for a in helper.args.args] == ["x", "y"]
    make = parse_def(depyf.decompile(Base.__dict__["make"]))
    assert make.name == "make" and [a.arg for a in make.args.args] == ["cls", "value"]
    assert parse_def(depyf.decompile(Base.make)).name == "make"  # bound to the class


def test_lambda_function_and_code_object() -> None:
    f = lambda x, y=2: x * y  # noqa: E731
    for obj in (f, f.__code__):
        text = depyf.decompile(obj).strip()
        assert text.startswith("lambda"), text
        g = eval(text)
        assert g(3, 4) == 12


def test_closure() -> None:
    text = depyf.decompile(make_closure(5))
    node = parse_def(text)
    assert node.name == "closure"
    assert "x + n" in text, text


def test_generator_coroutine_async_generator() -> None:
    gen = lookup("comprehensions", "generator_function")
    assert "yield i" in depyf.decompile(gen)
    coro = lookup("with_async", "await_simple")
    text = depyf.decompile(coro)
    assert isinstance(parse_def(text), ast.AsyncFunctionDef) and "await Step(x)" in text, text
    agen = lookup("with_async", "async_generator")
    text = depyf.decompile(agen)
    assert isinstance(parse_def(text), ast.AsyncFunctionDef) and "yield" in text, text


def test_class_body() -> None:
    Base = lookup("classes", "Base")
    text = depyf.decompile(Base)
    node = parse_def(text)
    assert isinstance(node, ast.ClassDef) and node.name == "Base", text
    names = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    assert {"__init__", "describe", "make", "helper"} <= names, text


def test_module_code_object() -> None:
    source = textwrap.dedent(
        """\
        import os
        from os.path import *
        X = 1

        def f(a):
            return a + X

        class C:
            pass
        if X:
            Y = f(X)
        """
    )
    code = compile(source, "<module>", "exec")
    text = depyf.decompile(code)
    tree = ast.parse(text)
    assert [type(s).__name__ for s in tree.body][:5] == ["Import", "ImportFrom", "Assign", "FunctionDef", "ClassDef"], text
    again = compile(text, "<module>", "exec")
    assert support.verify().compare_code(code, again) is None


def test_raw_code_object() -> None:
    text = depyf.decompile(plain.__code__)
    node = parse_def(text)
    assert node.name == "plain" and [a.arg for a in node.args.args] == ["a", "b"]


def test_functools_wraps_is_unwrapped() -> None:
    decorated = lookup("definitions", "decorated")
    assert hasattr(decorated, "__wrapped__")
    text = depyf.decompile(decorated)
    node = parse_def(text)
    assert node.name == "decorated" and "x + 1" in text, text


def test_lru_cache_is_unwrapped() -> None:
    cached = functools.lru_cache(maxsize=None)(plain)
    assert parse_def(depyf.decompile(cached)).name == "plain"


def test_functools_partial() -> None:
    text = depyf.decompile(functools.partial(plain, 1))
    assert parse_def(text).name == "plain", text


def test_callable_object() -> None:
    text = depyf.decompile(Callable(3))
    node = parse_def(text)
    assert node.name == "__call__" and "x * self.k" in text, text


def test_name_override() -> None:
    text = depyf.decompile(plain, name="renamed")
    node = parse_def(text)
    assert node.name == "renamed", text
    text = depyf.decompile(plain.__code__.replace(co_name="<resume in plain>"), name="resume_in_plain")
    assert parse_def(text).name == "resume_in_plain", text


def test_indent_option() -> None:
    text = depyf.decompile(lookup("control_flow", "nested_if"), indent=2)
    assert "\n  if a:\n    if b:\n" in text, text


def test_unknown_on_error_value() -> None:
    with pytest.raises(ValueError):
        depyf.decompile(plain, on_error="ignore")


@pytest.mark.parametrize("obj", [42, len, "text", None, object()], ids=["int", "builtin", "str", "None", "object"])
def test_objects_without_code(obj: Any) -> None:
    with pytest.raises(DecompilationError) as info:
        depyf.decompile(obj)
    assert info.value.reason
    text = depyf.decompile(obj, on_error="comment")
    compile(text, "<comment>", "exec")


def test_class_with_undecompilable_method_follows_on_error() -> None:
    """A class is decompiled under the same rule as a function: raise, or comment when asked."""

    class Holder:
        def fine(self):
            return 1

        def broken(self):
            return 2.5  # (not a small int, which 3.14 loads without a constant)

    # LOAD_CONST with no constants to load: rejected by the decoder on every version
    Holder.broken.__code__ = Holder.broken.__code__.replace(co_consts=())
    with pytest.raises(DecompilationError) as info:
        depyf.decompile(Holder)
    assert "broken" in (info.value.function or ""), info.value
    text = depyf.decompile(Holder, on_error="comment")
    compile(text, "<comment>", "exec")
    assert "def fine(self):" in text, text


def test_printer_rejects_nodes_no_source_spells() -> None:
    """A node the reader should have consumed (a comprehension's append, a stack marker) that
    reaches the printer is a decompilation error, never a bare TypeError."""
    from depyf.decompiler import markers, nodes
    from depyf.decompiler.definitions import CompAppend
    from depyf.decompiler.printer import Printer

    with pytest.raises(DecompilationError, match="cannot print CompAppend"):
        Printer().stmt(CompAppend(nodes.List_([]), nodes.Name("x")), 0, [])
    with pytest.raises(DecompilationError, match="cannot print"):
        Printer().expr(markers.Sentinel("anext"))


def test_constants_without_a_literal_get_a_valid_stand_in() -> None:
    """Tool-made code loads code objects and dicts of modules as constants: no literal writes
    them, so a name says what is loaded and the text still compiles."""
    def shape(a):
        return (a, (1, 2), "text")

    inner = compile("def inner(): pass", "<inner>", "exec").co_consts[0]
    swap = {(1, 2): inner, "text": {"module": sys, "items": [1]}}
    consts = tuple(swap.get(c, c) if isinstance(c, (tuple, str)) else c for c in shape.__code__.co_consts)
    text = depyf.decompile(shape.__code__.replace(co_consts=consts))
    compile(text, "<text>", "exec")
    assert "return a, __constant_code_inner, __constant_dict" in text


def test_unhashable_constants_in_dynamo_code_are_decompiled_once() -> None:
    from depyf.dynamo.decompile import safe_decompile

    def shape(a):
        return a

    code = shape.__code__.replace(co_consts=shape.__code__.co_consts + ({"unhashable": []},))
    with pytest.raises(TypeError):
        hash(code)
    first, problem = safe_decompile(code, "f", transformed=True)
    assert problem is None and first.startswith("def f(a):")
    assert safe_decompile(code, "g", transformed=True)[0].startswith("def g(a):")


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameter syntax is 3.12+")
@pytest.mark.parametrize(
    "source, header",
    [
        ("def first[T](x: T) -> T:\n    return x\n", "def first[T](x: T) -> T:"),
        ("def pick[T](x: T = 1, *, y: int = 2) -> T:\n    return x\n", "def pick[T](x: T, *, y: int) -> T:"),
        ("class Box[T, *Ts]:\n    def get(self) -> T:\n        return 1\n", "class Box[T, *Ts]:"),
        ("type Pair[K: int] = tuple[K, K]\n", "type Pair[K: int] = tuple[K, K]"),
    ],
)
def test_type_parameter_scope_alone_is_the_definition_it_makes(source: str, header: str) -> None:
    # `<generic parameters of NAME>` makes the parameters and then the definition; decompiled on
    # its own it is that definition (defaults are the caller's, as for any bare code object).
    module = compile(source, "<generic>", "exec", dont_inherit=True)
    (scope,) = [c for c in module.co_consts if hasattr(c, "co_code")]
    assert scope.co_name.startswith("<generic parameters of ")
    text = depyf.decompile(scope)
    assert text.splitlines()[0] == header, text
    compile(text, "<decompiled>", "exec")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="starred annotations are 3.11+")
def test_starred_annotation_of_args() -> None:
    ns: dict = {}
    # (compiled apart: this file's `from __future__ import annotations` would make them strings)
    exec(compile("def f(*args: *tuple[int, ...]) -> int:\n    return len(args)\n", "<f>", "exec", dont_inherit=True), ns)
    text = depyf.decompile(ns["f"])
    assert text.splitlines()[0] == "def f(*args: *tuple[int, ...]) -> int:", text
    module = compile("def f(*args: *tuple[int, str]): pass\n", "<m>", "exec", dont_inherit=True)
    assert "def f(*args: *tuple[int, str]):" in depyf.decompile(module)


@pytest.mark.skipif(sys.version_info < (3, 9), reason="builtin generic aliases are 3.9+")
def test_subscripted_annotations_keep_their_arguments() -> None:
    import typing

    ns: dict = {"typing": typing}
    source = "def f(x: list[int], y: typing.Dict[str, tuple[int, ...]]) -> dict[str, int]: pass\n"
    exec(compile(source, "<f>", "exec", dont_inherit=True), ns)
    header = depyf.decompile(ns["f"]).splitlines()[0]
    assert header == "def f(x: list[int], y: typing.Dict[str, tuple[int, ...]]) -> dict[str, int]:", header


def test_optional_annotations_name_none_not_nonetype() -> None:
    import typing

    ns: dict = {"typing": typing}
    source = "def f(x: typing.Optional[int], y: typing.Union[str, None] = None) -> typing.Optional[typing.List[int]]: pass\n"
    exec(compile(source, "<f>", "exec", dont_inherit=True), ns)
    header = depyf.decompile(ns["f"]).splitlines()[0]
    assert "NoneType" not in header, header
    # the header is valid and its annotations evaluate to the same objects
    probe: dict = {"typing": typing}
    exec(compile(header + " pass\n", "<h>", "exec", dont_inherit=True), probe)
    assert probe["f"].__annotations__ == ns["f"].__annotations__
