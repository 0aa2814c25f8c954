"""depyf: make torch.compile understandable.

The decompiler (`depyf.decompile`) has no dependencies and never imports torch.
The torch.compile explainer (`depyf.prepare_debug`, `depyf.debug`, `depyf.explain.dump_src`)
imports torch lazily, the first time one of them is used.
"""
from typing import Any

from depyf.decompiler import DecompilationError, decompile

__version__ = "0.1.0"

__all__ = ["decompile", "DecompilationError", "prepare_debug", "debug", "__version__"]


def __getattr__(name: str) -> Any:
    # torch is optional: only reach for it when a torch feature is asked for.
    if name in ("prepare_debug", "debug"):
        from depyf import torch_debug

        return getattr(torch_debug, name)
    raise AttributeError(f"module 'depyf' has no attribute {name!r}")
