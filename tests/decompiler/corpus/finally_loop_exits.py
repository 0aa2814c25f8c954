"""A loop with a `break` inside a finally body, the try/finally inside a try/except that is
followed by a return: 3.10 copies that way out (POP_BLOCK and the return) onto each way out of the
loop in the normal copy of the finally body (its test's exit, its `break`, falling off it), and
3.11+ copy the closing re-raise to where the break jumps in the exceptional copy. A `while True:`
left only by the `break` in its try's else part: in the exceptional copy that break is a copy of
the closing re-raise right after the try's POP_BLOCK, and the loop's jump back lies after the
try's handler code (3.10); in the normal copy the break is a jump laid after the handler code, or
(on the way of a `return` in the try body) the unwinding of the try around and that return."""
from _cases import cases


@cases((3, False), (3, True), (0, True))
def finally_while_break(n, fail):
    log = []
    try:
        try:
            if fail:
                raise KeyError(n)
            log.append("body")
        finally:
            k = n
            while k > 0:
                k -= 1
                if k == 1:
                    break
                log.append(k)
    except KeyError:
        log.append("caught")
    return log


@cases(([1, 2, 0, 3], False), ([1, 2, 0, 3], True), ([], True))
def finally_for_break_in_loop(items, fail):
    log = []
    for round_ in range(2):
        try:
            try:
                if fail:
                    raise KeyError(round_)
                log.append(round_)
            finally:
                for item in items:
                    if not item:
                        break
                    log.append(item)
                if round_:
                    log.append("again")
        except KeyError:
            log.append("caught")
    return log


@cases((3, False), (3, True), (0, True))
def finally_while_break_then_more(n, fail):
    log = []
    try:
        try:
            if fail:
                raise KeyError(n)
            log.append("body")
        finally:
            k = n
            while k > 0:
                k -= 1
                if k == 1:
                    break
                log.append(k)
    except KeyError:
        log.append("caught")
    log.append("after")
    return len(log)

@cases((3, False), (3, True), (0, True))
def finally_for_break_then_return(n, fail):
    log = []
    try:
        try:
            if fail:
                raise KeyError(n)
            log.append("body")
        finally:
            for k in range(n):
                if k == 1:
                    break
                log.append(k)
    except KeyError:
        log.append("caught")
    return log


class _Interrupt(Exception):
    """Stands for KeyboardInterrupt, which must not escape a test."""


class _Pager:
    def __init__(self, interrupts, fail):
        self.interrupts = interrupts
        self.fail = fail
        self.log = []

    def write(self):
        if self.fail:
            raise KeyError("write")
        self.log.append("write")

    def wait(self):
        self.log.append("wait")
        if len(self.log) <= self.interrupts:
            raise _Interrupt


@cases((0, False), (2, False), (0, True), (3, True))
def finally_while_true_try_else_break(interrupts, fail):
    # The loop's only way out is the try's else part: in the exceptional copy the `break` falls
    # into the closing re-raise, and the inner handler's jump back to the loop's head ends the
    # finally handler's code (3.12+ lay it after that re-raise).
    pager = _Pager(interrupts, fail)
    try:
        try:
            pager.write()
        finally:
            while True:
                try:
                    pager.wait()
                except _Interrupt:
                    pass
                else:
                    break
    except KeyError:
        pager.log.append("caught")
    return pager.log


@cases((0, False), (2, False), (0, True), (3, True), (2, True), (9, False))
def finally_retry_loop_reraises_late(interrupts, fail):
    # The same loop after more of the finally body, its handler re-raising on a condition; the
    # code after the statement is what the normal copy's `break` reaches.
    pager = _Pager(interrupts, fail)
    try:
        pager.write()
    except KeyError:
        pager.log.append("caught")
        return pager.log
    finally:
        pager.log.append("pre")
        while True:
            try:
                pager.wait()
            except _Interrupt:
                if len(pager.log) > 6:
                    pager.log.append("gave up")
                    raise
            else:
                break
    pager.log.append("after")
    return pager.log


@cases((0, False), (2, False), (0, True), (3, True))
def return_through_finally_retry_loop(interrupts, fail):
    # The normal copy's `break` goes straight to the return after the copy, which is then the
    # copy's only way on and lies inside it (before the copy's handler code): that return is
    # the statement's own (3.11 read it as part of the copy and dropped it).
    pager = _Pager(interrupts, fail)
    try:
        try:
            pager.write()
            return len(pager.log)
        finally:
            while True:
                try:
                    pager.wait()
                except _Interrupt:
                    pass
                else:
                    break
    except KeyError:
        return "caught"


@cases((0, False), (3, False), (0, True))
def return_const_through_finally_loop(interrupts, fail):
    pager = _Pager(interrupts, fail)
    try:
        try:
            pager.write()
            return 1
        finally:
            while True:
                try:
                    pager.wait()
                except _Interrupt:
                    pager.log.append("again")
                else:
                    break
    except KeyError:
        return pager.log
