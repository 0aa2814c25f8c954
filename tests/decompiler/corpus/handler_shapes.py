"""Handlers that never finish (they raise or return): the code after the statement and an
`else` part mean the same; the layout of 3.12+ tells which one the source had."""
import sys

from _cases import cases


@cases(({"k": 1},), ({},), (None,))
def handler_raises_then_code(mapping):
    try:
        value = mapping["k"]
    except TypeError:
        raise ValueError("not a mapping") from None
    except KeyError:
        return "missing"
    try:
        result = value + 1
    except TypeError:
        raise ValueError("not a number") from None
    return result


@cases(({"k": 1},), ({},))
def handler_raises_with_else(mapping):
    try:
        value = mapping["k"]
    except KeyError:
        return "missing"
    else:
        value += 1
    return value


def _parse(text):
    return int(text)


@cases(("1",), ("x",), (None,))
def handler_returns_then_try(text):
    # 3.12+: the second try follows the first (its handler comes after the first's), so the
    # first handler's `return None` is its own, not the function's end copied into it.
    try:
        value = _parse(text)
    except TypeError:
        return None
    try:
        return value + 1
    except ValueError:
        pass


@cases(("1",), ("x",), (None,))
def handler_passes_else_try(text):
    # The same code as an else part: the inner try's handler comes first.
    try:
        value = _parse(text)
    except TypeError:
        pass
    else:
        try:
            return value + 1
        except ValueError:
            return None


@cases(("1",), ("x",), (None,))
def handler_returns_then_try_falls_out(text):
    log = []
    try:
        value = _parse(text)
    except (TypeError, ValueError):
        return None
    try:
        log.append(value + 1)
    except ValueError:
        pass


@cases(("1",), ("x",), (None,))
def handler_returns_then_with(text):
    import contextlib
    try:
        value = _parse(text)
    except (TypeError, ValueError):
        return None
    with contextlib.nullcontext(value) as v:
        return v + 1


class _Help:
    def help_a(self):
        return "help a"

    def do_b(self):
        """b's doc"""


@cases(("a",), ("b",), ("c",), ("",))
def nested_handler_reaches_else(arg):
    # 3.12+: the inner body returns, so only the inner handler reaches the outer else part.
    obj = _Help()
    try:
        try:
            return getattr(obj, "help_" + arg)()
        except AttributeError:
            command = getattr(obj, "do_" + arg)
    except AttributeError:
        return "no help"
    else:
        if command.__doc__ is None:
            return "no doc"
        doc = command.__doc__
    return doc.upper()


@cases(("1", "a"), ("x", "a"), ("1", "b"), ("x", "b"), ("1", "c"), ("1", "d"))
def branches_each_with_try(text, op):
    # A try's body falls into the jump out of its branch; the try in the next branch (its
    # handler laid after this one's) is no code after the first try.
    log = []
    try:
        if op == "a":
            try:
                log.append(_parse(text))
            except ValueError:
                log.append(-1)
        elif op == "b":
            try:
                log.append(_parse(text) * 2)
            except ValueError:
                log.append(-2)
        elif op == "c":
            raise KeyError(op)
        log.append("done")
    except KeyError as exc:
        log.append(str(exc))
    return log


@cases(("1",), ("x",), (None,), ("0",))
def handler_returns_then_if_return_then_try(text):
    # The later try follows an if that returns: its handler still comes after the first one's.
    try:
        value = _parse(text)
    except TypeError:
        return None
    if not value:
        return "zero"
    try:
        return 10 // value
    except ZeroDivisionError:
        pass


def _final_path(path, fail):
    if fail:
        raise OSError(3, "missing")
    return path.upper()


@cases(("a", "b", False), ("a", "A", False), ("a", "b", True), ("", "b", True))
def named_clause_if_then_copied_return(path, other, fail):
    # `except E as e:` ending in an if: 3.10 copies the way out (leaving the hidden try/finally,
    # the clause, `e = None; del e`, then the small `return path`) into the if's branch.
    if path:
        try:
            if _final_path(other, fail) == path:
                path = other
        except OSError as ex:
            if ex.errno == 3:
                path = other
        return path
    return path


def _parse_pair(s):
    a, b = s.split(",")
    return int(a), b


@cases(("1,x", None), ("bad", None), ("bad", 5), ("bad", 0))
def clause_if_else_each_copy_the_way_out(s, default):
    # Each branch of the if that ends the clause gets its own copy of the clause's way out
    # (POP_EXCEPT, then the small `return loc, tokens` after the try) on 3.10.
    try:
        loc, tokens = _parse_pair(s)
    except (ValueError, IndexError):
        loc = -1
        if default is not None:
            if default:
                tokens = [default]
            else:
                tokens = [default, default]
        else:
            tokens = []
    return loc, tokens


