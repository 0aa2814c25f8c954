"""`return CONST` ending a try body inside a try/finally, whose except clause goes on to more of
the enclosing body.

3.12+: the return runs the finally body's copy, then RETURN_CONST, outside every protected
range; the except clause jumps elsewhere, to the code after the inner try. Read as code after
the inner try (its else part), the return was lost, or the clause's way on ran after it.
"""
from _cases import cases


@cases((0,), (1,), (2,))
def try_return_const_in_try_finally(n):
    log = []
    try:
        try:
            log.append(10 // n)
            return 5
        except ZeroDivisionError:
            log.append(6)
        log.append(7)
    finally:
        log.append(12)
    return log


@cases((0,), (1,), (3,))
def try_return_const_in_try_except_finally(n):
    log = []
    try:
        try:
            try:
                log.append(10 // n)
                return 5
            except ZeroDivisionError:
                log.append(6)
            log.append(30 // (n - 3) if n else 7)
        except ZeroDivisionError:
            raise ValueError(8)
        return log
    except ValueError:
        log.append(9)
    finally:
        log.append(12)
    return log


@cases((0,), (1,), (2,), (3,))
def try_return_const_in_try_except_finally_reached(n):
    # (each clause reached: the outer clause's way on is the finally body, then the return after)
    log = []
    try:
        try:
            try:
                log.append(10 // (n - 1))
                return 5
            except ZeroDivisionError:
                log.append(6)
            log.append(30 // n)
        except ZeroDivisionError:
            raise ValueError(8)
        return log
    except ValueError:
        log.append(9)
    finally:
        log.append(12)
    return [log]


@cases((0,), (1,), (2,))
def for_try_return_const_in_try_finally(n):
    log = []
    for i in range(3):
        try:
            try:
                log.append(10 // (n * i))
                return 5
            except ZeroDivisionError:
                log.append(6)
            log.append(i)
        finally:
            log.append(12)
    return log
