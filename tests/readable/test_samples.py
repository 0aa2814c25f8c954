"""The readable view of Dynamo code objects saved by `tests/torch/collect_dynamo_samples.py`
(`tests/decompiler/dynamo_samples/`, one Python version each): no torch needed."""
from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import List

import pytest

import depyf
from depyf.explain.readable import readable_view
from depyf.explain.readable.check import statements_without_effect

SAMPLES = Path(__file__).resolve().parent.parent / "decompiler" / "dynamo_samples"
SUFFIX = ".py%d%d.marshal" % sys.version_info[:2]


def _transformed() -> List[Path]:
    return sorted(p for p in SAMPLES.glob("*_transformed_*" + SUFFIX))


@pytest.mark.skipif(not _transformed(), reason="no Dynamo samples for this Python version")
@pytest.mark.parametrize("path", _transformed(), ids=lambda p: p.name[: -len(SUFFIX)])
def test_view_of_each_sample(path: Path) -> None:
    code = marshal.loads(path.read_bytes())
    view = readable_view(code, code.co_name)
    assert view is not None
    compile(view.text, str(path), "exec")
    exact = depyf.decompile(code, rewritten=True)
    assert statements_without_effect(view.text) == [], view.text
    assert statements_without_effect(exact), "the exact text shows Dynamo's bookkeeping"
    assert _code_lines(view.text) < _code_lines(exact)
    assert "record_pregraph_bytecode_enter(" not in view.text and "[0:0]" not in view.text


def test_the_seed_example_sample() -> None:
    path = SAMPLES / ("toy_transformed_0_toy_example" + SUFFIX)
    if not path.exists():
        pytest.skip("no toy sample for this Python version")
    code = marshal.loads(path.read_bytes())
    long_name = next(name for name in code.co_names if name.startswith("__compiled_fn_"))
    view = readable_view(code, "compiled_code_0", {long_name: "__compiled_fn_0"})
    lines = [line.strip() for line in view.text.splitlines()]
    assert f"# __compiled_fn_0 is the global {long_name}" in lines
    body = [line for line in lines[1:] if not line.startswith("#")]
    assert body[0] == "graph_out_0 = __compiled_fn_0(a, b)"
    assert body[3] == "if __temp_4:" and len(body) == 6
    assert view.aliases == {"__compiled_fn_0": long_name}


def _code_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip() and not line.strip().startswith("#"))