class _Sender:
    def __init__(self, unix, fail):
        self.unix = unix
        self.fail = fail
        self.log = []

    def send(self, msg):
        if self.fail:
            raise OSError("down")
        self.log.append(("send", msg))


@cases((True, False), (True, True), (False, False))
def if_try_elif_in_try_body(unix, fail):
    # The if body's try falls off the end of the enclosing try, whose way out (`return None`)
    # 3.10 copies into it: the elif is not code that runs after it (a wrong result once).
    s = _Sender(unix, fail)
    try:
        if s.unix:
            try:
                s.send("a")
            except OSError:
                s.log.append("closed")
        elif s.fail:
            s.log.append("failed")
        else:
            s.log.append("sent")
    except Exception:
        s.log.append("error")
    return s.log


@cases(("1",), ("x",), (None,))
def body_returns_one_handler_falls_out_other_returns(text):
    # The body and the second handler both end in a bare `return`; only the first handler
    # reaches the code after the try (3.12+ lays it after the handler code).
    out = []
    try:
        out.append(int(text))
        return
    except ValueError:
        out.append("bad")
    except TypeError:
        return
    out.append("after")
    return


@cases(("1",), ("x",), (None,))
def body_returns_one_handler_falls_out_named_returns(text):
    state = {}
    try:
        state["v"] = int(text)
        return state
    except ValueError:
        state["bad"] = True
    except TypeError as exc:
        state["error"] = type(exc).__name__
        return
    state["after"] = True
    return state


@cases(([1],), ([],))
def body_returns_handler_passes_then_raise(items):
    # The code after the try is a raise, laid right after the handler's unwinding (3.12+).
    try:
        return items[0]
    except IndexError:
        pass
    raise ValueError("empty")


def _error_outside_handler(x):
    """A KeyError that tells whether an exception was being handled where it was made."""
    return KeyError(x, sys.exc_info()[0] is None)


@cases((2, ""), (0, "7"), (0, ""))
def handler_returns_or_falls_to_raise(x, c):
    # astroid's infer_getattr: the clause's if falls out to the raise after the try (3.12+ lay
    # it right behind the clause's unwinding). Raised inside the clause, the ZeroDivisionError
    # would still be handled there (and chained as the new exception's context).
    try:
        return 10 // x
    except ZeroDivisionError:
        if c:
            return int(c)
    raise _error_outside_handler(x)


@cases((2, ""), (0, "7"), (0, ""))
def nested_handler_falls_to_raise_in_outer_try(x, c):
    # The same inside an outer try: 3.11 lays the raise after the inner clause's cleanup, still
    # protected by the outer try, which only the clause reaches (read after the outer try, the
    # outer handler would not catch it); 3.12+ lay it with the handler code, past the range.
    try:
        try:
            return 10 // x
        except ZeroDivisionError:
            if c:
                return int(c)
        raise KeyError(x)
    except KeyError as e:
        return "caught", e.args, type(e.__context__).__name__


# A handler that `continue`s, then more of the loop body, against the same code as an else part:
# 3.13 keeps the jump out of an else part (a test at its end jumps to it), and a try inside
# the else part has its handler before the outer one's.

@cases(([1, "x", 3, 0],), ([],))
def continue_then_if(items):
    out = []
    for item in items:
        try:
            value = 10 // item
        except (TypeError, ZeroDivisionError):
            continue
        if value > 3 or value < 0:
            out.append(value)
    return out


@cases(([1, "x", 3, 0],), ([],))
def pass_else_if(items):
    out = []
    for item in items:
        try:
            value = 10 // item
        except (TypeError, ZeroDivisionError):
            pass
        else:
            if value > 3 or value < 0:
                out.append(value)
    return out


@cases(([1, "x", 3],), (["x", 5],), ([],))
def continue_then_if_returns(items):
    for item in items:
        try:
            value = 10 // item
        except TypeError:
            continue
        if value == 10:
            return "ten"
        if value == 2:
            return "two"
    return None


@cases(([1, "x", 3],), (["x", 5],), ([],))
def pass_else_if_returns(items):
    for item in items:
        try:
            value = 10 // item
        except TypeError:
            pass
        else:
            if value == 10:
                return "ten"
            if value == 2:
                return "two"
    return None


