"""A for loop whose body never goes back to its head: every way through it raises, or leaves
by a `break` in an except clause. The code after the loop is reached only by the iterator
running out at once and by that `break` (3.11: no jump back in the bytecode at all).
"""
from _cases import cases


@cases(([], 1), ([1], 1), ([1], 0))
def for_handler_break_or_raise(items, k):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(item)
            if k == 1:
                break
            raise ValueError(7)
    return log


@cases(([],), ([1, 2],), ([None],))
def for_try_else_raise_handler_break(items):
    log = []
    for item in items:
        try:
            log.append(item + 1)
        except TypeError:
            break
        raise ValueError(item)
    return log
