"""The one list of decompiler gaps that the tests expect to fail, per Python version.

Each entry turns matching test cases into ``xfail(strict=True)``: the gap stays visible in every
run, and when the decompiler learns the construct the case passes, the strict xfail fails, and
the entry must be removed. Add an entry only for a real, named decompiler gap (never to hide a
broken test), with the smallest failing case in GAPS.md.

``test`` names the kind of check (the test module's topic: "roundtrip", "execution", "golden",
"idioms", "api", "bad_input", "stdlib"); ``case`` is an fnmatch pattern over the case id that
the test module uses (for the corpus: ``<file stem>::<qualname>``).
"""
from fnmatch import fnmatchcase
from typing import Any, List, NamedTuple, Tuple

from .support import VERSION_KEY

ALL = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


class Gap(NamedTuple):
    test: str
    case: str
    versions: Tuple[str, ...]
    reason: str


GAPS: List[Gap] = [
]


def gaps_for(test: str, case: str, version: str = VERSION_KEY) -> List[Gap]:
    return [g for g in GAPS if g.test == test and version in g.versions and fnmatchcase(case, g.case)]


def marks(test: str, case: str) -> List[Any]:
    """pytest marks for one case: a strict xfail per matching gap on this interpreter."""
    import pytest

    found = gaps_for(test, case)
    if not found:
        return []
    reason = "; ".join(g.reason for g in found)
    return [pytest.mark.xfail(strict=True, reason=f"known gap: {reason}")]


def param(test: str, case: str, *values: Any) -> Any:
    """`pytest.param(*values, id=case)` with the marks of any known gap."""
    import pytest

    return pytest.param(*values, id=case, marks=marks(test, case))
