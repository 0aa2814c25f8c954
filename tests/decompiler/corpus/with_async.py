"""Context managers and the async constructs: with, async with, async for, await, async generators."""
from _cases import cases


class Tracker:
    """A context manager that logs enter/exit and optionally swallows exceptions."""

    def __init__(self, log, name, swallow=False):
        self.log = log
        self.name = name
        self.swallow = swallow

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self.name.upper()

    def __exit__(self, exc_type, exc, tb):
        self.log.append(("exit", self.name, exc_type.__name__ if exc_type else None))
        return self.swallow


class Step:
    """An awaitable that suspends once, yielding its value to the driver."""

    def __init__(self, value):
        self.value = value

    def __await__(self):
        got = yield self.value
        return (self.value, got)


class AsyncTracker:
    def __init__(self, log, name, swallow=False):
        self.log = log
        self.name = name
        self.swallow = swallow

    async def __aenter__(self):
        await Step(("aenter", self.name))
        self.log.append(("aenter", self.name))
        return self.name

    async def __aexit__(self, exc_type, exc, tb):
        self.log.append(("aexit", self.name, exc_type.__name__ if exc_type else None))
        return self.swallow


class AsyncRange:
    def __init__(self, n):
        self.n = n
        self.i = 0

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.i >= self.n:
            raise StopAsyncIteration
        await Step(("tick", self.i))
        self.i += 1
        return self.i - 1


@cases(())
def with_single():
    log = []
    with Tracker(log, "a") as a:
        log.append(a)
    return log


@cases(())
def with_no_target():
    log = []
    with Tracker(log, "a"):
        log.append("body")
    return log


@cases(())
def with_several_items():
    log = []
    with Tracker(log, "a") as a, Tracker(log, "b"), Tracker(log, "c") as c:
        log.append((a, c))
    return log


@cases(())
def with_tuple_target():
    log = []
    with Tracker(log, "xy") as (x, y):
        log.append(x + y)
    return log


@cases((0,), (1,))
def with_return_inside(kind):
    log = []
    with Tracker(log, "a"):
        if kind:
            return "early", log
        log.append("body")
    return "late", log


@cases(())
def with_swallows_exception():
    log = []
    with Tracker(log, "s", swallow=True):
        raise ValueError("swallowed")
    log.append("after")
    return log


@cases((3,),)
def with_in_loop_break_continue(n):
    log = []
    for i in range(n):
        with Tracker(log, str(i)):
            if i == 0:
                continue
            if i == 2:
                break
            log.append(i)
    return log


@cases(())
def nested_with():
    log = []
    with Tracker(log, "outer") as o:
        with Tracker(log, "inner") as i:
            log.append((o, i))
        log.append("between")
    return log


@cases((0,), (1,))
def with_inside_try(kind):
    log = []
    try:
        with Tracker(log, "t"):
            if kind:
                raise KeyError("k")
            log.append("body")
    except KeyError:
        log.append("caught")
    finally:
        log.append("finally")
    return log


@cases(())
def with_attribute_target():
    log = []

    class Holder:
        pass

    h = Holder()
    with Tracker(log, "attr") as h.value:
        pass
    return log, h.value


@cases((2,),)
async def await_simple(x):
    a = await Step(x)
    b = await Step(x + 1)
    return a, b


@cases(())
async def async_with_items():
    log = []
    async with AsyncTracker(log, "a") as a, AsyncTracker(log, "b") as b:
        log.append((a, b))
    async with AsyncTracker(log, "c"):
        await Step("inside")
    return log


@cases((0,), (1,))
async def async_with_exit_paths(kind):
    log = []
    async with AsyncTracker(log, "s", swallow=bool(kind)):
        if kind:
            raise ValueError
        return "early", log
    return "late", log


@cases((0,), (1,))
def with_exit_paths(kind):
    # The statement after the with is reached only when __exit__ swallows the exception.
    log = []
    with Tracker(log, "s", swallow=bool(kind)):
        if kind:
            raise ValueError
        return "early", log
    return "late", log


