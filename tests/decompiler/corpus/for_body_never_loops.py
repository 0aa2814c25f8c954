"""A for loop whose body never goes back to its head: every way through it raises, or leaves
by a `break` in an except clause. The code after the loop is reached only by the iterator
running out at once and by that `break` (3.11: no jump back in the bytecode at all).
"""
from _cases import cases


@cases(([], 1), ([1], 1), ([1], 0))
def for_handler_break_or_raise(items, k):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(item)
            if k == 1:
                break
            raise ValueError(7)
    return log


@cases(([],), ([1, 2],), ([None],))
def for_try_else_raise_handler_break(items):
    log = []
    for item in items:
        try:
            log.append(item + 1)
        except TypeError:
            break
        raise ValueError(item)
    return log


# The rest of the body after a try whose body raises: only the except clause goes on to it, and
# 3.12+ lay it after the handler code, past the loop's exit. A jump there keeps the iterator on
# the stack: it is the try's way on, not a `break` (read so, the finally body ran first and the
# loop's else part was skipped, or the rest was read into the clause, raising with the caught
# exception as its context).

@cases(([],), ([1],), ([1, 2],))
def for_try_finally_then_raise(items):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(2)
        finally:
            log.append(3)
        raise KeyError(item)
    else:
        log.append(6)
    return log


@cases(([],), ([1],))
def for_try_finally_then_raise_no_else(items):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(2)
        finally:
            log.append(3)
        raise KeyError(item)
    log.append(6)
    return log


@cases(([], 0), ([1], 0), ([1], 1))
def for_while_never_back_try_finally(items, k):
    log = []
    for item in items:
        w = 0
        while w < 2:
            w += 1
            try:
                raise ValueError(k)
            except ValueError:
                log.append(2)
            finally:
                log.append(3)
            raise KeyError(w)
    else:
        log.append(6)
    return log


@cases(([],), ([1],))
def for_try_except_then_raise(items):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(item)
        raise KeyError(item)
    else:
        log.append(6)
    return log


@cases(([],), ([1],))
def for_try_except_then_return_name(items):
    log = []
    for item in items:
        try:
            raise ValueError(item)
        except ValueError:
            log.append(item)
        return log
    return None
