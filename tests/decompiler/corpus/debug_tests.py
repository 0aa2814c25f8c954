"""`if __debug__ and test:` (3.14: `borrows.py`).

The compiler folds `__debug__` away, but on 3.14 leaves the empty block of its test where the
statement starts; the borrow pass stops there, so the test's loads (and the code only it leads
to) stay plain where the same test written alone, reached by the same jumps, borrows them. The
decompiler writes `__debug__ and` back where a test that only tests lead to (an assert's jump
over its raise, a while loop's exit, the test of an if whose body it starts, the join of an if
statement's parts) keeps plain loads that the blocks leading there borrowed.
"""
from _cases import cases


class Conn:
    def __init__(self, debug, queue=()):
        self.debug = debug
        self.queue = list(queue)
        self.log = []


@cases((Conn(5),), (Conn(1),))
def assert_then_debug_test(conn):
    assert not conn.log
    if __debug__ and conn.debug >= 4:
        conn.seen = "debug"
    conn.capture = True
    return conn.capture


@cases((Conn(5),), (Conn(1),))
def assert_then_plain_test(conn):
    assert not conn.log
    if conn.debug >= 4:
        conn.seen = "debug"
    conn.capture = True
    return conn.capture


@cases((Conn(5, [1, 2]),), (Conn(1, [3]),))
def while_exit_then_debug_test(conn):
    queue = list(conn.queue)
    out = []
    while queue:
        out.append(queue.pop())
    if __debug__ and conn.debug >= 4:
        out.append("debug")
    return out


@cases((Conn(5, [1, 2]),), (Conn(1, [3]),))
def while_exit_then_plain_test(conn):
    queue = list(conn.queue)
    out = []
    while queue:
        out.append(queue.pop())
    if conn.debug >= 4:
        out.append("debug")
    return out


@cases((Conn(5, [1, 2]),), (Conn(1, [3]),), (Conn(5),))
def if_body_starts_with_debug_test(conn):
    out = []
    if pending := len(conn.queue):
        if __debug__ and conn.debug >= 4:
            out.append(pending)
        out.extend(conn.queue)
    return out


@cases((Conn(5, [1, 2]),), (Conn(1, [3]),), (Conn(5),))
def if_body_starts_with_plain_test(conn):
    out = []
    if pending := len(conn.queue):
        if conn.debug >= 4:
            out.append(pending)
        out.extend(conn.queue)
    return out


@cases((Conn(5, [1, 2]),), (Conn(1),), (Conn(5),))
def if_else_join_then_debug_test(conn):
    out = []
    if not conn.queue:
        out.append(None)
    else:
        first = conn.queue[0]
        out.append(first)
    if __debug__ and conn.debug >= 4:
        out.append("debug")
    return out


@cases((Conn(5, [1, 2]),), (Conn(1),), (Conn(5),))
def if_else_join_then_plain_test(conn):
    out = []
    if not conn.queue:
        out.append(None)
    else:
        first = conn.queue[0]
        out.append(first)
    if conn.debug >= 4:
        out.append("debug")
    return out
