"""A loop with a `break` inside a finally body, the try/finally inside a try/except that is
followed by a return: 3.10 copies that way out (POP_BLOCK and the return) onto each way out of the
loop in the normal copy of the finally body (its test's exit, its `break`, falling off it), and
3.11+ copy the closing re-raise to where the break jumps in the exceptional copy."""
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
