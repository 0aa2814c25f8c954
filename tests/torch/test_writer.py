"""The dump writer and guard rendering, without compiling anything."""
from __future__ import annotations

import os

import pytest

from depyf.dump.writer import DumpWriter, atomic_write, rank_folder
from depyf.dynamo.guards import guard_function_source, render_part, split_comment


def test_rank_folder(monkeypatch) -> None:
    monkeypatch.delenv("RANK", raising=False)
    assert rank_folder("d", None) == "d"
    assert rank_folder("d", 2) == os.path.join("d", "rank_2")
    monkeypatch.setenv("RANK", "3")
    assert rank_folder("d", None) == os.path.join("d", "rank_3")


def test_prepare_debug_uses_rank_subfolder(tmp_path, monkeypatch) -> None:
    import depyf

    monkeypatch.setenv("RANK", "1")
    with depyf.prepare_debug(str(tmp_path)) as folder:
        pass
    assert folder == os.path.join(str(tmp_path), "rank_1")


def test_write_py_keeps_every_file_valid(tmp_path) -> None:
    writer = DumpWriter(str(tmp_path))
    name = writer.unique_name("x")
    assert name == "x.py" and writer.unique_name("x") == "x_1.py"
    path = writer.write_py(name, "def f(:\n    pass\n")
    text = open(path).read()
    compile(text, path, "exec")
    assert text.startswith("# depyf: this text does not compile")
    atomic_write(path, "y = 1\n")
    assert open(path).read() == "y = 1\n"
    assert [f for f in os.listdir(tmp_path) if f.startswith(".depyf-")] == []


@pytest.mark.parametrize(
    "kind,part,expr,stand_in",
    [
        ("TYPE_MATCH", "___check_type_id(L['d'], 1234), type=<class 'dict'>  # y = d['a']  # f.py:3 in f (HINT: type dict)",
         "___check_type_id(L['d'], 1234)", False),
        ("LAMBDA_GUARD", "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None  # x.py:1",
         "___guard_stand_in('LAMBDA_GUARD')", True),
        ("EQUALS_MATCH", "L['s'] == 'a # b'  # comment", "L['s'] == 'a # b'", False),
        ("NO_TENSOR_ALIASING", "check_no_aliasing(L['a'], L['b'])", "___check_no_aliasing(L['a'], L['b'])", False),
        ("GLOBAL_STATE", '___check_global_state() against {"grad_mode":true}', "___check_global_state({'grad_mode': True})", False),
    ],
)
def test_render_part(kind: str, part: str, expr: str, stand_in: bool) -> None:
    g = render_part(kind, part)
    assert g.expr == expr and g.stand_in == stand_in
    src = guard_function_source("guard_0", [g])
    compile(src, "guard.py", "exec")
    if stand_in:
        assert "top_saved_tensors_hooks ids == None" in src


def test_split_comment() -> None:
    assert split_comment("a == '#'  # c") == ("a == '#'", "c")
    assert split_comment("a == 1") == ("a == 1", "")
