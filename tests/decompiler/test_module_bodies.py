"""Whole modules of the newest syntax, decompiled as one code object and compiled back.

`test_roundtrip` compares functions and methods; what only a module or class body holds (3.14's
deferred annotations of module and class bodies: where each annotated assignment stands, the
generated `__annotate__` functions, the `__conditional_annotations__` bookkeeping) is compared
here: the decompiled module, compiled in the canonical layout, must be bytecode-equal to the
original file's, every nested code object included.
"""
from pathlib import Path
from typing import List

import pytest

from depyf import verify

from . import support

# corpus files from this version on: their module bodies hold syntax of 3.14 and later
_FROM = (3, 14)


def _files() -> List[Path]:
    return [p for p in support.corpus_files() if support.min_version(p) >= _FROM]


@pytest.mark.skipif(support.VERSION < _FROM, reason="the syntax needs Python 3.14")
@pytest.mark.parametrize("path", _files(), ids=lambda p: p.stem if isinstance(p, Path) else str(p))
def test_module_body_roundtrip(path: Path) -> None:
    import depyf

    source = path.read_text(encoding="utf-8")
    original = verify.canonical_compile(source, str(path))
    with support.deadline(30, "decompile"):
        text = depyf.decompile(compile(source, str(path), "exec", dont_inherit=True))
    difference = verify.compare_code(original, verify.canonical_compile(text, str(path)))
    assert difference is None, f"{difference}\n--- decompiled ---\n{text}"
