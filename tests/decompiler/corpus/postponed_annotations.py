"""Annotations under `from __future__ import annotations` (PEP 563): the compiler stores each one as
the text of its expression, and the source writes the expression, not a string. (The execution check
runs a definition's text on its own, without this module's future import: the annotations must
evaluate on 3.8 too.)"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from _cases import cases


@cases((1, "a"), (0, "b"))
def plain_names(count: int, label: str) -> str:
    return label * count


@cases(([1, 2], None), ([], {"k": 1}))
def generic_annotations(items: Optional[List[int]], table: Optional[Dict[str, int]] = None) -> List[int]:
    return list(items or []) + sorted((table or {}).values())


@cases((2,),)
def string_annotation_kept_as_string(n: "int") -> "list[str]":
    return [str(k) for k in range(n)]


@cases((3,),)
def nested_def_with_annotations(n: int) -> int:
    def inner(k: int, *rest: float, scale: float = 2.0, **extra: object) -> float:
        return k * scale + sum(rest)

    return int(inner(n, 1.0))


class Annotated:
    size: int = 3
    name: str
    pairs: Dict[str, Tuple[int, ...]] = {}

    def grow(self, by: int = 1) -> Annotated:
        self.size += by
        return self
