"""Nested with statements whose targets are locals, against one with of several items.

3.13 fuses a local's store and the next local's load into one instruction when both are on one
line: `with a as x, b as y:` stores `x` and loads `b` in one; `with a as x:` then `with b as y:`
on the next line keeps them apart. Both read the same otherwise, so the lines decide which
statement it was (other bytecode when read the other way)."""
from _cases import cases


class _Log:
    def __init__(self, log, name):
        self.log, self.name = log, name

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self.name

    def __exit__(self, *exc):
        self.log.append(("exit", self.name))
        return False


@cases((1,), (2,))
def nested_withs_with_targets(n):
    log = []
    a, b = _Log(log, "a"), _Log(log, "b")
    with a as x:
        with b as y:
            log.append((x, y, n))
    return log


@cases((1,), (2,))
def with_items_with_targets(n):
    log = []
    a, b = _Log(log, "a"), _Log(log, "b")
    with a as x, b as y:
        log.append((x, y, n))
    return log


@cases((1,), (3,))
def nested_withs_three_deep(n):
    log = []
    a, b, c = _Log(log, "a"), _Log(log, "b"), _Log(log, "c")
    with a as x:
        with b as y:
            with c as z:
                log.append((x, y, z, n))
    return log


@cases((1,), (3,))
def with_items_then_nested_with(n):
    log = []
    a, b, c = _Log(log, "a"), _Log(log, "b"), _Log(log, "c")
    with a as x, b as y:
        with c as z:
            log.append((x, y, z, n))
    return log
