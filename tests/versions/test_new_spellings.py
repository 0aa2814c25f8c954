"""3.14 and 3.15 spell some old instructions anew; the decoder reads them in the old vocabulary.

The table checks run on any interpreter; the decoding checks on the interpreter whose bytecode
they read (run the suite on 3.14 / 3.15 for them).
"""
from __future__ import annotations

import sys
from typing import List, Tuple

import pytest

from depyf.decompiler.instructions import decode
from depyf.decompiler.opcode_tables import TABLES
from depyf.decompiler.versions import for_key

NEW = ((3, 14), (3, 15))
on_new_python = pytest.mark.skipif(sys.version_info[:2] not in NEW, reason="reads 3.14/3.15 bytecode")


@pytest.mark.parametrize("key", NEW, ids=lambda k: "%d.%d" % k)
def test_tables_name_the_new_argument_tables(key: Tuple[int, int]) -> None:
    table = TABLES[key]
    assert table["special_methods"][:2] == ["__enter__", "__exit__"]
    assert table["common_constants"][0] == ["builtin", "AssertionError"]
    assert [name for name, _ in table["nb_ops"]][-1] == "NB_SUBSCR"
    # END_ASYNC_FOR's argument points back at its END_SEND for monitoring: not a jump
    assert "END_ASYNC_FOR" not in table["hasjrel"]


def _decoded(source: str, monkeypatch: pytest.MonkeyPatch) -> List[Tuple[str, object]]:
    """The decoded instructions of the one function `source` defines (compiled here: pytest
    rewrites the asserts of its test modules)."""
    monkeypatch.setenv("DEPYF_EXPERIMENTAL_VERSIONS", "1")
    version = for_key(sys.version_info[:2])
    code = next(c for c in compile(source, "<sample>", "exec").co_consts if hasattr(c, "co_code"))
    return [(i.opname, i.argval) for i in decode(code, version).instrs]


_SAMPLE = """
def f(a, b):
    assert a
    for x in b:
        a = a[x] + b[1:2] + 300
    return a, b
"""


@on_new_python
def test_new_spellings_decode_to_the_old_names(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _decoded(_SAMPLE, monkeypatch)
    names = {name for name, _ in seen}
    assert not names & {"LOAD_FAST_BORROW", "LOAD_FAST_BORROW_LOAD_FAST_BORROW", "LOAD_SMALL_INT",
                        "NOT_TAKEN", "POP_ITER", "LOAD_COMMON_CONSTANT"}
    assert "LOAD_ASSERTION_ERROR" in names
    assert ("LOAD_CONST", 300) in seen  # (too big for LOAD_SMALL_INT: a real constant)
    assert [name for name, _ in seen].count("BINARY_SUBSCR") == 2  # (a[x] and the folded b[1:2])
    assert ("LOAD_CONST", slice(1, 2, None)) in seen
    assert ("LOAD_FAST", "a") in seen and ("LOAD_FAST", "b") in seen


_WITH = """
def f(m):
    with m as v:
        return v
"""


@on_new_python
def test_load_special_names_its_method(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _decoded(_WITH, monkeypatch)
    assert [argval for name, argval in seen if name == "LOAD_SPECIAL"] == ["__exit__", "__enter__"]


@pytest.mark.parametrize("key", NEW, ids=lambda k: "%d.%d" % k)
def test_versions_with_tables_can_be_switched_on(key: Tuple[int, int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPYF_EXPERIMENTAL_VERSIONS", "1")
    assert for_key(key).key == key
    assert for_key(key).has_load_assertion_error
