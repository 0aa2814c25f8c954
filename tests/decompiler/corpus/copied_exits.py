"""Ways out that 3.10 copies: the small block after a statement (`return x`, a bare `raise`, the
implicit `return None`) copied into every branch that reaches it, together with the unwinding of
the blocks those branches leave; and a while loop's closing jump, which keeps the loop's line so
that no other jump is sent through it."""
from _cases import cases


class _Lock:
    def __init__(self, log):
        self.log = log

    def acquire(self):
        self.log.append("acquire")

    def release(self):
        self.log.append("release")


@cases((0, False), (1, False), (0, True), (2, True))
def finally_in_handler_then_return(level, disabled):
    # The try/finally inside the clause is followed by `return`, copied with the clause's unwinding.
    cache = {1: "cached"}
    log = []
    lock = _Lock(log)
    try:
        return cache[level]
    except KeyError:
        lock.acquire()
        try:
            if disabled:
                enabled = cache[level] = False
            else:
                enabled = cache[level] = level > 0
        finally:
            lock.release()
        return enabled, log


@cases((True, True), (True, False), (False, True))
def finally_if_branch_jumps_on(open_, has_close):
    # The branch of the finally body's last `if` ends where the enclosing `if` ends.
    log = []
    try:
        try:
            if open_:
                try:
                    log.append("flush")
                finally:
                    stream = has_close
                    if stream:
                        log.append("close")
        finally:
            log.append("outer")
    finally:
        log.append("release")
    return log


@cases((None, 0), (None, 1), ("fb", 1), (None, 2))
def clause_if_else_then_return(fallback, n):
    # Each branch of the clause's last if/else ends in a copy of the clause's way out.
    catalog = {}
    try:
        msg = catalog[n]
    except KeyError:
        if fallback:
            return fallback
        if n == 1:
            msg = "one"
        else:
            msg = "many"
    return msg


@cases((True,), (False,))
def bare_raise_after_try(timeout_first):
    # A bare `raise` after the inner try is copied onto both of its ways out.
    try:
        raise KeyboardInterrupt("first")
    except KeyboardInterrupt:
        try:
            if timeout_first:
                raise TimeoutError("inner")
        except TimeoutError:
            pass
        try:
            raise
        except KeyboardInterrupt as e:
            return str(e)


@cases((None,), ("handler",))
def handler_return_then_code(onerror):
    # `return` written out in a clause: one shared way out, not a copy of the function's end.
    log = []
    try:
        raise OSError("no")
    except OSError as error:
        if onerror is not None:
            log.append((onerror, str(error)))
        return log
    log.append("after")
    return log


@cases((0, True, 1), (1, True, 0), (1, False, 0), (2, True, 1))
def and_chain_before_implicit_return(a, b, c):
    # Each atom of `b and not c` leaves through its own copy of the implicit `return None`.
    if a:
        if b and not c:
            raise ValueError(a)
    else:
        if c:
            raise KeyError(c)


@cases(([1, 2, 3],), ([0, 4],))
def explicit_return_after_if(items):
    # The if's false jump and its body both reach one `return` written out.
    log = []
    if items:
        if items[0]:
            log.append(items[0])
            log.extend(items)
        return
    log.append("empty")


@cases((["a", "\\", "b", "c"],), (["x", "y"],))
def while_true_continue_in_else(chars):
    # A while loop's closing jump keeps the loop's line: `continue` is a jump of its own.
    out = []
    i = 0
    while 1:
        if i >= len(chars):
            break
        ch = chars[i]
        i += 1
        if ch == "c":
            break
        elif ch != "\\":
            out.append(ch)
            continue
        out.append("escape")
    return out


@cases((["a", "b"],), (["c", "d", "e"],))
def while_true_trailing_continue(words):
    out = []
    k = 0
    while True:
        if k >= len(words):
            break
        w = words[k]
        k += 1
        if w == "b":
            out.append("b!")
        else:
            out.append(w)
            continue
    return out


@cases((["x", "y"],), (["taken", "taken", "free"],), (["nt"],))
def return_after_try_in_for(names):
    # Every clause leaves, so the `return` after the try (which drops the loop's iterator first)
    # exists only as the copy on the try body's way out.
    taken = {"taken"}
    for name in names:
        try:
            if name in taken:
                raise FileExistsError(name)
            if name == "nt":
                raise PermissionError(name)
        except FileExistsError:
            continue
        except PermissionError:
            if name == "x":
                continue
            raise
        return name
    raise LookupError("none free")


