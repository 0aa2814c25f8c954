"""``depyf.install()`` / ``depyf.uninstall()``: the decompiled source in torch's bytecode log.

With ``TORCH_LOGS="+bytecode"`` torch logs each code object Dynamo transformed as disassembly;
after ``install()`` the same logger also gets ``possible source code:`` and the source the
transformed code decompiles to (or why it does not), as depyf 0.20 logged it. Nothing is done
while that logger is not at DEBUG, and the hook never changes what runs.
"""
from __future__ import annotations

import logging
import threading
import types
from typing import Any, Optional

from depyf.dynamo import adapter

__all__ = ["install", "uninstall", "is_installed"]

_lock = threading.Lock()
_handle: Optional[Any] = None


def _log_source(code: types.CodeType, new_code: types.CodeType) -> None:
    """The bytecode hook: log the decompiled ``new_code``; always returns None (keeps Dynamo's code)."""
    try:
        log = adapter.bytecode_artifact_logger()
        if not log.isEnabledFor(logging.DEBUG):
            return None
        import depyf
        from depyf.compat import _identifier

        try:
            # always a `def` (a transformed lambda's body is statements), named as it can be
            source = depyf.decompile(new_code, rewritten=True, name=_identifier(new_code.co_name))
        except depyf.DecompilationError as e:
            log.debug("Decompilation fails due to: %s", e)
            return None
        log.debug("possible source code:\n%s", source)
        log.debug("If the decompiled code looks wrong, please report it to depyf with the bytecode above.")
    except Exception:  # logging must never break compilation
        return None
    return None


def install() -> None:
    """Log the decompiled source of every code object Dynamo transforms (``TORCH_LOGS="+bytecode"``).

    Calling it again while installed does nothing; :func:`uninstall` removes the hook.
    """
    global _handle
    adapter.require_torch("depyf.install")
    with _lock:
        if _handle is None:
            _handle = adapter.register_bytecode_hook(_log_source)


def uninstall() -> None:
    """Remove what :func:`install` added (nothing happens if it is not installed)."""
    global _handle
    with _lock:
        if _handle is not None:
            _handle.remove()
            _handle = None


def is_installed() -> bool:
    return _handle is not None
