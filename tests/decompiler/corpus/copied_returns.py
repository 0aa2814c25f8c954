"""Shapes whose 3.12+ layout put a block where another statement's code was expected (3.8-3.11
read some of them wrong in ways of their own, gaps not covered here): the rest of a `while True:`
body after its last `continue`, ending in a `break` that goes straight to the enclosing loop's
head; copies of `return None` laid after an else part."""
from _cases import cases


@cases(([(0, 12), (1, 4), (0, 4), (0, 5), (0, 7)],), ([],))
def while_true_body_goes_on_after_last_continue(pairs):
    # The loop's last jump back is the `continue`; the rest of the body after it ends in a
    # `break` that goes straight back to the for loop's head, like the first one (3.12+ read that
    # rest as code after the loop, which the first `break` then ran).
    out = []
    for r, t in pairs:
        if r:
            continue
        while True:
            if t > 10:
                out.append(t)
                break
            else:
                if not t % 2:
                    t = t + 3
                    continue
                out.append(-t)
                break
    return out


@cases(*[(tag, stack, m) for tag in ("a", "b", "c") for stack in ((), ("a",)) for m in (0, 1)])
def elif_arm_inner_ifs_leave_by_copied_returns(tag, stack, m):
    # The elif arm's inner ifs leave by copies of the implicit `return None`, laid after the
    # else part; the arm has no jump over the else part (its raise ran after the arm).
    out = []
    if tag in "ab":
        if m and tag == "b":
            out.append(1)
        elif tag in stack:
            if stack:
                out.append(5)
                if not m:
                    out.append(2)
        else:
            raise ValueError(tag)
    else:
        out.append(4)


@cases(([12],), ([4],), ([5],), ([4, 9],), ([],))
def while_true_rest_after_continue_then_code_after_loop(items):
    # The rest of the body after the last jump back (the `continue`) falls into the code after
    # the loop, where the first `break` jumps: that rest is the body's, ending in its `break`.
    items = list(items)
    out = []
    while True:
        if not items:
            break
        t = items.pop(0)
        if t % 2 == 0:
            continue
        out.append(t)
        break
    out.append(len(items))
    return out


@cases(([(0, 12), (1, 4), (0, 4), (0, 5), (0, 7)],), ([],))
def while_true_rest_after_continue_then_more_of_for_body(pairs):
    # As `while_true_body_goes_on_after_last_continue`, with code after the while loop in the
    # for body: both breaks go to it.
    out = []
    for r, t in pairs:
        while True:
            if t > 10:
                out.append(t)
                break
            if not t % 2:
                t = t + 3
                continue
            out.append(-t)
            break
        out.append(r)
    return out



_READ_ONLY = __import__("types").MappingProxyType


@cases((1, _READ_ONLY({}), None), (0, _READ_ONLY({}), None), (0, _READ_ONLY({5: "p"}), "q"),
       (0, _READ_ONLY({5: False}), "q"), (0, _READ_ONLY({5: "q"}), "q"), (0, _READ_ONLY({5: None}), "q"))
def inner_return_then_rest_of_else(value, parents, key):
    # An inner if of an else part returns (a copy of the implicit `return None`); the statement
    # after it in the else part runs when that if does not (sqlalchemy `sethasparent`): it is no
    # else part of the outer test. (The read-only mapping makes each store raise, to be seen.)
    if value:
        parents[5] = "set"
    else:
        if 5 in parents:
            last = parents[5]
            if last is not False and last != key:
                if last is None:
                    raise ValueError(last)
                return
        parents[5] = False
