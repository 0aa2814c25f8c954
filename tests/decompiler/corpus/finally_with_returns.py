"""A `return` inside a finally body (3.14 warns of it: PEP 765), in a with statement or replacing
a return of the try body. On the way out a with's exit call consumes the manager below the
returned value; 3.11+ then unwinds the finally's handler around it (`SWAP 2; POP_TOP; SWAP 2;
POP_EXCEPT` drop the exception and restore the previous one) before the return, in the handler's
copy of the finally body, where the copy on the try body's return drops that return's value
(`SWAP 2; POP_TOP`). Some managers here swallow exceptions, so the try body's exception may or
may not be lost."""
import warnings

from _cases import cases

warnings.filterwarnings("ignore", category=SyntaxWarning)  # (the `return` in `finally`)


class Tracker:
    def __init__(self, log, tag):
        self.log, self.tag = log, tag

    def __enter__(self):
        self.log.append(("enter", self.tag))
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", self.tag, kind.__name__ if kind else None))
        return self.tag % 3 == 0  # (some exits swallow the exception)

    def value(self, log):
        return (self.tag, len(log))


async def _pass():
    return None


class AsyncTracker(Tracker):
    async def __aenter__(self):
        await _pass()
        return self.__enter__()

    async def __aexit__(self, kind, value, tb):
        await _pass()
        return self.__exit__(kind, value, tb)


def _body(log, n):
    log.append(("body", n))
    if n > 1:
        raise ValueError(n)


@cases((0,), (2,))
def with_return_in_finally(n):
    log = []
    try:
        _body(log, n)
    finally:
        with Tracker(log, 1):
            return log


@cases((0,), (2,))
def with_return_of_a_call_in_finally(n):
    log = []
    try:
        _body(log, n)
    finally:
        with Tracker(log, 3) as t:
            log.append(1)
            return t.value(log)


@cases((0, False), (0, True), (2, False), (2, True))
def if_with_return_in_finally(n, c):
    log = []
    try:
        _body(log, n)
    finally:
        if c:
            with Tracker(log, 4):
                return log
        log.append("after")
    return log


@cases((0,), (2,))
def with_return_in_finally_of_loop(n):
    log = []
    for k in range(2):
        try:
            _body(log, n + k)
        finally:
            with Tracker(log, 5):
                if k:
                    return log
    return None


def with_return_in_finally_async(n):
    log = []

    async def run():
        try:
            await _pass()
            _body(log, n)
        finally:
            async with AsyncTracker(log, 6):
                return log

    return run


def _value(log):
    log.append("value")
    return len(log)


@cases((0, False), (0, True), (2, False), (2, True))
def body_return_replaced_in_finally(n, c):
    log = []
    try:
        _body(log, n)
        return _value(log)
    finally:
        if c:
            return log
        log.append("finally")


@cases((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2))
def body_if_return_replaced_in_finally(n, c):
    log = []
    try:
        if c:
            return _value(log)
        _body(log, n)
    finally:
        if c > 1:
            return log
        log.append("finally")
    return None


@cases((0,), (3,))
def with_raise_in_try_except_then_finally_return(n):
    log = []
    try:
        with Tracker(log, n):
            raise ValueError(5)
    except ValueError:
        log.append(6)
    finally:
        return log


@cases((0,), (3,))
def with_raise_in_try_except_then_finally(n):
    log = []
    try:
        with Tracker(log, n):
            raise ValueError(5)
    except ValueError:
        log.append(6)
    finally:
        log.append(7)
    return log


@cases((0, 0), (0, 2), (2, 0), (2, 2))
def clause_try_return_in_finally_raising_in_try(n, k):
    log = []
    try:
        try:
            try:
                return _value(log)
            except ValueError as e:
                log.append(1)
        finally:
            if n + k > 1:
                raise ValueError(2)
            else:
                log.append(3)
            if k == 2:
                log.append(4)
    except ValueError:
        log.append(5)
    return log


@cases((1,), (3,))
def clause_return_through_finally_with_raising(n):
    log = []
    try:
        raise ValueError(2)
    except ValueError:
        return log
    finally:
        with Tracker(log, n):  # (tag 3 swallows the exception: the clause's return goes on)
            log.append(4)
            raise ValueError(6)


@cases((0,), (2,))
def named_clause_return_through_finally_loop_return(n):
    # The clause's `return log` runs the finally body, whose copy never finishes: its loop
    # returns and the code after the loop raises (the value waiting on the stack is dropped).
    log = []
    try:
        log.append(1)
        raise ValueError(2)
    except ValueError as e:
        log.append(type(e).__name__)
        return log
    finally:
        for i in range(n):
            log.append(3)
            return log
        raise KeyError(4)


@cases((0,), (2,))
def named_clause_return_through_finally_if_return(n):
    log = []
    try:
        raise ValueError(2)
    except ValueError as e:
        return [e]
    finally:
        if n:
            return log + [n]
        raise KeyError(n)


@cases((0, 1), (2, 1))
def return_through_finally_if_return_or_raise(n, k):
    log = []
    try:
        return [k]
    finally:
        if n:
            return log + [n]
        raise KeyError(n)
