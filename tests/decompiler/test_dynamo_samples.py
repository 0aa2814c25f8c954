"""Code objects Dynamo made (``dynamo_samples/``, see its README): bytecode no source compiles to.

Each sample must decompile to text that compiles, and reading it as tool-made code from the start
(``rewritten=True``, what the dump does with transformed code) must give the same text as the
automatic reading, which first tries to read it as source.
"""
from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import List

import pytest

import depyf

SAMPLES = Path(__file__).resolve().parent / "dynamo_samples"
SUFFIX = ".py%d%d.marshal" % sys.version_info[:2]


def _samples() -> List[Path]:
    return sorted(SAMPLES.glob("*" + SUFFIX))


def _load(path: Path):
    return marshal.loads(path.read_bytes())


@pytest.mark.skipif(not _samples(), reason=f"no Dynamo samples for Python {sys.version_info[0]}.{sys.version_info[1]}")
@pytest.mark.parametrize("path", _samples(), ids=lambda p: p.name[: -len(SUFFIX)])
def test_dynamo_code_decompiles_to_compilable_text(path: Path) -> None:
    code = _load(path)
    text = depyf.decompile(code)
    compile(text, str(path), "exec")
    rewritten = depyf.decompile(code, rewritten=True)
    compile(rewritten, str(path), "exec")
    if "_transformed_" in path.name:
        assert rewritten == text
    else:
        # Resume functions start with code that drops a value it was given (`___stack0`); read as
        # tool-made code, that dropped name is not written out as a statement.
        assert [line for line in text.splitlines() if line.strip() != "___stack0"] == rewritten.splitlines()


def test_rewritten_leaves_source_shaped_code_alone() -> None:
    def source_shaped(x, ys):
        total = 0
        for y in ys:
            if y > x:
                total += y
        return total

    assert depyf.decompile(source_shaped, rewritten=True) == depyf.decompile(source_shaped)
