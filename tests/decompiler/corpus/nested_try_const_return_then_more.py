"""`return CONST` ending a try body nested in an enclosing try/except, whose except clause goes
on to more of the enclosing body.

3.12+: the return is RETURN_CONST right after the inner body, outside every protected range,
with no finally copy before it; the inner clause jumps past it to the rest of the enclosing
body, which the enclosing handler still protects. Read as the enclosing try's else part, the
return ran after the enclosing try and the rest of the body was lost.
"""
from _cases import cases


@cases((0,), (1,), (3,))
def load_or_default(n):
    log = []
    try:
        try:
            log.append(10 // n)
            return 5
        except ZeroDivisionError:
            log.append(6)
        log.append(7)
    except KeyError:
        log.append(8)
    return log


@cases((0,), (1,), (3,))
def load_then_check(n):
    log = []
    try:
        try:
            log.append(10 // n)
            return 5
        except ZeroDivisionError:
            log.append(6)
        log.append(30 // (n - 3) if n != 3 else {}[n])
    except KeyError:
        log.append(8)
    except ZeroDivisionError:
        log.append(9)
    return log


@cases((0,), (1,), (3,))
def load_or_raise(n):
    log = []
    try:
        try:
            log.append(10 // n)
            return None
        except ZeroDivisionError:
            log.append(6)
        if n > 2:
            raise KeyError(n)
        log.append(7)
    except KeyError:
        log.append(8)
        return log
    return [log]


@cases((0,), (1,), (3,))
def inner_try_then_else_return(n):
    log = []
    try:
        try:
            log.append(10 // n)
        except ZeroDivisionError:
            log.append(6)
    except KeyError:
        log.append(8)
    else:
        return 5
    return log


@cases((0,), (1,), (3,))
def nested_in_loop(n):
    log = []
    i = 0
    while i < 3:
        i += 1
        try:
            try:
                log.append(10 // (n - i))
                return 5
            except ZeroDivisionError:
                log.append(6)
            log.append(i)
        except KeyError:
            break
    return log


@cases((0,), (1,), (2,))
def in_for_loop(n):
    # (the return first drops the loop's iterator)
    log = []
    for i in range(3):
        try:
            try:
                log.append(10 // (n - i))
                return 5
            except ZeroDivisionError:
                log.append(6)
            log.append(100 // i)
        except KeyError:
            log.append(8)
            continue
    return log


@cases((0,), (1,), (2,))
def in_nested_for_loops(n):
    log = []
    for j in range(2):
        for i in range(3):
            try:
                try:
                    log.append(10 // (n - i - j))
                    return None
                except ZeroDivisionError:
                    log.append(6)
                log.append(i)
            except KeyError:
                break
    return log


@cases((0,), (1,), (2,))
def inner_named_clause_returns_then_return_const(n):
    # The inner clause is named: its return unbinds the name, and its test's jump to the
    # re-raise of an unmatched exception is no jump to the else part (3.11).
    log = []
    try:
        try:
            log.append(10 // n)
            if n > 1:
                raise KeyError(n)
        except ZeroDivisionError as e:
            log.append(type(e).__name__)
            return log
        return 7
    except KeyError:
        log.append(8)
    return log


@cases((0,), (1,), (2,))
def inner_try_raises_then_more_then_else(n):
    # The inner try body raises: only its clause goes on to the rest of the outer body, and
    # 3.12+ lay its handler inline; the outer else part follows, unprotected.
    log = []
    try:
        try:
            log.append({0: 1, 1: 2}[n])  # (a KeyError for n == 2, which the outer try catches)
            raise ValueError(n)
        except ValueError:
            log.append(4)
        log.append(5)
    except KeyError:
        log.append(6)
    else:
        raise TypeError(7)
    return log
