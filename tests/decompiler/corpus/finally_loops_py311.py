"""A `while True:` loop ending a finally body, left only by the `break` in its try's else part.
3.11+ copy the closing re-raise to where the break jumps in the exceptional copy of the body
(3.10 reads these wrongly still: a gap of its own; the loops with a test are in
finally_loop_exits.py, for every version)."""
from _cases import cases


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
