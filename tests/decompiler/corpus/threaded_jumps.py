"""Tests whose jump the 3.8/3.9 peephole pass threaded through a later unconditional jump.

A conditional jump to a `break`, a `continue`, or an enclosing loop's way back goes straight to
where that jump goes: the test leaves the loop directly, and the jump it passed stays behind.
A plain `raise` at the end of a function is followed by the compiler's unreachable `return None`
just as a compound statement is, which says nothing about an else part.
"""
from _cases import cases


@cases(([5, 1, 9], 4, 2), ([1, 1], 0, 0), ([3], 1, 5))
def or_test_then_break(xs, a, b):
    xs = list(xs)
    u = None
    while xs:
        u = xs.pop()
        if u < a or u <= b:
            break
    xs.append(u)
    return u, xs


@cases(([3, -1, 40, 7, 0, None],), ([],))
def or_test_then_continue(xs):
    out = []
    for m in xs:
        if m:
            if m < 0 or m > 32:
                continue
            out.append(m)
        elif m is None:
            return out, True
    return out


@cases(([0, 0, 3],), ([0, 2],), ([],))
def or_test_then_continue_in_while(xs):
    xs = list(xs)
    n = 0
    while xs:
        m = xs.pop()
        if m == 1 or m == 2:
            continue
        n += m
    return n


@cases((["", "ab", ""], True), (["", "ab", ""], False), ([""], False))
def if_then_break(xs, keep):
    xs = list(xs)
    n = 0
    line = None
    while xs:
        line = xs.pop()
        if line:
            if not keep:
                line = line[1:]
            break
        n += 1
    xs.append(n)
    return line, xs


@cases(([1, 4, 2], True), ([1, 4, 2], False), ([5, 9], False))
def nested_if_then_break(xs, keep):
    xs = list(xs)
    n = 0
    line = None
    while xs:
        line = xs.pop()
        if line > 1:
            if not keep:
                if line > 3:
                    break
                line = line + 10
            break
        n += 1
    xs.append(n)
    return line, xs


@cases(([1, 2, 3, 4],), ([],))
def if_then_continue(xs):
    out = []
    for x in xs:
        if x % 2:
            if x > 2:
                out.append(x)
            continue
        out.append(-x)
        out.append(x * 10)
    return out


@cases((1,), (4,), (5,))
def raise_after_if_raise(c):
    if c == 1:
        return 2
    if c == 4:
        raise ValueError(c)
    raise KeyError(c)


@cases((4,), (5,))
def raise_in_else(c):
    if c == 4:
        raise ValueError(c)
    else:
        raise KeyError(c)


@cases(([1, 0, 5, 3],), ([],), ([0, 2],))
def while_then_continue_in_for(xs):
    out = []
    for x in xs:
        out.append(x)
        while x > 0:
            x -= 1
            out.append(x)
        if x < 0:
            continue
        out.append(0)
    return out


@cases(([(7, 1), (1, 4), (3, 3), (7, None), (0, 4)],), ([],))
def elif_then_else_continue(code):
    labels = []
    for op, arg in code:
        if arg is not None:
            if op > 5:
                label = op + arg
            elif op < 2:
                label = arg
            else:
                continue
            if label not in labels:
                labels.append(label)
    return labels


@cases(([0, 2, 3],), ([4, 5],), ([],))
def if_else_break(xs):
    xs = list(xs)
    n = 0
    while xs:
        x = xs.pop()
        if x:
            n += x
        else:
            break
        n += 1
    xs.append(n)
    return xs


@cases(("  ab c",), ("",), ("abc",))
def continue_far_from_loop_head(text):
    """The `continue` jumps to an offset past 255 (an EXTENDED_ARG), the jump over an else part
    to the loop's nearby closing jump would not: 3.8/3.9 cannot have threaded the latter."""
    n = 0
    pad = [n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n,
           n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n,
           n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n,
           n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n,
           n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n]
    out = []
    while text:
        if text[0] == " ":
            text = text[1:]
            out.append(len(pad))
            continue
        chars = text[:2]
        out.append(chars)
        text = text[2:]
    return out


@cases((8,), (2,), (None,))
def while_if_else_break(n):
    out = []
    while n is not None:
        if n > 3:
            out.append(n)
            n = n - 1
        else:
            break
    out.append(-1)
    return out


@cases((8,), (12,), (5,))
def while_and_if_and_else_break(n):
    out = []
    while n is not None and n < 10:
        if n > 3 and n != 5:
            out.append(n)
            n = n - 1
        else:
            break
    out.append(-1)
    return out


@cases(([1], 1), ([1], 2), (None, 2))
def else_holding_if_raise_then_return(a, c):
    if a is None:
        return "none"
    else:
        if c not in a:
            raise ValueError(c)
        return None


@cases(("#ERROR", 1), ("#TRACEBACK", "x"), ("#UNSERIALIZABLE", "y"), ("#TRACEBACK", 3), ("?", 0))
def if_raise_then_if_else_returns(kind, result):
    # The raise needs no jump after it; the compiler keeps a jump after a raise where it would
    # remove one after a return, so the `if` after it is no `elif`.
    if kind == "#ERROR":
        return result
    elif kind in ("#TRACEBACK", "#UNSERIALIZABLE"):
        if not isinstance(result, str):
            raise TypeError(f"{result!r} is not str")
        if kind == "#UNSERIALIZABLE":
            return "unserializable: " + result
        else:
            return "remote: " + result
    else:
        return "unknown: " + kind


@cases((["", "a", ".", "b"], True, True), (["", "."], True, False), (["x"], False, True))
def chain_test_then_if_else_in_loop(paths, skip_current, loud):
    # The chain's two tests both jump to the else part; the if body ends in an inner if whose
    # false jump was threaded to the loop's closing jump.
    out = []
    for p in paths:
        if (not p or p == ".") and skip_current:
            if loud:
                out.append("skip")
        else:
            out.append(p)
    return out


@cases(([1, 0, 2],), ([],))
def else_ending_in_continue(xs):
    # A `continue` that ends the loop body is written out: it is a jump of its own, right before
    # the loop's closing jump.
    out = []
    for x in xs:
        if x:
            out.append(1)
        else:
            out.append(2)
            continue
    return out


@cases((0,), (3,))
def while_true_ending_in_continue(n):
    out = []
    while True:
        out.append(n)
        if len(out) > 3:
            return out
        continue


@cases((5,), (1,))
def while_ending_in_continue_after_break(n):
    out = []
    while n:
        n -= 1
        out.append(n)
        if n == 2:
            break
        continue
    return out


@cases((4,), (0,))
def while_true_continue_after_if_elif_leaving(n):
    out = []
    while True:
        n -= 1
        if n < 0:
            raise ValueError(n)
        elif n == 2:
            return out
        continue


@cases(([0, 2, 1],), ([0],))
def assert_then_break(data):
    # 3.8/3.9: the assert's jump goes through the `break` after it, straight out of the loop.
    out = list(data)
    seen = []
    while True:
        code = out.pop()
        seen.append(code)
        if code == 0:
            assert len(seen) > 1
            break
    return seen
