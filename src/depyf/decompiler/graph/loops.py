"""Natural loops: one per header, from the back edges that the header dominates."""
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from depyf.decompiler.graph.dominators import DominatorTree


@dataclass(frozen=True)
class Loop:
    """A natural loop, in block labels: `header`, the `latches` that jump back to it, the
    `body` (header included), the edges that leave it (`exits`: (inside, outside) pairs of
    normal edges), and the innermost loop around it (`parent`, an index into the loop tuple)."""

    header: int
    latches: Tuple[int, ...]
    body: FrozenSet[int]
    exits: Tuple[Tuple[int, int], ...]
    parent: Optional[int]
    depth: int


def find_loops(normal: Sequence[Sequence[int]], every_predecessor: Sequence[Sequence[int]],
               tree: DominatorTree, labels: Sequence[int]) -> Tuple[Loop, ...]:
    """The natural loops, ordered by header, over block numbers (`labels` names them in the
    result: header, latches, body and exits are block labels). A back edge is a normal edge u -> h where h
    dominates u; the body is h and what reaches a latch without passing h (walking every edge
    backwards, so that handler code that goes on to the next turn belongs to the body)."""
    latches: Dict[int, List[int]] = {}
    for u, succ in enumerate(normal):
        for h in succ:
            if tree.dominates(h, u):
                latches.setdefault(h, []).append(u)
    found: List[Tuple[int, Tuple[int, ...], FrozenSet[int]]] = []
    for h in sorted(latches):
        body = {h}
        work = [u for u in latches[h] if u != h]
        body.update(work)
        while work:
            node = work.pop()
            for p in every_predecessor[node]:
                if p not in body and tree.reached(p):
                    body.add(p)
                    work.append(p)
        found.append((h, tuple(latches[h]), frozenset(body)))
    # Nesting: the larger loops first, each block remembering the innermost loop seen so far.
    innermost: Dict[int, int] = {}
    parents: List[Optional[int]] = [None] * len(found)
    for k in sorted(range(len(found)), key=lambda k: -len(found[k][2])):
        h, _, body = found[k]
        parents[k] = innermost.get(h)
        for b in body:
            innermost[b] = k
    depths: List[int] = [0] * len(found)
    for k in sorted(range(len(found)), key=lambda k: -len(found[k][2])):
        p = parents[k]
        depths[k] = 0 if p is None else depths[p] + 1
    loops: List[Loop] = []
    for k, (h, latch, body) in enumerate(found):
        exits = tuple((labels[u], labels[v]) for u in sorted(body) for v in normal[u] if v not in body)
        loops.append(Loop(labels[h], tuple(labels[u] for u in latch), frozenset(labels[b] for b in body),
                          exits, parents[k], depths[k]))
    return tuple(loops)
