"""Code after a try (or a with) that only its handlers reach, in an if branch (a match case:
match_py310.py).

The try body returns, so only an except clause that falls out (or a with's handler, after the
manager swallowed the exception) goes on to the code after the statement; 3.12+ moves that code
after the handler code, past the end of the if body and past the if's own way out. Read as code
after the if, it would never run.
"""
from _cases import cases


@cases((None,), ("1",), ("x",), ("y",))
def if_try_return_then_code(v):
    if v:
        try:
            return int(v)
        except ValueError:
            pass
        if v == 'x':
            return 7
        return 0


@cases((None,), ("1",), ("x",), ("y",))
def if_else_try_return_then_code(v):
    if v:
        try:
            return int(v)
        except ValueError:
            pass
        if v == 'x':
            return 7
        return 0
    else:
        return 9



class _Swallow:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return exc[0] is KeyError


@cases(({1: 2}, 1), ({}, 1), ({}, 0))
def if_with_return_then_return(d, k):
    # The with's handler, after the manager swallowed the exception, runs the code after it.
    if k:
        with _Swallow():
            return d[k]
        return -1
    return 0


@cases(({1: 2}, 1), ({}, 1), ({}, 0))
def if_with_return_then_code(d, k):
    if k:
        with _Swallow():
            return d[k]
        x = k * 2
        return x
    return 0


@cases((1, False), (2, False), (1, True), (-3, False))
def if_try_handler_skips_else(x, trap):
    # 3.12+: the except clause's jump from the handler code goes back over the else part to
    # the code after the if.
    if x > 0:
        try:
            return 10 // (x - 1)
        except ZeroDivisionError:
            if trap:
                return "trapped"
            x = (x, 0)
    else:
        x = -x
    return str(x) + str(len(str(x))) + repr(x)


@cases(({1: 2, 2: 5}, 1, True), ({1: 3}, 1, True), ({}, 1, True), ({10: "x"}, 1, True), ({}, 1, False))
def if_try_else_with_return_then_code(d, p, mode):
    # The with's tail (after it swallowed the exception) ends the try's else part; the
    # try's tail, reached from its handler and from that else part, follows the if.
    if mode:
        try:
            name = d[p]
        except KeyError:
            pass
        else:
            with _Swallow():
                return d[name]
            if name == 3:
                return 'three'
        with _Swallow():
            return d[p * 10]
        return 'end'
    return 'nomode'


@cases(("1",), ("x",), (3,))
def if_try_return_except_pass(node):
    # 3.12+: the clause's way on, the return after the if, is copied into the handler code
    # with its own line: the clause falls out.
    if isinstance(node, str):
        try:
            return int(node)
        except ValueError:
            pass
    return node


@cases(("1",), ("x",), (3,))
def if_try_return_except_return(node):
    # The same code written in the clause has the clause's line: the clause returns.
    if isinstance(node, str):
        try:
            return int(node)
        except ValueError:
            return node
    return node


@cases(({1: 2, 2: 5}, 1, True), ({1: 3}, 1, True), ({1: 4}, 1, True), ({}, 1, True), ({}, 1, False))
def if_try_else_with_return_then_test(d, p, mode):
    # 3.12+: the with's tail in the try's else part (after the manager swallowed the exception)
    # ends in an if whose test jumps on to the try's own tail; both lie after the handler code.
    log = []
    if mode:
        try:
            name = d[p]
        except KeyError:
            log.append(1)
        else:
            with _Swallow():
                return d[name]
            if name == 3:
                return 'three'
            log.append(name)
        log.append(p)
        log.append(mode)
    return log


@cases(({1: 2, 2: 5}, 1, True), ({1: 3}, 1, True), ({1: 4}, 1, True), ({}, 1, True), ({}, 1, False))
def if_try_else_try_return_then_test(d, p, mode):
    # The same with a try in the else part: its clause falls out to its tail.
    log = []
    if mode:
        try:
            name = d[p]
        except KeyError:
            log.append(1)
        else:
            try:
                return d[name]
            except KeyError:
                pass
            if name == 3:
                return 'three'
        log.append(p)
        log.append(mode)
    return log


def _check(log, v):
    log.append(v)
    if v == "bad":
        raise KeyError(v)


@cases((1, 0, "ok"), (1, 0, "bad"), (0, 1, "ok"), (0, 1, "bad"), (0, 0, "ok"))
def if_elif_each_try_return_then_code(a, b, v):
    # 3.12+: both clauses fall out to the code after the if statement, moved after the handler
    # code; the first try's body returns, so the elif is no else part of that try.
    log = []
    if a:
        try:
            _check(log, v)
            return log
        except KeyError:
            pass
    elif b:
        try:
            _check(log, v)
            return log
        except KeyError:
            pass
    log.append("after")
    return log