@cases(([1, "x", 0, 4],), ([],))
def continue_then_try(items):
    out = []
    for item in items:
        try:
            value = 10 + item
        except TypeError:
            continue
        try:
            out.append(10 // item)
        except ZeroDivisionError:
            continue
        out.append(value)
    return out


@cases(([1, "x", 0, 4],), ([],))
def pass_else_try(items):
    out = []
    for item in items:
        try:
            value = 10 + item
        except TypeError:
            pass
        else:
            try:
                out.append(10 // item)
            except ZeroDivisionError:
                pass
            out.append(value)
    return out


@cases(([1, 3, 0],), ([],), ([1, "x"],))
def raise_else_if_in_loop(items):
    # 3.13 keeps the jump out of the else part: the test at its end jumps there.
    out = []
    for item in items:
        try:
            value = 10 // item
        except ZeroDivisionError as exc:
            raise ValueError("zero") from exc
        else:
            if value > 3:
                out.append(value)
    return out


@cases(([1, 3, 0],), ([],), ([1, "x"],))
def raise_then_if_in_loop(items):
    out = []
    for item in items:
        try:
            value = 10 // item
        except ZeroDivisionError as exc:
            raise ValueError("zero") from exc
        if value > 3:
            out.append(value)
    return out


@cases(([1, 3, 0],), ([],))
def return_else_if_in_loop(items):
    out = []
    for item in items:
        try:
            value = 10 // item
        except ZeroDivisionError:
            return None
        else:
            if value > 3 or value < 0:
                out.append(value)
    return out


def _fails(value):
    if value == "bad":
        raise ValueError(value)
    return value


@cases(("bad", True), ("ok", True), ("", True), ("", False), ("bad", False))
def if_try_return_swallowed_then_elif(a, b):
    # `if a: try: return f() except E: pass` then `elif b:`: the try body always returns, so
    # the if body goes on only from the handler, whose jump (3.11: inline, before the handler's
    # cleanup) leaves over the elif. Read as a separate `if b:`, it ran after the handler too.
    if a:
        try:
            return _fails(a)
        except ValueError:
            pass
    elif b:
        a = "elif"
    return a


@cases(("bad", True), ("ok", True), ("", True), ("", False), ("bad", False))
def if_try_return_named_reraise_then_elif(a, b):
    if a:
        try:
            return _fails(a)
        except ValueError as exc:
            if exc.args[0] != "bad":
                raise
    elif b:
        a = "elif"
    return a


@cases((["1", "x", "2", "bad"],), ([],), (["bad"],), (["2", "1", "x"],))
def loop_rest_after_handler_holds_try(items):
    # `try: ... except E: pass else: continue` and then more of the loop body, which only the
    # handler reaches (3.12+: laid after the handler code, past the loop's exit) and which holds
    # another try: its handler code lies inside that rest of the body, before the jump back.
    # (The else part has an if: 3.8/3.9 read a lone `continue` there inside the try body.)
    out = []
    for item in items:
        try:
            out.append(int(item))
        except ValueError:
            pass
        else:
            if item == "1":
                break
            continue
        try:
            out.append(_fails(item))
        except ValueError:
            out.append("failed")
        out.append(item)
    return out


@cases(("bad",), ("ok",), ("",))
def if_try_return_swallowed_then_more(a):
    # `if a: try: return f() except E: pass` and more of the if body, which only the handler
    # reaches (3.12+: laid after the handler code, with a jump back to the code after the if).
    if a:
        try:
            return _fails(a)
        except ValueError:
            pass
        a = a + "!"
    return a


@cases(("bad",), ("ok",), ("",))
def if_try_return_swallowed_then_try(a):
    if a:
        try:
            return _fails(a)
        except ValueError:
            pass
        try:
            a = _fails(a + "?")
        except ValueError:
            a = a + "!"
    return a


@cases(("bad",), ("ok",), ("",))
def if_try_return_swallowed_then_more_else(a):
    # The same with an else part: the handler-only rest of the if body ends in a copy of the
    # code after the if (`return a`), not in a jump back. (Was read as code after the else part.)
    if a:
        try:
            return _fails(a)
        except ValueError:
            pass
        a = a + "!"
    else:
        a = "empty"
    return a


class _Recorder:
    """A context manager that records entering and leaving."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self.log

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@cases(([1],), ([],))
def named_clause_with_then_return_else_raise(items):
    # In `except E as e:`, a with statement, then `return`, in an if whose else part is a bare
    # `raise`: the with's handler code is followed by those statements and then by the clause's
    # `e = None; del e` cleanup, which the with's cleanup leads to (3.11+ read the return and the
    # raise as handler code: the clause fell out to the code after the try).
    log = []
    try:
        value = items[0]
    except IndexError as e:
        if not items:
            with _Recorder(log) as rec:
                rec.append(type(e).__name__)
            return log
        else:
            raise
    return value


@cases(("1",), ("x",), ("",))
def handler_if_then_written_return_none(text):
    # The written `return None` keeps a line of its own (3.12+): one block, where the clause's
    # if falls out; the implicit one is copied to each way out instead.
    out = []
    try:
        out.append(int(text))
    except ValueError:
        if text:
            out.append("bad")
    return None
