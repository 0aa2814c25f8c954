"""depyf 0.20's decompiler API, on top of this depyf's decompiler (no torch here).

    depyf.Decompiler(code).decompile(indentation=4, temp_prefix="__temp_", overwite_fn_name=None)
    depyf.Decompiler.supported_opnames()
    depyf.decompile_and_compile_like(code_to_decompile, reference_code, ...)  (also a static
        method of Decompiler, where 0.20 had it)

`overwite_fn_name` is 0.20's spelling and is kept; `overwrite_fn_name` is accepted too.
"""
from __future__ import annotations

import dis
import io
import keyword
import linecache
import os
import re
import tokenize
import types
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from depyf.code_walk import collect_all_code_objects, get_code_owner
from depyf.decompiler.api import decompile
from depyf.decompiler.errors import DecompilationError
from depyf.decompiler.printer import has_source_form
from depyf.decompiler.temporaries import TEMP_PREFIX

__all__ = ["Decompiler", "decompile_and_compile_like", "supported_opnames", "rename_temporaries"]

_TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"(\d+)$")
_TEMP_IN_TEXT = re.compile(r"\b" + re.escape(TEMP_PREFIX) + r"(\d+)\b")
_FSTRING_PREFIX = re.compile(r"^[rRbBuU]*[fF]")
_PLACEHOLDER_DEF = "__depyf_decompiled__"
_MAX_LAYOUT_ROUNDS = 4


# ------------------------------------------------------------------------------------------------
# Temporaries under another prefix
# ------------------------------------------------------------------------------------------------


def rename_temporaries(source: str, prefix: str) -> str:
    """``source`` with the decompiler's temporaries (``__temp_<n>``) named ``<prefix><n>``.

    Only names are renamed (tokens), never text inside string literals. Should a new name be
    one the source already uses for something else, ``_`` is appended to the prefix until none is.
    """
    if prefix == TEMP_PREFIX:
        return source
    if not prefix.isidentifier():
        raise ValueError(f"temp_prefix must start an identifier, got {prefix!r}")
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    temps, others = set(), set()
    for tok in tokens:
        if tok.type == tokenize.NAME:
            (temps if _TEMP_NAME.match(tok.string) else others).add(tok.string)
    if not temps:
        return source
    while any(prefix + _TEMP_NAME.match(t).group(1) in others for t in temps):
        prefix += "_"
    lines = source.splitlines(keepends=True)
    edits: List[Tuple[int, int, int, str]] = []  # (row, start col, end col, new text), one line each
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in temps:
            edits.append((tok.start[0], tok.start[1], tok.end[1], prefix + tok.string[len(TEMP_PREFIX):]))
        elif tok.type == tokenize.STRING and _FSTRING_PREFIX.match(tok.string) and tok.start[0] == tok.end[0]:
            # Before 3.12 an f-string is one token: rename inside its replacement fields too.
            new = _TEMP_IN_TEXT.sub(lambda m: prefix + m.group(1), tok.string)
            if new != tok.string:
                edits.append((tok.start[0], tok.start[1], tok.end[1], new))
    for row, start, end, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines)


# ------------------------------------------------------------------------------------------------
# Which instructions the decompiler reads
# ------------------------------------------------------------------------------------------------

# Read by the control-flow reconstruction (loops, try statements) rather than by one handler.
_STRUCTURAL = frozenset({"FOR_ITER", "PUSH_EXC_INFO", "CHECK_EXC_MATCH", "CHECK_EG_MATCH", "CLEANUP_THROW"})
# Instructions the decoder or a canonicalization pass reads as others (3.12's RETURN_CONST; 3.14's
# LOAD_SMALL_INT, and the LOAD_SPECIAL pair that enters a with block as BEFORE_WITH did).
_READ_AS = {
    "RETURN_CONST": ("LOAD_CONST", "RETURN_VALUE"),
    "LOAD_SMALL_INT": ("LOAD_CONST",),
    "LOAD_SPECIAL": ("BEFORE_WITH",),
}


