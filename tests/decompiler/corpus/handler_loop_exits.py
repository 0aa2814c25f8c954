"""A `while True:` whose try's handlers `break` or `continue` it. From 3.12 handler code lies
after everything; the code after such a loop, which only a handler's `break` reaches, is laid
after (or right behind) the handler code, and a handler's `continue` jumps to the loop's head
while falling out of the try goes to the loop's own jump back."""
from _cases import cases


@cases((["1", "x", "2"],), ([],), (["y"],))
def handler_continue_then_rest_of_body(items):
    pending = list(items)
    out = []
    while True:
        try:
            v = int(pending.pop())
        except ValueError:
            continue
        except IndexError:
            break
        out.append(v)
    return out


@cases((["1", "x", "2"],), ([],))
def handler_continue_or_break_in_body(items):
    pending = list(items)
    out = []
    while True:
        try:
            v = pending.pop()
            if v == "x":
                break
            out.append(int(v))
        except ValueError:
            continue
        except IndexError:
            break
    return out


@cases(([1, 2],), ([],))
def handler_break_then_code(items):
    pending = list(items)
    n = 0
    while True:
        try:
            pending.pop()
        except IndexError:
            break
        n += 1
    return n * 2


@cases(([1, 2], True), ([1], False))
def handler_break_then_code_in_if(items, flag):
    pending = list(items)
    state = {}
    if flag:
        while True:
            try:
                pending.pop()
            except IndexError:
                break
        state["drained"] = len(pending)
    return state


@cases(([1, 2], True, True), ([1], True, False), ([], False, True))
def handler_break_then_code_in_nested_if(items, a, b):
    pending = list(items)
    state = {}
    if a:
        state["a"] = True
        if b:
            while True:
                try:
                    pending.pop()
                except IndexError:
                    break
            state["b"] = len(pending)
    return state


@cases(([b"ab", b"c", b""],), ([b"ab", None],), ([None],))
def breaks_copy_exit_block_in_handler(chunks):
    # Only breaks leave the loop; 3.12+ copies the block after it (`return tuple(out)`) into
    # each of them, the handler's copy right after its unwinding.
    pending = list(chunks)
    out = []
    while True:
        try:
            chunk = pending.pop(0)
            chunk + b""
        except TypeError:
            if out:
                break
            return None
        if not chunk:
            break
        out.append(chunk)
    return tuple(out)


@cases(([["x", "2"], ["y"], ["3", "x"]],), ([["x"]],), ([],))
def while_test_try_break_after_handler(groups):
    # `while s:` whose body never falls off its end (3.10: no copy of the test at the bottom):
    # the try body's jump over its handlers goes to the loop's exit, a `break`.
    for s in groups:
        s = list(s)
        try:
            while s:
                try:
                    v = int(s.pop())
                except ValueError:
                    if s:
                        continue
                    raise
                break
            return v
        except ValueError:
            pass
    return None


@cases((["1", "x", "2"],), (["x"],), ([],))
def while_test_try_break_then_return(items):
    s = list(items)
    v = None
    while s:
        try:
            v = int(s.pop())
        except ValueError:
            if s:
                continue
            raise
        break
    return v


@cases(([1, "x", 2], {}), (["x", "y"], {"y": 1}), ([], {}))
def for_handler_try_except_pass(items, cache):
    # A try inside an except clause of a for loop's body: 3.12+ lays it after the loop, so its
    # body's jump over its handler (to the clause's unwinding) goes past the loop's exit, after a
    # POP_TOP, like a `break` from the try body; it still runs inside the clause (not a break).
    out = []
    for v in items:
        try:
            out.append(v + 1)
        except TypeError:
            try:
                out.append(cache[v])
            except KeyError:
                pass
    return out


@cases(([[1, "x"], [2]], {"x": 5}), ([[1, "x"], ["y", 3]], {}), ([], {}))
def for_handler_try_except_pass_in_try_finally(groups, cache):
    # The same inside a try/finally around the inner for loop.
    out = []
    for group in groups:
        try:
            for v in group:
                try:
                    out.append(v + 1)
                except TypeError:
                    try:
                        out.append(cache[v])
                    except KeyError:
                        pass
        finally:
            out.append("f")
    return out


@cases(([1, "x", 2], {}), (["x", "y"], {"y": 1}), ([], {}))
def for_handler_try_finally_continue(items, cache):
    # The try inside the clause has a finally body: its body's jump over its handlers is
    # protected by the finally's handler (not the clause's cleanup), still inside the clause.
    out = []
    for v in items:
        try:
            out.append(v + 1)
        except TypeError:
            try:
                out.append(cache[v])
            except KeyError:
                continue
            finally:
                out.append("f")
    return out


