"""What the 3.8-3.10 block-stack rules share: the open `_Block`s, the shapes they match, `Exit`."""
from typing import Any, List, Optional, Sequence, Tuple

from depyf.decompiler import markers as m
from depyf.decompiler import nodes as n

_SETUPS = frozenset({"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH"})
_BLOCK_OPS = frozenset({"POP_BLOCK", "POP_EXCEPT", "SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH",
                        "CALL_FINALLY", "POP_FINALLY", "BEGIN_FINALLY", "END_FINALLY"})
_ROTATIONS = frozenset({"ROT_TWO", "ROT_THREE", "ROT_FOUR"})
_STORES = frozenset({"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"})
_DELETES = frozenset({"DELETE_FAST", "DELETE_NAME", "DELETE_GLOBAL", "DELETE_DEREF"})
_EXIT_CALL = ("LOAD_CONST", "DUP_TOP", "DUP_TOP", "CALL_FUNCTION")
_AWAIT = ("GET_AWAITABLE", "LOAD_CONST", "YIELD_FROM")
#: The longest way on after a finally body's copy that `_drop_branch_copy_of_way_on` compares.
_MAX_WAY_ON = 64

# Exit shape: ("jump", target) for a jump past the construct's parts, ("tail", start, end) for code
# that continues after the part (a backward jump, a copied return), None when the part never ends.
Exit = Optional[Tuple[Any, ...]]


def _never_falls_through(stmts: List[n.Stmt]) -> bool:
    """Does the last statement of `stmts` leave the block (return, raise)?"""
    return bool(stmts) and isinstance(stmts[-1], (n.Return, n.Raise))


class _Block:
    """One open block while its part is decompiled.

    `kind` says how a way out unwinds it; `tokens` are the stack slots the block occupies (removed
    when it is unwound); `info` holds what a kind needs (the finally body range, the name bound by
    `except ... as`).
    """

    __slots__ = ("kind", "tokens", "info")

    def __init__(self, kind: str, tokens: Sequence[n.Expr] = (), **info: Any) -> None:
        self.kind = kind
        self.tokens = list(tokens)
        self.info = info


class _AsyncContext(n.Expr):
    """The context manager of an `async with` between BEFORE_ASYNC_WITH and SETUP_ASYNC_WITH."""
    __slots__ = ("value",)

    def __init__(self, value: n.Expr) -> None:
        self.value = value


def _token(what: str) -> m.Sentinel:
    return m.Sentinel(what)
