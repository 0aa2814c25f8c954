"""try/except/finally and with statements, for both exception models.

3.8-3.10 mark protected ranges with SETUP_FINALLY / SETUP_WITH / SETUP_ASYNC_WITH; 3.11+ describe
them in the exception table (`ExceptionRegion`s). Both are brought to the same `Try` / `With` nodes.
"""
from depyf.decompiler.exception_blocks import BlockExceptionRules
from depyf.decompiler.exception_table import ExceptionTableRules


class ExceptionRules(ExceptionTableRules, BlockExceptionRules):
    """Exception-handling constructs; mixed into `builder.CodeBuilder`.

    `ExceptionTableRules` reads 3.11+ exception tables and hands instructions that also exist in
    the older model back to `BlockExceptionRules` when the bytecode has no table.
    """
