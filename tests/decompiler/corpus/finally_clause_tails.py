"""A try/except/finally whose body never falls out (it returns), so that only its except clauses go
on after the statement, each through its own copy of the finally body. 3.12+ lay the code after
the statement, which only those clauses reach, after the handler code, past the range being read
(an enclosing try body, an if body): it is still the rest of that range, read after the
statement (before, it was lost: a silent wrong result)."""
from _cases import cases


@cases((4, 2), (1, 0), (3, 0))
def clause_tail_in_outer_try(n, k):
    log = []
    try:
        log.append(1)
        try:
            if n + k > 5:
                raise ValueError(3)
            elif n % 2:
                return log
            else:
                log.append(5)
            return log
        except ValueError:
            log.append(7)
        finally:
            log.append(8)
        log.append(10)
    except ValueError:
        log.append(11)
    log.append(13)
    return log


@cases((4, 2), (0, 1), (0, 0))
def clause_tail_raising_in_outer_try(n, k):
    log = []
    try:
        try:
            if n + k > 5:
                raise ValueError(3)
            return log
        except ValueError:
            log.append(7)
        finally:
            log.append(8)
        raise KeyError(10)
    except KeyError:
        log.append(11)
    return log


@cases((4, 2), (0, 1), (0, 0))
def clause_tail_in_if_body(n, k):
    log = []
    if k:
        try:
            if n + k > 5:
                raise ValueError(3)
            return log
        except ValueError:
            log.append(7)
        finally:
            log.append(8)
        log.append(10)
    return log


@cases((4, 2), (0, 1), (0, 0))
def clause_tail_in_if_body_with_else(n, k):
    log = []
    if k:
        try:
            if n + k > 5:
                raise ValueError(3)
            return log
        except ValueError:
            log.append(7)
        finally:
            log.append(8)
        log.append(10)
    else:
        log.append(12)
    return log


@cases((0, 0), (0, 1), (1, 1))
def clause_tail_then_elif(n, k):
    log = []
    try:
        if n == 0:
            try:
                raise ValueError(2)
            except ValueError:
                log.append(3)
            finally:
                log.append(5)
            log.append(10)
        elif k == 1:
            raise ValueError(11)
        log.append(12)
    except ValueError:
        raise KeyError(14)
    return log


@cases((0, 0), (0, 1), (0, 2), (0, 3))
def if_clause_tail_else_returns_in_finally_try(n, k):
    log = []
    try:
        if k == 1:
            return log
        elif k == 0:
            try:
                raise ValueError(5)
            except ValueError:
                log.append(6)
            log.append(7)
        else:
            return log
        log.append(8)
    finally:
        log.append(9)
    log.append(11)
    raise ValueError(log)


class Tracker:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return self.tag % 3 == 0  # (some exits swallow the exception)


@cases((0, 0))
def clause_with_return_constant_in_finally_try(n, k):
    log = []
    try:
        raise ValueError(4)
    except ValueError:
        with Tracker(log, 5):
            log.append(6)
            return 7
    finally:
        log.append(8)
    return log


@cases((0, 0))
def clause_with_return_constant_swallowing(n, k):
    log = []
    try:
        raise ValueError(4)
    except ValueError:
        with Tracker(log, 6):
            log.append(6)
            raise KeyError(7)
        return 7
    finally:
        log.append(8)
    return log


@cases((0, 0))
def clause_with_return_constant(n, k):
    log = []
    try:
        raise ValueError(4)
    except ValueError:
        with Tracker(log, 5):
            log.append(6)
            return 7
    return log
