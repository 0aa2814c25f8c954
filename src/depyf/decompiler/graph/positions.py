"""Source positions of the instructions, read from the code object, never stored on them.

The line table says where each line's code starts: a jump whose offset starts a line carries a
line of its own (a written `break` or `continue`, 3.10+), which the optimiser does not thread
through. 3.11+ also record a column range for every instruction (`co_positions`).
"""
from bisect import bisect_right
from dataclasses import dataclass
from types import CodeType
from typing import Optional, Tuple

from depyf.decompiler.versions import BytecodeVersion

Position = Tuple[Optional[int], Optional[int], Optional[int], Optional[int]]


@dataclass(frozen=True)
class SourcePositions:
    """`starts[k]` is the offset where the line `lines[k]` starts (offsets ascending)."""

    starts: Tuple[int, ...]
    lines: Tuple[Optional[int], ...]
    columns: Tuple[Position, ...]  # per code unit (3.11+), else empty

    @classmethod
    def of(cls, code: CodeType, version: BytecodeVersion) -> "SourcePositions":
        import dis  # (here: most readings never ask, and importing dis costs more than the question)

        pairs = sorted(dis.findlinestarts(code))
        columns: Tuple[Position, ...] = tuple(code.co_positions()) if version.has_column_positions else ()
        return cls(tuple(o for o, _ in pairs), tuple(line for _, line in pairs), columns)

    def line_at(self, offset: int) -> Optional[int]:
        """The line of the instruction at `offset` (None before the first line start)."""
        k = bisect_right(self.starts, offset) - 1
        return self.lines[k] if k >= 0 else None

    def starts_line(self, offset: int) -> bool:
        """Does a line's code start at `offset`?"""
        k = bisect_right(self.starts, offset) - 1
        return k >= 0 and self.starts[k] == offset

    def position_at(self, offset: int) -> Optional[Position]:
        """(line, end line, column, end column) of the instruction at `offset` (3.11+)."""
        unit = offset // 2
        return self.columns[unit] if 0 <= unit < len(self.columns) else None
