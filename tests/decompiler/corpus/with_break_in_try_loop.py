"""A `break` ending a with body inside a try in a for loop, with the code after the loop.

3.12+ lay the with's handler (and the code a swallowing manager goes on to: the rest of the try
and the next turn of the loop) at the end of the code, after the code that follows the loop. The
break runs the exit call (and the finally body), drops the iterator and jumps to the code after
the loop, or runs a copy of it when that is a short return. Only a manager that swallows an
exception reaches the rest of the try.
"""
from _cases import cases


class _Swallow:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(exc[0] is not None)
        return exc[0] is KeyError


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def for_finally_with_break_then_code(d, n):
    log = []
    for i in range(3):
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
        finally:
            log.append(-i)
    log.append(9)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def for_finally_with_break_then_return(d, n):
    log = []
    for i in range(3):
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
        finally:
            log.append(-i)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def for_except_with_break_then_more(d, n):
    log = []
    for i in range(3):
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
            log.append(4)
        except ValueError:
            return 5
        log.append(7)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def for_with_break_then_return(d, n):
    log = []
    for i in range(3):
        with _Swallow(log):
            log.append(d[i + n])
            break
        log.append(-i)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def while_except_with_break_then_more(d, n):
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
            log.append(4)
        except ValueError:
            return 5
        log.append(7)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0), ({}, 5))
def for_except_with_break_past_else(d, n):
    log = []
    for i in range(3):
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
            log.append(4)
        except ValueError:
            return 5
        log.append(7)
    else:
        log.append(8)
        if n > 4:
            raise ValueError(9)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def for_except_with_break_to_copied_return(d, n):
    log = []
    for i in range(3):
        try:
            with _Swallow(log):
                log.append(d[i + n])
                break
            log.append(4)
        except ValueError:
            return 5
        log.append(7)
    else:
        raise ValueError(9)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def while_with_break_past_else_then_raise(d, n):
    log = []
    i = 0
    while i < 3:
        i += 1
        with _Swallow(log):
            log.append(d[i + n])
            break
    else:
        log.append(5)
        return log
    raise ValueError(log)


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def with_while_with_break_past_else_then_raise(d, n):
    log = []
    with _Swallow(log):
        i = 0
        while i < 3:
            i += 1
            with _Swallow(log):
                log.append(d[i + n])
                break
        else:
            log.append(5)
            return log
        raise KeyError(6)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0), ({}, 5))
def try_before_while_with_break_past_else(d, n):
    log = []
    if n > 4:
        try:
            log.append(d[n])
        except KeyError:
            log.append(3)
    i = 0
    while i < 3:
        i += 1
        with _Swallow(log):
            log.append(d[i + n])
            break
    else:
        log.append(5)
        return log
    raise ValueError(log)


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def while_except_with_continue_then_more(d, n):
    # (3.11: the swallowing exit goes on inline to the rest of the try body, past the with's
    # handler code; the continue leaves after the exit call)
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            with _Swallow(log):
                log.append(d[i + n])
                continue
            log.append(4)
        except ValueError:
            return 5
        log.append(7)
    return log


@cases(({}, 1), ({1: 2}, 1), ({2: 5}, 1), ({}, 0))
def nested_for_except_with_break_then_more(d, n):
    log = []
    for j in range(2):
        for i in range(3):
            try:
                with _Swallow(log):
                    log.append(d[i + n + j])
                    break
                log.append(4)
            except ValueError:
                return 5
            log.append(7)
        log.append(j)
    return log
