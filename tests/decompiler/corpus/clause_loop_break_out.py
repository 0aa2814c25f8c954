"""An except clause that ends with a for loop whose only way on is a `break` (its else part
returns). 3.13 copies the clause's way out (POP_EXCEPT and the jump back to the code after the
try, laid before the handler code) onto the `break`, keeping a plain JUMP_BACKWARD there: the
`break` is the clause's way out, not a `break` of an enclosing loop written in the clause.
(`linecache.updatecache`'s search through `sys.path`.)"""
from _cases import cases


def _find(paths, name):
    if name in paths:
        return paths.index(name)
    raise ValueError(name)


@cases((["a", "b"], "b"), (["a"], "c"), ([], "a"), (["x", "y", "z"], "z"))
def clause_for_break_else_return(paths, name):
    try:
        found = {"here": 0}[name]
    except KeyError:
        for p in paths:
            try:
                found = _find(paths, p + name[:0]) if p == name else _find([], p)
                break
            except ValueError:
                pass
        else:
            return None
    found = found + 1
    found = found * 2
    found = found - 3
    label = "at %d" % found
    return label


@cases((["a", "b"], "b"), (["a"], "c"), ([], "a"), ([1, "b"], "b"))
def clause_for_continue_break_else_return(paths, name):
    try:
        found = {"here": 0}[name]
    except KeyError:
        for p in paths:
            try:
                key = p + ""
            except TypeError:
                continue
            try:
                found = _find(paths, key) if key == name else _find([], key)
                break
            except ValueError:
                pass
        else:
            return None
    found = found + 1
    found = found * 2
    label = "at %d" % found
    return label


@cases((["a", "b"], [{"b": 1}, {"a": 2, "b": 3}]), (["c"], [{}]), ([], []))
def clause_for_if_break_else_continue(names, mro):
    # (`inspect._getmembers`: the `break`'s dropped iterator is followed by the clause's way
    # out, the code after the loop; its exit is the else part's `continue`. Not read as a break,
    # the loop went on to the later bases.)
    results = []
    for key in names:
        try:
            value = {"a": 0}[key]
        except KeyError:
            for base in mro:
                if key in base:
                    value = base[key]
                    break
            else:
                continue
        results.append((key, value))
    return results


@cases(([1, 2, 3], [[2], [1, 3]]), ([4], [[5]]))
def clause_for_break_else_raise(values, groups):
    out = []
    try:
        out.append(values[5])
    except IndexError:
        for group in groups:
            if values[0] in group:
                out.append(group[0])
                break
        else:
            out.append(None)
            return out
    out.append(len(out))
    return out
