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
import keyword
from types import CodeType
from typing import Any, Dict, FrozenSet, List, Optional, Set, Tuple

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


_KEYWORDS = frozenset(keyword.kwlist)


def is_source_name(name: object) -> bool:
    """Can `name` be written as an identifier in source (not a keyword, no line break, ...)?"""
    return isinstance(name, str) and name.isidentifier() and name not in _KEYWORDS


def _is_internal_name(name: str) -> bool:
    """A name only the compiler makes: `.0` (a comprehension's iterator), `.type_params`."""
    return name[:1] == "." and name[1:].replace("_", "a").isalnum() and name[1:].isascii()


# Names already found to be identifiers (`str.isidentifier` scans every character, and the same
# names come back in every code object); cleared when it grows past the limit.
_SEEN_GOOD: Set[str] = set()
_SEEN_GOOD_LIMIT = 1 << 16


def _bad_name(names: Tuple[str, ...], internal: bool = False, modules: Optional[Set[str]] = None) -> Optional[str]:
    """The first name that no source could have made, or None (the common case: one C loop).
    `modules`: where given, module names (`a.b`, '') are accepted and added to it."""
    if _SEEN_GOOD.issuperset(names):
        return None  # (names repeat across code objects: set lookups, no character scans)
    for name in names:
        if name in _SEEN_GOOD:
            continue
        if is_source_name(name):
            if len(_SEEN_GOOD) >= _SEEN_GOOD_LIMIT:
                _SEEN_GOOD.clear()
            _SEEN_GOOD.add(name)
            continue
        if modules is not None and (not name or all(map(is_source_name, name.split(".")))):
            modules.add(name)  # (a module's name in an import; `from . import a` imports '')
            continue
        if internal and _is_internal_name(name):
            continue
        return name
    return None


def check_names(code: CodeType, version: BytecodeVersion) -> FrozenSet[str]:
    """Raise `DecompilationError` where a name the code uses could not have been written in
    source: printed, it would not compile, or a line break in it would start a line of code.
    Returns the names that only an import may use (`os.path`, ''): mostly none."""
    name = code.co_name
    varnames = code.co_varnames
    # The parameters (only they cannot repeat: `def f(a, a)`), as many as the flags declare.
    params = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)
    seen = _SEEN_GOOD
    if seen.issuperset(code.co_names) and seen.issuperset(varnames) and seen.issuperset(code.co_cellvars) \
            and seen.issuperset(code.co_freevars) and (name in seen or name in _COMPILER_NAMES) \
            and (params < 2 or len(set(varnames[:params])) == min(params, len(varnames))):
        return _NO_NAMES  # (nearly all code: every name seen before)
    # The compiler's own names (`.0`, `.type_params`) appear in comprehensions, and from 3.12 in
    # class bodies and generic definitions too; as a parameter only in code the compiler names
    # (`<listcomp>`'s `.0`), never in a lambda's or a def's.
    compiler_made = isinstance(name, str) and name[:1] == "<" and name not in ("<lambda>", "<module>")
    modules: Set[str] = set()
    bad = _bad_name(code.co_names, modules=modules)
    for table in (varnames, code.co_cellvars, code.co_freevars):
        if bad is None:
            bad = _bad_name(table, internal=True)
    if bad is None and not compiler_made:
        bad = next((p for p in varnames[:params] if not is_source_name(p)), None)
    if bad is None and is_source_name(name):
        seen.add(name)
    elif bad is None and not (
            name[:1] == "<" and name[-1:] == ">" and name.isprintable()):  # (`<lambda>`, `<genexpr>`)
        bad = name
    if bad is None and len(set(varnames[:params])) != len(varnames[:params]):
        bad = next(v for k, v in enumerate(varnames) if v in varnames[:k])
    if bad is not None:
        raise DecompilationError(f"the name {bad!r} cannot be written in source",
                                 function=name if is_source_name(name) else repr(name),
                                 python_version=version.key)
    return frozenset(modules) if modules else _NO_NAMES


_NO_NAMES: FrozenSet[str] = frozenset()
_COMPILER_NAMES = frozenset({"<module>", "<lambda>", "<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})


def check_module_names(instrs: List[Any], modules: FrozenSet[str], version: BytecodeVersion,
                       function: str) -> None:
    """Raise where an instruction other than IMPORT_NAME uses a name that only a module has."""
    by_name = frozenset(version.tables["hasname"]) - {"IMPORT_NAME"}
    for ins in instrs:
        if ins.raw_opname in by_name and ins.argval in modules:
            raise DecompilationError(f"the name {ins.argval!r} cannot be written in source", function=function,
                                     offset=ins.offset, opname=ins.raw_opname, python_version=version.key)


def safe_identifier(text: str) -> str:
    """An identifier made from `text`: other characters become `_`, a keyword or a leading digit
    gets one more `_` (`<lambda>` -> `lambda_`, `9abc` -> `_9abc`)."""
    if is_source_name(text):
        return text
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in text).strip("_") or "_"
    if not name.isidentifier():  # (a leading digit, or a character valid only inside a name)
        name = "_" + name
    if not name.isidentifier():
        name = "_" + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    return name + "_" if name in _KEYWORDS else name


def comment_text(text: str) -> str:
    """`text` fit for one comment line: a line break or NUL in it would end the comment (and
    start a line of code), so every unprintable character is written escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# The flags that say what kind of function the code is (generator, coroutine, async generator):
# the compiler sets one at most. (`types.coroutine` adds 0x100 to a generator's: not one of them.)
_KIND_FLAGS = 0x20 | 0x80 | 0x200


def check_flags(code: CodeType, version: BytecodeVersion) -> None:
    """Raise `DecompilationError` where the flags say two kinds of function at once."""
    flags = code.co_flags
    kinds = flags & _KIND_FLAGS
    if kinds & (kinds - 1):  # (more than one bit)
        raise DecompilationError(f"the flags {flags:#x} make it two kinds of function at once",
                                 function=code.co_name if is_source_name(code.co_name) else repr(code.co_name),
                                 python_version=version.key)
