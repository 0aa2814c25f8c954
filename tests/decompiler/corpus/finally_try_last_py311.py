"""A try statement that ends a finally body, with an if/else as its body. 3.11+ copy the closing
re-raise of the exceptional copy into each branch that reaches the end of that try; the copies
end the branches of the inner try's body. (3.10 copies `POP_BLOCK; RERAISE` there and is not
read yet, hence the file's minimum version.)"""
from _cases import cases


class _Session:
    def __init__(self, fail, missing):
        self.fail = fail
        self.missing = missing
        self.log = []

    def load(self):
        self.log.append("load")
        if self.fail:
            raise KeyError("load")

    def restore(self, which):
        if self.missing:
            raise NameError(which)
        self.log.append(which)


@cases((False, False, None), (False, True, 1), (True, False, None), (True, True, 1))
def finally_ends_with_try_if_else(fail, missing, old):
    session = _Session(fail, missing)
    try:
        try:
            session.load()
        finally:
            try:
                if old is None:
                    session.restore("drop")
                else:
                    session.restore("old")
            except NameError:
                session.log.append("missing")
    except KeyError:
        session.log.append("caught")
    return session.log


@cases((False, False, 0), (False, True, 1), (True, False, 2), (True, True, 0))
def finally_ends_with_try_elif(fail, missing, which):
    session = _Session(fail, missing)
    try:
        try:
            session.load()
        finally:
            try:
                if which == 0:
                    session.restore("zero")
                elif which == 1:
                    session.restore("one")
                else:
                    del session.missing
            except NameError:
                pass
    except KeyError:
        session.log.append("caught")
    return session.log
