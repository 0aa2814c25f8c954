"""A `while True:` whose body ends in straight code after its last jump back: `if c: continue`
then `x = 1; break`. 3.11 drops the jump of that final `break` (it lands on the next instruction,
the code after the loop), so the rest of the body falls into the loop's exit, and an earlier
`break` jumps over the rest to the same place. Every loop here counts its turns and gives up
after a few, so a reading that loses a `break` fails instead of running forever."""
from _cases import cases


@cases((0,), (2,), (5,), (9,))
def break_over_rest_after_continue(n):
    i = 0
    found = False
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        found = True
        break
    return i, found


@cases((0,), (2,), (5,), (9,))
def break_over_rest_then_more_code(n):
    # (the code after the loop is no return the compiler could copy into the break)
    i = 0
    found = False
    log = []
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        found = True
        break
    log.append(i)
    log.append(found)
    return log


@cases((0,), (2,), (5,), (9,))
def rest_with_if_else_then_break(n):
    i = 0
    found = None
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        if i % 2:
            found = "odd"
        else:
            found = "even"
        break
    return i, found


@cases((0,), (2,), (5,), (9,))
def rest_with_second_continue(n):
    # (a second `if c: continue` inside the rest: it jumps back too)
    i = 0
    found = False
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        i += 1
        if i == 3:
            continue
        found = True
        break
    return i, found


@cases((0, 3), (2, 3), (5, 1), (9, 2))
def rest_inside_for_loop(n, m):
    # (the `while True:` is the body of a for loop: its breaks go on to the next item)
    out = []
    for k in range(m):
        i = k
        while True:
            if i > 20:
                return "runaway"
            i += 1
            if i >= n:
                break
            if i > 3:
                continue
            out.append(i)
            break
        out.append(-i)
    return out


@cases((0,), (2,), (5,), (9,))
def while_test_rest_after_continue(n):
    # (a tested loop of the same shape: its test leaves at the bottom too)
    i = 0
    found = False
    while i < 20:
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        found = True
        break
    return i, found


@cases((0, (1, 2)), (2, (5,)), (5, ()), (9, (1,)))
def rest_with_for_loop(n, xs):
    # (a for loop inside the rest: its own jumps stay in the rest)
    i = 0
    acc = []
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        for x in xs:
            acc.append(x + i)
        break
    acc.append(i)
    return acc


@cases((0, {1: 5}), (2, {1: 5}), (2, {}), (5, {2: 3}), (9, {3: 1}))
def rest_with_try_except(n, d):
    # (3.11 lays the try's handler code inline, last in the rest: both ways out of the try
    # jump to the loop's exit, where the final `break` goes)
    i = 0
    r = None
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        try:
            r = d[i]
        except KeyError:
            r = -1
        break
    return i, r


@cases((0,), (2,), (3,), (5,), (9,))
def rest_with_return_then_more(n):
    i = 0
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        if i == 2:
            return "two"
        i *= 10
        break
    i += 1
    return i


@cases((0, 5), (1, 9), (3, 4), (2, 12), (0, 1))
def rest_holding_loop_of_same_shape(n, m):
    out = []
    while True:
        if n > 20:
            return "runaway"
        n += 1
        if n >= m:
            break
        if n % 2:
            continue
        j = 0
        while True:
            if j > 20:
                return "runaway2"
            j += 1
            if j >= n:
                break
            if j > 2:
                continue
            out.append(j)
            break
        out.append(-j)
        break
    return out


class _Log:
    def __init__(self):
        self.events = []

    def __enter__(self):
        self.events.append("in")
        return self

    def __exit__(self, *exc):
        self.events.append("out")
        return False


@cases((0,), (2,), (5,), (9,))
def rest_with_with_statement(n):
    log = _Log()
    i = 0
    while True:
        if i > 20:
            return "runaway"
        i += 1
        if i >= n:
            break
        if i > 3:
            continue
        with log:
            log.events.append(i)
        break
    return i, log.events
