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
