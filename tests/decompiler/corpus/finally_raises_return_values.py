"""A `return value` whose finally body never finishes (it raises): the value is computed (with
its side effects) before the finally body's copy, and the RETURN_VALUE after the copy is dropped
as dead. In an if body or an except clause of the try, 3.11+ lay that copy right after the
value, past the code the try protects: the value still belongs to a return.
"""
from _cases import cases


@cases((0,), (1,))
def if_return_call_finally_raises(k):
    log = []
    try:
        if k:
            return log.append(5)
    finally:
        raise KeyError(log)


@cases((0,), (1,), (None,))
def if_return_and_except_return_finally_raises(k):
    log = []
    try:
        if k:
            return log.append(k)
    except TypeError:
        return log.append(6)
    finally:
        raise KeyError(log)


@cases((0,), (1,), (2,), (5,))
def loop_if_return_finally_raises(k):
    log = []
    try:
        for i in range(3):
            if i == k:
                return log.append(i)
            log.append(-i)
    finally:
        raise KeyError(log)


@cases((0,), (1,))
def if_return_then_more_finally_raises(k):
    log = []
    try:
        if k:
            return log.append(5)
        log.append(6)
    finally:
        raise KeyError(log)


@cases((0,), (1,))
def else_return_call_finally_raises(k):
    log = []
    try:
        if k:
            log.append(1)
        else:
            return log.append(2)
    finally:
        raise KeyError(log)
