"""``dump_src``: the seed's API, one Python module that explains what torch.compile did."""
from __future__ import annotations

from typing import Any

from depyf.dynamo import adapter
from depyf.dynamo.decompile import report_problems
from depyf.dynamo.names import identifier
from depyf.explain.render import Explainer

__all__ = ["dump_src"]


def dump_src(fn: Any) -> str:
    """Explain everything torch.compile did for ``fn``, after it has run.

    ``fn`` is what ``torch.compile`` returned (a function or a compiled ``nn.Module``), or the
    original function, method or module. No context manager is needed: the explanation is read
    from Dynamo's cache entries and the callables it installed in the function's globals.
    """
    func, _ = adapter.unwrap_compiled(fn)
    code = func.__code__
    name = identifier(code.co_name)
    explainer = Explainer()
    body = explainer.explain(func, code, func.__globals__, name)
    report_problems(explainer.problems, f"dump_src({name})")
    return explainer.header(name) + body
