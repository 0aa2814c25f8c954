"""The torch-free usage examples of depyf 0.20's README and documentation, run unchanged.

Each example is the documented call sequence, written here from the documented API, run as a
script in a fresh folder; what the documentation says it shows is checked on what it printed.
"""
from __future__ import annotations

import ast
import runpy
import textwrap

GENERAL_USAGE = '''
# obtain a callable object or codeobject
def func():
    print("hello, world!")
# import the `decompile` function
from depyf import decompile
# and decompile it into source code!
print(decompile(func))
'''

DATACLASS = '''
from dataclasses import dataclass
@dataclass
class Data:
    x: int
    y: float

import depyf
print(depyf.decompile(Data.__init__))
print(depyf.decompile(Data.__eq__))
'''

DECOMPILER_CLASS = '''
import depyf
def f(a, b):
    return a + b
print(depyf.Decompiler(f.__code__).decompile(overwite_fn_name="g"))
print(len(depyf.Decompiler.supported_opnames()) > 50)
'''


def run_example(tmp_path, monkeypatch, capsys, source: str) -> str:
    path = tmp_path / "example.py"
    path.write_text(textwrap.dedent(source))
    monkeypatch.chdir(tmp_path)
    runpy.run_path(str(path), run_name="__main__")
    return capsys.readouterr().out


def definitions(text: str) -> dict:
    """The functions a printed text defines, by name (their code is compiled, not run)."""
    tree = ast.parse(text)
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_general_usage(tmp_path, monkeypatch, capsys):
    out = run_example(tmp_path, monkeypatch, capsys, GENERAL_USAGE)
    namespace: dict = {}
    exec(out, namespace)
    namespace["func"]()
    assert capsys.readouterr().out == "hello, world!\n"


def test_dataclass_methods(tmp_path, monkeypatch, capsys):
    out = run_example(tmp_path, monkeypatch, capsys, DATACLASS)
    defs = definitions(out)
    assert set(defs) >= {"__init__", "__eq__"}
    namespace: dict = {}
    exec(out, namespace)

    class Data:
        pass

    d, same, other = Data(), Data(), Data()
    namespace["__init__"](d, 1, 2.0)
    namespace["__init__"](same, 1, 2.0)
    namespace["__init__"](other, 1, 3.0)
    assert (d.x, d.y) == (1, 2.0)
    assert namespace["__eq__"](d, same) is True and namespace["__eq__"](d, other) is False
    assert namespace["__eq__"](d, 5) is NotImplemented


def test_decompiler_class(tmp_path, monkeypatch, capsys):
    out = run_example(tmp_path, monkeypatch, capsys, DECOMPILER_CLASS)
    text, flag = out.rsplit("\n", 2)[0], out.strip().splitlines()[-1]
    namespace: dict = {}
    exec(text, namespace)
    assert namespace["g"](2, 3) == 5 and flag == "True"

