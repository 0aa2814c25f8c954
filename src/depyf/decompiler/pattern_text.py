"""Printing a finished `match` pattern node tree as source text (`case [x, *rest] | {'k': x}:`)."""
from typing import List, Optional

from depyf.decompiler import nodes as n
from depyf.decompiler.pattern_values import _NotAPattern, _Node


class _PatternPrinter:
    """Turns a node tree into pattern source text."""

    def __init__(self, render) -> None:
        self.render = render

    def text(self, node: Optional[_Node]) -> str:
        if node is None:
            return "_"
        core = self.core(node)
        names = list(node.names)
        if core is None:
            if not names:
                return "_"
            if node.wild:
                core = "_"
            else:
                core, names = names[0], names[1:]
        for name in names:
            core = f"{self.wrap_or(node, core)} as {name}"
        return core

    def wrap_or(self, node: _Node, core: str) -> str:
        return f"({core})" if node.kind == "or" or " as " in core else core

    def alternative(self, node: _Node) -> str:
        text = self.text(node)
        if node.kind == "or" or node.names and (node.kind is not None or len(node.names) > 1):
            return f"({text})"
        return text

    def core(self, node: _Node) -> Optional[str]:
        kind = node.kind
        if kind is None:
            return None
        if kind in ("value", "singleton"):
            assert node.value is not None
            return self.render(node.value)
        if kind == "or":
            return " | ".join(self.alternative(a) for a in node.alts)
        if kind == "seq":
            return "[" + ", ".join(self.sequence_items(node)) + "]"
        if kind == "class":
            assert node.cls is not None
            parts = [self.text(node.items.get(k)) for k in range(node.nargs)]
            parts += [f"{name}={self.text(node.items.get(node.nargs + k))}" for k, name in enumerate(node.kwnames)]
            return f"{self.render(node.cls)}({', '.join(parts)})"
        if kind == "map":
            keys = self.mapping_keys(node)
            parts = [f"{k}: {self.text(node.items.get(i))}" for i, k in enumerate(keys)]
            if node.rest is not None:
                parts.append("**" + node.rest)
            return "{" + ", ".join(parts) + "}"
        raise _NotAPattern()

    def mapping_keys(self, node: _Node) -> List[str]:
        keys = node.keys
        if keys is None:
            return []
        if isinstance(keys, n.Const) and isinstance(keys.value, tuple):
            return [self.render(n.Const(k)) for k in keys.value]
        if isinstance(keys, n.Tuple_):
            return [self.render(k) for k in keys.elts]
        raise _NotAPattern()

    def sequence_items(self, node: _Node) -> List[str]:
        if node.length is not None:
            size, star = node.length, None
        else:
            size = (node.min_length or 0) + 1
            star = node.star
            if star is None:
                positive = [k for k in node.items if isinstance(k, int)]
                star = max(positive) + 1 if positive else 0
        out = []
        for pos in range(size):
            child = node.items.get(pos)
            if child is None and star is not None and pos > star:
                child = node.items.get(("neg", size - pos))
            if pos == star:
                out.append("*" + (child.names[0] if child is not None and child.names else "_"))
            else:
                out.append(self.text(child))
        return out
