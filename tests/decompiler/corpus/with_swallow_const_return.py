"""`return CONST` right after a with whose body never ends normally, inside another with: only
a manager that swallows the exception reaches it.

3.11: the inner handler, after its pops, falls inline into the enclosing with's exit call and
the return (or into more of the enclosing body, then the exit call and the return); in a loop,
the inner body's `continue` or `break` runs both exit calls before its jump.

3.12+: the return runs the enclosing with's exit call, then RETURN_CONST, laid past the inner
with's handler code; the enclosing with's own handler goes on to other code. Read as the code
after the enclosing with, the return was lost (the enclosing handler's way on ran instead).
"""
from _cases import cases


class _Swallow:
    def __init__(self, log, swallow=KeyError):
        self.log = log
        self.swallow = swallow

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(exc[0].__name__ if exc[0] else None)
        return exc[0] is self.swallow


@cases((KeyError,), (ValueError,))
def nested_with_raise_then_return(kind):
    log = []
    with _Swallow(log, ValueError):
        with _Swallow(log):
            raise kind()
        return 5
    return log


@cases((0, KeyError), (1, KeyError), (1, ValueError))
def if_nested_with_raise_then_return(c, kind):
    log = []
    with _Swallow(log, ValueError):
        if c:
            with _Swallow(log):
                raise kind()
            return 5
        log.append(6)
    return log


@cases((0, KeyError), (1, KeyError), (1, ValueError))
def if_nested_with_raise_then_return_none(c, kind):
    log = []
    with _Swallow(log, ValueError):
        if c:
            with _Swallow(log):
                raise kind()
            return None
        log.append(6)
    log.append(7)
    return log


@cases((KeyError,), (ValueError,))
def nested_with_raise_then_same_return_after(kind):
    log = []
    with _Swallow(log, ValueError):
        with _Swallow(log):
            raise kind()
        log.append(5)
    return 5


@cases((KeyError,), (ValueError,), (None,))
def try_nested_with_return_then_raise(kind):
    # (the code after the try, which a swallowed exception reaches through both exit calls, is
    # no return of the with bodies, nor part of the try body: its raise is not caught there)
    log = []
    try:
        with _Swallow(log, TypeError):
            with _Swallow(log):
                if kind is not None:
                    raise kind()
                return log
    except ValueError:
        log.append(3)
    log.append(5)
    raise ValueError(6)


@cases((0, KeyError), (1, KeyError), (2, ValueError))
def for_nested_with_raise_then_return(n, kind):
    log = []
    for i in range(3):
        with _Swallow(log, ValueError):
            with _Swallow(log):
                if i >= n:
                    raise kind()
                continue
            return 5
        log.append(i)
    return log


@cases((KeyError,), (ValueError,), (TypeError,))
def try_nested_with_raise_then_return(kind):
    log = []
    try:
        with _Swallow(log, ValueError):
            with _Swallow(log):
                raise kind()
            return 5
    except TypeError:
        log.append(3)
    return log


@cases((KeyError,), (ValueError,))
def nested_with_raise_then_more_and_return(kind):
    log = []
    with _Swallow(log, ValueError):
        with _Swallow(log):
            raise kind()
        log.append(4)
        return 5
    return log


@cases((0, KeyError), (1, KeyError), (2, ValueError), (5, KeyError))
def while_nested_with_raise_or_break_then_return(n, kind):
    log = []
    i = 0
    while i < 3:
        i += 1
        with _Swallow(log, ValueError):
            with _Swallow(log):
                if i >= n:
                    raise kind()
                break
            return 5
        log.append(i)
    return log


@cases((0, KeyError), (1, KeyError), (2, ValueError), (5, KeyError))
def for_nested_with_raise_or_break_then_return(n, kind):
    log = []
    for i in range(3):
        with _Swallow(log, ValueError):
            with _Swallow(log):
                if i >= n:
                    raise kind()
                break
            return 5
        log.append(i)
    return log
