"""The bytecode decompiler: code objects of CPython 3.8 to 3.13 back to Python source.

No dependencies and no torch: everything here works on a bare interpreter.
"""
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.api import decompile

__all__ = ["decompile", "DecompilationError"]
