"""Stable, readable names for what Dynamo names with counters and UUIDs.

Dynamo names graphs ``__compiled_fn_<n>_<uuid>`` and resume functions ``__resume_at_<offset>_<n>``
with process-wide counters, so the same program gets different names on every run (and on a second
run in the same process). depyf renumbers them in the order it meets them, per dump, so names are
the same whenever the program is.
"""
from __future__ import annotations

import re
from typing import Dict

DYNAMO_NAME = re.compile(
    r"\b(__compiled_fn_\d+(?:_[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12})?|__resume_at_\d+_\d+)\b"
)
_RESUME = re.compile(r"^__resume_at_(\d+)_\d+$")


class Namer:
    """Maps Dynamo's global names to stable ones and hands out per-kind counters."""

    def __init__(self) -> None:
        self.names: Dict[str, str] = {}
        self.counters: Dict[str, int] = {}
        self._by_code: Dict[int, str] = {}
        self._keep: list = []  # holds the code objects so their ids stay unique

    def next(self, kind: str) -> int:
        n = self.counters.get(kind, 0)
        self.counters[kind] = n + 1
        return n

    def stable(self, dynamo_name: str) -> str:
        """The stable name for a ``__compiled_fn_*`` or ``__resume_at_*`` global."""
        if dynamo_name in self.names:
            return self.names[dynamo_name]
        m = _RESUME.match(dynamo_name)
        if m:
            name = f"__resume_at_{m.group(1)}_{self.next('resume')}"
        elif dynamo_name.startswith("__compiled_fn"):
            name = f"__compiled_fn_{self.next('graph')}"
        else:
            name = dynamo_name
        self.names[dynamo_name] = name
        return name

    def stable_resume(self, dynamo_name: str, code: object) -> str:
        """Like :meth:`stable`, but one name per resume code object.

        Each recompilation of a function makes new ``__resume_at_*`` globals that may hold the
        same resume code; they all get the name the first one got.
        """
        if dynamo_name in self.names:
            return self.names[dynamo_name]
        if code is not None:
            known = self._by_code.get(id(code))
            if known is not None:
                self.names[dynamo_name] = known
                return known
        name = self.stable(dynamo_name)
        if code is not None:
            self._by_code[id(code)] = name
            self._keep.append(code)
        return name

    def resume_name_for(self, code: object) -> "str | None":
        """The stable name already given to a resume code object, if any."""
        return self._by_code.get(id(code))

    def rename_in(self, text: str) -> str:
        """Replace every Dynamo global name in ``text`` by its stable name."""
        return DYNAMO_NAME.sub(lambda m: self.stable(m.group(1)), text)


def identifier(text: str) -> str:
    """A file-name- and identifier-safe form of a code name such as ``<lambda>``."""
    out = re.sub(r"[^0-9A-Za-z_]", "_", text).strip("_") or "fn"
    return out if not out[0].isdigit() else "_" + out


def code_label(code: object) -> str:
    """A readable, file-name-safe label: ``Net_forward`` for ``Net.forward`` (qualified name
    where the interpreter records one), ``make_closure_inner`` for a closure."""
    name = getattr(code, "co_qualname", None) or getattr(code, "co_name", "fn")
    return identifier(str(name).replace(".<locals>.", "."))
