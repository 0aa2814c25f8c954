"""Finally bodies whose last statement is an `if`: 3.10 copies the closing re-raise (and the code
after the whole statement) into its branches."""
from _cases import cases


class _Closable:
    def __init__(self, fail):
        self.fail = fail
        self.log = []

    def work(self):
        self.log.append("work")
        if self.fail:
            raise ValueError("work failed")


@cases((False, True), (True, True), (False, False))
def finally_ends_with_if(fail, flag):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if flag:
                c.log.append("closed")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, 0), (True, 1), (False, 2))
def finally_ends_with_if_elif_else(fail, which):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if which == 0:
                c.log.append("zero")
            elif which == 1:
                c.log.append("one")
            else:
                c.log.append("other")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True), (True, False))
def finally_if_then_statement(fail, flag):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if flag:
                c.log.append("flag")
            c.log.append("always")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False,), (True,))
def return_through_finally_with_if(fail):
    c = _Closable(fail)
    try:
        c.work()
        return c.log
    finally:
        if not fail:
            c.log.append("finished")


@cases((False, True, True), (True, True, True), (False, True, False), (False, False, True))
def finally_ends_with_if_and(fail, a, b):
    # 3.11: each false jump of `a and b` gets its own copy of the closing re-raise.
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if a and b:
                try:
                    c.log.append(int("x" if fail else "1"))
                except ValueError:
                    pass
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True, True), (True, True, True), (False, True, False), (False, False, True))
def finally_if_and_then_return(fail, a, b):
    # 3.10: each false jump of `a and b` gets its own copy of the closing re-raise (and, in the
    # normal copy, of the implicit return).
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if a and b:
                c.log.append("both")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((0, 5), (3, 5), (3, 0))
def return_through_finally_with_if_and(n, offset):
    # 3.11+: the copy of the finally body before the return ends in a return for each way out
    # of `if a and b:` (one after the call, one per false jump).
    log = []
    total = 0
    try:
        while True:
            if total >= n:
                break
            total += 1
        return total
    finally:
        if total > 0 and offset:
            log.append(offset + total)


@cases((None, 1), (2, 1), (2, 0))
def early_return_through_finally_with_if_and(parser, flag):
    # The same copies before a return from inside the try body.
    log = []
    try:
        if parser is None:
            log.append("none")
            return len(log)
        log.append(parser)
        return len(log) * 10
    finally:
        if flag and log:
            log.append("closed")


@cases(([0, 0, 3],), ([0],), ([],))
def return_from_loop_through_finally_with_if(items):
    seen = []
    try:
        for item in items:
            seen.append(item)
            if item:
                return item
    finally:
        if seen: seen.append("end")


@cases((False,), (True,))
def finally_bare_raise_in_handler(fail):
    # asyncio's Server.serve_forever: a finally body that never ends (a bare `raise` re-raises
    # the exception being handled) has no closing RERAISE (3.11+).
    c = _Closable(fail)
    try:
        try:
            c.work()
        except ValueError:
            try:
                c.log.append("cleanup")
            finally:
                raise
        finally:
            c.log.append("done")
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True), (True, False))
def finally_always_raises(fail, flag):
    c = _Closable(fail)
    try:
        try:
            c.work()
        finally:
            if flag:
                raise KeyError("flag")
            else:
                raise LookupError("no flag")
    except LookupError as e:
        c.log.append(type(e).__name__)
    return c.log


@cases((False,), (True,))
def finally_if_not_then_loop(fail):
    # asyncio's create_server: the finally body's `if` holds a loop, so the copy of the closing
    # re-raise that the if's test jumps to follows the loop's jump back (3.11).
    c = _Closable(fail)
    completed = False
    try:
        try:
            c.work()
            completed = True
        finally:
            if not completed:
                for item in ["a", "b"]:
                    c.log.append(item)
    except ValueError:
        c.log.append("caught")
    return c.log


@cases((False, True), (False, False))
def explicit_return_none_after_finally(fail, flag):
    # 3.11 copies only an implicit `return None` into the jump that reaches it: the normal way
    # out of the finally body still jumps to this one, which was written.
    c = _Closable(fail)
    try:
        c.work()
    finally:
        if flag:
            c.log.append("closed")
    return None


