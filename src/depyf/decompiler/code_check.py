"""Refuse code objects that CPython itself cannot read safely, before anything reads them.

From 3.11 every instruction is followed by its inline caches. Reading `co_code` (and
`code.replace`, which reads it) has CPython copy the code and overwrite each instruction's caches
(`deopt_code`); for an instruction near the end whose caches do not fit, that writes past the
copy's buffer: an interpreter crash, or a corrupted heap, caused only by looking. Such objects
never come from the compiler, but `code.replace(co_code=...)` builds them. The check here walks
the adaptive copy (`_co_code_adaptive`, which CPython hands out as it is) the way `deopt_code`
does, and a code object that fails it is refused with a `DecompilationError`.

`raw_code_problem` checks raw bytes (a `.pyc`'s) before a code object is built from them: there
only the version's base instructions may appear, since building the object runs the same walk
(3.12+) and an instrumented opcode there makes CPython read monitoring data that does not exist.
"""
from types import CodeType
from typing import Dict, Optional, Tuple

from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.versions import BytecodeVersion

# Opcodes whose real instruction is kept outside the code (in the monitoring data): their caches
# are unknown here. They only exist in code the interpreter instrumented itself (building an
# object with one crashes CPython first), so they are read as instructions without caches.
_EXTERNALLY_KEPT = ("INSTRUMENTED_LINE", "INSTRUMENTED_INSTRUCTION")


class _CacheLayout:
    """Per version: the inline caches each opcode number is followed by, in the adaptive copy
    (specialized and instrumented forms have their base instruction's) and in raw code."""

    def __init__(self, version: BytecodeVersion) -> None:
        tables = version.tables
        caches = tables["cache_entries"]
        opmap: Dict[str, int] = tables["opmap"]
        adaptive = bytearray(256)
        raw = bytearray(256)
        self.base_ops = bytearray(256)  # 1 where the number is a base instruction of the version
        for name, number in opmap.items():
            if number < 256:
                adaptive[number] = raw[number] = caches.get(name, 0)
                self.base_ops[number] = 1
        for name, (number, base) in tables.get("adaptive_forms", {}).items():
            if number < 256:
                adaptive[number] = caches.get(base, 0)
                self.base_ops[number] = 0
        for name in _EXTERNALLY_KEPT:
            if name in opmap and opmap[name] < 256:
                adaptive[opmap[name]] = 0
                self.base_ops[opmap[name]] = 0
        self.adaptive = bytes(adaptive)
        self.raw = bytes(raw)
        self.longest = max(adaptive) if adaptive else 0
        self.executor = opmap.get("ENTER_EXECUTOR", -1)


_LAYOUTS: Dict[Tuple[int, int], _CacheLayout] = {}


def _layout(version: BytecodeVersion) -> _CacheLayout:
    found = _LAYOUTS.get(version.key)
    if found is None:
        found = _LAYOUTS[version.key] = _CacheLayout(version)
    return found


def _overrun(ops: bytes, caches: bytes, longest: int) -> Optional[int]:
    """The index of the first instruction whose caches run past the end of `ops` (one opcode per
    code unit), walking as CPython does; None when every instruction's caches fit."""
    units = len(ops)
    # Only an instruction among the last `longest` units can overrun: where none of them could,
    # whichever of them start instructions, the walk is not needed (nearly all code).
    tail_start = max(0, units - longest)
    tail = ops[tail_start:].translate(caches)
    if all(count < units - (tail_start + k) for k, count in enumerate(tail)):
        return None
    i = 0
    while i < units:
        count = caches[ops[i]]
        if i + count >= units:
            return i
        i += count + 1
    return None


def check_code(code: CodeType, version: BytecodeVersion) -> None:
    """Raise `DecompilationError` where reading `code.co_code` would make CPython write past its
    buffer (or read executor data that is not there). Safe to call on any code object."""
    if not version.has_inline_caches:
        return
    adaptive = getattr(code, "_co_code_adaptive", None)
    if not isinstance(adaptive, bytes):
        return  # (not the running interpreter's own kind of code object: nothing to walk)
    name = code.co_name if isinstance(code.co_name, str) else "?"
    if len(adaptive) % 2:
        raise DecompilationError("bytecode has an odd length", function=name, python_version=version.key)
    layout = _layout(version)
    ops = adaptive[::2]
    at = _overrun(ops, layout.adaptive, layout.longest)
    if at is not None:
        raise DecompilationError("the last instruction lacks its inline caches (a malformed code object "
                                 "that CPython cannot read safely)", function=name, offset=2 * at,
                                 opname=f"<{ops[at]}>", python_version=version.key)
    if layout.executor >= 0 and layout.executor in ops:
        i = 0
        while i < len(ops):
            if ops[i] == layout.executor:
                raise DecompilationError("an ENTER_EXECUTOR instruction (optimizer state that cannot be "
                                         "read back safely)", function=name, offset=2 * i,
                                         opname="ENTER_EXECUTOR", python_version=version.key)
            i += layout.adaptive[ops[i]] + 1


def raw_code_problem(raw: bytes, version: BytecodeVersion) -> Optional[str]:
    """Why raw bytecode (as stored in a .pyc) must not become a code object, or None."""
    if len(raw) % 2:
        return "bytecode has an odd length"
    if not version.has_inline_caches:
        return None
    layout = _layout(version)
    ops = raw[::2]
    unknown = ops.translate(layout.base_ops)
    # (every opcode position, caches included: a cache unit's opcode byte is 0, CACHE, a base op)
    if 0 in unknown:
        k = unknown.index(0)
        return f"unknown opcode {ops[k]} at offset {2 * k}"
    at = _overrun(ops, layout.raw, max(layout.raw))
    if at is not None:
        return f"the instruction at offset {2 * at} lacks its inline caches"
    if layout.executor >= 0 and layout.executor in ops:
        return "an ENTER_EXECUTOR instruction"
    return None