@cases((3,),)
async def async_for_loop(n):
    out = []
    async for i in AsyncRange(n):
        if i == 1:
            continue
        out.append(i)
    else:
        out.append("else")
    async for j in AsyncRange(n):
        if j == 1:
            break
    return out, j


@cases((3,),)
async def async_comprehensions(n):
    a = [i async for i in AsyncRange(n)]
    b = {i: await Step(i) async for i in AsyncRange(n) if i}
    c = [await Step(i) for i in range(n)]
    return a, b, c


@cases((3,),)
async def async_generator(n):
    for i in range(n):
        got = await Step(i)
        yield got
    async with AsyncTracker([], "g"):
        yield "in-with"


@cases((2,),)
async def await_in_expressions(n):
    total = (await Step(n))[0] + (await Step(1))[0]
    if (await Step(0))[0]:
        total = -1
    try:
        await Step("try")
        raise ValueError
    except ValueError:
        total += await small_coroutine()
    return total


async def small_coroutine():
    return 100


@cases((2,),)
def generator_using_with(n):
    log = []
    with Tracker(log, "gen"):
        for i in range(n):
            yield i
    yield log


@cases((2,), ("x",))
async def try_returns_await(x):
    # 3.11: the awaited value lands on the return, which lies past the protected range.
    try:
        return await Step(x + 1)
    except TypeError:
        return None


class _Swallow:
    """Swallows ValueError."""

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is ValueError


def _check(fail):
    if fail == "value":
        raise ValueError(fail)
    if fail == "key":
        raise KeyError(fail)


@cases((None,), ("value",))
def return_constant_from_with(fail):
    # 3.10 loads the constant after leaving the with; the way on after a swallowed exception is
    # the implicit `return None` (it read as `return True` after the with).
    with _Swallow():
        _check(fail)
        return True



# A with inside a try whose body ends with a return: when the manager swallows the exception, control
# leaves the with, falls off the try body and reaches the code after the try (3.11-3.13 read the
# return after the `__exit__` call as the try's else part: the swallowed path returned it too).

@cases((None,), ("value",), ("key",))
def try_with_return_constant(fail):
    try:
        with _Swallow():
            _check(fail)
            return True
    except KeyError:
        return False


@cases((None,), ("value",), ("key",))
def try_with_return_value(fail):
    try:
        with _Swallow():
            v = [fail]
            _check(fail)
            return v
    except KeyError:
        return "key"


@cases((None,), ("value",), ("key",))
def try_with_bare_return(fail):
    log = []
    try:
        with _Swallow():
            _check(fail)
            log.append("body")
            return
    except KeyError:
        log.append("key")
    log.append("after")
    return log


@cases((None,), ("value",), ("key",))
def try_with_return_then_more(fail):
    state = "start"
    try:
        with _Swallow():
            _check(fail)
            return "returned"
        state = "swallowed"
    except KeyError:
        state = "key"
    return state


@cases((None,), ("value",), ("key",))
def try_with_return_after_try(fail):
    try:
        with _Swallow():
            _check(fail)
            return 1
    except KeyError:
        return 2
    return 3


class _AsyncSwallow:
    """Swallows ValueError, asynchronously."""

    async def __aenter__(self):
        return self

    async def __aexit__(self, kind, value, tb):
        return kind is ValueError


@cases((None,), ("value",), ("key",))
async def try_async_with_return_constant(fail):
    try:
        async with _AsyncSwallow():
            _check(fail)
            return True
    except KeyError:
        return False


# A with inside an except clause that returns a computed value: the value goes below the
# previous exception (SWAP 2; POP_EXCEPT) after the with's exit call.

@cases((None,), ("value",), ("key",))
def return_from_with_in_handler(fail):
    log = []
    try:
        _check(fail)
    except ValueError:
        with Tracker(log, "h") as name:
            return name + str(len(log))


@cases((None,), ("value",))
def return_from_with_in_both(fail):
    log = []
    try:
        with Tracker(log, "b"):
            _check(fail)
            return len(log)
    except ValueError as exc:
        with Tracker(log, str(exc)) as name:
            return name, len(log)


