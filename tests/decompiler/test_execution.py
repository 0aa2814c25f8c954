"""Execution check: the decompiled text of each corpus definition with `@cases` inputs, executed
in (a copy of) its module's globals, behaves like the original on those inputs."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from . import support
from .execution import DecompileFailed, execution_mismatches, params

def _decompile(obj: Any) -> str:
    text = support.cached_decompile(obj)
    _decompile.last = text  # type: ignore[attr-defined]
    return text


@pytest.mark.parametrize("path, index", params())
def test_execution(path: Path, index: int) -> None:
    _decompile.last = "<none>"  # type: ignore[attr-defined]
    try:
        problems = execution_mismatches(path, index, _decompile)
    except Exception as exc:  # from the decompiler: the round trip test shows the details
        raise DecompileFailed(f"decompile failed: {type(exc).__name__}: {exc}") from None
    if problems:
        text = getattr(_decompile, "last", "<none>")
        pytest.fail("\n".join(problems) + f"\n--- decompiled ---\n{text}", pytrace=False)
