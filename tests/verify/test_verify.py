"""Tests of the round-trip oracle (`depyf.verify`).

The oracle is loaded by path, as the benchmarks load it: it must work without the rest of the
package, so that it can judge other decompilers (and so that these tests do not depend on the
decompiler core being importable).
"""
from __future__ import annotations

import ast
import importlib.util
import sys
import textwrap
import tokenize
from pathlib import Path
from types import CodeType
from typing import List

import pytest

VERIFY_PACKAGE = Path(__file__).resolve().parents[2] / "src" / "depyf" / "verify"


def _load_verify():
    # (a package loaded by path under another name: its modules import each other relatively)
    spec = importlib.util.spec_from_file_location("_depyf_verify_under_test", str(VERIFY_PACKAGE / "__init__.py"),
                                                  submodule_search_locations=[str(VERIFY_PACKAGE)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while building classes
    spec.loader.exec_module(module)
    return module


verify = _load_verify()

HAS_UNPARSE = hasattr(ast, "unparse")
HAS_EXCEPTION_TABLE = hasattr(compile("", "", "exec"), "co_exceptiontable")


def _function(source: str, name: str = "f") -> CodeType:
    module = compile(textwrap.dedent(source), "<test>", "exec", dont_inherit=True)
    return next(c for c in module.co_consts if isinstance(c, CodeType) and c.co_name == name)


def _stdlib_source(module_name: str):
    path = importlib.util.find_spec(module_name).origin
    with tokenize.open(path) as f:
        return f.read(), path


# --- the control: original source as the "decompiled" text must score 100% -----------------

CONTROL_MODULES = ["textwrap", "colorsys", "heapq", "bisect", "json.decoder"]


@pytest.mark.parametrize("module_name", CONTROL_MODULES)
@pytest.mark.parametrize("unparse", [False, True], ids=["source", "unparse"])
def test_control_scores_everything_equal(module_name: str, unparse: bool) -> None:
    source, path = _stdlib_source(module_name)
    results = verify.roundtrip_source_file(source, path, verify.control_decompiler(source, path, unparse=unparse))
    assert len(results) >= 4
    failures = [f"{r.definition.label}: {r.status} {r.detail}" for r in results if r.status != verify.EQUAL]
    assert failures == []


def test_control_on_tricky_contexts() -> None:
    # super() needs the class cell, __private names are mangled, lambdas share lines,
    # a multi-line docstring must not be re-indented, decorators stay where they are.
    source = textwrap.dedent(
        '''
        import os
        OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b}

        def deco(f=lambda x=lambda: 1: x):
            return f

        class Outer(object):
            key = staticmethod(lambda item: item[0])

            class Inner:
                def __secret(self):
                    """First line.

                      indented second line.
                    """
                    return self.__hidden

            @deco
            def method(self, *args, k=None, **kwargs):
                return super().method(os.path.join(*args), k=k, **kwargs)

            @property
            def value(self):
                return self._value

            @value.setter
            def value(self, new):
                self._value = new

        async def coroutine(x, /, y):
            async with x as a:
                async for b in a:
                    yield [lambda: b for _ in y]

        SQUARES = [lambda: i * i for i in range(3)]
        '''
    )
    results = verify.roundtrip_source_file(source, "<tricky>", verify.control_decompiler(source, "<tricky>"))
    names = [r.qualname for r in results]
    assert names.count("<lambda>") == 5  # two in OPS, two in deco's defaults, one in SQUARES
    assert "Outer.Inner.__secret" in names and "Outer.<lambda>" in names
    assert names.count("Outer.value") == 2
    assert [r for r in results if r.status != verify.EQUAL] == []


# --- check_texts: many definitions per compile, the verdicts of one by one --------------------


def _mixed_texts(trip) -> List[tuple]:
    """Per definition: its original text, or one that compiles to other code, or one that does not
    compile, in a pattern that puts every kind next to every other."""
    control = verify.control_decompiler(trip.source, trip.filename)
    items = []
    for n, definition in enumerate(trip.definitions):
        text = control(trip.code(definition))
        name = definition.qualname.rsplit(".", 1)[-1]
        if n % 3 == 1:
            text = "lambda *a: 1" if definition.kind == "lambda" else f"def {name}(*a):\n    return 1"
        elif n % 7 == 2:
            text = "def (:"
        items.append((definition, text))
    return items


@pytest.mark.parametrize("module_name", ["textwrap", "json.decoder", "<tricky>"])
def test_check_texts_gives_the_verdicts_of_check_text(module_name: str) -> None:
    if module_name == "<tricky>":
        source, path = _TRICKY, "<tricky>"
    else:
        source, path = _stdlib_source(module_name)
    trip = verify.SourceRoundTrip(source, path)
    items = _mixed_texts(trip)
    together = trip.check_texts(items)
    alone = [trip.check_text(definition, text) for definition, text in items]
    assert [(r.qualname, r.status, r.detail, r.decompiled) for r in together] == \
        [(r.qualname, r.status, r.detail, r.decompiled) for r in alone]
    assert {r.status for r in together} == {verify.EQUAL, verify.DIFFERS, verify.NO_COMPILE}


_TRICKY = textwrap.dedent(
    '''
    import os
    OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b}

    def deco(f=lambda x=lambda: 1: x):
        return f

    class Outer(object):
        key = staticmethod(lambda item: item[0])

        class Inner:
            def __secret(self):
                return self.__hidden

        @deco
        def method(self, *args, k=None, **kwargs):
            return super().method(os.path.join(*args), k=k, **kwargs)

        def other(self):
            return __class__

    SQUARES = [lambda: i * i for i in range(3)]
    '''
)


# --- finding definitions ---------------------------------------------------------------------


def test_definitions_map_to_their_own_code_objects() -> None:
    source = "A = (lambda: 1, lambda: 2)\nclass C:\n    def m(self):\n        def inner():\n            pass\n"
    module = compile(source, "<s>", "exec", dont_inherit=True)
    definitions = verify.definitions_in_source(source, "<s>")
    assert [d.qualname for d in definitions] == ["<lambda>", "<lambda>", "C.m"]
    first, second = (verify.find_code(module, d.key) for d in definitions[:2])
    assert first.co_consts[-1] == 1 or 1 in first.co_consts
    assert 2 in second.co_consts
    assert definitions[2].key == (("C", 0), ("m", 0))  # inner is part of m, not a definition


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameter syntax is 3.12+")
def test_generic_def_is_checked_as_its_type_parameter_scope() -> None:
    # `f`'s own code does not say that T is a type parameter; the scope that makes T and f does.
    source = "def f[T](x: T) -> T:\n    return x\nclass C[T]:\n    def m(self): pass\n"
    definitions = verify.definitions_in_source(source, "<s>")
    assert [(d.qualname, d.key) for d in definitions] == [
        ("f", (("<generic parameters of f>", 0),)),
        ("C.m", (("<generic parameters of C>", 0), ("C", 0), ("m", 0))),
    ]
    without = verify.roundtrip_source_file(source, "<s>", lambda code: "def f(x):\n    return x\n")
    assert without[0].status == verify.DIFFERS  # the brackets are part of what is checked


def test_find_code_reports_missing_keys() -> None:
    module = compile("def f(): pass\n", "<s>", "exec")
    with pytest.raises(KeyError):
        verify.find_code(module, (("g", 0),))


# --- splicing --------------------------------------------------------------------------------


def test_splice_keeps_decorators_and_indents_but_not_inside_strings() -> None:
    source = "class C:\n    @dec\n    def f(self):\n        return 1  # tail\nx = 1\n"
    definition = verify.definitions_in_source(source, "<s>")[0]
    new = 'def f(self):\n    """a\n  b"""\n    return 2'
    spliced = verify.splice(source, definition, new)
    assert spliced == 'class C:\n    @dec\n    def f(self):\n        """a\n  b"""\n        return 2  # tail\nx = 1\n'


def test_splice_parenthesizes_lambdas() -> None:
    source = "key = lambda x: x or 0\n"
    definition = verify.definitions_in_source(source, "<s>")[0]
    assert verify.splice(source, definition, "lambda x: x if x else 0") == "key = (lambda x: x if x else 0)\n"


def test_splice_counts_columns_in_bytes_like_ast() -> None:
    source = "s = 'é'; f = lambda: 'ü'\n"
    definition = verify.definitions_in_source(source, "<s>")[0]
    assert verify.splice(source, definition, "lambda: 1") == "s = 'é'; f = (lambda: 1)\n"


# --- the round trip's verdicts -------------------------------------------------------------------


SMALL = "import os\n\ndef f(a, b=2):\n    return os.path.join(a, b)\n"


def _roundtrip(decompiled: str) -> verify.Result:
    [result] = verify.roundtrip_source_file(SMALL, "<small>", lambda code: decompiled)
    return result


def test_decompile_error_is_recorded_not_raised() -> None:
    def broken(code: CodeType) -> str:
        raise RuntimeError("unsupported opcode\nmore text")

    [result] = verify.roundtrip_source_file(SMALL, "<small>", broken)
    assert result.status == verify.DECOMPILE_ERROR
    assert result.detail == "RuntimeError: unsupported opcode"


def test_output_that_does_not_compile() -> None:
    result = _roundtrip("def f(a, b):\n    return os.path.join(a, b")
    assert result.status == verify.NO_COMPILE
    assert "SyntaxError" in result.detail and "line" in result.detail


def test_output_rejected_by_the_compiler_not_the_parser() -> None:
    result = _roundtrip("def f(a, b):\n    nonlocal q\n    return 1")
    assert result.status == verify.NO_COMPILE
    assert "nonlocal" in result.detail and "line 4" in result.detail  # the spliced file's line


def test_output_that_compiles_to_other_bytecode() -> None:
    result = _roundtrip("def f(a, b):\n    return os.path.join(b, a)")
    assert result.status == verify.DIFFERS
    diff = result.difference
    assert diff.where == "f" and diff.what == "instruction"
    # LOAD_FAST a | LOAD_FAST b, or where loads are fused, LOAD_FAST_LOAD_FAST ('a', 'b') | ('b', 'a')
    assert diff.original.startswith("LOAD_FAST") and diff.decompiled.startswith("LOAD_FAST")
    assert diff.original != diff.decompiled
    assert diff.category[0] == diff.category[1] and diff.category[0].startswith("LOAD_FAST")
    assert str(diff) == result.detail


def test_equivalent_output_without_defaults_is_equal() -> None:
    # Defaults live on the function object, not on its code object.
    assert _roundtrip("def f(a, b):\n    return os.path.join(a, b)\n").status == verify.EQUAL


def test_renamed_definition_is_reported_missing() -> None:
    result = _roundtrip("def g(a, b):\n    return os.path.join(a, b)")
    assert result.status == verify.DIFFERS and "missing" in result.detail


# --- compare_code on its own ---------------------------------------------------------------------


def test_compare_equal_code() -> None:
    assert verify.compare_code(_function("def f(x):\n    return x + 1\n"), _function("def f(x):\n  return (x + 1)\n")) is None


def test_compare_reports_nested_code_path() -> None:
    a = _function("def f(x):\n    return lambda: x + 1\n")
    b = _function("def f(x):\n    return lambda: x - 1\n")
    message = verify.compare_code(a, b)
    assert message.startswith("f.<lambda>: instruction #2:")


def test_compare_signatures() -> None:
    a = _function("def f(x, /, y):\n    pass\n")
    b = _function("def f(x, y):\n    pass\n")
    assert "posonlyargcount" in verify.compare_code(a, b)
    a = _function("def f(*args):\n    pass\n")
    b = _function("def f(args):\n    pass\n")
    assert "argcount" in verify.compare_code(a, b)
    assert "generator" in verify.compare_code(_function("def f():\n    yield\n"), _function("def f():\n    return\n"))


def test_docstrings_only_where_written() -> None:
    # 3.14 puts a function's first constant first whether or not it is the docstring (the code's
    # CO_HAS_DOCSTRING flag tells); a string returned is no docstring on any version.
    assert verify.code_docstring(_function("def f():\n    return 'x'\n")) is None
    assert verify.code_docstring(_function("def f():\n    'x'\n    return 'x'\n")) == "x"
    message = verify.compare_code(_function("def f():\n    'x'\n    return 'x'\n"),
                                  _function("def f():\n    return 'x'\n"))
    assert message is not None and "docstring" in message


def test_compare_frozenset_constants_ignores_order() -> None:
    a = _function("def f(x):\n    return x in {1, 2, 3, 'a'}\n")
    b = _function("def f(x):\n    return x in {'a', 3, 2, 1}\n")
    assert verify.compare_code(a, b) is None


def test_compare_jumps_by_target_index() -> None:
    a = _function("def f(x):\n    if x:\n        return 1\n    return 2\n")
    b = _function("def f(x):\n    if not x:\n        return 2\n    return 1\n")
    message = verify.compare_code(a, b)
    assert message is not None and " to #" in message


@pytest.mark.skipif(not HAS_EXCEPTION_TABLE, reason="exceptions are set up by instructions here")
def test_compare_catches_moved_try_boundaries() -> None:
    # Same instructions, different protected range: only the exception table tells them apart.
    a = _function("def f():\n    try:\n        a()\n        b()\n    except E:\n        pass\n")
    b = _function("def f():\n    a()\n    try:\n        b()\n    except E:\n        pass\n")
    assert verify.compare_code(a, b, exception_table=False) is None
    message = verify.compare_code(a, b)
    assert message is not None and "exception table entry #0" in message


@pytest.mark.skipif(not HAS_UNPARSE, reason="no canonical layout without ast.unparse")
def test_canonical_layout_hides_line_breaks() -> None:
    one_line = "def f(a, b):\n    return [x for x in a if x and b]\n"
    broken = "def f(a, b):\n    return [x\n            for x in a\n            if x\n            and b]\n"
    a = verify.canonical_compile(one_line, "<s>").co_consts[0]
    b = verify.canonical_compile(broken, "<s>").co_consts[0]
    assert verify.compare_code(a, b) is None


def test_code_objects_include_nested() -> None:
    code = _function("def f():\n    def g():\n        return lambda: 1\n    return g\n")
    names: List[str] = [c.co_name for c in verify.code_objects(code)]
    assert names == ["f", "g", "<lambda>"]


def test_compare_reports_the_divergence_not_the_jump_it_shifts() -> None:
    # The jump over the if-body is the first instruction that differs, but only because the
    # body lost its call to b(): that is what an engineer needs to see.
    a = _function("def f(x):\n    if x:\n        a()\n        b()\n    return 1\n")
    b = _function("def f(x):\n    if x:\n        a()\n    return 1\n")
    difference = verify.first_difference(a, b)
    assert difference is not None and "b" in difference.original
    assert difference.category[0].startswith("LOAD_GLOBAL")


def test_compare_docstrings() -> None:
    # No instruction loads a function's docstring; losing it must still count.
    a = _function('def f(x):\n    """Doc."""\n    return x\n')
    b = _function("def f(x):\n    return x\n")
    assert verify.compare_code(a, b) == "f: docstring: original 'Doc.' | decompiled None"
    assert verify.compare_code(_function("def f():\n    return 'abc'\n"), _function("def f():\n    return 'abc'\n")) is None


# --- the benchmark worker survives what a decompiler under test may do ---------------------------

WORKER = VERIFY_PACKAGE.parents[2] / "benchmarks" / "_roundtrip_worker.py"

_NASTY_DECOMPILER = '''
def decompile(code):
    if code.co_name == "spins":
        try:
            while True:
                pass
        except:  # swallows the first alarm: the alarm repeats
            pass
        while True:
            pass
    if code.co_name == "fails":
        raise ValueError("no")
    return "def %s():\\n    return 1" % code.co_name
'''


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="the alarm needs POSIX")
def test_worker_survives_hangs_and_errors(tmp_path: Path) -> None:
    import json
    import subprocess

    (tmp_path / "nasty.py").write_text(_NASTY_DECOMPILER)
    target = tmp_path / "target.py"
    target.write_text("def spins():\n    return 1\n\ndef fails():\n    return 1\n\ndef fine():\n    return 1\n")
    request = json.dumps({"file": str(target)}) + "\n"
    out = subprocess.run(
        [sys.executable, str(WORKER), "--verify", str(VERIFY_PACKAGE), "--decompiler", "nasty:decompile",
         "--timeout", "1", "--repeat", "1"],
        input=request, capture_output=True, text=True, timeout=60, cwd=str(tmp_path),
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    events = [json.loads(line) for line in out.stdout.splitlines()]
    verdicts = {e["qualname"]: (e["status"], e["detail"]) for e in events if e["event"] == "result"}
    assert verdicts["spins"][0] == "decompile_error" and "more than 1 s" in verdicts["spins"][1]
    assert verdicts["fails"] == ("decompile_error", "ValueError: no")
    assert verdicts["fine"] == ("equal", "")
    assert events[-1] == {"event": "done", "file": str(target)}


_SLOW_FIRST_DECOMPILER = '''
import time
seen = set()
def decompile(code):
    time.sleep(0.001 if id(code) in seen or seen else 0.2)  # (only the very first call is slow)
    seen.add(id(code))
    return "def %s():\\n    return 1" % code.co_name
'''


def _worker_results(tmp_path: Path, decompiler: str, source: str, repeat: int) -> list:
    import json
    import subprocess

    (tmp_path / "probe.py").write_text(decompiler)
    target = tmp_path / "target.py"
    target.write_text(source)
    out = subprocess.run(
        [sys.executable, str(WORKER), "--verify", str(VERIFY_PACKAGE), "--decompiler", "probe:decompile",
         "--repeat", str(repeat)],
        input=json.dumps({"file": str(target)}) + "\n", capture_output=True, text=True, timeout=60,
        cwd=str(tmp_path), env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    return [e for e in map(json.loads, out.stdout.splitlines()) if e["event"] == "result"]


def test_worker_keeps_the_best_of_repeat_runs_of_both_sides(tmp_path: Path) -> None:
    # The first decompile is slow, every later one fast: the best of three is a fast one, on a
    # fresh copy of the code; with one run, the slow one is all there is.
    source = "def f():\n    return 1\n"
    (best,) = _worker_results(tmp_path, _SLOW_FIRST_DECOMPILER, source, repeat=3)
    assert best["status"] == "equal" and best["decompile_s"] < 0.1 and 0 < best["dis_s"] < 0.1
    (single,) = _worker_results(tmp_path, _SLOW_FIRST_DECOMPILER, source, repeat=1)
    assert single["decompile_s"] >= 0.2 and 0 < single["dis_s"] < 0.1


def test_definitions_merged_by_the_canonical_layout_are_not_compared() -> None:
    # The canonical layout puts the dict on one line, where the two equal lambdas compile to one
    # constant: neither can be told apart, and the third would be compared with the second.
    source = 'd = {\n    "a": (lambda x: True),\n    "b": (lambda x: True),\n    "c": (lambda x: x),\n}\ndef f():\n    return 1\n'
    trip = verify.SourceRoundTrip(source, "<s>")
    names = [d.qualname for d in trip.definitions]
    canonical = verify.canonical_compile(source, "<s>")
    merged = sum(isinstance(c, CodeType) and c.co_name == "<lambda>" for c in canonical.co_consts) < 3
    # (whether equal code objects on one line are stored once depends on the interpreter)
    assert names == (["f"] if merged else ["<lambda>", "<lambda>", "<lambda>", "f"])
    f = next(d for d in trip.definitions if d.qualname == "f")
    assert trip.check(f, lambda code: "def f():\n    return 1").status == verify.EQUAL
