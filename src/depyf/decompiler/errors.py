"""The one exception type the decompiler raises."""
from typing import Optional, Tuple


class DecompilationError(Exception):
    """A code object could not be turned into source.

    Carries what a user needs to report or work around the problem: the function, the
    instruction (offset and opname), the Python version of the bytecode, and the reason.
    """

    def __init__(
        self,
        reason: str,
        *,
        function: Optional[str] = None,
        offset: Optional[int] = None,
        opname: Optional[str] = None,
        python_version: Optional[Tuple[int, int]] = None,
    ) -> None:
        self.reason = reason
        self.function = function
        self.offset = offset
        self.opname = opname
        self.python_version = python_version
        super().__init__(self._message())

    def _message(self) -> str:
        parts = []
        if self.function:
            parts.append(f"in {self.function}")
        if self.opname is not None:
            parts.append(f"at offset {self.offset} ({self.opname})")
        if self.python_version:
            parts.append("on Python %d.%d" % self.python_version)
        where = " ".join(parts)
        return f"cannot decompile {where}: {self.reason}" if where else f"cannot decompile: {self.reason}"


# What a speculative reader (one that tries a reading and falls back when it does not fit) must
# never take for "this reading does not fit": running out of stack or memory fails every other
# reading the same way, so catching them turns one failure into exponentially many.
NOT_A_MISREADING = (RecursionError, MemoryError)
