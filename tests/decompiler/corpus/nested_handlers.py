"""A try statement inside an except clause. 3.8/3.9 close each try's clauses with a marker of
its own (END_FINALLY / RERAISE), so the nested try's marker must not be read as the end of a
final bare `except:` around it; 3.10 leaves both clauses (two POP_EXCEPTs) and then runs a copy of
the code after the outer try, which is not a `finally` body nor a statement of the inner clause."""
from _cases import cases


@cases(("1",), ("x",), (1.5,), (None,))
def try_in_final_bare_clause(text):
    out = []
    try:
        out.append(int(text, 10))
    except ValueError:
        return "value"
    except:
        try:
            out.append(float(text))
        except:
            out.append("bad")
    return out


@cases(("1",), (1.5,), (None,))
def try_in_bare_clause_reraises(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except:
            value = "bad"
            raise
    return value


@cases(("1",), ("x",), (1.5,), (None,))
def try_in_bare_clause_after_return(text):
    try:
        value = int(text, 10)
    except ValueError:
        return "value"
    except:
        try:
            value = float(text)
        except:
            raise
    return value


@cases(("1",), (1.5,), (None,))
def typed_clauses_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except ValueError:
            return "v"
        except:
            return "bad"
        value += 1
    return value


@cases(("1",), (1.5,), (None,))
def named_clause_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except TypeError as e:
            value = type(e).__name__
        value = [value]
        try:
            value.append(1)
        except:
            pass
    return value


@cases(("1",), ([],))
def bare_pass_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        value = [text]
        try:
            value.append(len(text))
        except:
            pass
    return value


@cases((["1", "2.5", "x", None],), ([],))
def try_in_bare_clause_in_loop(items):
    out = []
    for t in items:
        try:
            value = int(t, 10)
        except:
            try:
                value = float(t)
            except:
                break
            if value:
                continue
        out.append(value)
    return out


@cases(({1: 2}, 1, 3), ({3: 4}, 1, 3), ({}, 1, 3), ({1: 5}, 1, 1))
def inner_clause_returns_past_outer(d, u, v):
    # 3.12+: the inner clause's `return` unwinds both handlers (`POP_EXCEPT; POP_EXCEPT`); it is
    # no code after the inner try.
    try:
        k = d[u]
    except KeyError:
        try:
            k = d[v]
        except KeyError:
            return False
    if k == 5:
        return -5
    return k
