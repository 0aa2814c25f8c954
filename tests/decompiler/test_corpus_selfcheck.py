"""The corpus and the harness checked against themselves, with no decompiler involved.

The original source of every definition must score `equal` in `depyf.verify` (else the oracle
or the corpus is wrong, not the decompiler), and re-executing the original text must give the
original outcomes (else the execution check compares something non-deterministic).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from . import support
from .execution import execution_mismatches, params


def _selfcheck_files() -> list:
    """The generated nesting files are uniform and slow to round-trip: one stands for all of
    them unless DEPYF_FULL_SELFCHECK=1 (run it after changing the generator)."""
    files = support.corpus_files()
    if os.environ.get("DEPYF_FULL_SELFCHECK") == "1":
        return files
    nesting = [p for p in files if support.corpus_id(p).startswith("nesting/")]
    return [p for p in files if p not in nesting[1:]]


@pytest.mark.parametrize("path", _selfcheck_files(), ids=support.corpus_id)
def test_original_source_is_bytecode_equal(path: Path) -> None:
    verify = support.verify()
    source = support.source_of(path)
    results = verify.roundtrip_source_file(source, str(path), decompile=verify.control_decompiler(source, str(path)))
    bad = [f"{r.definition.label}: {r.status}: {r.detail}" for r in results if r.status != "equal"]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path, index", params())
def test_original_text_executes_the_same(path: Path, index: int) -> None:
    problems = execution_mismatches(path, index, lambda obj: support.original_text(path, obj.__name__))
    assert not problems, "\n".join(problems)
