"""The edges of the control-flow graph."""
from enum import Enum
from typing import NamedTuple, Optional


class EdgeKind(Enum):
    NORMAL = "normal"            # falling through or an unconditional jump
    CONDITIONAL = "conditional"  # one of the two ways out of a conditional jump
    EXCEPTION = "exception"      # from protected code to its handler


class Edge(NamedTuple):
    """An edge between the blocks labelled `source` and `target` (their first instructions).

    `jumps`: the edge is the jump of the block's last instruction (not the fall into the next
    block). `when`: for a conditional jump testing truth, the value that sends control along this
    edge. `depth` and `lasti`: for an exception edge, the value-stack depth the handler is entered
    with and whether the offset of the raising instruction is pushed (from the 3.11+ exception
    table; None for the 3.8-3.10 block stack, which records neither in the bytecode).
    """

    source: int
    target: int
    kind: EdgeKind
    jumps: bool = False
    when: Optional[bool] = None
    depth: Optional[int] = None
    lasti: Optional[bool] = None

    # (a named tuple, not a frozen dataclass: a graph makes one per edge, and a frozen
    # dataclass costs several times more to construct)

    @property
    def is_exception(self) -> bool:
        return self.kind is EdgeKind.EXCEPTION
