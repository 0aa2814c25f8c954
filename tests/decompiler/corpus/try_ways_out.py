"""A try body that ends in an `if` whose branch leaves (continue, break, return, raise): the
compiler ends the protection before the way out (POP_BLOCK), so the last branch lies outside
the protected range (3.11+), and 3.13 leaves the jump over an `else: continue` outside too.
Read as code after the try, the way out would run unconditionally."""
from _cases import cases


class _Entry:
    def __init__(self, value):
        self.value = value

    def is_dir(self):
        if self.value is None:
            raise OSError("gone")
        return self.value > 0


@cases(([1, 0, 2],), ([],))
def if_continue_ends_try_body(values):
    out = []
    for v in values:
        try:
            if not v:
                continue
        except OSError:
            out.append("error")
        out.append(v)
    return out


@cases(([1, 0, None, 2],), ([0],), ([1, 1],))
def if_continue_ends_try_in_if(values):
    # pathlib's _WildcardSelector._select_from: the try is the body of an if.
    out = []
    for v in values:
        if v != 1:
            try:
                if not _Entry(v).is_dir():
                    continue
            except OSError:
                continue
        out.append(v)
    return out


@cases(([1, 2, 0, 3],), ([4],))
def if_break_ends_try_body(values):
    out = []
    for v in values:
        try:
            if not v:
                break
        except OSError:
            out.append("error")
        out.append(v)
    return out


@cases(([1, 2, 0, 3],), ([4],))
def if_break_ends_try_body_in_while(values):
    out = []
    i = 0
    while i < len(values):
        i += 1
        try:
            if not values[i - 1]: break
        except OSError:
            out.append("error")
        out.append(i)
    return out


@cases(([1, 3, 5],), ([1, 2],))
def if_else_continue_ends_try_body(values):
    out = []
    for v in values:
        try:
            if v > 2:
                out.append(3)
            else:
                continue
        except OSError:
            out.append("error")
        out.append(v)
    return out


@cases(([1, 3, 2, 5],), ([],))
def if_elif_ways_out_end_try_body(values):
    out = []
    for v in values:
        try:
            if v > 2:
                continue
            elif v > 1:
                break
        except OSError:
            out.append("error")
        out.append(v)
    return out


@cases(([1, 0, 2],), ([],))
def if_continue_ends_try_finally_body(values):
    out = []
    for v in values:
        try:
            if not v:
                continue
        finally:
            out.append("finally")
        out.append(v)
    return out


def _fails_on_odd(value):
    if value % 2:
        raise ValueError(value)
    return value * 10


@cases(([1, 3, 4, 6],), ([1, 3],), ([],))
def try_break_on_success(values):
    # 3.11+: the `break` after the body (it drops the loop's iterator, then jumps past the loop)
    # is where the body's normal path jumps over the handlers; read as the try's end, the loop
    # would go on after the first success.
    found = None
    for value in values:
        try:
            found = _fails_on_odd(value)
            break
        except ValueError:
            pass
    return found


@cases(([0, 1, 2, 3],), ([1, 0, 3],), ([],))
def try_break_inside_if_then_more(values):
    # The handlers go on to the code after the if, which the if's test reaches too: that code
    # is no handler code of the try.
    out = []
    for value in values:
        if value:
            try:
                out.append(_fails_on_odd(value))
                break
            except ValueError:
                out.append("odd")
        out.append(value)
    return out


@cases(("abc", 0), ("abc", 2), ("", 0))
def handler_break_out_of_while_true(text, pos):
    # The handler's `break` is the only way out of the loop (3.11): the code after the loop is
    # reached from the handler only, yet it is no handler code (it was dropped, and the function
    # returned None).
    out = []
    while True:
        try:
            char = text[pos]
        except IndexError:
            break
        out.append(char)
        pos += 1
    out.append(pos)
    out.append(len(out))
    return out


