"""Two 3.14 layouts Dynamo's transformed code is full of (the seed example met both first):
CALL_FUNCTION_EX always has a kwargs slot (NULL when none), and a constant slice is one
`slice` object in co_consts. Each source must decompile to itself and recompile to the same
bytecode. Runs on 3.14 / 3.15 only (the bytecode of the interpreter running the test).
"""
from __future__ import annotations

import sys

import pytest

from depyf.decompiler.api import decompile

NEW = ((3, 14), (3, 15))
pytestmark = pytest.mark.skipif(sys.version_info[:2] not in NEW, reason="reads 3.14/3.15 bytecode")

SOURCES = [
    "def f(g, a):\n    return g(*a)\n",
    "def f(g, a, k):\n    return g(*a, **k)\n",
    "def f(g, a, k):\n    return g(1, *a, x=2, **k)\n",
    "def f(o, a):\n    return o.m(*a)\n",
    "def f(a):\n    a[0:] = [1]\n    del a[:3]\n    return a[1:2], a[::2], a[-1:], a[:]\n",
    "def f(a):\n    return a[1:2, 3]\n",
    "def f(a, i):\n    return a[i:1]\n",
]


def _function(source: str):
    space: dict = {}
    exec(compile(source, "<sample>", "exec"), space)
    return space["f"]


@pytest.mark.parametrize("source", SOURCES)
def test_round_trip(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPYF_EXPERIMENTAL_VERSIONS", "1")
    fn = _function(source)
    text = decompile(fn)
    assert text.strip() == source.strip()
    assert _function(text).__code__.co_code == fn.__code__.co_code
