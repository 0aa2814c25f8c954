"""depyf 0.20's decompiler API without torch: Decompiler, supported_opnames,
decompile_and_compile_like, temp_prefix."""
from __future__ import annotations

import ast
import dis
import functools
import json
import sys
import types

import pytest

import depyf
from depyf.compat import rename_temporaries
from depyf.decompiler import DecompilationError


def plain(a, b=2, *args, k, **kw):
    total = a + b + k
    for x in args:
        total += x
    return total, sorted(kw)


def make_closure(base):
    scale = 3

    def closure(x, n):
        acc = [x * scale + base for _ in range(n)]

        def inner():
            return acc

        return len(inner()) + sum(acc)

    return closure


def test_torch_is_not_imported():
    import subprocess

    code = ("import sys, depyf; from depyf import Decompiler; from depyf.decompiler import Decompiler as D; "
            "import depyf.utils; assert D is Decompiler; Decompiler(len.__call__ if False else (lambda: 1)).decompile(); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_decompile_equals_module_decompile():
    assert depyf.Decompiler(plain).decompile() == depyf.decompile(plain)
    assert depyf.Decompiler(plain.__code__).decompile() == depyf.decompile(plain.__code__)


def test_indentation_is_spaces_per_level():
    text = depyf.Decompiler(plain).decompile(indentation=2)
    body = text.splitlines()[1]
    assert body.startswith("  ") and not body.startswith("   ")
    assert ast.dump(ast.parse(text)) == ast.dump(ast.parse(depyf.decompile(plain)))


@pytest.mark.parametrize("keyword", ["overwite_fn_name", "overwrite_fn_name"])
def test_function_name_keyword_both_spellings(keyword):
    text = depyf.Decompiler(plain).decompile(**{keyword: "renamed"})
    assert text.startswith("def renamed(")
    assert depyf.Decompiler(plain).decompile(4, "__temp_", "renamed") == text  # positional, as 0.20


def test_both_spellings_must_agree():
    with pytest.raises(TypeError):
        depyf.Decompiler(plain).decompile(overwite_fn_name="a", overwrite_fn_name="b")


def test_lambda_with_a_name_becomes_a_def():
    f = lambda x, y=1: x * y  # noqa: E731
    text = depyf.Decompiler(f).decompile(overwite_fn_name="named")
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["named"](3, 4) == 12


def test_callables_are_unwrapped_like_0_20():
    class Scale:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x * self.k

    @functools.lru_cache(maxsize=None)
    def cached(x):
        return x + 1

    assert depyf.Decompiler(Scale(2)).code is Scale.__call__.__code__
    assert depyf.Decompiler(cached).code is cached.__wrapped__.__code__
    assert depyf.Decompiler(functools.partial(plain, 1)).code is plain.__code__
    assert "self.k" in depyf.Decompiler(Scale(2)).decompile()


def test_equality_is_by_code_object():
    assert depyf.Decompiler(plain) == depyf.Decompiler(plain.__code__)
    assert hash(depyf.Decompiler(plain)) == hash(depyf.Decompiler(plain.__code__))
    assert depyf.Decompiler(plain) != depyf.Decompiler(make_closure)


def test_errors_are_decompilation_errors():
    with pytest.raises(DecompilationError):
        depyf.Decompiler(len).decompile()


def test_supported_opnames_cover_what_the_decompiler_reads():
    names = depyf.Decompiler.supported_opnames()
    assert names == depyf.compat.supported_opnames()
    assert set(names) <= set(dis.opname)
    assert not [n for n in names if n.startswith("INSTRUMENTED_")]
    # every instruction of functions that decompile is listed
    used = set()
    for module in (json.decoder, ast, functools):
        for value in vars(module).values():
            if isinstance(value, types.FunctionType) and value.__module__ == module.__name__:
                try:
                    depyf.decompile(value)
                except DecompilationError:
                    continue
                used.update(ins.opname for ins in dis.get_instructions(value))
    assert used and used <= set(names), sorted(used - set(names))


# -- temp_prefix -----------------------------------------------------------------------------------


def test_rename_temporaries_renames_names_only():
    src = "__temp_0 = f()\nx = __temp_0 + g('__temp_0')\n"
    out = rename_temporaries(src, "tmp")
    assert out == "tmp0 = f()\nx = tmp0 + g('__temp_0')\n"


def test_rename_temporaries_inside_fstrings():
    out = rename_temporaries("__temp_3 = 1\ny = f'{__temp_3!r}'\n", "t_")
    namespace: dict = {}
    exec(out, namespace)
    assert namespace["y"] == "1" and "__temp_3" not in out


def test_rename_temporaries_never_captures_an_existing_name():
    out = rename_temporaries("tmp0 = 5\n__temp_0 = 7\nr = tmp0 + __temp_0\n", "tmp")
    namespace: dict = {}
    exec(out, namespace)
    assert namespace["r"] == 12


def test_rename_temporaries_default_prefix_is_unchanged():
    assert rename_temporaries("__temp_1 = 2\n", "__temp_") == "__temp_1 = 2\n"
    with pytest.raises(ValueError):
        rename_temporaries("__temp_1 = 2\n", "1bad")


# -- decompile_and_compile_like ----------------------------------------------------------------------


def _as_function(code: types.CodeType, like: types.FunctionType) -> types.FunctionType:
    return types.FunctionType(code, like.__globals__, code.co_name, like.__defaults__, like.__closure__)


def test_compile_like_a_closure_with_cells_and_nested_functions():
    f = make_closure(10)
    ref = f.__code__
    new = depyf.decompile_and_compile_like(ref, ref)
    assert (new.co_name, new.co_argcount, new.co_kwonlyargcount) == (ref.co_name, ref.co_argcount, ref.co_kwonlyargcount)
    assert new.co_freevars == ref.co_freevars and new.co_cellvars == ref.co_cellvars
    assert new.co_varnames[: len(ref.co_varnames)] == ref.co_varnames
    assert getattr(new, "co_qualname", None) == getattr(ref, "co_qualname", None)
    g = _as_function(new, f)
    assert [g(x, n) for x in range(3) for n in range(3)] == [f(x, n) for x in range(3) for n in range(3)]


def test_compile_like_adds_locals_cells_and_free_variables_the_text_lacks():
    """A reference whose layout has more than the decompiled code uses (as Dynamo's hooks see:
    the original function keeps every local, cell and free variable)."""

    def outer():
        unused_free = 1
        used_free = 2

        def reference(a, b):
            c = a + used_free
            d = [lambda: c, unused_free]
            return d

        def smaller(a, b):
            return a + b

        return reference, smaller

    reference, smaller = outer()
    new = depyf.decompile_and_compile_like(smaller.__code__, reference.__code__)
    assert new.co_freevars == reference.__code__.co_freevars
    assert new.co_cellvars == reference.__code__.co_cellvars
    assert new.co_varnames[: len(reference.__code__.co_varnames)] == reference.__code__.co_varnames
    g = types.FunctionType(new, globals(), "g", None, reference.__closure__)
    assert g(2, 5) == 7


def test_compile_like_gives_reference_name_even_when_not_an_identifier():
    def f(x):
        return x + 1

    ref = f.__code__.replace(co_name="<resume in f>")
    new = depyf.decompile_and_compile_like(f.__code__, ref)
    assert new.co_name == "<resume in f>"
    assert types.FunctionType(new, globals())(1) == 2


def test_compile_like_puts_back_constants_no_literal_writes():
    sentinel = object()
    table = {"module": types}

    def f(x):
        return (x, "SENTINEL", "TABLE")

    code = f.__code__
    code = code.replace(co_consts=tuple(sentinel if c == "SENTINEL" else table if c == "TABLE" else c
                                        for c in code.co_consts))
    new = depyf.decompile_and_compile_like(code, code)
    x, got_sentinel, got_table = types.FunctionType(new, globals())(5)
    assert x == 5 and got_sentinel is sentinel and got_table is table


def test_compile_like_writes_folded_slices_back_without_warnings():
    # 3.14 folds a constant subscript index into one slice (or tuple) constant: written back as
    # the subscript, never as a placeholder string (`[a][...]` by a string: a SyntaxWarning).
    def f(a, b):
        a[0:] = [1]
        return [a, b][1:], (a, b)[:1], f"{a}"[::2], a[1:2, 3]

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = depyf.decompile_and_compile_like(f.__code__, f.__code__)
    assert new.co_code == f.__code__.co_code and new.co_consts == f.__code__.co_consts


def test_folded_slices_have_a_source_form_unlike_other_slices():
    from depyf.decompiler.printer import has_literal_form, has_source_form

    assert has_source_form(slice(1, 2, None)) and has_source_form((slice(None, 2, -1), 3, "k"))
    assert not has_literal_form(slice(1, 2, None))  # (its repr needs the name `slice`)
    assert not has_source_form(slice(object(), None, None))
    assert not has_source_form((slice(1, 2, None), object()))
    assert not has_source_form(((slice(1, 2, None),), 1))  # (no subscript writes a nested one)


def test_compile_like_writes_the_first_free_or_identical_file(tmp_path):
    template = str(tmp_path / "__transformed_code_%s_for_f.py")

    def f(x):
        return x * 2

    def g(x):
        return x * 3

    first = depyf.decompile_and_compile_like(f.__code__, f.__code__, filepath_template=template)
    again = depyf.decompile_and_compile_like(f.__code__, f.__code__, filepath_template=template)
    other = depyf.decompile_and_compile_like(g.__code__, g.__code__, filepath_template=template)
    assert first.co_filename == again.co_filename == template % 0
    assert other.co_filename == template % 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["__transformed_code_0_for_f.py", "__transformed_code_1_for_f.py"]
    text = (tmp_path / "__transformed_code_1_for_f.py").read_text()
    assert text.startswith("def __transformed_code_1_for_f(x):")
    compile(text, "x", "exec")
    assert types.FunctionType(other, globals())(2) == 6 and other.co_name == "g"


def test_compile_like_without_a_file_keeps_source_for_tracebacks():
    import linecache
    import traceback

    def f(x):
        return 1 / x

    new = depyf.decompile_and_compile_like(f.__code__, f.__code__)
    with pytest.raises(ZeroDivisionError) as info:
        types.FunctionType(new, globals())(0)
    last = traceback.extract_tb(info.tb)[-1]
    assert last.filename == new.co_filename and "1 / x" in linecache.getline(last.filename, last.lineno)


def test_compile_like_temp_prefix_and_indentation():
    new = depyf.Decompiler.decompile_and_compile_like(plain.__code__, plain.__code__, indentation=8, temp_prefix="t")
    g = types.FunctionType(new, globals(), "g", plain.__defaults__)
    g.__kwdefaults__ = plain.__kwdefaults__
    assert g(1, 2, 3, 4, k=5, z=1) == plain(1, 2, 3, 4, k=5, z=1)
