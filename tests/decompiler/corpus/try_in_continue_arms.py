"""A try that ends an arm of an if chain nested in a loop body (under another if), so that every
arm ends with the loop's jump back (3.11+ threads the jump past the enclosing if to the head).
The handler's jump back is a `continue`; so is the body's, which falls into its own jump back
right after the protected range. Read as the try's way out, that jump was dropped and the body
ran on into the next arm's test."""
from _cases import cases


@cases(([1, 2, "x", 3, 4], True), ([2, "y"], True), ([1, 2], False), (["", 2], True))
def try_ends_elif_arm_under_if(values, flag):
    # attrs' asdict: `elif ...: try: ... except TypeError: ...` among arms under `if recurse:`.
    out = []
    for v in values:
        if flag:
            if v == 1:
                out.append("a")
            elif isinstance(v, str) or v == 2:
                try:
                    out.append(int(v))
                except ValueError:
                    if not v:
                        raise
                    out.append("bad")
            elif v == 3:
                out.append("c")
            else:
                out.append("d")
        else:
            out.append(0)
    return out


@cases(([1, 2, "x", 3, 4],), ([2, "y", ""],))
def try_ends_elif_arm_of_loop_body(values):
    # The same arms as the whole loop body: 3.10 ends the try body with POP_BLOCK and the jump
    # back, which is the body's `continue` (a `continue` after the try is jumped to).
    out = []
    for v in values:
        if v == 1:
            out.append("a")
        elif isinstance(v, str) or v == 2:
            try:
                out.append(int(v))
            except ValueError:
                out.append("bad")
        elif v == 3:
            out.append("c")
        else:
            out.append("d")
    return out