@cases((0,), (1,))
def return_constant_inside_try_finally(flag):
    # 3.11: the constant is loaded after the finally body's copy; a return after the statement
    # would be reached by a jump over the handler instead.
    log = []
    try:
        log.append(flag)
        return True
    finally:
        log.append("finally")



class _Recorder:
    def __init__(self) -> None:
        self.log = []
        self.done = False

    def step(self, name):
        self.log.append(name)


@cases((0,), (1,))
def try_finally_inside_finally_body(flag):
    # 3.11: the finally body's copy on the normal way out ends in the inner try's way out, a
    # copy of the implicit `return None`, where the handler's copy jumps to its re-raise. Not
    # recognised as a copy, it was read as code after the statement (the body ran twice).
    r = _Recorder()

    def run():
        try:
            if flag:
                r.step("body")
        finally:
            try:
                r.step("inner")
            finally:
                r.done = True

    run()
    return r.log, r.done


@cases((False, True, False), (True, True, True), (False, False, False), (True, False, True))
def finally_try_then_short_tail(fail, flag, fail_inner):
    # The finally body's exceptional copy ends in a small block (one statement and RERAISE) that
    # 3.10 copies into both ways out of the nested try; the `if`'s false branch reaches it as written.
    c = _Closable(fail)
    state = "start"
    try:
        try:
            c.work()
        finally:
            if flag:
                try:
                    if fail_inner:
                        raise OSError("inner")
                    c.log.append("inner")
                except OSError:
                    pass
            state = "done"
    except ValueError:
        c.log.append("caught")
    return c.log, state


@cases((False, True), (True, True), (False, False), (True, False))
def finally_try_except_then_more(fail, has_attr):
    # 3.12+ keep the nested try's handler in place in the finally body's exceptional copy (all of
    # it is exception code), so that copy jumps over it; the normal copy goes straight on.
    c = _Closable(fail)
    if has_attr:
        c.extra = 1
    try:
        try:
            c.work()
        finally:
            try:
                del c.extra
            except AttributeError:
                c.log.append("no extra")
            try:
                c.log.append("more")
            finally:
                c.log.append("last")
    except ValueError:
        c.log.append("caught")
    return c.log



@cases((False, True), (True, True), (False, False), (True, False))
def finally_if_try_then_short_tail_returns(fail, flag):
    # The small block after the `if` (a store) is copied into each way out of the nested try in
    # the exceptional copy only; the normal copy's single block goes on to the return.
    c = _Closable(fail)
    state = "start"
    try:
        c.work()
    except ValueError:
        c.log.append("caught")
    try:
        c.log.append("again")
    finally:
        if flag:
            try:
                c.log.append("inner")
            except OSError:
                pass
        state = "done"
    return c.log, state


class _Target:
    pass


def _value_or_fail(t, fail):
    if fail:
        raise ValueError
    return ("value", t.y)


def _return_through_finally_ending_in_if(t, flag, fail):
    # 3.10 copies the `return` into the branch of the finally body's last `if` in the normal
    # copy, while the exceptional copy's branch falls into its closing re-raise.
    try:
        return _value_or_fail(t, fail)
    finally:
        if flag:
            t.y = None


@cases((True, False), (False, False), (True, True), (False, True))
def return_through_finally_ending_in_if(flag, fail):
    t = _Target()
    t.y = 0
    try:
        return _return_through_finally_ending_in_if(t, flag, fail)
    except ValueError:
        return ("caught", t.y)


# A finally body ending in `if a: (if b: X) elif c: Y`: 3.11+ give the inner test's jump to the
# end its own copy of the closing re-raise; 3.11 merges it with the last one, past the elif, and
# the normal copy keeps a return block there (3.11 inline, 3.12+ at the end).

def _finally_nested_if_elif(log, fail, a, b):
    try:
        if fail:
            raise ValueError
        log.append("body")
    finally:
        if a:
            if b:
                log.append("ab")
        elif b:
            log.append("b")


@cases(*[(fail, a, b) for fail in (False, True) for a in (False, True) for b in (False, True)])
def finally_nested_if_elif(fail, a, b):
    log = []
    try:
        _finally_nested_if_elif(log, fail, a, b)
    except ValueError:
        log.append("caught")
    return log