@cases(([1, "x", 0],), ([],))
def for_handler_if_try_else(items):
    # An if/else inside the clause whose branch ends with a try: 3.13 copies the clause's way
    # out into each branch (read as `continue`; the rest is not run after the try).
    out = []
    for v in items:
        try:
            out.append(v + 1)
        except TypeError:
            if v:
                try:
                    out.append(int(v))
                except ValueError:
                    pass
            else:
                out.append(3)
    return out


@cases(({"a": 1}, {"b": 2}, ["a", "b"]), ({}, {}, ["c"]), ({}, {}, []))
def while_named_handler_try_reraises(primary, secondary, keys):
    # `except KeyError as ke: try: ... except KeyError: raise ke` in a loop: 3.13 copies the
    # clause's way out (POP_EXCEPT; ke = None; del ke; JUMP) right after the inner try body.
    pending = list(keys)
    out = []
    while pending:
        key = pending.pop()
        try:
            obj = primary[key]
        except KeyError as ke:
            try:
                obj = secondary[key]
            except KeyError:
                raise ke
        out.append(obj)
    return out


@cases(([[1, None, 2], [3]],), ([[1, "x"], [2]],), ([[4], [None]],), ([],))
def for_else_continue_in_try_finally_with_handler(groups):
    # 3.11 lays the inner try's handler inline, at the end of the inner for loop's body: the
    # try/finally's body runs on past it to the loop's else part (`continue`) and its `break`.
    out = []
    for group in groups:
        try:
            for v in group:
                if v is None:
                    break
                try:
                    out.append(v + 1)
                except TypeError:
                    pass
            else:
                continue
            break
        finally:
            out.append("f")
    return out


@cases(([b"abc", b"de"], [1, 5, 2]), ([b"x"], ["busy", 1]), ([], []))
def while_true_try_else_if_else_break(chunks, sizes):
    # `while True: try: ... except E: continue else: if c: ... else: break`: 3.11 lays the
    # else part's `break` (the if's false branch) right before the inline handler, where the
    # body's jump over the handlers would be.
    pending = list(sizes)
    out = []
    for data in chunks:
        while True:
            try:
                sent = pending.pop(0) if pending else len(data)
                if sent == "busy":
                    raise BlockingIOError
            except BlockingIOError:
                continue
            else:
                out.append(sent)
                if sent < len(data):
                    data = data[sent:]
                else:
                    break
    return out


@cases(([], set()), (["a", "b", "c"], {"b"}), (["x"], set()))
def if_for_try_handler_last(names, bad):
    # 3.11 lays the try's handler after the for loop's last jump back, and the copied
    # `return None` of the if's false branch after it, before the loop's exit.
    out = []
    if names:
        for name in names:
            if name in bad:
                out.append("bad " + name)
                continue
            try:
                out.append(int(name))
            except ValueError as exc:
                out.append(type(exc).__name__)
    _record(out)


_RECORDED = []


def _record(out):
    _RECORDED.append(out)


def _check_path(p):
    if p.startswith("bad"):
        raise ValueError(p)
    return p.upper()


@cases((["bad1", "ok", "x"], True), (["bad"], True), ([], False), (["a"], False))
def for_break_in_try_inside_clause(paths, fail_first):
    # A `break` from a try body, in a for loop inside an except clause: 3.13 copies the clause's
    # way out (POP_EXCEPT; JUMP) after the break's POP_TOP of the iterator.
    try:
        if fail_first:
            raise OSError
        found = "direct"
    except OSError:
        for p in paths:
            try:
                found = _check_path(p)
                break
            except ValueError:
                pass
        else:
            return []
    return [found]


@cases(([b"ab", b"c"], [1]), ([b"abc"], []), ([b"x", None], [2]), ([None], []))
def while_true_ends_in_if_break_after_try(chunks, results):
    # lzma.decompress: the loop body ends with `if not data: break` after a try whose handler
    # breaks; 3.12+ keep that break's jump right before the loop's jump back, which the test
    # jumps to when true. (It was read as an unconditional `break` after an empty if.)
    out = list(results)
    chunks = list(chunks)
    while True:
        try:
            res = len(chunks[0])
        except TypeError:
            if out:
                break
            else:
                raise
        out.append(res)
        chunks = chunks[1:]
        if not chunks:
            break
    return out