def supported_opnames() -> List[str]:
    """The opnames of the running Python that the decompiler can read, in opcode order.

    Instructions that only live in running code (``INSTRUMENTED_*``, ``ENTER_EXECUTOR``, and the
    specialized forms that 3.14's `dis.opname` lists but `dis.opmap` does not) are never in a code
    object's bytecode and are not listed.
    """
    from depyf.decompiler import instructions
    from depyf.decompiler.builder import CodeBuilder

    handled = set(CodeBuilder.handlers)
    out: List[str] = []
    for name in dis.opname:
        if name.startswith("<") or name not in dis.opmap:
            continue
        if name in instructions._SPLIT_FAST_PAIRS:
            parts: Tuple[str, ...] = instructions._SPLIT_FAST_PAIRS[name]
        elif name in _READ_AS:
            parts = _READ_AS[name]
        else:
            parts = (instructions._JUMP_ALIASES.get(name, name),)
        if name in instructions._DROPPED or name in _STRUCTURAL or all(p in handled for p in parts):
            out.append(name)
    return out


# ------------------------------------------------------------------------------------------------
# The Decompiler class of depyf 0.20
# ------------------------------------------------------------------------------------------------


def _resolve_name(overwite_fn_name: Optional[str], overwrite_fn_name: Optional[str]) -> Optional[str]:
    if overwite_fn_name is not None and overwrite_fn_name is not None and overwite_fn_name != overwrite_fn_name:
        raise TypeError("pass the function name once: overwite_fn_name (depyf 0.20's spelling) or overwrite_fn_name")
    return overwite_fn_name if overwite_fn_name is not None else overwrite_fn_name


def _code_of(obj: Any) -> Optional[types.CodeType]:
    if isinstance(obj, types.CodeType):
        return obj
    return getattr(get_code_owner(obj), "__code__", None)


class Decompiler:
    """``Decompiler(code_or_callable).decompile()``: the source of a function, as depyf 0.20 gave it.

    Equal to ``depyf.decompile(obj)`` with the options of 0.20's keywords. Results are kept per
    instance. Two instances are equal when they decompile the same code object (0.20 hashed by
    ``id(code)``).
    """

    def __init__(self, code: Union[types.CodeType, Callable[..., Any], type]) -> None:
        self.target = code
        self.code = _code_of(code)
        self._results: Dict[Tuple[int, str, Optional[str]], str] = {}

    def decompile(self, indentation: int = 4, temp_prefix: str = TEMP_PREFIX,
                  overwite_fn_name: Optional[str] = None, *, overwrite_fn_name: Optional[str] = None) -> str:
        """The source; raises :class:`depyf.decompiler.DecompilationError` when it cannot be made.

        ``indentation``: spaces per level. ``temp_prefix``: how temporaries are named.
        ``overwite_fn_name`` (or ``overwrite_fn_name``): the name in the ``def`` line instead of
        the code's own (Dynamo's names, like ``<resume in f>``, are not identifiers).
        """
        name = _resolve_name(overwite_fn_name, overwrite_fn_name)
        key = (indentation, temp_prefix, name)
        if key not in self._results:
            try:
                text = decompile(self.target, name=name, indent=indentation)
            except DecompilationError:
                if name is not None or getattr(self.code, "co_name", None) != "<lambda>":
                    raise
                # 0.20 always wrote a `def`: a lambda whose body is not one expression (Dynamo's
                # code for a lambda) is one, named `_lambda`
                text = decompile(self.target, name="_lambda", indent=indentation)
            self._results[key] = rename_temporaries(text, temp_prefix)
        return self._results[key]

    @staticmethod
    def supported_opnames() -> List[str]:
        return supported_opnames()

    @staticmethod
    def decompile_and_compile_like(code_to_decompile: types.CodeType, reference_code: types.CodeType,
                                   indentation: int = 4, temp_prefix: str = TEMP_PREFIX,
                                   filepath_template: Optional[str] = None) -> types.CodeType:
        return decompile_and_compile_like(code_to_decompile, reference_code, indentation, temp_prefix,
                                          filepath_template)

    def __hash__(self) -> int:
        return id(self.code) if self.code is not None else id(self.target)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Decompiler) and hash(self) == hash(other)

    def __repr__(self) -> str:
        name = getattr(self.code, "co_name", None) or getattr(self.target, "__name__", "?")
        return f"depyf.Decompiler({name})"


# ------------------------------------------------------------------------------------------------
# decompile_and_compile_like
# ------------------------------------------------------------------------------------------------


