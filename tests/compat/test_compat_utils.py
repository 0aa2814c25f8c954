"""depyf.utils, as depyf 0.20 users call it."""
from __future__ import annotations

import functools
import multiprocessing
import os
import types

import pytest

from depyf import utils


def target(a, b, /, c, *args, d, **kwargs):
    def inner():
        return [x for x in args]

    return inner


class Owner:
    def method(self):
        return 1

    def __call__(self, x):
        return x


def test_get_function_signature():
    assert utils.get_function_signature(target.__code__) == "def target(a, b, /, c, *args, d, **kwargs):\n"
    assert utils.get_function_signature(target.__code__, "renamed").startswith("def renamed(")
    assert utils.get_function_signature(target.__code__, overwrite_fn_name="r2").startswith("def r2(")
    lam = (lambda x: x).__code__
    header = utils.get_function_signature(lam)
    compile(header + "    pass\n", "h", "exec")  # `<lambda>` is made an identifier


def test_get_function_signature_of_a_comprehension_names_its_argument():
    comps = [c for c in utils.collect_all_code_objects(target.__code__) if c.co_varnames[:1] == (".0",)]
    if not comps:
        pytest.skip("this Python inlines comprehensions (PEP 709)")
    assert utils.get_function_signature(comps[0]).startswith(f"def {comps[0].co_name.strip('<>')}(comp_arg_0")


def test_collect_all_code_objects_is_depth_first_parent_first():
    codes = utils.collect_all_code_objects(target.__code__)
    assert codes[0] is target.__code__
    assert codes[1].co_name == "inner"
    names = [c.co_name for c in codes]
    assert len(set(map(id, codes))) == len(codes)
    # every nested code object is found, and comes after the one holding it
    for k, code in enumerate(codes):
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                assert any(c is const for c in codes[k + 1:]), names


def _make(path):
    utils.safe_create_directory(path)
    return os.path.isdir(path)


def test_safe_create_directory(tmp_path):
    path = str(tmp_path / "a" / "b")
    utils.safe_create_directory(path)
    utils.safe_create_directory(path)  # again: fine
    assert os.path.isdir(path)
    racing = str(tmp_path / "race" / "x")
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        assert all(pool.map(_make, [racing] * 6))
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError):
        utils.safe_create_directory(str(blocker))


def test_get_code_owner_finds_the_writable_code():
    obj = Owner()
    assert utils.get_code_owner(obj.method) is Owner.method
    assert utils.get_code_owner(obj) is Owner.__call__

    @functools.lru_cache(maxsize=None)
    def cached(x):
        return x

    assert utils.get_code_owner(cached) is cached.__wrapped__
    assert utils.get_code_owner(functools.partial(target, 1)) is target
    owner = utils.get_code_owner(obj.method)
    owner.__code__ = owner.__code__  # settable, as 0.20's users rely on
    assert utils.get_code_owner(target) is target


def test_decompile_ensure():
    text = utils.decompile_ensure(target.__code__)
    assert text.startswith("def target(")
    assert utils.decompile_ensure(target, "named").startswith("def named(")
    fallback = utils.decompile_ensure(len)
    assert "'Failed to decompile.'" in fallback
    compile(fallback, "f", "exec")
    import dis

    broken = target.__code__.replace(co_code=bytes([dis.opmap["RETURN_VALUE"], 0]))  # returns nothing
    text = utils.decompile_ensure(broken, "broken")
    assert text == utils.get_function_signature(broken, "broken") + "    'Failed to decompile.'\n"