class _Suppress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


@cases(("ok",), ("boom",))
def with_in_try_ending_the_function(word):
    # 3.11 copies the implicit return to where the suppressing with statement's path leaves the
    # try body: no `else: return`.
    out = []
    try:
        with _Suppress() as s:
            out.append(word)
            if word == "boom":
                raise KeyError(word)
    except OSError as e:
        out.append("os")
        raise ValueError(word) from e
@cases((3,), (0,))
async def async_for_break_copies_return(n):
    # 3.10: the `break` drops the iterator and runs its own copy of the `return` after the loop.
    out = []
    async for j in AsyncRange(n):
        out.append(j)
        if j == 1:
            break
    return out


@cases((3,), (1,))
async def async_for_else_break_copies_return(n):
    out = []
    async for j in AsyncRange(n):
        if j == 2:
            break
        out.append(j)
    else:
        out.append("else")
    return out


def _tick_ok(i, fail):
    if i == fail:
        raise ValueError(i)
    return True


# An async for's way out is the StopAsyncIteration that its await raises: only the exception
# table leads to END_ASYNC_FOR, yet the code after the loop is still part of the try body.

@cases((3, None), (3, 1), (0, None))
async def async_for_then_more_in_try(n, fail):
    out = []
    try:
        async for i in AsyncRange(n):
            _tick_ok(i, fail)
            out.append(i)
        out.append("after")
    except ValueError:
        out.append("handled")
    return out


@cases((3, None), (3, 1))
async def async_comprehension_in_try(n, fail):
    # 3.12+ inlines the comprehension: the store of its result follows END_ASYNC_FOR.
    try:
        got = [i async for i in AsyncRange(n) if _tick_ok(i, fail)]
    except ValueError:
        return "handled"
    return got


@cases((3, None), (3, 1))
async def return_async_comprehension_in_try(n, fail):
    try:
        return tuple([i async for i in AsyncRange(n) if _tick_ok(i, fail)])
    except ValueError:
        return "handled"


# Nested with statements whose body is a try that returns from its else part: the inner with's
# normal exit is reached only from the handler, so 3.11+ lays it after the handler code (3.12+:
# after the function's code), and it jumps over the inner with's handler to the outer one's exit.

@cases((None,), ("value",), ("key",), ("skip",))
def nested_with_try_else_return(fail):
    log = []
    if fail != "skip":
        with Tracker(log, "a"):
            with Tracker(log, "b") as name:
                try:
                    _check(fail)
                except ValueError:
                    log.append("handled")
                else:
                    return name, log
    return None, log


@cases((None,), ("value",), ("key",), ("skip",))
def three_withs_try_else_return(fail):
    log = []
    if fail != "skip":
        with Tracker(log, "a"):
            with Tracker(log, "b"):
                with Tracker(log, "c") as name:
                    try:
                        _check(fail)
                    except ValueError:
                        log.append(name)
                    else:
                        return log
    return log


# A with body that goes on after a try whose else part returns: only the handler reaches the
# rest of the body, which 3.11+ lay after the handler code (it was read after the with, or lost).

@cases((None,), ("value",), ("key",))
def with_try_else_return_then_more(fail):
    log = []
    with Tracker(log, "a"):
        try:
            _check(fail)
        except ValueError:
            log.append("handled")
        else:
            return log
        log.append("rest of the body")
    log.append("after")
    return log


@cases((None,), ("value",), ("key",))
def nested_with_try_else_return_then_more(fail):
    log = []
    with Tracker(log, "a", swallow=True):
        with Tracker(log, "b"):
            try:
                _check(fail)
            except ValueError:
                log.append("handled")
            else:
                return log
        log.append("after b")
    log.append("after a")
    return log


@cases(([1, 2],), ([0, 3],), ([None, 0, 5],))
def with_in_try_returning_in_loop(values):
    # 3.12 lays the suppressing with's way back to the loop's head with the handler code.
    log = []
    for v in values:
        try:
            with _Suppress():
                if v == 0:
                    raise KeyError(v)
                return v + 1
        except TypeError as e:
            log.append(type(e).__name__)
    return log


