"""A try whose body goes on only through the except clause of an inner try (whose own body
raises): the rest of the body, and the way out of it, lie after that inner handler code (3.11
lays it inline). The body still ends normally there: its else part runs, and so does the code
after the statement.
"""
from _cases import cases


class _Swallow:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(exc[0].__name__ if exc[0] else None)
        return exc[0] is KeyError


@cases((0,), (2,))
def with_inner_handler_then_if(k):
    log = []
    try:
        with _Swallow(log):
            try:
                raise ValueError(3)
            except ValueError:
                log.append(4)
            if k == 2:
                log.append(6)
    except ValueError:
        log.append(7)
    return log


@cases((0,), (2,), (3,))
def with_inner_handler_then_if_else_return(k):
    log = []
    try:
        with _Swallow(log):
            try:
                raise ValueError(3)
            except ValueError:
                log.append(4)
            if k == 2:
                log.append(6)
            elif k == 3:
                raise KeyError(k)
    except ValueError:
        log.append(7)
    else:
        return log
    log.append(8)
    return None


@cases((0,), (1,), (2,))
def elif_inner_handler_then_else(n):
    log = []
    try:
        if n > 1:
            return 3
        elif n == 1:
            try:
                raise ValueError(4)
            except ValueError:
                log.append(5)
            log.append(7)
    except ValueError:
        log.append(8)
    else:
        log.append(9)
    log.append(10)
    return log


@cases(([], 0), ([], 1))
def if_try_finally_raising_handled_then_else(log, n):
    # The if body goes on only through the except clause (the inner finally body raises), then
    # jumps over the else part.
    if n:
        try:
            try:
                log.append(1)
            finally:
                raise ValueError(2)
        except ValueError:
            log.append(3)
        log.append(4)
    else:
        return log
    log.append(6)
    return log


@cases((0,), (1,), (2,))
def with_inner_handler_then_else_part(k):
    # The with's body goes on only through the inner except clause (3.12+: laid with the handler
    # code, the with's normal exit too, still in the try body); the try's else part follows the
    # with's exit, and the swallowing manager's way on is a copy of it.
    log = []
    try:
        with _Swallow(log):
            try:
                raise ValueError(k)
            except ValueError:
                log.append('inner')
            if k == 1:
                raise KeyError(k)
    except ValueError:
        log.append('outer')
    else:
        log.append('else')
        return log
    log.append('after')
    return None
