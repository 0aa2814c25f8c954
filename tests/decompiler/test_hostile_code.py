"""Code objects no compiler makes, reduced from what the mutation fuzzer (tools/fuzz_hostile.py)
and issue 23 found: each is refused with a `DecompilationError` that says why, never an
exception from inside, never made-up source; on_error="comment" always gives text that compiles,
and no name from the code object ever becomes a line of code."""
import ast
import dis
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import depyf
from depyf.decompiler.code_check import comment_text, raw_code_problem, safe_identifier
from depyf.decompiler.versions import host, host_is

SRC = Path(__file__).resolve().parents[2] / "src"
INJECTED = "depyf_injected"


def _function(source: str, name: str = "f") -> types.CodeType:
    module = compile(textwrap.dedent(source), "<hostile>", "exec", dont_inherit=True)
    return next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _with_instruction(code: types.CodeType, opname: str, argval: object, new_op: str, new_arg: int = 0) -> types.CodeType:
    """`code` with its first `opname` instruction whose argument is `argval` replaced."""
    raw = bytearray(code.co_code)
    found = [i.offset for i in dis.get_instructions(code) if i.opname == opname and i.argval == argval]
    if not found:  # (3.14 spells some anew, LOAD_FAST_BORROW, LOAD_SMALL_INT: the decoder's names)
        from depyf.decompiler.instructions import decode

        found = [i.offset for i in decode(code, host()).instrs if i.opname == opname and i.argval == argval]
    offset = found[0]
    raw[offset], raw[offset + 1] = dis.opmap[new_op], new_arg
    return code.replace(co_code=bytes(raw))


def _refused(code: types.CodeType, *reasons: str) -> None:
    """Both modes: raise names one of `reasons`, comment gives compiling text that shows it."""
    with pytest.raises(depyf.DecompilationError) as info:
        depyf.decompile(code)
    assert not info.value.internal, info.value
    assert any(reason in info.value.reason for reason in reasons), info.value
    text = depyf.decompile(code, on_error="comment")
    compile(text, "<comment>", "exec", dont_inherit=True)
    assert "depyf could not decompile" in text
    assert not _injected(text), text


def _injected(text: str) -> bool:
    """Did the marker become code: a name, an attribute, an import? (In a comment, a string or
    an identifier made from the hostile one, it is harmless.)"""
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(INJECTED in a.name for a in node.names):
            return True
        if isinstance(node, ast.Name) and node.id == INJECTED:
            return True
    return False


# --- internal exceptions that escaped before ------------------------------------------------

def test_for_loop_over_nothing_is_a_stack_error() -> None:
    code = _with_instruction(_function("def f(y):\n    for x in y:\n        pass\n"), "LOAD_FAST", "y", "NOP")
    _refused(code, "stack does not match")


def test_import_level_that_is_not_an_int() -> None:
    code = _function("def f():\n    from . import a\n    return a\n")
    code = code.replace(co_consts=code.co_consts + ((1, 2),))
    code = _with_instruction(code, "LOAD_CONST", 1, "LOAD_CONST", len(code.co_consts) - 1)
    _refused(code, "import whose level or names")


def test_function_made_of_bytes() -> None:
    code = _function("def f():\n    def g():\n        pass\n    return g\n")
    code = code.replace(co_consts=tuple(b"x" if isinstance(c, types.CodeType) else c for c in code.co_consts))
    _refused(code, "not code")


def test_fstring_part_that_is_not_formatted() -> None:
    code = _function("def f(x, y):\n    return f'{x}{y}'\n")
    formats = [i for i in dis.get_instructions(code) if i.opname in ("FORMAT_VALUE", "FORMAT_SIMPLE")]
    raw = bytearray(code.co_code)
    raw[formats[1].offset], raw[formats[1].offset + 1] = dis.opmap["NOP"], 0
    # (once an AttributeError from the printer; the reader now formats such a piece as itself,
    # as BUILD_STRING joins strings: Dynamo's resume functions pass f-string pieces that way)
    text = depyf.decompile(code.replace(co_code=bytes(raw)))
    compile(text, "<fstring>", "exec", dont_inherit=True)
    assert "{y}" in text, text


def test_async_generator_flag_over_a_returning_function() -> None:
    code = _function("def f(x):\n    return x + 1\n")
    _refused(code.replace(co_flags=code.co_flags | 0x200), "async generator that returns a value")


def test_two_kinds_of_function_at_once() -> None:
    code = _function("def f(x):\n    yield x\n")
    _refused(code.replace(co_flags=code.co_flags | 0x80), "two kinds of function")


