"""Finally bodies whose last statement is a construct with a handler of its own (try/finally,
with): 3.10 copies the closing re-raise (and, in the normal copy, the code after the whole
statement) into that construct's way out, in front of its handler."""
from _cases import cases


class _Log:
    def __init__(self, fail):
        self.fail = fail
        self.items = []

    def work(self, what):
        self.items.append(what)
        if self.fail == what:
            raise ValueError(what)

    def __enter__(self):
        self.items.append("enter")
        return self

    def __exit__(self, *exc):
        self.items.append("exit")
        return False


@cases((None,), ("a",), ("g",), ("h",))
def try_finally_in_finally(fail):
    log = _Log(fail)
    try:
        try:
            log.work("a")
        finally:
            try:
                log.work("g")
            finally:
                log.work("h")
    except ValueError:
        log.items.append("caught")
    return log.items


@cases((None, True), (None, False), ("g", True), ("h", False))
def return_through_nested_finally(fail, early):
    log = _Log(fail)
    try:
        if early:
            return log.items
        log.work("a")
    finally:
        try:
            log.work("g")
        finally:
            log.work("h")
    return log.items + ["late"]


@cases((None,), ("a",), ("h",))
def with_in_finally(fail):
    log = _Log(fail)
    try:
        log.work("a")
    finally:
        with log:
            log.work("h")


@cases((None, True), (None, False), ("h", True))
def return_through_finally_with(fail, early):
    log = _Log(fail)
    try:
        if early:
            return len(log.items)
        log.work("a")
    finally:
        with log:
            log.work("h")


@cases((None, True), (None, False), ("b", False))
def return_through_finally_if_try(fail, got):
    # The return value's RETURN_VALUE is copied into each way out of the try/except inside the
    # finally body's last `if`.
    log = _Log(fail)
    try:
        return got
    finally:
        log.work("a")
        if not got:
            try:
                log.work("b")
            except ValueError:
                pass


@cases((None, True), (None, False), ("read", True))
def return_through_finally_if_in_with(fail, locked):
    # The finally body's last `if` falls into the with's way out, which the return goes on to.
    log = _Log(fail)
    with log:
        try:
            log.work("read")
            return log.items[:]
        finally:
            if locked:
                log.work("unlock")


def _nested_finally_with_handler(log, flag):
    try:
        log.work("a")
    finally:
        try:
            log.work("g")
        finally:
            if flag:
                try:
                    log.work("h")
                except ValueError:
                    log.items.append("swallowed")
            flag = False  # (a block small enough for 3.10 to copy)


@cases((None, True), (None, False), ("a", True), ("g", True), ("h", True), ("h", False))
def try_finally_then_if_try_except_in_finally(fail, flag):
    # The inner finally body ends in `if flag: try/except` and one small statement: 3.10 copies
    # the outer closing re-raise into each branch of the inner finally's normal copy, and the
    # inner handler comes last in the outer exceptional copy (no closing re-raise of its own).
    log = _Log(fail)
    try:
        _nested_finally_with_handler(log, flag)
    except ValueError:
        log.items.append("caught")
    return log.items


class _Sock:
    def __init__(self, fail, log):
        self.fail = fail
        self.log = log

    def shutdown(self):
        self.log.append("shutdown")
        if self.fail:
            raise OSError(self.fail)

    def close(self):
        self.log.append("close")


@cases((None, None), ("x", None), ("x", 1), ("x", 2), (None, 2))
def if_try_except_finally_in_finally(fail, sock_fail):
    # The finally body ends in `if c: try/except/finally`: 3.12+ protects the inner except clause
    # (not the inner body) by the inner finally's handler, which lies after that clause's code at
    # the end; dropping the normal copy of the outer finally body must drop both handlers.
    log = []
    sock = _Sock(sock_fail, log) if sock_fail is not None else None
    try:
        try:
            log.append("body")
            if fail:
                raise KeyError(fail)
        finally:
            log.append("finally")
            if sock is not None:
                try:
                    sock.shutdown()
                except OSError as exc:
                    if exc.args[0] != 1:
                        raise
                finally:
                    sock.close()
    except (KeyError, OSError) as e:
        log.append(type(e).__name__)
    return log


class _Flaky:
    def __init__(self, failures):
        self.failures = failures
        self.calls = 0

    def acquire(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise KeyError(self.calls)


@cases((0, False), (2, False), (0, True), (1, True))
def while_true_retry_in_finally(failures, fail_body):
    # `finally: while True: try: acquire(); break except E: ...` then code after the loop: only
    # the except clause's jump closes the loop in the finally body's exceptional copy (and 3.12+
    # lays that copy's code after the loop inside the handler code, as the finally body's own).
    lock = _Flaky(failures)
    log = []
    try:
        try:
            log.append("body")
            if fail_body:
                raise OSError("body")
        finally:
            retried = False
            while True:
                try:
                    lock.acquire()
                    break
                except KeyError:
                    retried = True
            log.append(("retried", retried, lock.calls))
    except OSError:
        log.append("caught")
    return log



@cases((None, True), (None, False), ("body", True), ("inner", True), ("outer", False))
def return_through_inner_finally_ending_in_if(fail, flag):
    # 3.10: the if's false branch in the return's copy of the inner finally body jumps to a copy
    # of the way on (the outer finally body's copy and the return). The list returned is the
    # log, which the finally bodies extend after the return value was computed.
    log = _Log(fail)
    try:
        try:
            log.work("body")
            return log.items
        finally:
            if flag:
                log.work("inner")
    finally:
        log.work("outer")


@cases((None, True), (None, False), ("start", True), ("other", False))
def return_through_inner_finally_ending_in_if_else(fail, flag):
    log = _Log(fail)
    try:
        log.work("start")
        try:
            return log.items
        finally:
            if flag:
                log.work("inner")
            else:
                log.work("other")
    finally:
        log.work("outer")