def decompile_and_compile_like(code_to_decompile: types.CodeType, reference_code: types.CodeType,
                               indentation: int = 4, temp_prefix: str = TEMP_PREFIX,
                               filepath_template: Optional[str] = None) -> types.CodeType:
    """Decompile ``code_to_decompile`` and compile the source into a code object that can run in
    place of ``reference_code`` (a Dynamo bytecode hook may return it).

    The result has the reference's name and qualified name, argument names and counts, free and
    cell variables (in the same order), and the reference's local variables first, in the same
    slots. Constants no literal can write are put back as the very objects. With
    ``filepath_template`` (such as ``"dump/__transformed_code_%s_for_f.py"``) the source is written
    to the first ``template % n`` that does not exist yet or already holds exactly this source,
    and compiled as that file, so debuggers show it; without it, the source is kept in
    ``linecache`` under a ``<decompiled ...>`` name so tracebacks still show the lines.
    """
    if not isinstance(code_to_decompile, types.CodeType) or not isinstance(reference_code, types.CodeType):
        raise TypeError("decompile_and_compile_like takes two code objects")
    hidden, stand_ins = _hide_constants(code_to_decompile)
    text = Decompiler(hidden).decompile(indentation, temp_prefix, overwite_fn_name=_PLACEHOLDER_DEF)
    if not text.startswith((f"def {_PLACEHOLDER_DEF}(", f"async def {_PLACEHOLDER_DEF}(")):
        raise DecompilationError("the code does not decompile to a function definition",
                                 function=code_to_decompile.co_name)
    text = _fit_layout(text, reference_code, indentation)
    text = "".join(f"# {key} stands for a constant no literal writes: {_one_line(repr(value))}\n"
                   for key, value in stand_ins.items()) + text
    if filepath_template is None:
        def_name = _identifier(reference_code.co_name)
        source = text.replace(_PLACEHOLDER_DEF, def_name)
        filename = f"<decompiled {reference_code.co_name} {id(code_to_decompile):x}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    else:
        filename, def_name, source = _claim_file(filepath_template, text)
    module_code = compile(source, filename, "exec")
    candidate = _find_function(module_code, def_name)
    if candidate is None:
        raise DecompilationError(f"no function {def_name} in the compiled source", function=reference_code.co_name)
    renamed: Dict[str, Any] = {"co_name": reference_code.co_name}
    if hasattr(reference_code, "co_qualname"):
        renamed["co_qualname"] = reference_code.co_qualname
    candidate = _restore_constants(candidate.replace(**renamed), stand_ins)
    problem = layout_difference(candidate, reference_code)
    if problem is not None:
        raise DecompilationError(f"the recompiled code cannot stand in for the reference: {problem}",
                                 function=reference_code.co_name)
    return candidate


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _identifier(name: str) -> str:
    """``name`` if it can be a function's name, else one made of its letters (``<lambda>``: ``_lambda``)."""
    if name.isidentifier() and not keyword.iskeyword(name):
        return name
    ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") or "_"
    return "_" + ident if ident[0].isdigit() or keyword.iskeyword(ident) else ident


def _arg_count(code: types.CodeType) -> int:
    return code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)


def layout_difference(candidate: types.CodeType, reference: types.CodeType) -> Optional[str]:
    """How ``candidate``'s frame layout differs from ``reference``'s, or None when it may stand in."""
    for attr in ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_freevars", "co_cellvars"):
        if getattr(candidate, attr, None) != getattr(reference, attr, None):
            return f"{attr} is {getattr(candidate, attr)!r}, the reference has {getattr(reference, attr)!r}"
    if (candidate.co_flags ^ reference.co_flags) & 0x0C:
        return "*args / **kwargs differ"
    n = len(reference.co_varnames)
    if candidate.co_varnames[:n] != reference.co_varnames:
        return f"local variables start {candidate.co_varnames[:n]!r}, the reference has {reference.co_varnames!r}"
    return None


def _fit_layout(text: str, reference: types.CodeType, indentation: int) -> str:
    """Add what makes the compiled function's frame layout the reference's: the reference's
    locals assigned first (in its order), its free variables from an enclosing function, its cell
    variables used by a nested function. Each fix is made only where compiling shows it is needed."""
    unit = " " * indentation
    lines = text.rstrip("\n").split("\n")
    locals_fixed = nonlocal_fixed = cells_fixed = False
    for _ in range(_MAX_LAYOUT_ROUNDS):
        candidate = _compile_candidate(lines, reference, unit)
        if candidate is None:
            break
        body_at = 1  # the line after `def ...:`
        changed = False
        n = len(reference.co_varnames)
        if candidate.co_varnames[:n] != reference.co_varnames and not locals_fixed:
            own = reference.co_varnames[_arg_count(reference):]
            if own:
                lines.insert(body_at, unit + " = ".join(own) + " = None  # the reference's local variables, in its order")
            locals_fixed = changed = True
        missing_free = [v for v in reference.co_freevars if v not in candidate.co_freevars]
        if missing_free and not nonlocal_fixed:
            lines.insert(body_at, unit + "nonlocal " + ", ".join(missing_free))
            nonlocal_fixed = changed = True
        missing_cells = [v for v in reference.co_cellvars if v not in candidate.co_cellvars]
        if missing_cells and not cells_fixed:
            params = reference.co_varnames[:_arg_count(reference)]
            unbound = [v for v in missing_cells if v not in params]
            if unbound:  # (a name the function never binds would be a global of the helper)
                lines.insert(body_at, unit + " = ".join(unbound) + " = None  # the reference's cell variables")
            lines.append(unit + "def __depyf_cell_variables():  # makes the reference's cell variables cells here too")
            lines.append(unit * 2 + "return (" + ", ".join(missing_cells) + ",)")
            cells_fixed = changed = True
        if not changed:
            break
    return _with_free_variables(lines, reference, unit)


