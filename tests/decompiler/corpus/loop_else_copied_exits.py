"""A for loop whose breaks ran copies of the code after the statement (3.10+ copy a small block
that ends the function onto each jump to it): that code exists only as those copies, and the
code at the loop's exit, which never runs off its end, is the loop's else part. Read as code
after the loop, a `break` would run it."""
from _cases import cases


@cases((["a", "b"], ("a",)), (["a"], ("a", 1, 2)), ([], ()), ([], (1,)))
def for_else_while_true_left_by_break(names, taken):
    # docutils' document.create_id: the else part is a `while True:` left only by a `break`; the
    # breaks of both loops run copies of the return after the statement (3.10+), so the else
    # part never runs off its end (its last instruction is the loop's jump back).
    n = 0
    found = None
    for name in names:
        found = name + "!"
        if found not in taken:
            break
    else:
        while True:
            n += 1
            found = n
            if found not in taken:
                break
    return found


@cases((True, ["a", "b"], ("a",)), (True, ["a"], ("a", 1)), (False, [], ()))
def for_else_while_true_in_if_body(flag, names, taken):
    # The same statement ending an if body, whose return the breaks copied.
    n = 0
    found = None
    if flag:
        for name in names:
            found = name * 2
            if found not in taken:
                break
        else:
            while True:
                n += 1
                if n not in taken:
                    found = n
                    break
        return found
    return n


class _Quiet:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@cases((0,), (1,), (3,))
def while_else_with_break_copying_the_return(n):
    # 3.10: the `break` ending the with body runs the exit call, then a copy of the code after
    # the loop (`return log`); the loop's exit block before that code is the else part.
    log = []
    i = 0
    while i < n:
        i += 1
        with _Quiet(log):
            log.append(i)
            break
    else:
        log.append("else")
        log.append(i)
    return log


@cases((0,), (1,), (3,))
def while_else_returning_with_break_copying_the_raise(n):
    # The else part returns, so only the `break` reaches the raise after the loop: 3.10 copies it
    # into the break and drops the original; the loop's exit block is the else part.
    log = []
    i = 0
    while i < n:
        i += 1
        with _Quiet(log):
            log.append(i)
            break
    else:
        log.append("else")
        return log
    raise ValueError(log)


@cases((0,), (1,), (3,))
def while_else_returning_in_with_body(n):
    # The same loop ending a with body (the fuzzer's seed 1483, 3.10).
    log = []
    with _Quiet(log):
        i = 0
        while i < n:
            i += 1
            with _Quiet(log):
                log.append(i)
                break
        else:
            log.append("else")
            return log
        raise ValueError(i)
