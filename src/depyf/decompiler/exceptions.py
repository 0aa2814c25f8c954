"""try/except/finally and with statements, for both exception models.

3.8-3.10 mark protected ranges with SETUP_FINALLY / SETUP_WITH / SETUP_ASYNC_WITH; 3.11+ describe
them in the exception table (`ExceptionRegion`s). Both are brought to the same `Try` / `With` nodes.
"""
from typing import Optional

from depyf.decompiler.exception_blocks import BlockExceptionRules


class ExceptionRules(BlockExceptionRules):
    """Exception-handling constructs; mixed into `builder.CodeBuilder`."""

    def try_at(self, i: int) -> Optional[int]:
        return None
