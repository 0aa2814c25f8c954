"""Code after a with whose body never ends normally (it raises): only a manager that swallows
the exception reaches it. Inside another with, or in a finally body, that code still belongs
to the enclosing statement (3.11+ lays it after the handler code of the inner with).
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


@cases(({},), ({1: 2},))
def with_in_with_raising_then_code(d):
    log = []
    with _Swallow(log):
        with _Swallow(log):
            log.append(d[1])
            raise KeyError(2)
        log.append('after inner')
    log.append('after outer')
    return log


@cases((KeyError,), (ValueError,))
def finally_with_raising_then_code(kind):
    log = []
    try:
        log.append('body')
    finally:
        with _Swallow(log):
            raise kind()
        log.append('after with')
    return log


@cases((KeyError, 0), (ValueError, 1), (KeyError, 1))
def if_finally_with_raising(kind, n):
    log = []
    if n:
        try:
            log.append('body')
        finally:
            with _Swallow(log):
                raise kind()
    log.append('after if')
    return log


@cases(({1: 2}, 1), ({}, 1), ({}, 0), ({0: 5}, 0))
def with_try_return_in_handler_then_return_const(d, k):
    # The with body ends in `return 4`, after a try whose handler returns too: its exit call
    # lies after that handler code. Only a swallowed exception reaches the code after the with.
    log = []
    with _Swallow(log):
        try:
            log.append(d[k])
        except KeyError:
            if k:
                return 3
        return 4
    return log


@cases((KeyError,), (ValueError,))
def try_with_raising_then_else(kind):
    # Only a manager that swallowed the exception goes on from the try body: into its else part.
    log = []
    try:
        with _Swallow(log):
            raise kind()
    except ValueError:
        log.append('handled')
    else:
        log.append('else')
        raise TypeError(11)
    return log


@cases((0, KeyError), (1, KeyError), (1, ValueError))
def return_through_finally_with_raising(n, kind):
    # The return runs the finally body's copy, which goes on only after the manager swallowed
    # the exception; then the return completes.
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            if n:
                return log
            log.append(i)
        finally:
            with _Swallow(log):
                raise kind()
            log.append('after with')
        log.append('next')
    return log


@cases((0, KeyError), (1, KeyError), (1, ValueError), (0, ValueError))
def return_through_finally_with_raising_no_loop(n, kind):
    # The same without the loop: 3.12+ lay the code after the return (`log.append(1)`) between
    # the return's copy of the finally body and that copy's handler code.
    log = []
    try:
        if n:
            return log
        log.append(1)
    finally:
        with _Swallow(log):
            raise kind()
        log.append('after with')
    log.append('next')
    return log


@cases((0, KeyError), (1, KeyError), (2, KeyError), (1, ValueError))
def return_through_except_finally_with_raising(n, kind):
    # With an except clause: its way on, the normal copy of the finally body, lies before the
    # clause's code; that copy's handler code comes after it.
    log = []
    try:
        if n:
            return log
        if n == 0:
            raise KeyError(n)
        log.append(1)
    except KeyError:
        log.append('caught')
    finally:
        with _Swallow(log):
            raise kind()
        log.append('after with')
    log.append('next')
    return log


@cases((0, KeyError), (3, KeyError), (1, ValueError), (3, ValueError))
def return_through_except_finally_with_raising_in_loop(n, kind):
    # In a loop whose except clause breaks: the code after the statement is where the normal
    # copy's handler code (the manager swallowed the exception) goes on, not the clause's break.
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            if n > 2:
                return log
            log.append(i)
        except KeyError:
            break
        finally:
            with _Swallow(log):
                raise kind()
            log.append('after with')
        log.append('next')
    log.append('done')
    return log


@cases((KeyError, 0), (ValueError, 1), (KeyError, 1))
def finally_with_raising_then_return(kind, n):
    # The finally body's only statement is a with that never ends normally: its closing
    # re-raise follows the with's handler code (the manager swallowed the exception).
    log = []
    try:
        log.append(n)
    finally:
        with _Swallow(log):
            raise kind()
    log.append('after')
    return log


@cases((KeyError, 1), (ValueError, 1), (KeyError, 0))
def if_try_with_raising_clause_returns_then_raise(kind, n):
    # Only the swallowing manager goes on from the try, whose clause returns: to the rest of the
    # if body, which 3.12+ lay past the if (after the handler code, 3.13+ at the end).
    log = []
    if n:
        try:
            with _Swallow(log):
                raise kind()
        except ValueError:
            return log
        raise TypeError(5)
    log.append('after if')
    return log


@cases((KeyError, 1), (ValueError, 1), (KeyError, 0))
def if_try_with_raising_clause_returns_then_more(kind, n):
    log = []
    if n:
        try:
            with _Swallow(log):
                raise kind()
        except ValueError:
            return log
        log.append('rest of if')
    log.append('after if')
    return log


@cases((KeyError, 0, 1), (ValueError, 0, 1), (KeyError, 1, 0), (KeyError, 0, 0))
def elif_try_with_raising_then_raise(kind, k, n):
    log = []
    if k:
        log.append('k')
        raise LookupError(1)
    elif n:
        try:
            with _Swallow(log):
                raise kind()
        except ValueError:
            return log
        raise TypeError(5)
    log.append(6)
    return 7


@cases((KeyError, 0), (KeyError, 1))
def try_if_with_return_then_else(kind, k):
    # The with's handler lies inline (3.11), its suppressed path falling into the try's else
    # part, which the if's test jumps to as well.
    log = []
    try:
        if k == 0:
            with _Swallow(log):
                return 3
    except ValueError:
        return 4
    else:
        log.append('else')
    return log


# `return <constant>` ending a with body inside a try/finally: the constant is loaded after the
# exit call and the finally body's copy; the code after the try, which only a swallowed
# exception reaches, returns something else. Read again as that code, the constant was returned
# on the swallowing path too (3.11+).

@cases(({},), ({1: 2},))
def try_finally_with_return_constant_swallow_goes_on(d):
    log = []
    try:
        with _Swallow(log):
            if not d:
                raise KeyError(0)
            return 5
    finally:
        log.append("finally")
    return log


@cases(({},), ({1: 2},), ({1: 3, 2: 4},))
def try_finally_with_if_else_return_constant(d):
    log = []
    try:
        log.append(len(d))
        with _Swallow(log):
            if len(d) > 1:
                pass
            else:
                log.append(d[1])
            return 5
    finally:
        log.append("finally")
    return log
