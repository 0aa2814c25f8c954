"""A try inside an except clause whose body returns a constant after its protected range,
unwinding the outer clause first: the return is no way on of the outer clause (3.11+), nor (3.10)
the outer clause's copied way out, since the inner try's clauses go on in the outer clause."""
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


@cases((_Writer(bytes), 0), (_Writer(str), 1), (_Writer(), 2), (_Writer(), 0))
def inner_try_returning_ends_if_in_except_clause(stream, default):
    # The inner try ends an if body inside the outer clause: its except clause jumps to the end
    # of that if, more of the outer clause (3.10 read the return as the outer clause's way out,
    # lost it, and made the rest of the clause an else part).
    try:
        stream.write(b"")
    except Exception:
        if default:
            try:
                stream.write("")
                return False
            except Exception:
                pass
        default += 1
    return default


@cases((_Writer(bytes), "a"), (_Writer(str), "b"), (_Writer(), "c"))
def inner_try_returning_then_named_clause_then_return(stream, default):
    try:
        stream.write(b"")
    except Exception:
        try:
            stream.write("")
            return False
        except Exception as e:
            default = str(e)
        return default + "x"
    return True


class _Raiser:
    """Raises KeyError on bytes and the exception it is made with on text (None: never)."""

    def __init__(self, exc):
        self.exc = exc

    def write(self, data):
        if self.exc is None:
            return
        if isinstance(data, bytes):
            raise KeyError(data)
        raise self.exc


@cases((_Raiser(None), 1), (_Raiser(TypeError("t")), 2), (_Raiser(ValueError("v")), 3))
def inner_try_returning_then_clause_returning_constant(stream, default):
    # One inner clause returns a constant (after leaving both clauses), the other falls out to
    # the outer clause's `return default`, which 3.10 copies into it.
    try:
        stream.write(b"")
    except Exception:
        try:
            stream.write("")
            return False
        except TypeError:
            pass
        except ValueError:
            return 3
        return default
    return True


def _check(value):
    if value < 0:
        raise ValueError(value)
    if value == 0:
        raise KeyError(value)
    return value


@cases((1, []), (-1, []), (0, []), (-2, [1]))
def except_clause_returning_constant_in_outer_try(value, log):
    # An except clause of an inner try that returns a constant: 3.10 unwinds the outer try
    # (POP_EXCEPT, then POP_BLOCK) before loading the constant.
    try:
        try:
            _check(value)
        except ValueError:
            log.append("inner")
            return 6
    except KeyError:
        return "outer", log
    log.append("after")
    return log


@cases((1, []), (-1, []), (0, []))
def except_clause_bare_return_in_outer_try(value, log):
    # The same with a bare `return`, where the function's end is a `return None` too (after a
    # store, so it could be the copy 3.10 makes of the outer try's way out).
    try:
        try:
            _check(value)
        except ValueError:
            log.append("inner")
            return
    except KeyError:
        log.append("outer")
    if "inner" in log:
        raise LookupError("ran on after the return")
    done = True


@cases((1, []), (-1, []), (0, []))
def except_clause_const_return_in_outer_try_then_same_return(value, log):
    # `return 0` in the inner clause, and the function ends in `return 0` after more code: the
    # outer try goes on to that code (ending in a store, as a copied block could follow), so the
    # clause's return is no copy of its way out.
    try:
        try:
            _check(value)
        except ValueError:
            log.append("inner")
            return 0
    except KeyError:
        log.append("outer")
    log.append("after")
    done = True
    return 0


@cases((1, []), (-1, []), (0, []))
def except_clause_falls_off_nested_try_at_end(value, log):
    # The inner clause falls off the end of both trys, the function's end: 3.10 copies the
    # implicit `return None` into the clause (the outer try's way out, no return of its own).
    try:
        try:
            _check(value)
        except ValueError:
            log.append("inner")
    except KeyError:
        log.append("outer")
