"""Code objects saved to files and loaded back: ``prepare_debug(dir, log_bytecode=True)``.

Next to each ``__transformed_code_<i>_for_<fn>.py`` three files hold code objects (the names
depyf 0.20 used):

    <file>.py.original_bytecode                    the function's own code, as Dynamo got it
    <file>.py.transformed_bytecode                 the code Dynamo made from it
    <file>.py.decompiled_and_compiled_back_bytecode  the file's source compiled again

Each is a pickle that ``pickle.load`` (or ``dill.load``, as with 0.20) turns back into the code
object; inside, the code object travels as ``marshal`` data, so loading needs nothing but the
standard library. Constants marshal cannot hold (Dynamo's code can embed arbitrary objects) are
pickled on their own and put back on loading; one that cannot be pickled either comes back as the
string ``<depyf: unpicklable constant: repr>``. Load with :func:`load_code`, or ``pickle.load``.
"""
from __future__ import annotations

import copyreg
import io
import marshal
import os
import pickle
import threading
import types
from typing import Any, Callable, Dict, List, Optional, Tuple

from depyf.code_walk import collect_all_code_objects

__all__ = ["save_code", "load_code", "dumps_code", "SUFFIXES"]

SUFFIXES = ("original_bytecode", "transformed_bytecode", "decompiled_and_compiled_back_bytecode")

_Path = Tuple[int, ...]  # indices through co_consts (of nested code objects) down to one constant


def _split(code: types.CodeType, path: _Path, loose: List[Tuple[_Path, Any]]) -> types.CodeType:
    """``code`` with every constant marshal rejects replaced by None, the constants kept in ``loose``."""
    consts = list(code.co_consts)
    changed = False
    for k, value in enumerate(consts):
        if isinstance(value, types.CodeType):
            inner = _split(value, path + (k,), loose)
            if inner is not value:
                consts[k], changed = inner, True
            continue
        try:
            marshal.dumps(value)
        except ValueError:
            loose.append((path + (k,), value))
            consts[k], changed = None, True
    return code.replace(co_consts=tuple(consts)) if changed else code


def _put_back(code: types.CodeType, path: _Path, value: Any) -> types.CodeType:
    consts = list(code.co_consts)
    if len(path) == 1:
        consts[path[0]] = value
    else:
        consts[path[0]] = _put_back(consts[path[0]], path[1:], value)
    return code.replace(co_consts=tuple(consts))


def rebuild_code(data: bytes, loose: List[Tuple[_Path, Any]]) -> types.CodeType:
    """The code object from ``marshal`` data and the constants kept apart (called by pickle)."""
    code = marshal.loads(data)
    for path, value in loose:
        code = _put_back(code, tuple(path), value)
    return code


def _picklable(value: Any) -> Any:
    try:
        pickle.dumps(value)
        return value
    except Exception:
        return f"<depyf: unpicklable constant: {' '.join(repr(value).split())[:200]}>"


def _reduce_code(code: types.CodeType) -> Tuple[Any, Tuple[Any, ...]]:
    loose: List[Tuple[_Path, Any]] = []
    plain = _split(code, (), loose)
    if not loose:
        return marshal.loads, (marshal.dumps(plain),)  # loads with the standard library alone
    return rebuild_code, (marshal.dumps(plain), [(path, _picklable(v)) for path, v in loose])


def dumps_code(code: types.CodeType) -> bytes:
    """``code`` as pickle bytes that load back into an equal code object."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=4)
    table: Dict[type, Any] = dict(copyreg.dispatch_table)
    table[types.CodeType] = _reduce_code
    pickler.dispatch_table = table
    pickler.dump(code)
    return buffer.getvalue()


def save_code(path: str, code: types.CodeType) -> str:
    """Write ``code`` to ``path`` (atomically: a reader never sees half a file)."""
    data = dumps_code(code)
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def load_code(path: str) -> types.CodeType:
    """The code object saved in ``path`` by :func:`save_code`."""
    with open(path, "rb") as f:
        code = pickle.load(f)
    if not isinstance(code, types.CodeType):
        raise TypeError(f"{path} holds a {type(code).__name__}, not a code object")
    return code


def recompiled_from_file(path: str, reference: types.CodeType) -> Optional[types.CodeType]:
    """The function of a transformed-code file (named as the file) compiled from the file's text,
    with the reference's name, as a debugger would run it; None when the file has no such function."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    stem = os.path.basename(path)[: -len(".py")] if path.endswith(".py") else os.path.basename(path)
    module_code = compile(source, path, "exec")
    for code in collect_all_code_objects(module_code)[1:]:
        if code.co_name == stem:
            renamed: Dict[str, Any] = {"co_name": reference.co_name}
            if hasattr(reference, "co_qualname"):
                renamed["co_qualname"] = reference.co_qualname
            return code.replace(**renamed)
    return None


def with_code_objects_saved(layout: Any) -> Callable[[Any], Optional[types.CodeType]]:
    """``layout.on_frame``, also saving each frame's code objects next to its transformed-code file.

    The recompiled code object is saved only where the file holds decompiled source (not where
    decompiling failed and the file shows the disassembly)."""

    def on_frame(record: Any) -> Optional[types.CodeType]:
        failures = len(layout.undecompiled)
        result = layout.on_frame(record)
        path = getattr(record, "transformed_file", None)
        if not path:
            return result
        try:
            save_code(f"{path}.{SUFFIXES[0]}", record.code)
            save_code(f"{path}.{SUFFIXES[1]}", record.new_code)
            if len(layout.undecompiled) == failures:
                recompiled = recompiled_from_file(path, record.code)
                if recompiled is not None:
                    save_code(f"{path}.{SUFFIXES[2]}", recompiled)
        except Exception as e:  # saving the log must not break compilation
            layout.problems.append(f"{os.path.basename(path)}: code objects not saved ({e!r})")
        return result

    return on_frame