@cases(([1, 2],), ([0, 3],), ([None, 0, 5],), ([0, 0, 0, 0, 0],))
def with_in_try_returning_in_loop_two_clauses(values):
    log = []
    for attempt, v in enumerate(values):
        try:
            with _Suppress():
                if v == 0:
                    raise KeyError(v)
                return v + 1
        except TypeError as e:
            log.append(type(e).__name__)
            if attempt > 3:
                log.append("many")
        except ValueError:
            raise
    return log


class _Lock:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@cases(([("ok", 1)],), ([],), ([(None, 2)],))
def unpack_after_with_holding_nested_handlers(items):
    # multiprocessing.pool IMapIterator.next: the except clause's way out (POP_EXCEPT, then a
    # jump back to the with's exit) lies with the handler code; the code after the with stays
    # after it (3.12+).
    log = []
    items = list(items)
    with _Lock(log):
        try:
            item = items.pop()
        except IndexError:
            if len(log) > 5:
                raise StopIteration from None
            log.append("wait")
            try:
                item = items.pop()
            except IndexError:
                item = ("late", 0)
    log.append("after")
    success, value = item
    if success:
        return log, value
    return log


@cases((0,), (1,))
def if_with_swallows_then_more(kind):
    # `if c: with cm: return/raise` and more of the if body, which only the handler (that
    # swallowed the exception) reaches: 3.12+ lays it after the handler code, with a jump back
    # to the code after the if.
    log = []
    if kind:
        with Tracker(log, "s", swallow=True):
            raise ValueError("swallowed")
        log.append("after with")
    log.append("after if")
    return log


@cases((0,), (1,))
def if_nested_with_swallows(kind):
    # The inner with swallows: the outer with's normal exit (its `__exit__` call), which only
    # that path reaches, lies after the handler code and jumps back to the code after the if.
    log = []
    if kind:
        with Tracker(log, "a"), Tracker(log, "b", swallow=True):
            raise ValueError("swallowed")
    log.append("after if")
    return log


@cases((0,), (1,))
def if_with_swallows_then_try(kind):
    # The rest of the if body after a with that swallowed holds a try and ends in a copy of
    # the code after the if (`return log`): it stays in the if body.
    log = []
    if kind:
        with Tracker(log, "s", swallow=True):
            raise ValueError("swallowed")
        try:
            log.append(int("x"))
        except ValueError:
            log.append("handled")
    return log


@cases((3,), (-1,))
async def try_return_then_async_for(n):
    # The handler returns and the code after the try is an async for: 3.12+ lays the handler
    # code before the loop's END_ASYNC_FOR (not inside the loop body), and the handler's return
    # is its own, not a copy of the function's end (the loop follows the try, not in an else).
    try:
        if n < 0:
            raise ValueError(n)
    except ValueError:
        return
    async for i in AsyncRange(n):
        yield i


@cases((2,), (-1,))
async def try_return_then_async_for_in_loop(n):
    # The same with the async for inside a for loop: the way on after END_ASYNC_FOR (laid
    # with the handler code) is the outer loop's jump back.
    out = []
    try:
        if n < 0:
            raise ValueError(n)
    except ValueError:
        return out
    for k in range(n):
        async for i in AsyncRange(k + 1):
            out.append((k, i))
    return out


@cases((2,), (-1,))
async def try_return_then_await(n):
    # The same for an await after the try: its CLEANUP_THROW lies after the try's handler, so
    # the await follows the try (in an else part it would come before the handler).
    try:
        if n < 0:
            raise ValueError(n)
    except ValueError:
        return
    await Step(n)


@cases(([1, 2],), (None,))
def try_return_then_yield_from(items):
    # A `yield from` after the try: the same layout as an await.
    try:
        it = iter(items)
    except TypeError:
        return
    yield from it


