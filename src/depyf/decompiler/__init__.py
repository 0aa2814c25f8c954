"""The bytecode decompiler: code objects of CPython 3.8 to 3.15 back to Python source.

No dependencies and no torch: everything here works on a bare interpreter.
"""
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.api import decompile

__all__ = ["decompile", "DecompilationError"]


def __getattr__(name: str) -> object:
    # depyf 0.20 users import `Decompiler` from here; the compatible class lives in depyf.compat
    # (imported on first use: it imports this package).
    if name == "Decompiler":
        from depyf.compat import Decompiler

        return Decompiler
    raise AttributeError(f"module 'depyf.decompiler' has no attribute {name!r}")