@cases(*[(fail, a, b) for fail in (False, True) for a in (False, True) for b in (False, True)])
def finally_nested_if_else_nested_if(fail, a, b):
    log = []
    try:
        try:
            if fail:
                raise ValueError
        finally:
            log.append("first")
            if a:
                if b:
                    log.append("ab")
            else:
                if b:
                    log.append("b")
    except ValueError:
        log.append("caught")
    return log


@cases(*[(fail, a, b) for fail in (False, True) for a in (False, True) for b in (False, True)])
def finally_nested_ifs_then_return(fail, a, b):
    log = []
    try:
        try:
            if fail:
                raise ValueError
        finally:
            if a:
                if b:
                    log.append("ab")
            elif b:
                log.append("b")
        log.append("after")
        return log
    except ValueError:
        return log + ["caught"]


@cases(({"a": 1}, "a", True), ({"a": 2}, "a", False))
def return_through_finally_ending_in_try_except(table, key, pending):
    # 3.9: every way out of the finally body's copy became the return after it, which nothing
    # reaches; 3.10 copies that lone RETURN_VALUE into each way out instead.
    reloading = {key: 0} if pending else {}
    try:
        return table[key], len(reloading)
    finally:
        try:
            del reloading[key]
        except KeyError:
            pass


@cases(({"p": 1, "p.q": 2}, "p.q", True), ({"p.q": 2}, "p.q", True), ({"q": 3}, "q", False))
def return_through_finally_after_if_try_else(modules, name, pending):
    reloading = {name: 0} if pending else {}
    try:
        parent_name = name.rpartition(".")[0]
        if parent_name:
            try:
                parent = modules[parent_name]
            except KeyError:
                return "no parent"
            else:
                path = parent
        else:
            path = None
        return modules[name], path
    finally:
        try:
            del reloading[name]
        except KeyError:
            pass


@cases(([1, 2], True), ([3], False), ([], True))
def return_in_for_through_finally_ending_in_if(keys, close):
    # 3.10: the return's tail (drop the iterator, return) is copied into both branches of the
    # finally body's last `if`.
    closed = []
    for key in keys:
        try:
            return key * 10, closed
        finally:
            if close:
                closed.append(key)
    return None, closed


@cases(([1, 2], True), ([0, 3], False))
def return_in_for_through_handler_and_finally_ending_in_if(keys, close):
    closed = []
    for key in keys:
        try:
            return 10 // key, closed
        except ZeroDivisionError:
            pass
        finally:
            if close:
                closed.append(key)
    return None, closed


@cases(([1, 2], True), ([0, 3], False), ([0, 0], True), ([],))
def return_in_for_through_handler_and_finally(keys, close=False):
    # 3.12+: the except clause goes on through the finally body's copy, laid with the handler
    # code after the loop, back to the loop's head: the try ends the loop body, and the code at
    # the loop's exit follows the loop.
    closed = []
    for key in keys:
        try:
            return 10 // key, closed
        except ZeroDivisionError:
            pass
        finally:
            closed.append(key)
    return None, closed


@cases(([1, 2], True), ([0, 3], False), ([0, 0], True), ([0, 0], False))
def return_in_for_through_handler_and_finally_ending_in_if_else(keys, close):
    closed = []
    for key in keys:
        try:
            return 10 // key, closed
        except ZeroDivisionError:
            pass
        finally:
            if close:
                closed.append(key)
            else:
                closed.append(-key)
    closed.append("end")
    return None, closed


@cases(([1, 2], True), ([0, 3], False), ([0, 0], True))
def return_in_for_through_handler_continue_and_finally(keys, close):
    # 3.12+: `continue` in the clause runs the finally body's copy right after the clause's
    # unwinding, then jumps back; a clause that falls out jumps to a copy after the handlers.
    closed = []
    for key in keys:
        try:
            return 10 // key, closed
        except ZeroDivisionError:
            continue
        finally:
            closed.append(key)
    return None, closed


@cases(([1, 2], True), ([0, 3], False), ([0, 0], True))
def return_in_while_through_handler_and_finally_ending_in_if(keys, close):
    closed = []
    i = 0
    while i < len(keys):
        key = keys[i]
        i += 1
        try:
            return 10 // key, closed
        except ZeroDivisionError:
            pass
        finally:
            if close:
                closed.append(key)
    return None, closed


