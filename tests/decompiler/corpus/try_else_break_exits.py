"""A while loop tested at the top whose try's else part is the `break`, and whose except clause
goes on to the next turn: 3.12+ lay the test at the bottom with the handler code, at the end, and
the loop's exit (its else part, then the code after the loop) inside the loop's span, before the
handler. The `break` jumps to the code after the loop there; it is a way out of the loop, not a
way into that code from inside the loop (prompt_toolkit's `Window` mouse handler)."""
from _cases import cases


@cases((3, {1: "a"}), (0, {}), (4, {}), (2, {2: "bb", 1: "a"}))
def while_else_after_try_else_break(x, d):
    while x >= 0:
        try:
            r = d[x]
        except KeyError:
            x -= 1
        else:
            r = r * 2
            break
    else:
        r = "none"
    if r == "aa":
        r = "found a"
    return x, r


@cases((3, {1: "a"}), (0, {}), (4, {}), (2, {2: "bb", 1: "a"}))
def code_after_loop_after_try_else_break(x, d):
    r = "none"
    while x >= 0:
        try:
            r = d[x]
        except KeyError:
            x -= 1
        else:
            break
    if r == "a":
        r = "found a"
    return x, r


@cases((3, {1: "a"}), (0, {}), (4, {}), (2, {2: "bb", 1: "a"}))
def while_else_returns_after_try_else_break(x, d):
    while x >= 0:
        try:
            r = d[x]
        except KeyError:
            x -= 1
        else:
            break
    else:
        return "none"
    for _ in range(2):
        r += "!"
    return x, r


@cases((3, {1: "a"}), (0, {}), (4, {}))
def nested_loop_after_try_else_break(x, d):
    out = []
    for k in range(2):
        y = x
        while y >= 0:
            try:
                r = d[y]
            except KeyError:
                y -= 1
            else:
                out.append(r)
                break
        else:
            out.append(None)
        if k:
            out.append("second")
    return out
