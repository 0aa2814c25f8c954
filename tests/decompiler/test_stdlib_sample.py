"""Stdlib sample: the share of bytecode-equal and compiling functions must not fall below this
interpreter's floor in floors.json. Floors ratchet up: `DEPYF_UPDATE_FLOORS=1` raises them to
what was measured (never lowers them). The goal is >= 99% equal and 100% compiling."""
from __future__ import annotations

import collections
import os

from . import support
from .stdlib_sample import MODULES, ratchet, read_floors, run_sample


def test_stdlib_sample_meets_floors() -> None:
    summary, results = run_sample()
    print(f"\nstdlib sample on {support.VERSION_KEY} ({', '.join(MODULES)}): {summary}")
    if os.environ.get("DEPYF_UPDATE_FLOORS") == "1":
        ratchet(summary)
    floor = read_floors().get(support.VERSION_KEY, {"equal_pct": 0.0, "compile_pct": 0.0})
    statuses = collections.Counter(r.status for r in results)
    worst = [f"{r.module}: {r.definition.label}: {r.status}: {r.detail}" for r in results if r.status != "equal"][:15]
    message = f"measured {summary} < floor {floor}; statuses {dict(statuses)}; first failures:\n" + "\n".join(worst)
    assert summary["equal_pct"] >= floor["equal_pct"], message
    assert summary["compile_pct"] >= floor["compile_pct"], message