@cases((True, 1), (False, 1), (False, 0))
def return_in_try_body_with_else_part(stop, value):
    # 3.12+: the unprotected `return None` in the body matches the code after the statement,
    # but the body's way out runs the else part first: the return was written.
    out = []
    try:
        if stop:
            return
        out.append(10 // value)
    except ZeroDivisionError:
        out.append("zero")
    else:
        out.append("else")
    return out


@cases((None, False), (2, False), (2, True), (0, False))
def return_in_if_in_try_body_with_else_part(first, closed):
    log = []
    pipe = None
    try:
        if first is not None:
            pipe = 10 // first
            if closed:
                log.append(("closed", pipe))
                return log
            log.append(("served", pipe))
        pipe = len(log)
        if pipe == 0:
            return log
        log.append("accept")
    except ZeroDivisionError:
        log.append("broken")
    else:
        log.append(("else", pipe))
    return log


# An if body that a try ends, whose body returns a constant: `return True` cannot raise, so
# 3.12+ lay it after the protected range, where the body falls into it. The except clause falls
# out to the code after the if (its copy ends the clause), not to that return: read as code
# after the try, the clause would return True.
@cases(({"x": 1}, True), ({}, True), ({}, False))
def if_body_try_returns_constant_clause_falls_out(node, flag):
    if flag:
        try:
            node["x"]
            return True
        except KeyError:
            pass
    return False


@cases(({"x": 1}, True, False), ({}, False, True), ([], True, True), ({}, False, False))
def if_or_body_try_returns_constant_two_exceptions(node, flag, other):
    if flag or other:
        try:
            node["x"]
            return "found"
        except (KeyError, TypeError):
            pass
    return None


@cases(([{"x": 1}], True), ([{}, {"x": 2}], True), ([{}], True), ([{"x": 3}], False))
def loop_if_body_try_returns_item(items, flag):
    for node in items:
        if flag:
            try:
                node["x"]
                return node
            except KeyError:
                pass
    return -1


@cases(({"x": 4}, True), ({}, True), ({"x": 4}, False))
def if_body_try_else_returns_value(node, flag):
    if flag:
        try:
            v = node["x"]
        except KeyError:
            pass
        else:
            return v
    return 0


class _Named:
    """An object with a name, looked up in a table instead of itself."""

    def __init__(self, name):
        self.name = name


@cases(([1, _Named(2), _Named(7), "x", 2], {1: "a", 2: "b"}), ([], {}))
def try_continue_clause_then_if_continue_in_if_body(items, table):
    # The if body ends with `if c: continue` after a try whose clause continues: the test jumps
    # over that jump back to the code after the if; it is no way out of the try (3.12+ read the
    # `continue` as the try's end and dropped it: `if c: pass`).
    out = []
    for x in items:
        if x not in table:
            try:
                x = x.name
            except AttributeError:
                continue
            if x not in table:
                continue
        out.append(table[x])
    return out


@cases(([{"a": 1}, {"b": 2}], "b"), ([{"a": 1}], "b"), ([], "a"))
def loop_try_else_return_then_more(scopes, name):
    # 3.12+: the loop's only jump back is in the handler code; the else part's `return` (which
    # pops the iterator first) is followed by the loop's exit, not by more of the else part.
    out = []
    for scope in scopes:
        try:
            out.append(scope[name])
        except KeyError:
            pass
        else:
            return out
        out.append(len(scope))
    return None


@cases(([{"a": "b", "b": 1}, {"b": 2}], "a"), ([{"a": 0}], "a"), ([{"c": 1}], "a"))
def loop_try_if_else_return_copied(scopes, name):
    # 3.12+: the if's false branch at the end of the try body jumps to a copy of the else part,
    # laid right after it.
    out = []
    for scope in scopes:
        try:
            v = scope[name]
            if v:
                out.append(scope.get(v))
        except KeyError:
            pass
        else:
            return out
        out.append(len(scope))
    if out:
        out.append(0)
    return None


@cases(([{"a": "b", "b": 1}, {"b": 2}], "a"), ([{"a": 0}], "a"), ([{"c": 1}], "a"), ([{"a": "x"}], "a"))
def loop_try_nested_try_else_return(scopes, name):
    # 3.11: the inner try's handler code lies between the body and the else part; both ways out
    # of the inner try jump over it. 3.12+: the if's false branch jumps to a copy of the else part.
    out = []
    for scope in scopes:
        try:
            v = scope[name]
            if v:
                try:
                    out.append(scope[v])
                except KeyError:
                    pass
        except KeyError:
            pass
        else:
            return out
        out.append(len(scope))
    if out:
        out.append(0)
    return None


@cases(([{"a": "b", "b": 1}, {"b": 2}], "a"), ([{"a": "x"}], "a"), ([{"c": 1}], "a"))
def loop_try_nested_try_else_return_last(scopes, name):
    out = []
    for scope in scopes:
        try:
            v = scope[name]
            try:
                out.append(scope[v])
            except KeyError:
                pass
        except KeyError:
            pass
        else:
            return out
        out.append(len(scope))
    return None


@cases((0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (2, 5))
def nested_if_returns_constant_then_else_part(c, n):
    log = [1]
    try:
        if len(log) > c - 1:
            if n > 3 or n > 3:
                return log
            return 2
    except ValueError:
        log.append(3)
    else:
        log.append(6)
    return log


@cases((0,), (1,))
def if_try_raising_except_finally_else_returns(c):
    log = [1]
    if c:
        try:
            raise ValueError(2)
        except ValueError:
            log.append(3)
        finally:
            log.append(5)
    else:
        return log
    log.append(6)
    return log
