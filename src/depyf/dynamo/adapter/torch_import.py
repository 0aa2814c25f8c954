"""Finding torch without importing it too early: whether it is installed and new enough, and
its modules, imported on first use.
"""
from __future__ import annotations

import importlib
import importlib.util
import re
import types
from typing import Any, Optional


class TorchFeatureMissing(RuntimeError):
    """A torch internal that depyf relies on is not present in the installed torch."""


class TorchNotInstalled(ModuleNotFoundError):
    """torch is not installed (or too old): said in one line, before anything is written."""


# Oldest torch with what depyf needs (the bytecode hook of Dynamo).
MIN_TORCH = (2, 2)


def require_torch(feature: str) -> None:
    """Raise :class:`TorchNotInstalled` when ``feature`` cannot work with the installed torch.

    Checked from the package metadata and the import system, without importing torch, so the
    message comes before a torch feature does anything (creates its dump folder, say)."""
    try:
        found = importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise TorchNotInstalled(
            f"{feature} needs torch, which is not installed (pip install torch); "
            "depyf.decompile works without it"
        )
    try:
        from importlib import metadata

        version = metadata.version("torch")
    except Exception:  # an unusual install (a source tree on sys.path): let the import decide
        return
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:2])
    if len(numbers) == 2 and numbers < MIN_TORCH:
        raise TorchNotInstalled(
            f"{feature} needs torch >= {MIN_TORCH[0]}.{MIN_TORCH[1]}, but torch {version} is installed"
        )


def _torch() -> Any:
    import torch

    return torch


def _module(name: str) -> Optional[types.ModuleType]:
    try:
        return importlib.import_module(name)
    except Exception:
        return None


def torch_version() -> str:
    return str(getattr(_torch(), "__version__", "unknown"))
