"""Try statements inside except clauses, whose body is itself a try/finally (3.11+: the
exception goes through the inner finally body and its cleanup to the clauses), or that end one
branch of an if in an `except E as e` clause (3.12+ lays that clause's name cleanup after the
other branch's way out)."""
from _cases import cases


class _Swallow:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", exc[0].__name__ if exc[0] else None))
        return exc[0] is KeyError


def _work(log, what, fail):
    log.append(what)
    if what == fail:
        raise ValueError(what)


@cases((None,), ("a",), ("b",), ("c",))
def finally_body_raises_into_clause(fail):
    # the code after the except clause, still in the outer try/finally's body
    log = []
    try:
        try:
            try:
                raise ValueError("body")
            finally:
                _work(log, "a", fail)
        except ValueError:
            _work(log, "b", fail)
        _work(log, "c", fail)
    finally:
        log.append("final")
    return log


@cases((None,), ("a",), ("b",), ("c",))
def finally_body_raises_into_clause_as(fail):
    log = []
    try:
        try:
            try:
                raise ValueError("body")
            finally:
                _work(log, "a", fail)
        except ValueError as e:
            log.append(e.args[0])
        _work(log, "c", fail)
    finally:
        log.append("final")
    return log


@cases((0, None), (5, None), (0, "a"), (5, "b"))
def finally_body_raises_then_loop(n, fail):
    # the code after the clause is a loop that leaves by raising: it stays in the outer body
    log = []
    try:
        try:
            try:
                raise ValueError("body")
            finally:
                _work(log, "a", fail)
        except ValueError:
            _work(log, "b", fail)
        while n < 3:
            n += 1
            raise KeyError(n)
    except KeyError:
        log.append("key")
    finally:
        log.append("final")
    return log


@cases((0,), (5,))
def clause_if_else_try_finally(n):
    # the if body's way out (unwinding `e`, then the code after the try) lies between the
    # else branch's finally handler and the clause's name cleanup
    log = []
    try:
        raise ValueError(1)
    except ValueError as e:
        if n > 4:
            log.append(e.args[0])
        else:
            try:
                raise KeyError(2)
            finally:
                log.append("finally")
    return log


@cases((0,), (5,))
def clause_if_try_except_finally_else_try_finally(n):
    log = []
    try:
        raise ValueError(1)
    except ValueError as e:
        if n > 4:
            try:
                raise ValueError(4)
            except ValueError:
                log.append(5)
                return log
            finally:
                log.append(6)
        else:
            log.append(e.args[0])
            try:
                raise KeyError(10)
            finally:
                log.append(11)
    return log


@cases((0,), (2,), (5,))
def while_true_next_turn_through_clause(n):
    # the loop goes on to its next turn only through the except clause: 3.12+ lay its jump
    # back with the handler code, after the code that follows the loop
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        try:
            raise ValueError(w)
        except ValueError:
            log.append(w)
        log.append("rest")
    log.append("after")
    return log


@cases((0,), (2,))
def while_true_continue_through_finally_with_clause(n):
    # `try: continue / finally: <try/except>`: the finally body's copy on the way of the
    # `continue` holds the try, whose clause goes on to the jump back
    log = []
    w = 0
    while True:
        w += 1
        if w > n:
            break
        try:
            continue
        finally:
            try:
                raise ValueError(w)
            except ValueError:
                log.append(w)
            log.append("finally")
    log.append("after")
    return log


@cases((0, None), (3, None), (0, KeyError), (0, ValueError))
def break_in_with_through_finally_holding_loop(n, kind):
    # the break's copy of the finally body ends in a loop whose exits the compiler threads to
    # the outer loop's exit (3.12+): nothing falls out of that copy, it is the break's way out
    log = []
    w = 0
    while w < 2:
        w += 1
        try:
            with _Swallow(log):
                log.append(w)
                if kind is not None:
                    raise kind(w)
                break
        finally:
            i = n
            while i < 3:
                i += 1
                log.append(i)
    log.append("after")
    return log


@cases((0, None), (0, KeyError))
def break_in_with_through_finally_holding_while_true(n, kind):
    log = []
    w = 0
    while w < 2:
        w += 1
        try:
            with _Swallow(log):
                log.append(w)
                if kind is not None:
                    raise kind(w)
                break
        finally:
            i = n
            while True:
                i += 1
                if i > 2:
                    break
                log.append(i)
    log.append("after")
    return log


class _Parser:
    def __init__(self, fail):
        self.fail = fail
        self.log = []

    def first(self):
        self.log.append("first")
        if "first" in self.fail:
            raise KeyError("first")
        return len(self.log) < 4

    def second(self):
        self.log.append("second")
        if "second" in self.fail and len(self.log) > 2:
            raise KeyError("second")

    def step(self):
        self.log.append("step")
        if len(self.log) > 12:
            raise IndexError(len(self.log))


@cases(("", True), ("", False), ("first", True), ("second", True), ("first second", True))
def while_true_if_rest_after_clause_continues(fail, state):
    # the rest of the if body after the first try, which only its except clause reaches, holds
    # a try whose body continues too (3.12+ lays it after the handler code): it ends with a jump
    # back to the loop's head, so it is no code after the loop
    p = _Parser(fail)
    while True:
        p.step()
        if state:
            try:
                state = p.first()
                continue
            except KeyError:
                pass
            try:
                p.second()
                continue
            except KeyError:
                raise ValueError(p.log)


# A try/finally in an `except E as e` clause, then a return: 3.12+ lay the return (its value,
# the clause's unwinding and the name's cleanup) between the finally's cleanup and the clause's,
# where the finally's way on jumps over its handler code; read as that handler code, it was lost.

@cases(([],), ([1],))
def named_clause_try_finally_then_return(log):
    try:
        raise ValueError(2)
    except ValueError as e:
        try:
            log.append(3)
        finally:
            log.append(5)
        return log
    return None


@cases(([],), ([1],))
def named_clause_try_except_finally_then_return(log):
    try:
        raise ValueError(2)
    except ValueError as e:
        try:
            log.append(3)
            if log[0]:
                raise KeyError(log[0])
        except KeyError:
            log.append(4)
        finally:
            log.append(5)
        return log
    return None


@cases(([],), ([1],))
def named_clause_nested_try_finally_then_return(log):
    try:
        raise ValueError(2)
    except ValueError as e:
        try:
            try:
                log.append(3)
            except ValueError as e:
                log.append(4)
        finally:
            log.append(5)
        return log
    return None
