"""A try/finally whose body is a with that never ends normally (it raises): only a manager that
swallows the exception reaches the finally body's normal copy. 3.12+ lay that copy after the
with's handler code, past the code the statement goes on to; at the end of an if body it jumps
back to the code after the if.
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


@cases((KeyError, 0), (KeyError, 1), (ValueError, 1))
def if_try_with_raising_finally(kind, n):
    log = []
    if n:
        try:
            with _Swallow(log):
                raise kind()
        finally:
            log.append('finally')
    log.append('after if')
    return log


@cases((KeyError, 0), (KeyError, 1), (ValueError, 1), (KeyError, 2))
def loop_if_try_with_raising_finally(kind, n):
    log = []
    for i in range(3):
        if i < n:
            try:
                with _Swallow(log):
                    log.append(i)
                    raise kind()
            finally:
                log.append('finally')
        log.append('end of body')
    return log


@cases((KeyError, 0), (KeyError, 1), (ValueError, 1), (TypeError, 1))
def if_try_with_raising_except_finally(kind, n):
    log = []
    if n:
        try:
            with _Swallow(log):
                raise kind()
        except ValueError:
            log.append('except')
        finally:
            log.append('finally')
    log.append('after if')
    return log


@cases((0,), (1,), (2,))
def if_try_raising_except_finally(n):
    log = []
    if n:
        try:
            raise ValueError(n)
        except ValueError:
            log.append('except')
        finally:
            log.append('finally')
    log.append('after if')
    return log


@cases((0,), (1,), (2,))
def elif_try_raising_except_loop_finally(n):
    log = []
    if n == 2:
        raise KeyError(n)
    elif n:
        try:
            raise ValueError(n)
        except ValueError:
            i = 0
            while i < 2:
                i += 1
                log.append(i)
        finally:
            log.append('finally')
    log.append('after if')
    return log


@cases((KeyError,), (ValueError,), (TypeError,))
def try_with_raising_except_else_finally(kind):
    log = []
    try:
        with _Swallow(log):
            raise kind()
    except ValueError:
        return 8
    else:
        log.append('else')  # (only the swallowing manager goes on here, before the finally body)
    finally:
        log.append('finally')
    return log


@cases((KeyError, 0), (KeyError, 1), (ValueError, 1))
def loop_return_constant_through_raising_with_finally(kind, n):
    log = []
    try:
        for i in range(n):
            return 3  # (when the manager swallows, the return goes on after the finally body)
        log.append('after loop')
    finally:
        with _Swallow(log):
            raise kind()
