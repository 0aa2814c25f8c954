"""Dominators and post-dominators (Cooper, Harvey and Kennedy's iterative algorithm).

Nodes are the numbers 0..n-1 (block numbers); every walk is iterative, so graphs of tens of
thousands of blocks need no recursion. Post-dominators are the dominators of the reversed graph
from a virtual exit that every block leaving the code (return, raise) goes to.
"""
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

Successors = Sequence[Sequence[int]]


def postorder(successors: Successors, root: int) -> List[int]:
    """The nodes reachable from `root`, in depth-first postorder."""
    seen = [False] * len(successors)
    seen[root] = True
    order: List[int] = []
    stack = [(root, 0)]
    while stack:
        node, k = stack[-1]
        succ = successors[node]
        while k < len(succ) and seen[succ[k]]:
            k += 1
        if k < len(succ):
            stack[-1] = (node, k + 1)
            nxt = succ[k]
            seen[nxt] = True
            stack.append((nxt, 0))
        else:
            stack.pop()
            order.append(node)
    return order


def immediate_dominators(successors: Successors, root: int) -> Tuple[Optional[int], ...]:
    """Each node's immediate dominator; None for the root and for nodes `root` does not reach."""
    size = len(successors)
    order = postorder(successors, root)
    number = [-1] * size  # postorder number; -1: unreached
    for k, node in enumerate(order):
        number[node] = k
    predecessors: List[List[int]] = [[] for _ in range(size)]
    for node in order:
        for s in successors[node]:
            predecessors[s].append(node)
    idom: List[int] = [-1] * size
    idom[root] = root
    reverse = order[::-1][1:]  # (reverse postorder, the root left out)
    changed = True
    while changed:
        changed = False
        for node in reverse:
            new = -1
            for p in predecessors[node]:
                if idom[p] < 0:
                    continue
                if new < 0:
                    new = p
                    continue
                # intersect(p, new): walk both up the tree until they meet
                a, b = p, new
                while a != b:
                    while number[a] < number[b]:
                        a = idom[a]
                    while number[b] < number[a]:
                        b = idom[b]
                new = a
            if new >= 0 and idom[node] != new:
                idom[node] = new
                changed = True
    return tuple(None if node == root or d < 0 else d for node, d in enumerate(idom))


@dataclass(frozen=True)
class DominatorTree:
    """A dominator tree: `idom[node]` (None at the root and at unreached nodes), with each node's
    interval in a depth-first walk of the tree, so that `dominates` answers in O(1)."""

    root: int
    idom: Tuple[Optional[int], ...]
    enter: Tuple[int, ...]  # -1: a node the root does not reach
    leave: Tuple[int, ...]

    @classmethod
    def build(cls, successors: Successors, root: int) -> "DominatorTree":
        idom = immediate_dominators(successors, root)
        size = len(successors)
        children: List[List[int]] = [[] for _ in range(size)]
        for node, parent in enumerate(idom):
            if parent is not None:
                children[parent].append(node)
        enter, leave = [-1] * size, [-1] * size
        clock = 0
        stack = [(root, 0)]
        enter[root] = clock
        while stack:
            node, k = stack[-1]
            if k < len(children[node]):
                stack[-1] = (node, k + 1)
                child = children[node][k]
                clock += 1
                enter[child] = clock
                stack.append((child, 0))
            else:
                stack.pop()
                leave[node] = clock
        return cls(root, idom, tuple(enter), tuple(leave))

    def reached(self, node: int) -> bool:
        return self.enter[node] >= 0

    def dominates(self, a: int, b: int) -> bool:
        """Does every path from the root to `b` pass through `a`? (every node dominates itself;
        an unreached node dominates nothing and is dominated by nothing)"""
        if self.enter[a] < 0 or self.enter[b] < 0:
            return False
        return self.enter[a] <= self.enter[b] <= self.leave[a]

    def dominators(self, node: int) -> Tuple[int, ...]:
        """`node`'s dominators, from itself up to the root (empty for an unreached node)."""
        if self.enter[node] < 0:
            return ()
        chain = [node]
        parent = self.idom[node]
        while parent is not None:
            chain.append(parent)
            parent = self.idom[parent]
        return tuple(chain)


def reversed_with_exit(successors: Successors, exits: Sequence[int]) -> List[List[int]]:
    """The reversed graph plus a virtual exit node (numbered len(successors)) whose successors
    are `exits`: its dominator tree is the post-dominator tree."""
    size = len(successors)
    reverse: List[List[int]] = [[] for _ in range(size + 1)]
    for node, succ in enumerate(successors):
        for s in succ:
            reverse[s].append(node)
    reverse[size] = list(exits)
    return reverse
