"""The one list of decompiler gaps that the tests expect to fail, per Python version.

Each entry turns matching test cases into ``xfail(strict=True)``: the gap stays visible in every
run, and when the decompiler learns the construct the case passes, the strict xfail fails, and
the entry must be removed. Add an entry only for a real, named decompiler gap (never to hide a
broken test), with the smallest failing case in GAPS.md.

``test`` names the kind of check: the test module's name without ``test_`` ("roundtrip",
"execution", "golden", "idioms", "api", "bad_input", "stdlib_sample"); ``case`` is an fnmatch
pattern over the test's parameter id (for the corpus: ``<corpus file>::<qualname>``), or over
the test function's name when it has no parameters. conftest.py applies the list.
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


def apply(item: Any) -> None:
    """Mark one collected test as a strict xfail if a gap matches it on this interpreter.

    The kind of check is the test module's name without ``test_``; the case is the test's
    parameter id, or its name when it has no parameters.
    """
    import pytest

    kind = item.module.__name__.rsplit(".", 1)[-1]
    kind = kind[len("test_"):] if kind.startswith("test_") else kind
    callspec = getattr(item, "callspec", None)
    case = callspec.id if callspec is not None else item.originalname
    found = gaps_for(kind, case)
    if found:
        reason = "; ".join(g.reason for g in found)
        item.add_marker(pytest.mark.xfail(strict=True, reason=f"known gap: {reason}"))


def param(case: str, *values: Any) -> Any:
    """`pytest.param(*values, id=case)`: the id is what GAPS entries match."""
    import pytest

    return pytest.param(*values, id=case)
