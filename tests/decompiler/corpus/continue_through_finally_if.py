"""A try body's `continue` through a finally body that ends in an `if`. 3.10 copies the finally
body before the jump back, and the copied if's false branch jumps to that jump (no threading
into a jump that keeps its line): the jump is the copy's way on, the `continue`, not part of
the copy (read as part of it, the `continue` became `pass`)."""
from _cases import cases


@cases(([1, -2, 3, 4],), ([],), ([-1, -3],))
def for_continue_through_finally_if(items):
    log = []
    for x in items:
        try:
            if x < 0:
                continue
            log.append(x)
        finally:
            if x % 2:
                log.append("odd")
    return log


@cases((0,), (3,), (5,))
def while_continue_through_finally_if(n):
    log = []
    i = 0
    while i < n:
        i += 1
        try:
            if i == 2:
                continue
            log.append(i)
        finally:
            if i % 2:
                log.append("odd")
            else:
                log.append("even")
    return log


@cases(([1, -2, 3, 4],), ([],))
def for_continue_through_finally_nested_if(items):
    log = []
    for x in items:
        try:
            log.append(x)
            if x < 0:
                continue
            log.append(-x)
        finally:
            if x:
                if x % 2:
                    log.append("odd")
    return log