@cases((1, "ok"), (1, "bad"), (0, "ok"), (0, "bad"))
def if_else_each_try_return_then_code(a, v):
    # Both branches' clauses go on to the code after the if: it is not the rest of the if body
    # (read there, the else branch's clause would skip it).
    log = []
    if a:
        try:
            _check(log, v)
            return log
        except KeyError:
            pass
    else:
        try:
            _check(log, v)
            return log
        except KeyError:
            log.append("caught")
    log.append("after")
    return log


@cases((1, 0, "ok"), (1, 0, "bad"), (0, 1, "ok"), (0, 1, "bad"), (0, 0, "ok"))
def with_if_elif_each_try_return_then_code(a, b, v):
    # shutil.copyfile's shape: the same inside a with statement.
    log = []
    with _Swallow():
        if a:
            try:
                _check(log, v)
                return log
            except KeyError:
                pass
        elif b:
            try:
                _check(log, v)
                return log
            except KeyError:
                pass
        log.append("after")
    return log


@cases((["1", "x", "22"],), ([],), ([None],))
def loop_rest_after_handler_has_comprehension(items):
    # The rest of the loop body, reached only when the handler falls out of the try whose body
    # continues, lies after the handler code (3.12+); the jump of an inlined comprehension there
    # over its cleanup goes forward past the loop's exit, and is no `break`.
    out = []
    for item in items:
        try:
            out.append(int(item))
            continue
        except (ValueError, TypeError):
            pass
        out.append([c for c in str(item) if c != "x"])
    return out


def _half(x):
    if x % 2:
        raise ValueError(x)
    return x // 2


@cases(([2, 4],), ([2, 3],), ([],), ([3],))
def while_test_clause_falls_to_raise(xs):
    # 3.12+: the raise after the try, which only the except clause reaches, lies after the
    # handler code past the loop; the loop also ends by its test, so it is no code after the
    # loop (no `break`): the rest of the body
    xs = list(xs)
    out = []
    while xs:
        try:
            out.append(_half(xs.pop()))
            continue
        except ValueError:
            pass
        raise KeyError(len(xs))
    return out


@cases(([2, 4],), ([2, 3],), ([],), ([3],), ([1, 3, 0],))
def while_test_clause_falls_to_try_continue(xs):
    # (that rest of the body holds another try whose body goes back to the loop's head)
    xs = list(xs)
    out = []
    while xs:
        try:
            out.append(_half(xs.pop()))
            continue
        except ValueError:
            pass
        try:
            if _half(len(xs)) == 0:
                return out, "even"
            continue
        except ValueError:
            pass
        raise KeyError(len(xs))
    return out


@cases((["1", "x", "2.5", "y"],), ([],))
def loop_try_continue_then_try(items):
    # The try body ends with a `continue` (the loop's own jump back); the rest of the body, which
    # only the except clause reaches, lies after the handler code (3.12+).
    out = []
    for a in items:
        try:
            out.append(int(a))
            continue
        except ValueError:
            pass
        try:
            out.append(float(a))
        except ValueError:
            pass
    return out


@cases((["1", "x", "2.5", "y"],), ([],))
def loop_try_continue_then_try_else(items):
    out = []
    for a in items:
        try:
            out.append(int(a))
            continue
        except ValueError:
            pass
        try:
            v = float(a)
        except ValueError:
            pass
        else:
            out.append(v)
        out.append(len(out))
    return out


@cases((["1", "x", "2.5", "y", ""],), ([],))
def loop_if_try_continue_then_try(items):
    out = []
    for a in items:
        if a:
            try:
                out.append(int(a))
                continue
            except ValueError:
                pass
            try:
                v = float(a)
            except ValueError:
                pass
            else:
                out.append(v)
    return out


@cases((["1", "x", "2.5", "y", "0.0"],), ([],))
def loop_try_continue_then_else_continue(items):
    # 3.13: the second try lies in code only the first handler reaches, laid out in source
    # order; its else part ends with the kept jump back, which `if v: ...` would jump to.
    out = []
    for a in items:
        try:
            out.append(int(a))
            continue
        except ValueError:
            pass
        try:
            v = float(a)
        except ValueError:
            pass
        else:
            if not v:
                continue
            out.append(v)
    return out


def _parse(text):
    return int(text)


