"""A loop with a `break` inside a finally body. 3.11+ copy the closing re-raise to where the
break jumps in the exceptional copy of the body (3.10 reads these wrongly still: a known gap)."""
from _cases import cases


# A loop with a `break` inside a finally body: 3.11+ copy the closing re-raise to where the
# break jumps in the exceptional copy of the body.

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
