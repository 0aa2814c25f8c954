"""Decompile Dynamo's code objects without ever breaking the user's program.

Dynamo's transformed code and resume functions are the decompiler's hardest input. Every call
goes through :func:`safe_decompile`, which always returns source that compiles: the decompiler's
own output when it is usable, otherwise a stub whose body is the disassembly as comments. Failures
are reported once per code object on stderr.
"""
from __future__ import annotations

import dis
import sys
import types
from typing import Dict, Optional, Set, Tuple

from depyf.decompiler.code_check import comment_text

_reported: Set[str] = set()


def signature_of(code: types.CodeType) -> Tuple[str, str, list]:
    """``(parameter list text, call argument text, all argument names)`` of a code object."""
    names = list(code.co_varnames)
    argc, kwc = code.co_argcount, code.co_kwonlyargcount
    posonly = getattr(code, "co_posonlyargcount", 0)
    pos = names[:argc]
    kwonly = names[argc : argc + kwc]
    i = argc + kwc
    varargs = varkw = None
    if code.co_flags & 0x04:
        varargs = names[i]
        i += 1
    if code.co_flags & 0x08:
        varkw = names[i]
    params = list(pos)
    if posonly:
        params.insert(posonly, "/")
    if varargs:
        params.append("*" + varargs)
    elif kwonly:
        params.append("*")
    params.extend(kwonly)
    if varkw:
        params.append("**" + varkw)
    call = list(pos)
    if varargs:
        call.append("*" + varargs)
    call.extend(f"{k}={k}" for k in kwonly)
    if varkw:
        call.append("**" + varkw)
    all_names = pos + ([varargs] if varargs else []) + kwonly + ([varkw] if varkw else [])
    return ", ".join(params), ", ".join(call), all_names


def disassembly_stub(code: types.CodeType, name: str, reason: str) -> str:
    """A function with the right signature whose body shows the bytecode as comments."""
    params, _, _ = signature_of(code)
    lines = [f"def {name}({params}):", f"    # depyf could not decompile this code: {_one_line(reason)}"]
    lines.append("    # Its bytecode, for reference:")
    try:
        for ins in dis.get_instructions(code):
            lines.append(f"    #   {ins.offset:>4} {ins.opname:<24} {_one_line(ins.argrepr or ('' if ins.arg is None else ins.arg))}")
    except Exception as e:  # pragma: no cover - dis itself failing is unexpected
        lines.append(f"    #   (disassembly failed: {_one_line(repr(e))})")
    lines.append("    raise NotImplementedError('see the bytecode above')")
    return "\n".join(lines) + "\n"


def _one_line(text: str) -> str:
    """`text` for one comment line: whitespace runs as one space, and what is left unprintable
    (a NUL) escaped, since a NUL makes the whole file invalid."""
    return comment_text(" ".join(str(text).split()))


def report_once(key: str, message: str) -> None:
    if key in _reported:
        return
    _reported.add(key)
    print(f"depyf: {message}", file=sys.stderr)


_PLACEHOLDER = "__depyf_placeholder_name__"
# Keyed by identity: a code object's hash covers its constants, and Dynamo's code can hold
# unhashable ones (a dict of a nested frame's values). Each entry keeps its code object alive, so
# its id cannot be reused while the entry exists.
_memo: Dict[Tuple[int, bool], Tuple[types.CodeType, Tuple[str, Optional[str]]]] = {}
_MEMO_LIMIT = 1024


def safe_decompile(code: types.CodeType, name: str, transformed: bool = False) -> Tuple[str, Optional[str]]:
    """``(source, problem)``: ``problem`` is None when the decompiler's own output was used.

    Each code object is decompiled once (the dump and its explanation both need it); the result
    is renamed for each caller. Callers collect the problems and report them once
    (:func:`report_problems`). ``transformed``: ``code`` is Dynamo's transformed code, bytecode
    no source compiles to, read with temporaries from the start (``decompile(rewritten=True)``).
    """
    key = (id(code), transformed)
    entry = _memo.get(key)
    if entry is None or entry[0] is not code:
        entry = (code, _decompile_uncached(code, transformed))
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[key] = entry
    text, problem = entry[1]
    return text.replace(f"def {_PLACEHOLDER}(", f"def {name}(", 1), problem


def share_decompiled(alias: types.CodeType, original: types.CodeType, transformed: bool = False) -> None:
    """Let ``alias`` (code made to stand in for ``original``, e.g. compiled from its dumped file)
    reuse ``original``'s decompiled text: torch's cache entries then hold the alias, and the
    explanation written at the end would otherwise decompile the same bytecode again."""
    entry = _memo.get((id(original), transformed))
    if entry is not None and entry[0] is original and alias is not original:
        _memo[(id(alias), transformed)] = (alias, entry[1])


def _decompile_uncached(code: types.CodeType, transformed: bool) -> Tuple[str, Optional[str]]:
    problem: Optional[str] = None
    try:
        import depyf

        text = depyf.decompile(code, name=_PLACEHOLDER, on_error="comment", rewritten=transformed)
        compile(text, "<depyf>", "exec")
        return (text if text.endswith("\n") else text + "\n"), None
    except BaseException as e:  # the decompiler must never take the user's program down
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        problem = f"{type(e).__name__}: {e}"
    from depyf.dynamo.adapter import torch_version

    where = f"{code.co_name} ({code.co_filename}:{code.co_firstlineno}), Python {sys.version.split()[0]}, torch {torch_version()}"
    return disassembly_stub(code, _PLACEHOLDER, problem), f"{where}: {_one_line(problem)}"


def report_problems(problems: "list[str]", context: str) -> None:
    """Say once on stderr that some code could not be decompiled (torch's own code still runs)."""
    if not problems:
        return
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    report_once(
        context + first,
        f"{context}: could not decompile {first}{more}; the output shows their bytecode as comments, "
        "and torch's own code runs",
    )
