"""The symbolic values of `match` patterns: `_Node` (what is known about one value being matched),
the stack values that point at nodes (`_Subj`, `_Len`, `_Parts`, ...), a case as read, and the
opcode sets the pattern reader shares.
"""
from operator import attrgetter
from typing import Any, Dict, List, Optional, Tuple

from depyf.decompiler import nodes as n


_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_ROTATIONS = frozenset({"SWAP", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"})
_COPIES = frozenset({"COPY", "DUP_TOP"})
_OPNAME = attrgetter("opname")
# Instructions that compute a value pattern, a class or mapping keys.
_VALUE_OPS = frozenset({
    "LOAD_CONST", "LOAD_NAME", "LOAD_GLOBAL", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF",
    "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_ATTR",
    "BUILD_TUPLE", "LOAD_SMALL_INT",
})
# How many values each consumer of a value run takes above the subject.
_VALUE_CONSUMERS = {"COMPARE_OP": 1, "IS_OP": 1, "MATCH_CLASS": 2, "MATCH_KEYS": 1, "BINARY_SUBSCR": 1,
                    "BINARY_SUBTRACT": 1, "BINARY_OP": 1}
# Instructions that may start a pattern right after the subject is copied.
_PATTERN_STARTS = frozenset({
    "MATCH_SEQUENCE", "MATCH_MAPPING", "COPY", "DUP_TOP", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NONE",
    "POP_TOP",
}) | _VALUE_OPS | _STORES
_MAX_INLINE_TAIL = 8
_TAIL_OPS = _STORES | _ROTATIONS | {"POP_TOP"}
# A test that jumps over an unconditional jump to its failure target, read as the plain test.
_INVERTED = {"POP_JUMP_IF_TRUE": "POP_JUMP_IF_FALSE", "POP_JUMP_IF_FALSE": "POP_JUMP_IF_TRUE",
             "POP_JUMP_IF_NOT_NONE": "POP_JUMP_IF_NONE", "POP_JUMP_IF_NONE": "POP_JUMP_IF_NOT_NONE"}


class _NotAPattern(Exception):
    """The instructions being read do not form the match statement they were assumed to be."""


class _Node:
    """What is known about one value being matched."""

    __slots__ = ("kind", "value", "names", "length", "min_length", "star", "items", "cls", "nargs",
                 "kwnames", "keys", "rest", "alts", "wild")

    def __init__(self) -> None:
        self.kind: Optional[str] = None  # value, singleton, seq, map, class, or
        self.wild = False  # `_ as name`: an as-pattern whose copy was dropped by a `_`
        self.value: Optional[n.Expr] = None
        self.names: List[str] = []
        self.length: Optional[int] = None
        self.min_length: Optional[int] = None
        self.star: Optional[int] = None
        self.items: Dict[Any, "_Node"] = {}
        self.cls: Optional[n.Expr] = None
        self.nargs = 0
        self.kwnames: Tuple[str, ...] = ()
        self.keys: Optional[n.Expr] = None
        self.rest: Optional[str] = None
        self.alts: List["_Node"] = []

    def child(self, key: Any) -> "_Node":
        node = self.items.get(key)
        if node is None:
            node = self.items[key] = _Node()
        return node

    def is_refutable(self) -> bool:
        if self.kind is None:
            return False
        if self.kind == "or":
            return all(a.is_refutable() for a in self.alts)
        return True

    def has_structure(self) -> bool:
        """Does the tree test anything (a match made only of captures is an assignment)?"""
        if self.kind is not None:
            return True
        return any(c.has_structure() for c in self.items.values())


# --- symbolic stack values ----------------------------------------------------------------------

class _Subj(n.Expr):
    """A value being matched; an or-pattern's captures point at one node per alternative.

    `must_store` marks the value an as-pattern keeps for its name: it may only leave by a store."""
    __slots__ = ("nodes", "must_store", "as_copy")

    def __init__(self, *nodes: _Node, must_store: bool = False, as_copy: bool = False) -> None:
        self.nodes = list(nodes)
        self.must_store = must_store
        self.as_copy = as_copy

    @property
    def node(self) -> _Node:
        if len(self.nodes) != 1:
            raise _NotAPattern()
        return self.nodes[0]


class _Cond(n.Expr):
    """The truth value of a test on a subject."""
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _Len(n.Expr):
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _LenMinus(n.Expr):
    """`len(subject) - k`: the index of an item counted from the end (after a `*_`)."""
    __slots__ = ("node", "k")

    def __init__(self, node: _Node, k: int) -> None:
        self.node = node
        self.k = k


class _Parts(n.Expr):
    """The tuple MATCH_CLASS / MATCH_KEYS push: the attributes or values of `node`, or None."""
    __slots__ = ("node",)

    def __init__(self, node: _Node) -> None:
        self.node = node


class _Keys(n.Expr):
    """The keys tuple of a mapping pattern."""
    __slots__ = ("node", "expr")

    def __init__(self, node: Optional[_Node], expr: n.Expr) -> None:
        self.node = node
        self.expr = expr


class _Rest(n.Expr):
    """The dict of remaining items a `**rest` binds (or the empty dict it is built from)."""
    __slots__ = ("node",)

    def __init__(self, node: Optional[_Node]) -> None:
        self.node = node


class _Opaque(n.Expr):
    """A value the pattern code only drops (a key taken from the keys tuple for deletion)."""
    __slots__ = ()


class _CaseRead:
    """One case as read from the instructions."""

    __slots__ = ("root", "dup", "guard", "body_start", "body_end", "fails", "next_case", "resumes")

    def __init__(self) -> None:
        self.root = _Node()
        self.dup = False
        self.guard: Optional[n.Expr] = None
        self.body_start = 0
        self.body_end: Optional[int] = None
        self.fails: List[Tuple[int, int]] = []
        self.next_case: Optional[int] = None
        self.resumes: List[int] = []  # where the pattern code continues after an or-pattern
