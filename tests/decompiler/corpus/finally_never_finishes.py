"""Ways out of a try body whose finally body never finishes (it raises on every path). From 3.9
the finally body is copied onto every way out; after a copy that raises, 3.10+ drop what the way
out would do next as dead code (the RETURN_VALUE of a `return value`, the jump of a `break`), so
the copy is the last thing of that branch: a `return` there must not read as a branch that falls
on into the rest of the try body. A `return value` computes its value before the copy."""
from _cases import cases


@cases((0,), (3,))
def if_else_return_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                log.append(1)
            else:
                return log
            log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def if_return_constant_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                return 5
            log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((1,), (2,), (3,), (4,))
def elif_returns_finally_raises(n):
    log = []
    try:
        try:
            if n == 1:
                raise KeyError(4)
            elif n % 2:
                return log
            elif n > 2:
                log.append(5)
            return log
        finally:
            raise ValueError(6)
    except ValueError:
        log.append(7)
    return log


@cases((0,), (1,), (5,))
def break_in_loop_finally_raises(n):
    log = []
    try:
        for i in range(3):
            try:
                if i == n:
                    break
                log.append(i)
            finally:
                raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def while_true_return_finally_raises(n):
    log = []
    try:
        try:
            while True:
                if n > 2:
                    break
                return log
            log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (1,), (5,))
def for_return_finally_raises(n):
    log = []
    try:
        try:
            for i in range(3):
                if i == n:
                    return log
                log.append(i)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (1,), (5,))
def for_return_constant_finally_raises(n):
    log = []
    try:
        try:
            for i in range(3):
                if i == n:
                    return 3
                log.append(i)
            log.append(9)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def try_except_return_call_finally_raises(n):
    # (3.11+: the try/except inside the try/finally leaves the value, computed before the copy
    # of the finally body, as its body's last word)
    log = []
    try:
        try:
            return log.append(n)
        except KeyError:
            log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def except_return_call_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                raise KeyError(n)
            log.append(1)
        except KeyError:
            return log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def except_as_try_return_finally_raises(n):
    # (3.11+: the return unwinds the clause, `SWAP 2; POP_EXCEPT` and the clear of `e`, before
    # the copy of the finally body)
    log = []
    try:
        try:
            if n > 2:
                raise KeyError(n)
            log.append(1)
        except KeyError as e:
            try:
                return log.append(e.args[0])
            except TypeError:
                log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def if_return_call_last_finally_raises(n):
    # (3.12+: the test jumps straight to the copy on the normal way out, after the if body's)
    log = []
    try:
        try:
            if n > 2:
                return log.append(n)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def try_except_if_return_call_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                return log.append(n)
        except KeyError:
            log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


class _Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")


@cases((0,), (3,))
def with_return_call_finally_raises(n):
    # (3.11+: `SWAP 2` keeps the value above the manager's exit, the exit call, then the copy)
    log = []
    try:
        try:
            with _Manager(log):
                return log.append(n)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def with_if_return_call_finally_raises(n):
    log = []
    try:
        try:
            with _Manager(log):
                if n > 2:
                    return log.append(n)
                log.append(5)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def with_return_call_in_except_finally_raises(n):
    log = []
    try:
        try:
            with _Manager(log):
                return log.append(n)
        except KeyError:
            log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def nested_with_return_call_finally_raises(n):
    log = []
    try:
        try:
            with _Manager(log), _Manager(log):
                return log.append(n)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def try_except_if_else_return_call_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                return log.append(n)
            else:
                log.append(6)
        except KeyError:
            log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def try_except_if_return_call_then_more_finally_raises(n):
    log = []
    try:
        try:
            log.append(7)
            if n > 2:
                return log.append(n)
        except KeyError:
            log.append(1)
        else:
            log.append(8)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def loop_try_except_if_return_call_finally_raises(n):
    log = []
    for k in range(2):
        try:
            try:
                if n > k:
                    return log.append(n)
            except KeyError:
                log.append(1)
            finally:
                raise ValueError(4)
        except ValueError:
            log.append(k)
    return log


@cases((0,), (1,))
def for_with_return_call_finally_raises(n):
    # (3.9: the dead rest of the return after the copy drops the loop's iterator first)
    log = []
    for k in range(2):
        try:
            try:
                with _Manager(log):
                    return log.append(k)
            finally:
                raise ValueError(k)
        except ValueError:
            log.append(n)
    return log


@cases((0,), (3,))
def with_around_with_return_call_finally_raises(n):
    # (3.9: the dead rest of the return after the copy calls the outer manager's exit)
    log = []
    try:
        with _Manager(log):
            try:
                with _Manager(log):
                    return log.append(n)
            finally:
                raise ValueError(n)
    except ValueError:
        return log


@cases((0,), (3,))
def except_with_return_call_finally_raises(n):
    log = []
    try:
        try:
            raise KeyError(n)
        except KeyError:
            with _Manager(log):
                return log.append(n)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def except_as_with_return_call_finally_raises(n):
    log = []
    try:
        try:
            raise KeyError(n)
        except KeyError as e:
            with _Manager(log):
                return log.append(e.args)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def for_except_with_return_call_finally_raises(n):
    log = []
    for k in range(2):
        try:
            try:
                raise KeyError(n)
            except KeyError:
                with _Manager(log):
                    return log.append(k)
            finally:
                raise ValueError(4)
        except ValueError:
            log.append(k)
    return log


@cases((0,), (3,))
def if_return_call_through_finally_then_raising_finally(n):
    # (the inner finally body's copy finishes, the outer one's raises)
    log = []
    try:
        try:
            try:
                if n:
                    return log.append(n)
            finally:
                log.append(2)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (1,), (3,))
def if_elif_return_calls_try_except_finally_raises(n):
    log = []
    try:
        try:
            if n > 2:
                return log.append(n)
            elif n > 0:
                return log.append(-n)
        except KeyError:
            log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def with_try_except_return_call_finally_raises(n):
    # (3.11+: the try's body ends at the with's exit call, before the copy)
    log = []
    try:
        try:
            with _Manager(log):
                try:
                    return log.append(n)
                except KeyError:
                    log.append(1)
        finally:
            raise ValueError(4)
    except ValueError:
        return log


@cases((0,), (3,))
def with_last_if_return_call_finally_raises(n):
    # (3.11+: the if's test jumps past the exit call and the copy to the with's normal exit)
    log = []
    try:
        try:
            with _Manager(log):
                if n:
                    return log.append(n)
        finally:
            raise ValueError(1)
    except ValueError:
        return log


@cases((0,), (3,))
def with_if_bare_return_last_finally_raises(n):
    log = []
    try:
        try:
            with _Manager(log):
                if n:
                    log.append(n)
                    return
        finally:
            raise ValueError(1)
    except ValueError:
        return log


@cases((0,), (3,))
def with_if_return_constant_last_finally_raises(n):
    log = []
    try:
        try:
            with _Manager(log):
                if n:
                    log.append(n)
                    return 5
        finally:
            raise ValueError(1)
    except ValueError:
        return log


@cases((1,), (2,), (3,))
def if_try_except_finally_raises_then_more(n):
    # The clause goes on through the finally body's copy, laid past the if (3.12+), which
    # raises: nothing falls out of the inner if's range, whose test skips to `log.append(7)`.
    log = []
    if n % 2:
        log.append(1)
        if not (n > 2):
            try:
                raise ValueError(3)
            except ValueError:
                log.append(4)
            finally:
                raise KeyError(6)
        log.append(7)
    log.append(8)
    return log
