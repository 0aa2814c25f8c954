"""A finally body whose last statement is an if/else whose last branch raises. 3.10 copies the
finally body's closing RERAISE into the other branch of its exceptional copy and lays the raising
branch after it: there is no closing RERAISE after the body, and the raising branch is still
part of it (read as code after the try statement, it ran on the normal way only: a silent wrong
result)."""
from _cases import cases


@cases((0, 0), (2, 0))
def finally_if_else_raise(n, k):
    log = []
    try:
        log.append(1)
    finally:
        if n > 1:
            log.append(6)
        else:
            raise ValueError(log)
    return log


@cases((0, 0), (0, 2), (2, 0))
def finally_elif_else_raise_after_handler_raise(n, k):
    log = []
    try:
        raise ValueError(1)
    except ValueError:
        raise ValueError(2)
    finally:
        if n > 1:
            log.append(6)
        elif k != 2:
            log.append(7)
        else:
            raise ValueError(log)
    return log


@cases((0, 0), (2, 0), (0, 1))
def finally_if_raise_else_after_return(n, k):
    # The raising branch last, after a try body that returns: its copy on the way out is the
    # if, the return block where the closing re-raise stands, then the raising branch.
    log = []
    try:
        if k:
            return log
        log.append(1)
    finally:
        if n > 1:
            log.append(6)
        else:
            raise ValueError(len(log))
    return log
