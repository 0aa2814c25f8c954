"""The try statements of 3.11+ code, read from its exception table: facts of the bytecode.

The exception table lists, for ranges of instructions, the handler an exception goes to; a
handler's own code is protected in turn (by the cleanup that restores the previous exception,
by the try around it). From the table alone:

- `region_at[k]`: the innermost entry at instruction `k` (the table's first entry covering it);
- `kinds[h]`: what each handler is the handler of (`handler_kinds.py`);
- `chain(k)`: the statements (try, with) enclosing `k`, innermost first: the handler of its entry
  when that is a statement's, then the chain of that handler's own entry;
- `try_starts[s]`: the try statements (their handlers, outermost first) whose first protected
  instruction is `s`, where the reading of a try starts;
- `first_protected[h]`: the first instruction each handler protects.

`try_table(graph)` makes it once per graph and keeps it with the graph (`FlowGraph.kept`); the
readers of the table (exception_regions.py and the table_* rules) ask it instead of building
these again for every reading.
"""
from dataclasses import dataclass
from types import MappingProxyType
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from depyf.decompiler.graph.cfg import FlowGraph
from depyf.decompiler.instructions import ExceptionRegion
from depyf.decompiler.structure.handler_kinds import CONSTRUCTS, HandlerKind, handler_kind

# (how deep handlers may protect each other: past this a malformed table is taken to loop)
_MAX_NESTING = 200
# The kinds of handler that start a try statement (a with statement starts before its range).
_TRY_KINDS = ("except", "finally", "star")


@dataclass(frozen=True)
class TryTable:
    """The exception table of one code object as the try statements see it (see the module)."""

    region_at: Tuple[Optional[ExceptionRegion], ...]
    kinds: Mapping[int, HandlerKind]
    chains: Mapping[int, Tuple[int, ...]]
    try_starts: Mapping[int, Tuple[int, ...]]
    first_protected: Mapping[int, int]

    def chain(self, k: int) -> Tuple[int, ...]:
        """The statements enclosing instruction `k`, innermost first (their handlers)."""
        region = self.region_at[k] if 0 <= k < len(self.region_at) else None
        if region is None:
            return ()
        return self.chains.get(region.handler, ())

    def handler_chain(self, t: int) -> Tuple[int, ...]:
        """The statements enclosing the code of the handler at `t`, itself first where it is
        a statement's (`t` any instruction: the chain of the entry protecting it after it)."""
        made = self.chains.get(t)
        if made is None:
            made = _Chains(self.region_at, self.kinds, dict(self.chains)).of(t, 0)
        return made


def try_table(graph: FlowGraph) -> TryTable:
    """The try statements of `graph`'s code (made on first use, then kept with the graph)."""
    return graph.kept("try_table", _find)


def _find(graph: FlowGraph) -> TryTable:
    regions: Sequence[ExceptionRegion] = graph.bytecode.regions
    size = len(graph.instrs)
    region_at: List[Optional[ExceptionRegion]] = [None] * size
    for region in regions:
        for k in range(region.start, min(region.end, size)):
            if region_at[k] is None:
                region_at[k] = region
    kinds: Dict[int, HandlerKind] = {}
    for region in regions:
        if region.handler < size and region.handler not in kinds:
            kinds[region.handler] = handler_kind(graph, region.handler)
    chains = _Chains(region_at, kinds, {})
    first_at: Dict[int, int] = {}  # try handler -> the first instruction it protects
    for k in range(size):
        for t in chains.at(k):
            if kinds.get(t) in _TRY_KINDS:
                first_at.setdefault(t, k)
    by_start: Dict[int, List[int]] = {}
    for t, s in first_at.items():
        by_start.setdefault(s, []).append(t)
    for s, ts in by_start.items():
        chain = chains.at(s)
        # Outermost first: a try/finally around a try/except starts at the same instruction.
        ts.sort(key=lambda t: -chain.index(t) if t in chain else 0)
    for region in regions:
        chains.of(region.handler, 0)  # (and those of handlers no instruction's innermost entry names)
    first_protected: Dict[int, int] = {}
    for region in regions:
        first_protected[region.handler] = min(region.start, first_protected.get(region.handler, region.start))
    return TryTable(tuple(region_at), MappingProxyType(kinds), MappingProxyType(dict(chains.made)),
                    MappingProxyType({s: tuple(ts) for s, ts in by_start.items()}),
                    MappingProxyType(first_protected))


class _Chains:
    """The statements enclosing each handler's code, made handler by handler as asked (in
    instruction order, so that a malformed table that loops is cut where it first closes)."""

    def __init__(self, region_at: Sequence[Optional[ExceptionRegion]], kinds: Mapping[int, HandlerKind],
                 made: Dict[int, Tuple[int, ...]]) -> None:
        self.region_at = region_at
        self.kinds = kinds
        self.made = made

    def at(self, k: int) -> Tuple[int, ...]:
        region = self.region_at[k] if 0 <= k < len(self.region_at) else None
        return self.of(region.handler, 0) if region is not None else ()

    def of(self, t: int, depth: int) -> Tuple[int, ...]:
        made = self.made.get(t)
        if made is not None:
            return made
        if depth > _MAX_NESTING or t >= len(self.region_at):
            return ()
        self.made[t] = ()  # (guards against a malformed table that loops)
        outer = self.region_at[t]
        rest = self.of(outer.handler, depth + 1) if outer is not None and outer.handler != t else ()
        own = (t,) if self.kinds.get(t) in CONSTRUCTS else ()
        self.made[t] = own + rest
        return self.made[t]
