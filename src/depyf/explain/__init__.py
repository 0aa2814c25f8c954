"""``dump_src``: the seed's API, one Python module that explains what torch.compile did."""
from __future__ import annotations

import os
import warnings
from typing import Any, List

from depyf.dynamo import adapter
from depyf.dynamo.decompile import report_problems
from depyf.dynamo.names import identifier
from depyf.explain.render import Explainer

__all__ = ["dump_src", "NothingCompiledWarning"]


class NothingCompiledWarning(UserWarning):
    """``dump_src`` found no compiled code for the function: the explanation shows only its source."""


def dump_src(fn: Any) -> str:
    """Explain everything torch.compile did for ``fn``, after it has run.

    ``fn`` is what ``torch.compile`` returned (a function or a compiled ``nn.Module``), or the
    original function, method or module. No context manager is needed: the explanation is read
    from Dynamo's cache entries and the callables it installed in the function's globals.

    When nothing was compiled for ``fn`` (it has not run since ``torch.compile`` wrapped it, it
    was never compiled, or ``torch._dynamo.reset()`` cleared its cache), a
    :class:`NothingCompiledWarning` is issued and the text starts with a comment that says so:
    the explanation then holds the function's source and no guard. For ``torch.compile(module)``
    torch compiles a wrapper of its own that calls the module's ``forward``; that wrapper is
    what is explained, and a comment says so.
    """
    adapter.require_torch("depyf.explain.dump_src")
    func, _ = adapter.unwrap_compiled(fn)
    notes: List[str] = []
    if not adapter.cache_entries(func.__code__):
        wrapper = next(iter(adapter.compiled_wrappers(fn)), None)
        if wrapper is not None:
            notes.append(_wrapper_note(func, wrapper))
            func = wrapper
        else:
            notes.append(_nothing_compiled(fn, func))
    code = func.__code__
    name = identifier(code.co_name)
    explainer = Explainer()
    body = explainer.explain(func, code, func.__globals__, name)
    report_problems(explainer.problems, f"dump_src({name})")
    comment = "".join("".join(f"# {line}\n" for line in note.splitlines()) + "\n" for note in notes)
    return explainer.header(name) + comment + body


def _where(func: Any) -> str:
    code = func.__code__
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def _wrapper_note(user_func: Any, wrapper: Any) -> str:
    code = wrapper.__code__
    wrapper_name = str(getattr(code, "co_qualname", code.co_name))  # functools.wraps renamed the function
    return (
        f"NOTE: torch.compile did not compile {user_func.__qualname__} itself: it compiled torch's wrapper\n"
        f"{wrapper_name} ({code.co_filename}:{code.co_firstlineno}), which calls it;\n"
        f"{user_func.__qualname__} ({_where(user_func)}) was traced into the graphs below. This is what is explained.\n"
        "The wrapper's cache entries serve every module compiled this way: the guards tell them apart\n"
        "by the type of L['fn'] (the module)."
    )


def _nothing_compiled(fn: Any, func: Any) -> str:
    what = f"{func.__qualname__} ({_where(func)})"
    if adapter.is_compile_wrapper(fn):
        why = (
            "it has not run yet (torch compiles on the first call: call it, then dump_src), "
            "or Dynamo ran it without compiling (see prepare_debug's skipped_*.py), "
            "or torch._dynamo.reset() cleared its cache"
        )
    else:
        why = (
            "it has no cache entry (never compiled, not run yet, or torch._dynamo.reset() cleared it): "
            "call what torch.compile returned, then dump_src"
        )
    message = f"depyf.dump_src: nothing was compiled for {what}; {why}"
    warnings.warn(message, NothingCompiledWarning, stacklevel=3)
    return "NOTE: " + message.replace("; ", ";\n", 1) + "\nBelow: its source only, with no guard and no compiled code."
