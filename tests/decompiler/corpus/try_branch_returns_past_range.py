"""A try statement whose end the protected range does not show: a branch's return that raises
nothing the try handles lies past the range (3.11+), with a with's exit call or a finally
body's copy before it; and the way out of an except clause whose body is a try/finally, laid
among the handler code (3.12). Read as the else part or as handler code, the return would run
after the other branch too, or never."""
from _cases import cases


class Swallow:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return self.tag % 3 == 0


@cases((0,), (3,))
def try_else_branch_returns_in_with(n):
    log = []
    with Swallow(log, 1):
        try:
            if not (n > 2):
                log.append(2)
            else:
                return 3
        except ValueError:
            log.append(4)
    return 5


@cases((0,), (3,))
def try_else_branch_returns(n):
    log = []
    try:
        if not (n > 2):
            log.append(2)
        else:
            return 3
    except ValueError:
        log.append(4)
    return log


@cases((0,), (3,))
def try_else_branch_returns_in_for(n):
    log = []
    for i in range(2):
        try:
            if not (n > 2):
                log.append(2)
            else:
                return 3
        except ValueError:
            log.append(4)
    return log


@cases((0,), (3,))
def try_else_branch_returns_in_finally_try(n):
    log = []
    try:
        try:
            if not (n > 2):
                log.append(2)
            else:
                return 3
        except ValueError:
            log.append(4)
    finally:
        log.append(6)
    return log


@cases((0,), (3,))
def try_else_branch_returns_value_in_with(n):
    log = []
    with Swallow(log, 1):
        try:
            if not (n > 2):
                log.append(2)
            else:
                return log
        except ValueError:
            log.append(4)
    return 5


@cases((0,), (3,))
def try_elif_branch_returns_in_with(n):
    log = []
    with Swallow(log, 1):
        try:
            if n == 1:
                log.append(2)
            elif n > 2:
                return 3
            else:
                log.append(7)
        except ValueError:
            log.append(4)
    return 5


@cases((0,), (3,))
def try_else_branch_returns_in_with_else(n):
    log = []
    with Swallow(log, 1):
        try:
            if not (n > 2):
                log.append(2)
            else:
                return 3
        except ValueError:
            log.append(4)
        else:
            log.append(8)
    return 5


@cases((0,), (1,))
def clause_try_finally_then_return(n):
    # 3.12: the clause's way out (POP_EXCEPT, `e = None; del e`, then `return log`) lies
    # between the finally's handler code and the clause's cleanup.
    log = []
    try:
        raise ValueError(n)
    except ValueError as e:
        try:
            log.append(3)
        except KeyError:
            raise ValueError(4)
        finally:
            log.append(5)
    return log


@cases((0,), (1,))
def clause_try_finally_only_then_return(n):
    log = []
    try:
        raise ValueError(n)
    except ValueError as e:
        try:
            log.append(3)
        finally:
            log.append(5)
    return log


@cases((0,), (3,))
def try_finally_else_branch_returns_in_with(n):
    log = []
    with Swallow(log, 2):
        try:
            if n > 2 and len(log) > 0:
                log.append(3)
            else:
                return 6
        finally:
            log.append(7)
    log.append(8)
    return log


@cases((0,), (3,))
def try_finally_if_branch_returns_in_with(n):
    log = []
    with Swallow(log, 2):
        try:
            if n > 2:
                return 6
            else:
                log.append(3)
        finally:
            log.append(7)
    return log


@cases((0,), (1,))
def with_try_clause_way_on_then_return(n):
    # The inner clause's way on is the with's exit call, then `return 7`; only handler code
    # reaches it (3.11+: after the protected range, which ends in a raise).
    log = []
    with Swallow(log, 1):
        try:
            try:
                log.append(2)
                raise ValueError(n)
            except ValueError:
                log.append(5)
            return 7
        except KeyError as e:
            return log
    return log


@cases((0,), (1,))
def with_clause_way_on_then_return(n):
    log = []
    with Swallow(log, 1):
        try:
            raise ValueError(n)
        except ValueError:
            log.append(5)
        return 7
    return log


@cases((0,), (5,))
def const_return_through_two_finally_copies(n):
    # 3.12+: `return 3` after the copies of both finally bodies, outside every protected range.
    log = []
    if n > 4:
        try:
            try:
                log.append(1)
                return 3
            finally:
                log.append(4)
        except ValueError:
            raise ValueError(5)
        finally:
            log.append(6)
    log.append(7)
    return log


@cases((0, 0), (1, 0), (1, 1))
def nested_if_raise_else_return_in_try_finally(n, k):
    # The inner if's other branch raises (no jump over the return's branch): the return, after
    # the finally body's copy, still lies past the protected code, in the try body.
    log = []
    try:
        if n:
            if k:
                raise ValueError(1)
            else:
                return 2
    except ValueError:
        log.append(3)
    finally:
        log.append(5)
    return log


@cases((0, 0), (1, 0), (1, 1))
def nested_if_raise_else_return_clause_raises(n, k):
    log = []
    try:
        if len(log) > 1 or n:
            if k:
                raise ValueError(1)
            else:
                return 2
    except ValueError:
        log.append(3)
        raise KeyError(4)
    finally:
        log.append(5)
        log.append(6)
    log.append(8)
    return log