@cases(([1, "k", 0, 2, None],), ([],))
def while_true_continue_in_clause_before_try_finally(items):
    # 3.12+: the clause's `continue` goes to the `while` line's NOP, the body's end to the
    # statement after it; both start the one loop.
    items = list(items)
    out = []
    while True:
        item = items.pop() if items else None
        if item is None:
            break
        try:
            value = 10 // item
        except (ZeroDivisionError, TypeError):
            continue
        try:
            out.append(value)
        finally:
            item = None
    return out


@cases((5,), (0,))
def while_true_in_while_true_then_try_continue(n):
    # The other layout: the clause's `continue` belongs to the outer loop, whose try comes
    # after the inner loop.
    out = []
    while True:
        while True:
            n -= 1
            out.append(n)
            if n % 2 == 0:
                break
        try:
            out.append(10 // n)
        except ZeroDivisionError:
            continue
        if n < 0:
            return out


@cases((7,), (1,))
def while_true_in_while_true_clause_continue(n):
    # The inner loop's clause `continue` and the outer loop's end both go to the inner `while`
    # line's NOP; the inner body's end goes past it.
    out = []
    while True:
        while True:
            n -= 1
            try:
                out.append(10 // n)
            except ZeroDivisionError:
                continue
            if n % 3 == 0:
                break
        try:
            out.append(n)
        except ValueError:
            continue
        if n < -3:
            return out


@cases((7,), (1,))
def while_true_try_first_in_while_true(n):
    out = []
    while True:
        while True:
            try:
                n -= 1
                out.append(10 // n)
            except ZeroDivisionError:
                continue
            if n % 3 == 0:
                break
        if n < -3:
            return out


@cases((7,), (2,))
def try_holding_while_true_then_clause_continue(n):
    out = []
    while True:
        try:
            while True:
                n -= 1
                out.append(n)
                if n % 3 == 0:
                    break
        except ValueError:
            continue
        if n < -3:
            return out


@cases((7,), (1,))
def clause_continue_named_before_try_finally(n):
    out = []
    while True:
        n -= 1
        try:
            out.append(10 // n)
        except ZeroDivisionError as e:
            continue
        try:
            out.append(n)
        finally:
            out.append(0)
        if n < -3:
            return out


@cases(([],), (["x"],), ([1, "y", 2],))
def break_over_later_try_handler(xs):
    # 3.12+: the handler's `break` jumps over the later try's handler code to the code after
    # the loop, which only it reaches.
    xs = list(xs)
    errors = []
    while True:
        try:
            meta = xs.pop()
        except IndexError:
            break
        try:
            int(meta)
        except ValueError:
            errors.append(meta)
    if errors:
        return "errors", errors
    return "ok", xs


@cases(([],), ([1],), ([1, 0, 2],))
def break_tail_inside_finally(xs):
    # 3.11: the code after the loop, protected by the finally, follows it though no normal
    # flow reaches it; 3.12+: it lies after the handler code, then the finally body's copy
    # and the code after the try statement, which the finally runs before.
    xs = list(xs)
    out = []
    log = []
    try:
        while True:
            try:
                x = xs.pop()
            except IndexError:
                break
            if x == 0:
                continue
            out.append(x)
        if len(out) == 1:
            log.append("one")
    finally:
        log.append("finally")
        out = None
    return out, log


@cases(([],), ([1],), (["x", 2],))
def break_tail_in_try_except(xs):
    xs = list(xs)
    out = []
    try:
        while True:
            try:
                x = xs.pop()
            except IndexError:
                break
            out.append(int(x))
        out.append(0)
    except ValueError:
        out.append("bad")
    out.append("end")
    return out


# Only the except clause goes back to the head (the try body and the test `break`), inside an
# if body with code after the loop: 3.12+ lay the jump back with the handler code, past the if
# body. The loop's body ends where the code after it starts, not at the if body's end (read so,
# that code ran inside the loop and the test's `break` became an if/else).

@cases((0,), (1,), (2,))
def if_while_true_clause_loops_code_after(n):
    log = []
    if n >= 0:
        w = 0
        while True:
            w += 1
            if w > 2:
                break
            try:
                if w <= n:
                    raise ValueError(w)
                log.append(w)
                break
            except ValueError:
                log.append(-w)
        log.append("after")
    return log


@cases((0,), (1,), (5,))
def for_while_true_clause_loops_code_after(n):
    log = []
    for k in range(2):
        w = 0
        while True:
            w += 1
            if w > 3:
                break
            try:
                if w <= n:
                    raise ValueError(w)
                log.append((k, w))
                break
            except ValueError:
                log.append(-w)
        log.append(k)
    return log
