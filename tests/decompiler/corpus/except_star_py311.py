"""except* and exception groups (needs Python 3.11)."""
from _cases import cases


@cases((0,), (1,), (2,))
def except_star_basic(kind):
    log = []
    try:
        if kind == 0:
            raise ExceptionGroup("g", [ValueError(1), TypeError(2)])
        if kind == 1:
            raise ExceptionGroup("g", [KeyError(3)])
        log.append("body")
    except* ValueError as eg:
        log.append(("value", len(eg.exceptions)))
    except* (TypeError, KeyError) as eg:
        log.append(("type-or-key", [type(e).__name__ for e in eg.exceptions]))
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@cases((0,), (1,))
def except_star_reraise(kind):
    try:
        try:
            raise ExceptionGroup("g", [ValueError(1), OSError(2)])
        except* ValueError:
            if kind:
                raise
        except* OSError:
            pass
    except ExceptionGroup as eg:
        return sorted(type(e).__name__ for e in eg.exceptions)
    return "quiet"


@cases(())
def except_star_in_loop():
    out = []
    for i in range(3):
        try:
            raise ExceptionGroup("g", [ValueError(i)])
        except* ValueError as eg:
            out.append(eg.exceptions[0].args)
    return out


@cases((0,), (1,))
def except_star_else_in_loop(n):
    out = []
    for i in range(n + 2):
        try:
            if i == n:
                raise ExceptionGroup("g", [OSError(i)])
        except* OSError:
            out.append("os")
        except* ValueError:
            pass
        else:
            out.append(i)
    return out


@cases((0,), (1,))
def except_star_empty_clause_tail(kind):
    try:
        if kind:
            raise ExceptionGroup("g", [ValueError(1)])
        raise ExceptionGroup("g", [KeyError(2)])
    except* ValueError:
        pass
    except* KeyError as eg:
        kind = len(eg.exceptions)
    return ("after", kind)


@cases((0,), (1,), (2,))
def except_star_else_returns(kind):
    log = []
    try:
        if kind == 1:
            raise ExceptionGroup("g", [ValueError(kind)])
        log.append("body")
    except* ValueError:
        log.append("value")
    else:
        if kind == 2:
            return "early"
        log.append("else")
    log.append("after")
    return log
