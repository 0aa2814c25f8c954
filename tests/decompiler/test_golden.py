"""Readability: the decompiled text of a few representative definitions, exactly.

Expected texts live in golden/<file>.<qualname>.py, or golden/<X.Y>/... where a Python version
legitimately prints differently. `DEPYF_UPDATE_GOLDEN=1` rewrites them from the current output
(into the common file when there is none yet or the output matches it, else into the version's
folder); review the diff before committing.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, List

import pytest

from . import support
from .known_gaps import param

GOLDEN_DIR = support.HERE / "golden"
UPDATE = os.environ.get("DEPYF_UPDATE_GOLDEN") == "1"

# (corpus file, qualname): one per theme, chosen to show the printer's choices
REPRESENTATIVES = [
    ("expressions", "precedence_minimal_parens"),
    ("expressions", "boolean_shapes"),
    ("expressions", "slices"),
    ("statements", "import_forms"),
    ("statements", "augmented_targets"),
    ("control_flow", "nested_loops_with_else"),
    ("exceptions", "try_except_else_finally"),
    ("exceptions", "try_in_loop_in_try"),
    ("exceptions", "bare_except_pass_at_end"),
    ("with_async", "async_with_items"),
    ("comprehensions", "list_comprehensions"),
    ("fstrings", "fstring_basics"),
    ("definitions", "everything"),
    ("definitions", "docstring_then_code"),
    ("classes", "Counter"),
]


def lookup(file: str, qualname: str) -> Any:
    obj: Any = support.load_corpus_module(support.corpus_file(file))
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def golden_paths(file: str, qualname: str) -> List[Path]:
    """Where the expected text may live, most specific first."""
    name = f"{file}.{qualname}.py"
    return [GOLDEN_DIR / support.VERSION_KEY / name, GOLDEN_DIR / name]


def _update(paths: List[Path], text: str) -> None:
    specific, common = paths
    if not common.exists() or common.read_text(encoding="utf-8") == text:
        common.write_text(text, encoding="utf-8")
        if specific.exists():
            specific.unlink()
    else:
        specific.parent.mkdir(exist_ok=True)
        specific.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("file, qualname", [param(f"{f}::{q}", f, q) for f, q in REPRESENTATIVES])
def test_golden(file: str, qualname: str) -> None:
    import depyf

    with support.deadline(10, "decompile"):
        text = depyf.decompile(lookup(file, qualname))
    if not text.endswith("\n"):
        text += "\n"
    paths = golden_paths(file, qualname)
    if UPDATE:
        _update(paths, text)
    expected_path = next((p for p in paths if p.exists()), None)
    assert expected_path is not None, f"no golden file; run with DEPYF_UPDATE_GOLDEN=1 and review:\n{text}"
    expected = expected_path.read_text(encoding="utf-8")
    assert text == expected, f"differs from {expected_path.relative_to(support.HERE)}"
