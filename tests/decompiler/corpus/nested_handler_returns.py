"""A try inside an except clause whose body returns a constant after its protected range,
unwinding the outer clause first (3.11+; 3.10 reads these shapes wrong in other ways, a gap of
its own not covered here): the return is no way on of the outer clause."""
from _cases import cases


class _Writer:
    """Accepts only the kinds of data it is made with."""

    def __init__(self, *kinds):
        self.kinds = kinds

    def write(self, data):
        if not isinstance(data, self.kinds):
            raise TypeError(type(data).__name__)


@cases((_Writer(bytes), 0), (_Writer(str), 1), (_Writer(), 2))
def try_returning_in_except_clause_then_more(stream, default):
    # The inner try's body returns a constant after its protected range, unwinding the outer
    # clause first; its except clause falls out to the rest of the outer clause (3.12+ read that
    # return as the outer clause's way on, and lost it).
    try:
        stream.write(b"")
    except Exception:
        try:
            stream.write("")
            return False
        except Exception:
            pass
        default += 1
    return default


@cases((_Writer(bytes), 0), (_Writer(str), 1), (_Writer(), 2))
def try_returning_in_except_clause_then_return(stream, default):
    try:
        stream.write(b"")
    except Exception:
        try:
            stream.write("")
            return False
        except Exception:
            pass
        return default
    return True