@cases((1,), (2,), (3,), (4,))
def suppressing_with_returns_in_elif(mode):
    # A with statement whose body returns ends an if body: when the context manager suppresses
    # the exception, the code after the if statement runs, not the elif/else parts (3.12+ read
    # them as code after the if: the suppressed path ran them).
    log = []
    if mode == 1:
        return 1
    elif mode == 2:
        with Tracker(log, "t", swallow=True):
            return 1 / 0
    elif mode == 3:
        return 3
    else:
        return "other"


@cases((2,), (3,), (4,))
def suppressing_with_returns_then_join(mode):
    log = []
    if mode == 2:
        with Tracker(log, "t", swallow=True):
            return 1 / 0
    elif mode == 3:
        log.append(3)
    else:
        log.append(4)
    log.append("after")
    return log


@cases(([1, 2, 3],), ([],))
def suppressing_with_returns_in_loop(modes):
    log = []
    for m in modes:
        if m == 2:
            with Tracker(log, "t", swallow=True):
                return 1 / 0
        else:
            log.append(m)
    return log


# 3.12+ lays an async for's END_ASYNC_FOR with the handler code at the end of the function: when
# the loop ends an if body, the loop's else part and the code after it, which go on from there,
# lie past the if body and jump back into it.

@cases((3, True), (3, False), (0, True))
async def if_async_for_then_more(n, c):
    out = []
    if c:
        async for i in AsyncRange(n):
            out.append(i)
        out.append("after")
    return out


@cases((3, True), (3, False), (0, True))
async def if_async_for_else_branch(n, c):
    out = []
    if c:
        async for i in AsyncRange(n):
            out.append(i)
    else:
        out.append("no")
    return out


@cases((3, True), (3, False), (1, True))
async def if_async_for_break_else_yields(n, c):
    if c:
        async for i in AsyncRange(n):
            if i == 1:
                break
            yield i
        else:
            yield "else"


@cases((2, True), (2, False))
async def if_async_with_async_for_yields(n, c):
    log = []
    if c:
        async with AsyncTracker(log, "w") as a:
            async for i in AsyncRange(n):
                yield (a, i)
        yield "after"
    if c:
        async with AsyncTracker(log, "v"):
            async for i in AsyncRange(n):
                yield i
    yield log


# 3.12+: a `break` pops the iterator and runs on into the code after the async for, laid in
# place; END_ASYNC_FOR (at the end) runs the else part and jumps back to that code.

@cases((3, 1), (3, 7))
async def async_for_break_then_more(n, stop):
    out = []
    async for i in AsyncRange(n):
        if i == stop:
            break
        out.append(i)
    out.append("after")
    return out


@cases((3, 1), (3, 7))
async def async_for_break_else_then_more(n, stop):
    out = []
    async for i in AsyncRange(n):
        if i == stop:
            break
    else:
        out.append("else")
    out.append("after")
    return out


@cases((3, 1), (3, 7))
async def try_finally_async_for_break(n, stop):
    out = []
    try:
        async for i in AsyncRange(n):
            out.append(i)
            if i == stop:
                break
    finally:
        out.append("finally")
    out.append("after")
    return out


@cases((3, 1), (3, 7))
async def async_with_async_for_break(n, stop):
    log = []
    async with AsyncTracker(log, "w"):
        async for i in AsyncRange(n):
            if i == stop:
                break
            log.append(i)
    log.append("after")
    return log


@cases((0,), (1,), (2,), (3,))
def else_try_clause_with_returns_copied(mode):
    # 3.12+: the with in the except clause ends the function from an else part: its body's way
    # out and its handler's (after the manager swallowed the exception) each run their own copy
    # of `POP_EXCEPT; return None`, laid one after the other.
    log = []
    try:
        if mode == 1:
            raise KeyError(mode)
    except KeyError:
        log.append("outer")
    else:
        try:
            if mode >= 2:
                raise ValueError(mode)
            log.append("inner")
        except ValueError:
            with Tracker(log, "w", swallow=True):
                if mode == 3:
                    raise IndexError(mode)
                log.append("in-with")