@cases(("mod",), ("fn",), ("bad",), ("none",))
def else_part_inside_last_statement(kind):
    # The if/elif inside the try's else part ends the function: the first branch's way out is a
    # copy of the implicit `return None`.
    try:
        if kind == "bad":
            raise TypeError(kind)
        lines = [kind, "#c", "x"]
    except TypeError:
        return None
    if kind == "mod":
        out = []
        for line in lines:
            if line.startswith("#"):
                out.append(line)
        if out:
            return "".join(out)
    elif kind == "fn":
        return lines[0]


@cases(({"a": 1}, "a"), ({}, "a"), ({"a": 0}, "a"))
def explicit_return_none_reached_twice(table, key):
    # Both jumps of the `and` reach one `return None` written out (an implicit one is copied).
    found = table.get(key)
    if found is not None and found:
        return found
    return None


@cases(([1, 2, 3], 2), ([1, 1], 5), ([], 0))
def while_body_never_falls_through(items, skip):
    # The body ends in a break, so the loop has no test at the bottom: its last jump back is the
    # `continue`, and the body goes on after it.
    found = None
    k = 0
    while k < len(items):
        item = items[k]
        k += 1
        if item < skip:
            continue
        found = (item, k)
        break
    return found


_MISSING = object()


@cases((_MISSING, _MISSING, False), (1, _MISSING, False), (_MISSING, _MISSING, True))
def not_of_identity_chain(default, factory, seen):
    # `not (a is b and c is d)`: the jumps go the other way, the comparisons stay `is`.
    if not (default is _MISSING and factory is _MISSING):
        return "has default"
    elif seen:
        return "follows default"
    return "plain"


@cases(([1, 2, 3], {2}),)
def finally_if_ends_loop_body(items, closed):
    # The finally body's last `if` ends the loop body: its branch re-raises in the exceptional
    # copy where the normal copy jumps back to the loop's head.
    log = []
    for item in items:
        done = False
        try:
            if item in closed:
                done = True
            else:
                try:
                    raise OSError(item)
                except OSError:
                    log.append(("error", item))
        finally:
            if not done:
                log.append(("close", item))
    return log


@cases((["a", "-k"], [1]), (["a"], []), (["a"], [1]))
def for_return_then_if_return(opts, args):
    # 3.12+: the loop's `return` (drop the iterator, return None) is no copied `break`: the same
    # return after the loop sits inside an if, which the code before it jumps past.
    log = []
    for opt in opts:
        if opt == "-k":
            return
    if args:
        return
    log.append(args)
    return log


@cases((["a", "-k"], [1]), (["a"], []), (["a"], [1]), (["x"], [2]))
def try_for_return_then_if_return(opts, args):
    log = []
    try:
        for opt in opts:
            if opt == "-k":
                log.append(opt)
                return
        if args:
            log.append(args)
            return
        log.append(int(opts[0]))
    except ValueError:
        log.append("bad")
    return log


@cases((["a", "-k"], [1]), (["a"], []), (["a"], [1]))
def for_break_else_if(opts, args):
    log = []
    for opt in opts:
        if opt == "-k":
            break
    else:
        if args:
            log.append(args)
    return


class _Ctx:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self.log

    def __exit__(self, *exc):
        self.log.append("exit")
        return False



@cases(([0, 0], True), ([0, 1], True), ([], False))
def return_in_loop_then_with(items, flag):
    # `return` inside the loop drops the iterator and returns None: the same code as a `break`
    # whose exit block was copied; the copies of the function's end inside the with after the
    # loop are not that exit (3.10).
    log = []
    for item in items:
        if item:
            log.append(item)
            return
    with _Ctx(log) as seen:
        seen.append("body")


@cases(([0, 0], True), ([0, 1], True), ([], False))
def return_in_loop_then_if(items, flag):
    # The copies of the function's end in the branches of the `if` after the loop are not the
    # exit of a `break` either.
    log = []
    for item in items:
        if item:
            log.append(item)
            return
    if flag:
        log.append("flag")
    else:
        log.append("no flag")


class _File:
    def __init__(self, closed):
        self.closed = closed



@cases((None, 1), (True, 1), (False, 1), (True, 2), (True, 3))
def and_test_then_if_elif(closed, x):
    # Each false jump of `a and b` and of the inner elif gets its own copy of the implicit
    # `return None`, all after the if body: they are no else part.
    f = None if closed is None else _File(closed)
    if f and f.closed:
        if x == 1:
            f.closed = "one"
            raise ValueError(f.closed)
        elif x in (2, 4):
            f.closed = "two"
            raise KeyError(f.closed)


