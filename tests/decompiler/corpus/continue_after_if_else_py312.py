"""A `continue` written right after an if/else (3.12+).

3.12+ send no jump on through a jump back that has a line of its own: the end of the inner
`if a:` body jumps forward to the `continue`. Read as the end of the outer if body, with the
rest of the loop body as its else part, the same code would have that jump threaded straight
back to the loop's head (3.10/3.11 keep such a forward jump after a loop's else part too, so
the shape is read from 3.12 on). And a while loop whose body ends in `continue`, ending an if
body: 3.12 threads its test's exit past the else part, so no jump over that ends the if body.
"""
from _cases import cases


@cases(([None, 1, 2, None],), ([],), ([3],))
def continue_after_inner_if_else(lines):
    out = []
    for line in lines:
        if line is None:
            if out:
                out.append("")
            else:
                out.append(0)
            continue
        out.append(line)
        if line > 1:
            continue
        out.append(-line)
    return out


@cases(([None, 1, 2, None],), ([],), ([3],))
def while_continue_after_inner_if_else(lines):
    lines = list(lines)
    out = []
    while lines:
        line = lines.pop()
        if line is None:
            if out:
                out.append("")
            else:
                out.append(0)
            continue
        out.append(line)
    return out


@cases((0, 2), (1, 0), (0, 0))
def while_continue_ends_if_body_before_elif(n, k):
    # The while body ends in `continue`, so 3.12 threads the test's exit past the elif and
    # else parts, to the code after the if: no jump over them ends the if body.
    log = []
    if k == 2:
        turns = 0
        while turns < 2:
            turns += 1
            log.append(turns)
            continue
    elif n:
        log.append('elif')
    else:
        log.append('else')
    log.append(7)
    return log