class _Waiter:
    def __init__(self, ready_after, fail):
        self.ready_after = ready_after
        self.fail = fail
        self.log = []

    def run(self):
        if self.fail:
            raise ValueError("run failed")
        return "ran"

    def wait(self):
        self.log.append("wait")
        self.ready_after -= 1
        return self.ready_after <= 0


@cases((1, False), (3, False), (2, True))
def return_through_finally_while_true_break(ready_after, fail):
    # 3.9: the break of the return's copy became the return itself; the copy ends in the dead
    # jump back of the loop and the dead return (the try body's `return` was lost).
    w = _Waiter(ready_after, fail)
    try:
        return w.run()
    finally:
        while True:
            if w.wait():
                break


@cases((1, False), (3, False), (2, True))
def finally_while_true_ends_in_break(ready_after, fail):
    # 3.10+: the break's copy of the closing re-raise ends the loop, which nothing leaves
    # otherwise; the loop's jump back is laid after it.
    w = _Waiter(ready_after, fail)
    try:
        w.run()
    finally:
        while True:
            w.log.append("check")
            if w.wait():
                break
    return w.log


@cases(((1, 0, 2), False), ((0, 0), False), ((3,), True))
def return_through_finally_for_break(items, fail):
    w = _Waiter(0, fail)
    try:
        return w.run(), w.log
    finally:
        for item in items:
            w.log.append(item)
            if item:
                break


@cases(([0, 0, 1], False), ([0, 0], False), ([1], True))
def finally_for_ends_in_break(items, fail):
    seen = []
    try:
        if fail:
            raise ValueError(items)
    finally:
        for item in items:
            seen.append(item)
            if item:
                break
    return seen


class _Pauser:
    def __init__(self, fail, pause_fails, pending):
        self.fail = fail
        self.pause_fails = pause_fails
        self.pending = pending
        self.log = []

    def work(self):
        self.log.append("work")
        if self.fail:
            raise KeyError("work")

    def pause(self):
        self.log.append("pause")
        if self.pause_fails:
            raise ValueError("pause")


@cases((False, False, None), (False, True, None), (True, False, None), (True, True, 1), (False, False, 1))
def finally_ends_in_try_except_else(fail, pause_fails, pending):
    # 3.10: the clause's way out is a copy of the finally body's closing re-raise, so the code
    # after the handlers that the body jumps to is the else part.
    p = _Pauser(fail, pause_fails, pending)
    try:
        p.work()
    finally:
        try:
            p.pause()
        except ValueError:
            pass
        else:
            p.log.append("resumed")
    return p.log


@cases((False, False, None), (False, True, None), (True, False, None), (True, True, 1), (False, False, 1))
def finally_if_elif_ends_in_try_except_else(fail, pause_fails, pending):
    p = _Pauser(fail, pause_fails, pending)
    try:
        p.work()
    finally:
        if p.pending:
            p.log.append("later")
        elif pending is None:
            try:
                p.pause()
            except ValueError:
                pass
            else:
                p.log.append("resumed")
    return p.log


@cases((False, False, None), (False, True, None), (True, True, None), (False, False, 1))
def finally_if_branch_reraise_before_nested_try(fail, pause_fails, pending):
    # 3.10: the first branch's copy of the closing re-raise lies before the nested try (whose
    # handler comes after it): it still ends that branch.
    p = _Pauser(fail, pause_fails, pending)
    try:
        p.work()
    finally:
        if p.pending:
            p.log.append("later")
        elif not pause_fails:
            try:
                p.pause()
            except ValueError:
                pass
    return p.log


@cases((0, True), (1, False), (1, True), (2, True))
def finally_body_try_if_then_finally(mode, closefp):
    # 3.10: in the exceptional copy of the outer finally body, the if's false jump goes to a
    # second copy of the inner finally body ending in the re-raise (as `bz2.BZ2File.close`).
    log = []
    try:
        if mode == 1:
            log.append("read")
        elif mode == 2:
            raise ValueError(mode)
    finally:
        try:
            if closefp:
                log.append("close")
        finally:
            log.append("done")
            log.append(mode)
    return log