def test_repeated_keyword_argument() -> None:
    code = _function("def f(g):\n    return g(a=1, b=2)\n")
    kwnames = next(c for c in code.co_consts if c == ("a", "b"))
    consts = tuple(("a", "a") if c is kwnames else c for c in code.co_consts)
    _refused(code.replace(co_consts=consts), "keyword argument twice")


def test_an_internal_error_is_a_decompilation_error_with_its_cause(monkeypatch) -> None:
    from depyf.decompiler import api

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(api.Decompiler, "definition_text", broken)
    with pytest.raises(depyf.DecompilationError) as info:
        depyf.decompile(_function("def f(x):\n    return x\n"))
    assert info.value.internal and isinstance(info.value.__cause__, ZeroDivisionError)
    text = depyf.decompile(_function("def f(x):\n    return x\n"), on_error="comment")
    compile(text, "<comment>", "exec", dont_inherit=True)
    assert "internal error: ZeroDivisionError" in text


# --- names no source could have ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["x\rimport " + INJECTED, "x\nimport " + INJECTED, "x\r\nimport " + INJECTED,
                                  "x\x0cimport " + INJECTED, "a\0b", "9abc", "if", "print(1)#", "a b", ""])
@pytest.mark.parametrize("table", ["co_names", "co_varnames"])
def test_names_that_source_cannot_spell(name: str, table: str) -> None:
    code = _function("def f(a):\n    return a + g\n")
    tables = {"co_names": ("g",), "co_varnames": ("a",)}
    old = tables[table][0]
    code = code.replace(**{table: tuple(name if n == old else n for n in getattr(code, table))})
    _refused(code, "cannot be written in source")


def test_duplicate_parameters() -> None:
    code = _function("def f(a, b):\n    return a + b\n")
    _refused(code.replace(co_varnames=("a", "a")), "cannot be written in source")


@pytest.mark.parametrize("name", ["x\rimport " + INJECTED, "9abc", "lambda", "<lambda>", "<genexpr>", "a\0"])
def test_function_names_in_the_fallback(name: str) -> None:
    """A code object that fails, whatever its name: the fallback's `def` line is valid."""
    code = _function("def f(y):\n    for x in y:\n        pass\n")
    code = _with_instruction(code, "LOAD_FAST", "y", "NOP")
    changes = {"co_name": name}
    if hasattr(code, "co_qualname"):
        changes["co_qualname"] = name
    code = code.replace(**changes)
    for given in (None, name):
        text = depyf.decompile(code, on_error="comment", name=given)
        compile(text, "<comment>", "exec", dont_inherit=True)
        assert not _injected(text), text


def test_lambda_and_genexpr_fallbacks_compile() -> None:
    module = compile("f = lambda x: [y for y in x]\ng = (z for z in range(3))\n", "<m>", "exec")
    for code in [c for c in module.co_consts if isinstance(c, types.CodeType)]:
        broken = code.replace(co_code=code.co_code[:2])  # (cut after the first instruction)
        text = depyf.decompile(broken, on_error="comment")
        compile(text, "<comment>", "exec", dont_inherit=True)
        assert "depyf could not decompile" in text


def test_class_named_by_a_hostile_constant() -> None:
    module = compile("class C:\n    pass\n", "<m>", "exec")
    consts = tuple("x\rimport " + INJECTED if c == "C" else c for c in module.co_consts)
    _refused(module.replace(co_consts=consts), "")  # (the class construct is not read: any reason)


def test_helpers() -> None:
    assert safe_identifier("<lambda>") == "lambda_"
    assert safe_identifier("9abc") == "_9abc"
    assert safe_identifier("if") == "if_"
    assert safe_identifier("x\rimport os") == "x_import_os"
    assert safe_identifier("") == "_"
    assert comment_text("a\rb\nc\0d\u2028") == "a\\rb\\nc\\x00d\\u2028"
    assert comment_text("plain") == "plain"


# --- the last instruction without its inline caches (CPython crashes reading such co_code) ----

_CACHES_CHILD = r"""
import dis, sys
sys.path.insert(0, sys.argv[1])
import depyf
def f(x):
    return x.y
code = f.__code__
raw = bytes(code._co_code_adaptive)
code = code.replace(co_code=raw[:-2] + bytes([dis.opmap["LOAD_ATTR"], 0]))
for mode in ("raise", "comment"):
    try:
        text = depyf.decompile(code, on_error=mode)
        compile(text, "<comment>", "exec")
        print(mode, "text", "inline caches" in text)
    except depyf.DecompilationError as e:
        print(mode, "error", "inline caches" in e.reason)
"""