def _with_free_variables(lines: List[str], reference: types.CodeType, unit: str) -> str:
    if not reference.co_freevars:
        return "\n".join(lines) + "\n"
    out = [f"def __depyf_enclosing_{_PLACEHOLDER_DEF}():  # gives the function the reference's free variables"]
    out.extend(unit + f"{v} = None" for v in reference.co_freevars)
    out.extend(unit + line if line else line for line in lines)
    out.append(unit + f"return {_PLACEHOLDER_DEF}")
    return "\n".join(out) + "\n"


def _compile_candidate(lines: List[str], reference: types.CodeType, unit: str) -> Optional[types.CodeType]:
    source = _with_free_variables(lines, reference, unit)
    try:
        module_code = compile(source, "<depyf layout>", "exec")
    except SyntaxError:
        return None  # reported by the final compile, with the real file name
    return _find_function(module_code, _PLACEHOLDER_DEF)


def _find_function(module_code: types.CodeType, name: str) -> Optional[types.CodeType]:
    for code in collect_all_code_objects(module_code)[1:]:
        if code.co_name == name:
            return code
    return None


def _claim_file(template: str, text: str) -> Tuple[str, str, str]:
    """``(path, def name, source)``: the first ``template % n`` free or holding this very source."""
    for count in range(100000):
        path = template % count
        def_name = _identifier(os.path.basename(path).split(".")[0])
        source = text.replace(_PLACEHOLDER_DEF, def_name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                if f.read() == source:
                    return path, def_name, source
            continue
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        return path, def_name, source
    raise RuntimeError(f"no free file name for {template!r}")


# -- constants no literal can write -------------------------------------------------------------


def _hide_constants(code: types.CodeType) -> Tuple[types.CodeType, Dict[str, Any]]:
    """``code`` with each constant no literal writes replaced by a unique placeholder string,
    and the objects by placeholder (put back into the compiled code by `_restore_constants`)."""
    stand_ins: Dict[str, Any] = {}
    taken = {v for c in collect_all_code_objects(code) for v in c.co_consts if isinstance(v, str)}

    def hide(c: types.CodeType) -> types.CodeType:
        consts = []
        for value in c.co_consts:
            if isinstance(value, types.CodeType):
                consts.append(hide(value))
            elif has_source_form(value):
                consts.append(value)
            else:
                key = f"__depyf_constant_{len(stand_ins)}__"
                while key in taken:
                    key = "_" + key
                stand_ins[key] = value
                consts.append(key)
        return c.replace(co_consts=tuple(consts)) if consts != list(c.co_consts) else c

    return hide(code), stand_ins


def _restore_constants(code: types.CodeType, stand_ins: Dict[str, Any]) -> types.CodeType:
    if not stand_ins:
        return code
    found: set = set()

    def restore_value(value: Any) -> Any:
        if isinstance(value, str) and value in stand_ins:
            found.add(value)
            return stand_ins[value]
        if type(value) is tuple:  # (the compiler folds constant tuples)
            return tuple(restore_value(v) for v in value)
        if type(value) is frozenset:
            return frozenset(restore_value(v) for v in value)
        if isinstance(value, types.CodeType):
            return restore(value)
        return value

    def restore(c: types.CodeType) -> types.CodeType:
        return c.replace(co_consts=tuple(restore_value(v) for v in c.co_consts))

    restored = restore(code)
    missing = set(stand_ins) - found
    if missing:
        raise DecompilationError(f"{len(missing)} constant(s) without a literal form could not be put back",
                                 function=code.co_name)
    return restored
