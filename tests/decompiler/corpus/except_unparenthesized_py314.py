"""`except A, B:` and `except* A, B:` without parentheses (PEP 758, needs Python 3.14)."""
from _cases import cases


@cases((0,), (1,), (2,))
def except_bare_tuple(kind):
    try:
        if kind == 0:
            raise ValueError(kind)
        if kind == 1:
            raise KeyError(kind)
        return "none"
    except ValueError, TypeError:
        return "value-or-type"
    except KeyError, IndexError, LookupError:
        return "lookup"


@cases((0,), (1,), (2,))
def except_star_bare_tuple(kind):
    log = []
    try:
        if kind == 0:
            raise ExceptionGroup("g", [ValueError(1), KeyError(2)])
        if kind == 1:
            raise ExceptionGroup("g", [OSError(3)])
    except* ValueError, TypeError:
        log.append("value-or-type")
    except* KeyError, OSError:
        log.append("key-or-os")
    return log


@cases((0,), (1,))
def except_bare_tuple_in_loop(n):
    out = []
    for i in range(3):
        try:
            if i == n:
                raise ZeroDivisionError(i)
            out.append(10 // (i - n))
        except ZeroDivisionError, ArithmeticError:
            out.append("div")
            continue
        finally:
            out.append("f")
    return out
