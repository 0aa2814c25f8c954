"""Finally bodies whose last statement is an `if`: 3.10 copies the closing re-raise (and the code
after the whole statement) into its branches."""
from _cases import cases


class _Closable:
    def __init__(self, fail):
        self.fail = fail
        self.log = []

    def work(self):
        self.log.append("work")
        if self.fail:
            raise ValueError("work failed")


@cases((False, True), (True, True), (False, False))
def finally_ends_with_if(fail, flag):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if flag:
                c.log.append("closed")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, 0), (True, 1), (False, 2))
def finally_ends_with_if_elif_else(fail, which):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if which == 0:
                c.log.append("zero")
            elif which == 1:
                c.log.append("one")
            else:
                c.log.append("other")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True), (True, False))
def finally_if_then_statement(fail, flag):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if flag:
                c.log.append("flag")
            c.log.append("always")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False,), (True,))
def return_through_finally_with_if(fail):
    c = _Closable(fail)
    try:
        c.work()
        return c.log
    finally:
        if not fail:
            c.log.append("finished")


@cases((False, True, True), (True, True, True), (False, True, False), (False, False, True))
def finally_ends_with_if_and(fail, a, b):
    # 3.11: each false jump of `a and b` gets its own copy of the closing re-raise.
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if a and b:
                try:
                    c.log.append(int("x" if fail else "1"))
                except ValueError:
                    pass
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True, True), (True, True, True), (False, True, False), (False, False, True))
def finally_if_and_then_return(fail, a, b):
    # 3.10: each false jump of `a and b` gets its own copy of the closing re-raise (and, in the
    # normal copy, of the implicit return).
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if a and b:
                c.log.append("both")
    except ValueError:
        c.log.append("caught")
    return c.log

