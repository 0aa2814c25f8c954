"""A `while True:` loop ending a finally body, left only by the `break` in its try's else part,
on the way of a `return` in the try body: 3.10 copies that return's unwinding to the break (it
reads these wrongly still: a gap of its own; the other shapes are in finally_loop_exits.py, for
every version)."""
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
