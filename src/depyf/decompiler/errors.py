"""The one exception type the decompiler raises."""
from typing import Optional, Tuple


class DecompilationError(Exception):
    """A code object could not be turned into source.

    Carries what a user needs to report or work around the problem: the function, the
    instruction (offset and opname), the Python version of the bytecode, and the reason.
    `internal` is True where the error stands for an unexpected exception inside the decompiler
    (kept as `__cause__`): a bug, reported through the one exception type callers catch.
    """

    internal = False

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


class NeedsTemporaries(Exception):
    """The code keeps values on the stack across statements: decompile again with temporaries.

    (Not a `DecompilationError`: it never leaves the decompiler; `Decompiler.body` in code_text.py
    reads the code again.)"""


def internal_error(exc: BaseException, function: Optional[str],
                   python_version: Optional[Tuple[int, int]]) -> DecompilationError:
    """The `DecompilationError` that `decompile` raises for an unexpected exception `exc`."""
    error = DecompilationError(f"internal error: {type(exc).__name__}: {exc}", function=function,
                               python_version=python_version)
    error.internal = True
    error.__cause__ = exc
    return error


def naming_function(error: DecompilationError, function: str,
                    python_version: Optional[Tuple[int, int]]) -> DecompilationError:
    """`error`, or where it names no function (raised by the printer, which sees no code), a copy
    that names `function`."""
    if error.function:
        return error
    named = DecompilationError(error.reason, function=function, offset=error.offset, opname=error.opname,
                               python_version=error.python_version or python_version)
    named.internal = error.internal
    named.__cause__ = error.__cause__
    return named


# What a speculative reader (one that tries a reading and falls back when it does not fit) must
# never take for "this reading does not fit": running out of stack or memory fails every other
# reading the same way, so catching them turns one failure into exponentially many.
NOT_A_MISREADING = (RecursionError, MemoryError)