@cases(("3", ["a", "b"]), ("x", ["a", "", "b"]), ("x", []), ("x", ["", ""]), (None, ["a"]))
def loop_breaking_by_copied_return_after_returning_try(text, names):
    # numpy.f2py getlincoef: the code after the first try, a for loop whose `break` is a copy of
    # the function's final `return None` (the iterator popped first), is reached only from the
    # except clause; the loop's exit is that code too, and no sign that the loop has no code
    # after it (its own exit, END_FOR and the return, is real).
    try:
        return _parse(text)
    except (TypeError, ValueError):
        pass
    for name in names:
        if name:
            try:
                names = _parse(name)
            except ValueError:
                pass
            break


@cases(("3", ["a", "b"]), ("x", ["a", "", "b"]), ("x", []), (None, ["a"]))
def while_breaking_by_copied_return_after_returning_try(text, names):
    try:
        return _parse(text)
    except (TypeError, ValueError):
        pass
    names = list(names)
    while names:
        name = names.pop()
        if name:
            try:
                names = _parse(name)
            except ValueError:
                pass
            break


@cases(([3, 0, 5], ["x"]), ([0, 0], []), ([1, 2, 0], ["x", "y"]), ([], []))
def while_true_if_try_continues_then_try_in_rest(values, failing):
    # pyparsing _InfixNotation.parseImpl: in a `while True:` an if body whose first try always
    # `continue`s, so the rest of the body (a second try, whose except clause `continue`s too)
    # is reached only from the first except clause; 3.12+ lay it after that handler code. It
    # jumps back to the end of the if body: the rest of the loop body, not code after the loop.
    log = []
    values = list(values)
    turns = 0
    while True:
        turns += 1
        if turns > 10 or not values:
            return log, "stop"
        v = values.pop()
        if v:
            try:
                log.append(10 // (v - 3))
                continue
            except ZeroDivisionError:
                pass
            try:
                if failing.pop() == "x":
                    raise KeyError
                log.append("second")
            except (KeyError, IndexError):
                log.append("failed")
                continue
            log.append("rest")
        log.append(("end", v))


@cases(([1, 0, 2], {1: "one"}), ([], {}), ([0, 0], {0: "zero"}), ([3], {}))
def if_else_after_try_that_continues(values, known):
    # hypothesis ConjectureRunner.generate_new_test_cases: an if body whose try always
    # `continue`s, so its rest (`p = ...`) only the except clause reaches, and an else part. The
    # rest's jump over the else part lies after the handler code (3.12+) or after the handler
    # (3.11): the else part is not code after the if statement.
    log = []
    values = list(values)
    while values:
        v = values.pop()
        if v:
            try:
                log.append(known[v])
                continue
            except KeyError:
                pass
            p = v * 10
        else:
            p = None
        log.append(p)
    return log


@cases(([1, 0, 2], {1: "one"}), ([], {}), ([0, 0], {0: "zero"}), ([3], {}))
def for_if_else_after_try_that_breaks(values, known):
    log = []
    for v in values:
        if v:
            try:
                log.append(known[v])
                break
            except KeyError:
                pass
            p = v * 10
        else:
            p = None
        log.append(p)
    return log


@cases(("a", True, {"a": "b", "b": 1}), ("a", True, {"a": "c"}), ("z", True, {}), ("a", False, {"a": "b"}))
def try_else_if_returning_tries_then_code_after(key, look, table):
    # hypothesis ConjectureRunner.cached_test_function: in a try's else part, an if whose body is
    # tries that return (the rest, a second try, reached only from the first except clause) and
    # whose else part returns. Both the second try's except clause and the outer except clause
    # go on to the code after the outer try; it is not the rest of the if body (read so, the
    # outer clause's way there, `except KeyError: pass`, ran off the end and returned None).
    table = dict(table)
    try:
        found = table[key]
    except KeyError:
        pass
    else:
        if look:
            try:
                return "first", table[found]
            except KeyError:
                pass
        else:
            return None
        try:
            return "second", table[found * 2]
        except (KeyError, TypeError):
            pass
    size = len(table)
    table.clear()
    return "end", size


# The code after the try raises (3.12: right after the clause's POP_EXCEPT, no jump to it): a
# clause's own `raise` would come before that unwinding.

@cases(([],), ([1],))
def while_try_except_then_raise(log):
    while log:
        try:
            raise ValueError(1)
        except ValueError:
            log.append(2)
        raise KeyError(5)
    return 3


@cases(([],), ([1],))
def if_try_except_then_raise(log):
    if log:
        try:
            raise ValueError(1)
        except ValueError:
            log.append(2)
        raise KeyError(5)
    return 3