@pytest.mark.skipif(not host().has_inline_caches, reason="inline caches exist from 3.11")
def test_last_instruction_without_its_caches_is_refused_before_reading_it() -> None:
    child = subprocess.run([sys.executable, "-c", _CACHES_CHILD, str(SRC)], capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.split("\n")[:2] == ["raise error True", "comment text True"], child.stdout


@pytest.mark.skipif(not host().has_inline_caches, reason="inline caches exist from 3.11")
def test_raw_bytecode_check() -> None:
    code = _function("def f(x):\n    return x.y\n")
    assert raw_code_problem(code.co_code, host()) is None
    load_attr = bytes([dis.opmap["LOAD_ATTR"], 0])
    assert "inline caches" in raw_code_problem(code.co_code[:-2] + load_attr, host())
    assert "odd length" in raw_code_problem(code.co_code + b"\0", host())
    if host_is((3, 12)):  # (an instrumented opcode makes CPython read monitoring data)
        instrumented = bytes([dis.opmap["INSTRUMENTED_LINE"] if "INSTRUMENTED_LINE" in dis.opmap else 254, 0])
        assert "unknown opcode" in raw_code_problem(instrumented + code.co_code[2:], host())


def test_class_objects_with_names_no_source_makes() -> None:
    """A class object's names are whatever `setattr` or `type()` was given."""
    cls = type("C", (), {"x\rimport " + INJECTED: 1, "y": 2, "m": lambda self: 1})
    text = depyf.decompile(cls)
    compile(text, "<class>", "exec", dont_inherit=True)
    assert not _injected(text) and "y = 2" in text and "def m(self):" in text
    for bad in ("9C", "x\nimport " + INJECTED, "class"):
        _refused(type(bad, (), {}), "cannot be written in source")


def test_free_variable_its_definer_lacks() -> None:
    """(from the .pyc fuzzer: a flipped bit in `co_localspluskinds` made a local free, and the
    module-level function was printed with `nonlocal b`, which does not compile)"""
    module = compile("def outer():\n    b = 1\n    def f():\n        return b\n    return f\n", "<m>", "exec")
    outer = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    f = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    renamed = f.replace(co_freevars=("zz",), co_names=f.co_names)
    consts = tuple(renamed if c is f else c for c in outer.co_consts)
    _refused(outer.replace(co_consts=consts), "free variables its definer does not have")


def test_comprehension_that_uses_its_iterator_twice() -> None:
    """(from the code fuzzer: a listcomp calling `.0` printed `.0(...)` as if source had it)"""
    module = compile("f = lambda a: [x for x in a]\n", "<m>", "exec")
    lam = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    comp = next((c for c in lam.co_consts if isinstance(c, types.CodeType) and c.co_name.startswith("<")), None)
    if comp is None:
        pytest.skip("comprehensions are inlined on this Python")
    bad = _with_instruction(comp, "LOAD_FAST", "x", "LOAD_FAST", comp.co_varnames.index(".0"))
    _refused(bad, "iterator twice")


def test_await_outside_a_coroutine() -> None:
    """(from the code fuzzer, 3.13: GET_AWAITABLE in a plain function printed `await`)"""
    code = _function("async def f(x):\n    return await x\n")
    # (the await's own yield is seen first from 3.11: either reason says it)
    _refused(code.replace(co_flags=code.co_flags & ~0x80), "outside a coroutine", "not a generator")


@pytest.mark.parametrize("body", ["yield x", "yield from x"])
def test_yield_in_code_that_is_not_a_generator(body: str) -> None:
    """(from the .pyc fuzzer, 3.13: module code with a yield printed `yield from` at top level)"""
    code = _function(f"def f(x):\n    {body}\n")
    _refused(code.replace(co_flags=code.co_flags & ~0x20), "not a generator")


def test_module_code_that_returns_a_value() -> None:
    module = compile("x = 1\n", "<m>", "exec")
    raw = bytearray(module.co_code)
    # the module's implicit `return None` returns `x`'s constant instead: index of 1 in co_consts
    consts = module.co_consts
    if None not in consts or 1 not in consts:
        pytest.skip("no separate None constant to swap")
    ins = [i for i in dis.get_instructions(module) if i.opname in ("LOAD_CONST", "RETURN_CONST") and i.argval is None]
    if not ins:
        pytest.skip("no None load")
    raw[ins[-1].offset + 1] = consts.index(1)
    _refused(module.replace(co_code=bytes(raw)), "returns a value")
