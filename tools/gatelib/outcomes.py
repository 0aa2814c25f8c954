"""The outcomes a definition can have, and which changes between two runs are regressions.

The round-trip statuses are the oracle's (`depyf.verify`); the execution checks (the fuzzers, the
construct corpus's `@cases`) add "runs differently" and, where only execution is checked,
"runs the same".  Outcomes are ranked from best to worst; a change to a lower rank is a
regression, to a higher one an improvement, and anything that becomes "runs differently" is a
regression whatever it was (a silent wrong result is never acceptable).
"""
from __future__ import annotations

from typing import Dict

EQUAL = "equal"
RUNS_SAME = "runs_same"
DIFFERS = "differs"
NO_COMPILE = "no_compile"
DECOMPILE_ERROR = "decompile_error"
RUNS_DIFFERENTLY = "runs_differently"

# best first; "runs the same" is the best an execution-only check can say
RANK: Dict[str, int] = {
    EQUAL: 5, RUNS_SAME: 5, DIFFERS: 4, NO_COMPILE: 3, DECOMPILE_ERROR: 2, RUNS_DIFFERENTLY: 1,
}
ORDER = (EQUAL, RUNS_SAME, DIFFERS, NO_COMPILE, DECOMPILE_ERROR, RUNS_DIFFERENTLY)
LABELS = {
    EQUAL: "equal", RUNS_SAME: "runs same", DIFFERS: "other bytecode", NO_COMPILE: "no compile",
    DECOMPILE_ERROR: "error", RUNS_DIFFERENTLY: "runs differently",
}


def is_regression(before: str, after: str) -> bool:
    if after == RUNS_DIFFERENTLY:
        return before != RUNS_DIFFERENTLY
    return RANK[after] < RANK[before]


def is_improvement(before: str, after: str) -> bool:
    return RANK[after] > RANK[before]
