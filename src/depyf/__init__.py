"""depyf: make torch.compile understandable.

The decompiler (`depyf.decompile`, and depyf 0.20's `depyf.Decompiler`,
`depyf.decompile_and_compile_like`) has no dependencies and never imports torch.
The torch.compile explainer (`depyf.prepare_debug`, `depyf.debug`, `depyf.explain.dump_src`,
`depyf.install` / `depyf.uninstall`) imports torch lazily, the first time one of them is used.
"""
from typing import Any

from depyf.decompiler import DecompilationError, decompile

__version__ = "0.21.0"

__all__ = ["decompile", "DecompilationError", "Decompiler", "decompile_and_compile_like", "prepare_debug", "debug",
           "install", "uninstall", "__version__"]

# name -> module that defines it, imported on first use (torch is optional, and so is the cost)
_LAZY = {
    "prepare_debug": "depyf.torch_debug",
    "debug": "depyf.torch_debug",
    "install": "depyf.dynamo.source_logging",
    "uninstall": "depyf.dynamo.source_logging",
    "Decompiler": "depyf.compat",
    "decompile_and_compile_like": "depyf.compat",
}


# submodules reachable as attributes after `import depyf` (as in 0.20: `depyf.utils.get_code_owner`)
_SUBMODULES = ("utils", "optimization", "explain", "compat")


def __getattr__(name: str) -> Any:
    if name in _LAZY or name in _SUBMODULES:
        import importlib

        if name in _SUBMODULES:
            return importlib.import_module(f"depyf.{name}")
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'depyf' has no attribute {name!r}")
