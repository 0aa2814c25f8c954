"""A try body whose last statement is an if holding a try that never falls out (it returns
through a finally body): the if's test jumps over that inner handler code (3.11 lays it inline)
straight to the outer try's else part.
"""
from _cases import cases


@cases(([],), ([1, 2, 3, 4, 5, 6],), (None,))
def if_try_return_finally_then_else(log):
    try:
        if len(log) > 5:
            try:
                return log
            finally:
                log.append(3)
    except TypeError:
        return 'no log'
    else:
        log.append(17)
    return log


@cases(([],), ([1, 2, 3, 4, 5, 6],), (None,))
def if_try_return_finally_then_else_raise(log):
    try:
        log.append(1)
        if len(log) > 5:
            try:
                return log
            finally:
                log.append(3)
    except AttributeError:
        log = ['no log']
    else:
        raise ValueError(17)
    return log
