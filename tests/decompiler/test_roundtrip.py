"""Round trip of every corpus definition through `depyf.verify`: decompile, splice, recompile,
compare bytecode. One test per definition; a failure shows the first difference and the text."""
from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import pytest

from . import support
from .known_gaps import param

def _params() -> List[object]:
    out = []
    for path in support.corpus_files():
        for ident in support.definition_ids(path):
            out.append(param(f"{support.corpus_id(path)}::{ident}", path, ident))
    return out


_RESULTS: Dict[Path, Dict[str, object]] = {}


def results_for(path: Path) -> Dict[str, object]:
    """verify's results for a corpus file, by test id; computed once per file."""
    if path not in _RESULTS:
        results = support.verify().roundtrip_source_file(support.source_of(path), str(path), decompile=support.bounded_decompile)
        by_id: Dict[str, object] = {}
        seen: Dict[str, int] = {}
        for result in results:
            n = seen.get(result.qualname, 0) + 1
            seen[result.qualname] = n
            by_id[result.qualname if n == 1 else f"{result.qualname}#{n}"] = result
        _RESULTS[path] = by_id
    return _RESULTS[path]


def describe(result: object) -> str:
    """A failure message: status, first difference, and the decompiled text."""
    text = getattr(result, "decompiled", None)
    shown = text if text is not None else "<no text>"
    return (
        f"{result.status}: {result.definition.label}\n"  # type: ignore[attr-defined]
        f"first difference: {result.detail}\n"  # type: ignore[attr-defined]
        f"--- decompiled ---\n{shown}"
    )


@pytest.mark.parametrize("path, ident", _params())
def test_roundtrip(path: Path, ident: str) -> None:
    result = results_for(path).get(ident)
    assert result is not None, f"verify returned no result for {ident}"
    if result.status != "equal":  # type: ignore[attr-defined]
        pytest.fail(describe(result), pytrace=False)
