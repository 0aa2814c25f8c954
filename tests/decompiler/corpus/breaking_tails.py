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
