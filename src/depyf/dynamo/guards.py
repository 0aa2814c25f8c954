"""Turn torch's guard descriptions into Python expressions over ``L`` and ``G``.

Each leaf guard comes with one or more description strings such as
``check_tensor(L['a'], Tensor, DispatchKeySet(CPU, ...), torch.float32, device=None, ...)  # user line``
or ``___check_global_state() against {json}``. Descriptions that already are expressions are kept;
known non-expression shapes are rewritten to calls into :mod:`depyf.dynamo.guard_runtime`; anything
else becomes ``___guard_stand_in(...)`` (always true) with the description kept as a comment, so the
written file always compiles.
"""
from __future__ import annotations

import ast
import builtins
import functools
import json
import re
from dataclasses import dataclass
from typing import Iterable, List, Set

from depyf.dynamo import guard_runtime
from depyf.dynamo.adapter import LeafGuard

# The helpers a dumped guard function imports: exactly what guard_runtime exports.
RUNTIME_NAMES = tuple(guard_runtime.__all__)

# Names a rendered guard may read: the frame's locals and globals, torch, our helpers, builtins.
_ALLOWED_NAMES: Set[str] = {"L", "G", "torch", "math", "inf", "nan", *RUNTIME_NAMES} | set(dir(builtins))

_TENSOR_MATCH = re.compile(
    r"^check_tensor\((?P<src>.*?), (?P<type>\w+), DispatchKeySet\((?P<keys>[^)]*)\), (?P<dtype>torch\.\w+), "
    r"device=(?P<device>.*?), requires_grad=(?P<rg>True|False), size=(?P<size>\[[^\]]*\]), "
    r"stride=(?P<stride>\[[^\]]*\])\)$"
)
_ID_TYPE_SUFFIX = re.compile(r", type=<class '[^']*'>$")
_GLOBAL_STATE = re.compile(r"^___check_global_state\(\) against (?P<json>\{.*\})$")


@dataclass(frozen=True)
class RenderedGuard:
    """One guard as written into a dumped file."""

    expr: str
    comment: str
    stand_in: bool


# A string literal (skipped whole, escapes included) or a comment's `#`.
_LITERAL_OR_HASH = re.compile(r"""'(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|#""", re.DOTALL)


def split_comment(text: str) -> "tuple[str, str]":
    """Split ``expr  # comment`` at the first ``#`` outside a string literal."""
    hash_at = text.find("#")
    if hash_at < 0:
        return text.rstrip(), ""
    if "'" not in text[:hash_at] and '"' not in text[:hash_at]:
        return text[:hash_at].rstrip(), text[hash_at + 1 :].strip()
    for found in _LITERAL_OR_HASH.finditer(text, 0):
        if found.group() == "#":
            i = found.start()
            return text[:i].rstrip(), text[i + 1 :].strip()
    return text.rstrip(), ""


@functools.lru_cache(maxsize=4096)
def _is_valid(expr: str) -> bool:
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in _ALLOWED_NAMES:
            return False
    return True


def _one_line(text: str) -> str:
    return " ".join(text.split())


@functools.lru_cache(maxsize=4096)
def render_part(kind: str, part: str) -> RenderedGuard:
    expr, comment = split_comment(part.strip())
    expr = expr.strip()
    m = _TENSOR_MATCH.match(expr)
    if m:
        keys = m.group("keys")
        new = (
            f"___check_tensor({m.group('src')}, {m.group('type')!r}, {('DispatchKeySet(' + keys + ')')!r}, "
            f"{m.group('dtype')}, device={m.group('device')}, requires_grad={m.group('rg')}, "
            f"size={m.group('size')}, stride={m.group('stride')})"
        )
        if _is_valid(new):
            return RenderedGuard(new, _one_line(comment), False)
    if kind in ("ID_MATCH", "TYPE_MATCH", "CLOSURE_MATCH", "FUNCTION_MATCH") or _ID_TYPE_SUFFIX.search(expr):
        expr = _ID_TYPE_SUFFIX.sub("", expr)
    m = _GLOBAL_STATE.match(expr)
    if m:
        try:
            state = json.loads(m.group("json"))
            new = f"___check_global_state({state!r})"
            if _is_valid(new):
                return RenderedGuard(new, _one_line(comment), False)
        except ValueError:
            pass
    if expr.startswith("check_no_aliasing("):
        expr = "___" + expr
    if _is_valid(expr):
        return RenderedGuard(expr, _one_line(comment), False)
    description = _one_line(part)
    return RenderedGuard(f"___guard_stand_in({kind!r})", f"{kind}: {description}", True)


def render_guards(leaves: Iterable[LeafGuard]) -> List[RenderedGuard]:
    """Render every leaf guard part, once each (relational guards appear under several managers)."""
    out: List[RenderedGuard] = []
    seen: Set[str] = set()
    for leaf in leaves:
        for part in leaf.parts:
            key = split_comment(part)[0].strip()
            if key in seen:
                continue
            seen.add(key)
            out.append(render_part(leaf.kind, part))
    return out


def guard_function_source(name: str, guards: List[RenderedGuard], indent: str = "    ") -> str:
    """``def <name>(L, G, **___kwargs_ignored):`` returning the conjunction of ``guards``."""
    lines = [f"def {name}(L, G, **___kwargs_ignored):"]
    if not guards:
        lines.append(f"{indent}return True")
        return "\n".join(lines) + "\n"
    # torch counts a guard it cannot evaluate (a missing key or attribute) as failed.
    lines.append(f"{indent}try:")
    lines.append(f"{indent}{indent}return (")
    for i, g in enumerate(guards):
        prefix = "" if i == 0 else "and "
        comment = f"  # {g.comment}" if g.comment else ""
        lines.append(f"{indent * 3}{prefix}({g.expr}){comment}")
    lines.append(f"{indent}{indent})")
    lines.append(f"{indent}except Exception:")
    lines.append(f"{indent}{indent}return False")
    return "\n".join(lines) + "\n"
