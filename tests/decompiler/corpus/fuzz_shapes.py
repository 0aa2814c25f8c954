"""Shapes that `tools/fuzz_control_flow.py` found read wrongly, reduced to their core."""
from _cases import cases


@cases((0,), (1,))
def finally_try_never_falls_out_then_more(n):
    # The try inside the finally body never falls out (its body raises): the rest of the
    # finally body, and the code after the statement, are reached only through its clause.
    log = []
    try:
        log.append(n)
    finally:
        try:
            raise ValueError(5)
        except ValueError:
            log.append(6)
        log.append(9)
    return log


@cases((0,), (1,), (3,))
def finally_try_raising_either_way_then_more(n):
    log = []
    try:
        log.append(n)
    finally:
        try:
            if n > 1:
                raise ValueError(n)
            raise KeyError(n)
        except ValueError:
            log.append(6)
        except KeyError:
            log.append(7)
        log.append(9)
    log.append(10)
    return log
