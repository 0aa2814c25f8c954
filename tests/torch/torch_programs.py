"""Small programs that exercise what torch.compile does: breaks, resumes, guards, recompiles.

Each program is built fresh by ``make()`` (so module weights are the same on every build) and
gives ``calls``: the argument tuples to run, in order. ``run(fn, calls)`` returns every output
(and gradients where the program trains), for comparing runs with and without depyf.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

import torch


def _t(*shape: int, seed: int = 0, **kw: Any) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, **kw)


@dataclass
class Program:
    name: str
    make: Callable[[], Callable[..., Any]]
    calls: Callable[[], List[Tuple[tuple, dict]]]
    train: bool = False


# -- the seed: a data-dependent branch -------------------------------------------------------------


def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


def _toy_calls():
    return [((_t(10, seed=i), _t(10, seed=100 + i)), {}) for i in range(4)]


# -- graph breaks ----------------------------------------------------------------------------------


def break_print(x):
    y = x.sin()
    print("depyf test: graph break from print")
    return y.cos()


def break_item(x):
    y = x * 2
    n = y.sum().item()
    return y + n


def break_explicit(x):
    y = x + 1
    torch._dynamo.graph_break()
    return y * 3


@torch._dynamo.disable
def _not_traced(x):
    return x.clone()


def break_unsupported(x):
    y = x.exp()
    z = _not_traced(y)
    return z - 1


def break_in_loop(x):
    for i in range(2):
        x = x + i
        torch._dynamo.graph_break()
    return x


def break_in_no_grad(x):
    with torch.no_grad():
        y = x * 2
        torch._dynamo.graph_break()
        z = y + 1
    return z


def _helper(x):
    y = x.relu()
    torch._dynamo.graph_break()
    return y + 1


def break_in_helper(x):
    a = x * 3
    b = _helper(a)
    return b.sum() + a.mean()


def break_in_fstring(x):
    # The graph breaks inside an f-string: the resume function gets its pieces as parameters.
    y = x * 2
    label = f"sum {y.sum().item():.2f} of {y.shape[0]}"
    return y + len(label)


def tolist_in_no_grad(x):
    # A for loop over `.tolist()` values inside a context manager: the resume function re-enters
    # the context and jumps into the loop.
    out = x
    with torch.no_grad():
        for v in x.tolist():
            out = out + v
    return out


def item_in_nested_contexts(x):
    with torch.no_grad():
        with torch.autocast("cpu", enabled=False):
            n = int(x.abs().sum().item())
            y = x * n
    return y


def items_in_format(x):
    # Two breaks in one call's arguments; torch 2.13 keeps a cache entry without code for the
    # resume function, which the explanation must skip.
    text = "{}-{}".format(x.sum().item(), x.max().item())
    return x * len(text)


# -- modules, closures, kwargs, containers -----------------------------------------------------------


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.norm = torch.nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.lin(x)).relu()


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.Sequential(Block(), Block())
        self.head = torch.nn.Linear(4, 2)

    def forward(self, x, scale=1.0):
        return self.head(self.blocks(x)) * scale


def _make_net():
    torch.manual_seed(0)
    return Net()


def make_closure():
    factor = torch.tensor(2.0)
    offset = 3

    def closure_kwargs(x, *, shift=1, **extra):
        y = x * factor + offset + shift
        if "bias" in extra:
            y = y + extra["bias"]
        return y

    return closure_kwargs


def containers(d, pair, *rest):
    a, b = pair
    first, *others = rest
    out = {"sum": d["x"] + a, "prod": d["y"] * b, "n": len(others)}
    return out["sum"] + out["prod"] + first, tuple(others)


def dynamic_shapes(x):
    return (x * 2).sum(0) + x.shape[0]


def break_in_nested_def(x):
    # Dynamo rebuilds `inner` in its transformed code from constants no literal can write
    # (the code object and the globals dict).
    def inner(y):
        y = y + 1
        torch._dynamo.graph_break()
        return y * 2

    return inner(x) + inner(x * 2)


def _train_step_make():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1))

    def train_step(x, y):
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    train_step.model = model  # type: ignore[attr-defined]
    return train_step


PROGRAMS: Dict[str, Program] = {
    p.name: p
    for p in [
        Program("toy", lambda: toy_example, _toy_calls),
        Program("print", lambda: break_print, lambda: [((_t(3),), {})]),
        Program("item", lambda: break_item, lambda: [((_t(3),), {})]),
        Program("graph_break", lambda: break_explicit, lambda: [((_t(3),), {})]),
        Program("unsupported", lambda: break_unsupported, lambda: [((_t(3),), {})]),
        Program("loop", lambda: break_in_loop, lambda: [((_t(3),), {})]),
        Program("no_grad", lambda: break_in_no_grad, lambda: [((_t(3, requires_grad=True),), {})]),
        Program("helper", lambda: break_in_helper, lambda: [((_t(3),), {}), ((_t(3, seed=1),), {})]),
        Program("nested_def", lambda: break_in_nested_def, lambda: [((_t(3),), {})]),
        Program("fstring", lambda: break_in_fstring, lambda: [((_t(3),), {})]),
        Program("tolist_no_grad", lambda: tolist_in_no_grad, lambda: [((_t(3),), {})]),
        Program("nested_contexts", lambda: item_in_nested_contexts, lambda: [((_t(3),), {})]),
        Program("items_in_format", lambda: items_in_format, lambda: [((_t(3),), {})]),
        Program("module", _make_net, lambda: [((_t(2, 4),), {}), ((_t(2, 4, seed=1),), {"scale": 2.0})]),
        Program(
            "closure_kwargs",
            make_closure,
            lambda: [((_t(3),), {"shift": 2}), ((_t(3),), {"shift": 2, "bias": _t(3, seed=5)})],
        ),
        Program(
            "containers",
            lambda: containers,
            lambda: [(({"x": _t(2), "y": _t(2, seed=1)}, (_t(2, seed=2), _t(2, seed=3)), _t(2, seed=4), 5, 6), {})],
        ),
        Program(
            "dynamic",
            lambda: dynamic_shapes,
            lambda: [((_t(3, 2),), {}), ((_t(5, 2),), {}), ((_t(7, 2),), {}), ((_t(4, 2, dtype=torch.float64),), {})],
        ),
        Program(
            "train",
            _train_step_make,
            lambda: [((_t(4, 3, seed=i), _t(4, 1, seed=9 + i)), {}) for i in range(2)],
            train=True,
        ),
    ]
}


def run(fn: Callable[..., Any], program: Program, compiled: Callable[..., Any]) -> List[Any]:
    """Run every call of ``program`` through ``compiled``; return outputs (and gradients)."""
    outs: List[Any] = []
    for args, kwargs in program.calls():
        outs.append(compiled(*args, **kwargs))
        for a in args:
            if isinstance(a, torch.Tensor) and a.grad is not None:
                outs.append(a.grad)
    model = getattr(fn, "model", None)
    if model is not None:
        outs.extend(p.grad.clone() for p in model.parameters() if p.grad is not None)
    return outs


def flatten(value: Any) -> List[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in flatten(v)]
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in flatten(value[k])]
    return [value]


def same(a: Any, b: Any) -> bool:
    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb):
        if isinstance(x, torch.Tensor):
            if not isinstance(y, torch.Tensor) or x.dtype != y.dtype or x.shape != y.shape:
                return False
            if not torch.equal(x.detach(), y.detach()):
                return False
        elif x != y:
            return False
    return True