@cases((0, 0), (1, 0), (0, 1), (1, 1))
def elif_chain_after_try_branch(a, b):
    # 3.11: every branch of the chain ends in a copy of the implicit `return None`; the first
    # one (a try inside it) is folded into its else part as well as the later ones.
    log = []
    if a:
        try:
            log.append(10 // b)
        except ZeroDivisionError:
            log.append("zero")
    elif b:
        log.append("b")
    else:
        log.append("neither")


@cases(([],), ([1, 2],), ([1, 0],), ([0, 5],))
def return_constant_in_loop_before_tail(key):
    # `return False` inside the loop reads the same as a `break` to the copied `return False`
    # at the end, past the code after the loop (which would have to become an else part).
    if not key:
        return False
    for k in key[:-1]:
        if not k:
            return False
        if k > 1:
            return True
    if key[-1]:
        return key[-1] > 1
    return False


def _pair(fail):
    if fail:
        raise OSError("no pair")
    return 3, 4


@cases((False,), (True,))
def else_returns_then_code_after_try(fail):
    # Only the except clause reaches the code after the try: 3.10 copies it after the clause's
    # POP_EXCEPT (no `return` inside a clause is compiled so).
    try:
        a, b = _pair(fail)
    except (AttributeError, OSError):
        pass
    else:
        total = a + b
        total *= 2
        return a, total
    return str(fail)


@cases((False,), (True,))
def short_else_returns_then_code_after_try(fail):
    try:
        a = _pair(fail)
    except OSError:
        pass
    else:
        return a
    return str(fail)


@cases(([1, 2, 3], 2), ([1, 2], 5), ([], 0))
def break_in_clause_copies_loop_exit(items, value):
    # `break` in an except clause: the small block at the loop's exit (`return i`) is copied
    # after the clause's POP_EXCEPT.
    i = 0
    while i < 10:
        try:
            if items[i] == value:
                return i
        except IndexError:
            break
        i += 1
    return i


@cases(([0, 1, 0],), ([0, 0],), ([],))
def for_body_ends_in_break(items):
    # The body's last statement is a `break` reached by falling: the iterator is dropped and
    # the code falls into the loop's exit (no jump left).
    seen = []
    for x in items:
        if not x:
            seen.append(x)
            continue
        break
    seen.append(len(items))
    seen.sort()
    return seen


@cases((["a", "1", "2"],), (["x"],), ([],))
def for_try_continue_then_break(items):
    found = None
    for s in items:
        try:
            found = int(s)
        except ValueError:
            continue
        break
    items_seen = len(items)
    return found, items_seen



class _Probe:
    def __init__(self, fails):
        self.fails = fails
        self.state = None

    def tell(self):
        if self.fails:
            raise OSError("no tell")
        return 0


@cases((False,), (True,))
def clause_copies_code_after_enclosing_if(fails):
    # The try ends an if body; the code after the if (`return probe.state`) is copied after the
    # except clause's POP_EXCEPT, and the else part falls into the original.
    probe = _Probe(fails)
    if probe.state is None:
        try:
            probe.tell()
        except OSError:
            probe.state = False
        else:
            probe.state = True
    return probe.state


@cases(("ab\ncd",), ("",), ("\n\n",))
def while_true_break_in_clause_only_exit(src):
    # The loop is left only by the clause's `break`: the code after it exists only as the copy
    # after the clause's POP_EXCEPT (3.10).
    pos = 0
    lines = []
    while True:
        try:
            char = src[pos]
        except IndexError:
            break
        pos += 1
        if char == "\n":
            continue
        lines.append(char)
    return lines


@cases((["x", "2", "3"], True), (["x"], True), ([], True), (["1"], False))
def for_else_in_if_break_copies_return(items, flag):
    # 3.10 copies `return r` (after the for/else) into the try body's `break`; the loop's else
    # part ends the if body, so the code after the loop exists only as that copy.
    if flag:
        for r in items:
            try:
                int(r)
                break
            except ValueError:
                pass
        else:
            return None
        return r
    return 0


@cases((["x", "2"], 1), (["x"], 1), (["1"], 0))
def for_else_in_loop_break_copies_return(items, rounds):
    while rounds:
        rounds -= 1
        for r in items:
            try:
                int(r)
                break
            except ValueError:
                pass
        else:
            return None
        return r
    return 0


@cases((["a", "b.c"], "h"), (["a"], "h"), ([], "h"))
def for_else_in_if_break_copies_following_return(aliases, hostname):
    # 3.10+: the `break` runs a copy of the `return` after the if; the code after the loop
    # inside the if is skipped by it: the loop's else part.
    name = hostname
    if aliases:
        for name in aliases:
            if "." in name:
                break
        else:
            name = hostname
    return name


@cases((["a", "b.c"], False), (["a"], False), (["a"], True))
def for_else_in_try_else_break_copies_return(aliases, fail):
    name = "none"
    try:
        if fail:
            raise ValueError(name)
        hostname = aliases[0]
    except ValueError:
        pass
    else:
        for name in aliases:
            if "." in name:
                break
        else:
            name = hostname.upper()
    return name


@cases(("a/b/c", 3), ("abcdef/g", 2))
def for_else_raises_break_copies_return(name, limit):
    # 3.10+: nothing reaches the `return` after the loop but the `break`, which runs its copy:
    # the original is gone.
    components = name.split("/")
    for i in range(1, len(components)):
        prefix = "/".join(components[:i])
        name = "/".join(components[i:])
        if len(prefix) <= limit and len(name) <= limit:
            break
    else:
        raise ValueError("name is too long")
    return prefix, name
# `return` at the end of an if body inside a with statement that ends the function: the with's
# `__exit__` call comes before it, and the compiler never copies that into a branch, so it is a
# written `return`, not the copied implicit one (read as such, the rest became an else part).

def _return_in_with_if(log, flag):
    with _Ctx(log):
        if flag:
            log.append("flag")
            return
        log.append("rest")


@cases((True,), (False,))
def return_in_with_if(flag):
    log = []
    _return_in_with_if(log, flag)
    return log


def _return_in_with_nested_if(log, a, b):
    with _Ctx(log):
        if a:
            if b:
                log.append("ab")
                return
            log.append("a")
        else:
            log.append("not a")


@cases((True, True), (True, False), (False, True))
def return_in_with_nested_if(a, b):
    log = []
    _return_in_with_nested_if(log, a, b)
    return log


@cases(("x", ["a", "b.c"]), ("", ["a.b"]), ("x", ["a"]), ("x", []))
def for_else_in_if_break_copies_code_after_if(name, aliases):
    # The loop ends an if body: its `break` copies the code after the if (3.10+), which the
    # else part falls into.
    if name:
        for name in aliases:
            if "." in name:
                break
        else:
            name = name + "!"
    return name


@cases((1, {}), (2, {}), (3, {}), (3, {3: "x"}))
def clause_if_elif_else_copies_way_out(key, table):
    # 3.12+: each branch of the clause's if/elif/else ends in the unwinding and a copy of the
    # return after the try; only the last is the clause's end.
    try:
        v = table[key]
    except KeyError:
        if key == 1:
            v = "one"
        elif key == 2:
            v = "two"
        else:
            v = "many"
    return v


@cases(("abc",), (None,), (3,))
def if_else_in_try_body_copies_return(value):
    # zipfile.is_zipfile: the try body's if/else; 3.12+ copy the return after the try onto the
    # if branch, outside the try's protection (a `return` there would be protected).
    result = False
    try:
        if hasattr(value, "upper"):
            result = value.upper()
        else:
            result = len(value)
    except TypeError:
        pass
    return result


# A conditional expression as the right operand of `and`/`or` in a return: the operand's first
# arm gets its own copy of the rest of the return in place of its jump there (3.8/3.9: a bare
# return only), the other arm falls into the block the short circuit jumps to.

@cases((1, 0, True), (1, 0, False), (-1, 0, True), (1, 2, False))
def return_and_of_conditional(r, i, positive):
    return not i and ((r > 0) if positive else (r < 0))


@cases((1, 0, True), (1, 0, False), (-1, 2, True), (3, 2, False))
def return_call_of_and_of_conditional(r, i, positive):
    return bool(not i and ((r > 0) if positive else (r < 0)))


@cases((1, 0, True), (1, 0, False), (2, 3, True), (2, 3, False), (2, None, False))
def return_or_of_nested_conditional(r, i, positive):
    return i or (r if positive else (r if i is None else -r))


@cases((1, 2, 3, 0, 5), (0, 2, 3, 4, 0), (1, 0, 0, 0, 1))
def call_args_with_nested_conditional(a, b, c, d, e):
    return divmod(a + 7, b if c else (d + 1 if e else a + 2))


def _keywords(**kwargs):
    return sorted(kwargs.items())


@cases((True, False), (False, True), (False, False))
def conditional_value_in_long_keyword_call(a, b):
    # 3.10: with more than 15 keywords the call builds a dict (MAP_ADD); the first arm of a
    # conditional value jumps to a copy of the rest of the return statement, laid after it.
    return _keywords(
        k0=1 if a else 2, k1=3 if b else {}, k2=2, k3=3, k4=4, k5=5, k6=6, k7=7, k8=8, k9=9,
        k10=10, k11=11, k12=12, k13=13, k14=14, k15=15, k16=16,
    )
