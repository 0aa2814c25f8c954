"""The rest of a loop body after a try whose body ends with `continue`: only the handlers reach
it, so 3.12+ lay it past the loop's exit, after the handler code. A test there that jumps over
an inner loop to the code after an enclosing if (`if not c: for ...` ending an if branch) jumps
past the branch being read, and past the loop's exit, but stays in the loop body: it is no
`break`."""
from _cases import cases


@cases(([1, None, 3], False, [7, 8]), ([None, None], True, [7]), ([], False, [1]), ([5, None], False, []))
def if_not_then_inner_loop_in_relocated_tail(params, keys_only, nodes):
    # jedi's get_executed_param_names_and_issues.
    known = {1: "one"}
    out = []
    for p in params:
        try:
            out.append(known[p])
            continue
        except KeyError:
            pass
        if p is None:
            r = 0
            if not keys_only:
                for n in nodes:
                    out.append(n)
        else:
            r = p * 2
        out.append(r)
    return out
