"""What the oracle reports: the statuses, a definition found in source, the first difference
between two code objects, and a definition's result.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import CodeType
from typing import Callable, Optional, Tuple

DECOMPILE_ERROR = "decompile_error"
NO_COMPILE = "no_compile"
DIFFERS = "differs"
EQUAL = "equal"
#: From worst to best; a definition gets the first status whose step failed.
STATUSES = (DECOMPILE_ERROR, NO_COMPILE, DIFFERS, EQUAL)

# Path from the module code object to a definition's code object: one (co_name, n) per level,
# n counting the earlier code constants of the same name in the parent.  Positional rather than
# line-based, so that it finds the same definition after the canonical re-layout and after a splice.
CodeKey = Tuple[Tuple[str, int], ...]
Decompile = Callable[[CodeType], str]


@dataclass(frozen=True)
class Definition:
    """A function, method or lambda of a source file that the oracle can check.

    The span is the AST node's: 1-based lines, UTF-8 byte columns (as ``ast`` reports them).
    For a ``def`` it starts at ``def``/``async def``, so decorators stay in place when the
    definition is replaced.
    """

    qualname: str
    kind: str  # "def" or "lambda"
    lineno: int
    col_offset: int
    end_lineno: int
    end_col_offset: int
    key: CodeKey

    @property
    def label(self) -> str:
        """How reports name the definition: qualified name and line."""
        return f"{self.qualname} (line {self.lineno})"


@dataclass(frozen=True)
class Difference:
    """The first point where two code objects stop matching."""

    where: str  # the (nested) code object, e.g. "f" or "f.<locals>.<lambda>"
    what: str  # "instruction", "signature", "exception table", "nested code"
    index: Optional[int]  # instruction (or table entry) index in the filtered stream
    original: str
    decompiled: str
    context: str = ""  # the instruction before, when it helps to read the difference
    category: Tuple[str, str] = ("", "")  # for grouping: opname pair, or (what, field)

    def __str__(self) -> str:
        at = f" #{self.index}" if self.index is not None else ""
        text = f"{self.where}: {self.what}{at}: original {self.original} | decompiled {self.decompiled}"
        if self.context:
            text += f" (after {self.context})"
        return text


@dataclass
class Result:
    """What the oracle concluded about one definition."""

    definition: Definition
    status: str
    detail: str = ""  # error message, compile error, or the first difference as text
    difference: Optional[Difference] = None
    decompiled: Optional[str] = None
    decompile_seconds: float = 0.0

    @property
    def qualname(self) -> str:
        return self.definition.qualname

    @property
    def lineno(self) -> int:
        return self.definition.lineno
