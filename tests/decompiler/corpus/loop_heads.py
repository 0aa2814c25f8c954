"""Loops that start where another statement starts: a `while True:` (alone or in a try) that
begins the body of an enclosing loop, so both loops jump back to one place once the line's NOP
is gone; a try whose body is a loop; and a while loop whose body leaves only through its except
clause, so that its test at the bottom lies after the handler (3.11+), past the loop's exit."""
from _cases import cases


class _Feed:
    """Steps through a list; StopIteration when done, as an iterator's __next__ does."""

    def __init__(self, items):
        self.items = list(items)

    def __call__(self):
        if not self.items:
            raise StopIteration
        return self.items.pop(0)


@cases(([3, 1, 2],), ([],), ([5],))
def while_true_first_in_while(stacks):
    stacks = list(stacks)
    out = []
    while len(stacks) > 0:
        while True:
            out.append(stacks[-1])
            if stacks[-1] % 2:
                break
            stacks[-1] -= 1
        stacks.pop()
    return out


@cases((4,), (0,))
def while_true_first_in_while_true(n):
    out = []
    while True:
        while True:
            n -= 1
            out.append(n)
            if n % 3 == 0:
                break
        if n <= 0:
            break
    return out


@cases(([1, 2, 3],), ([],))
def try_holding_while_true(items):
    feed = _Feed(items)
    out = []
    try:
        while True:
            out.append(feed() * 2)
    except StopIteration:
        pass
    return out


@cases(([[1, 2], [3], []],), ([],))
def while_body_leaves_through_handler(feeds):
    # The inner loop never ends by itself: the outer loop's test at the bottom follows the
    # handler, after the block that returns.
    feeds = [_Feed(f) for f in feeds]
    out = []
    while len(feeds) > 0:
        try:
            while True:
                out.append(feeds[0]())
        except StopIteration:
            feeds.pop(0)
    return out


@cases(([[1, 2], [3]],), ([],))
def while_body_leaves_through_handler_no_return(feeds):
    feeds = [_Feed(f) for f in feeds]
    seen = []
    while feeds:
        try:
            while True:
                seen.append(feeds[-1]())
        except StopIteration:
            feeds.pop()
    seen.sort()


@cases(([[1, 5], [2, 3]],), ([[4]],), ([],))
def merge_generator(lists):
    # heapq.merge's shape: a generator whose while loop is closed only through its handler.
    heads = [[f(), f] for f in (_Feed(x) for x in lists) if f.items]
    heads.sort(key=lambda h: h[0])
    while len(heads) > 1:
        try:
            while True:
                value, step = heads[0]
                yield value
                heads[0][0] = step()
                heads.sort(key=lambda h: h[0])
        except StopIteration:
            heads.pop(0)
    if heads:
        value, step = heads[0]
        yield value
        yield from step.items


@cases((3,), (0,))
def statement_then_try_holding_while_true(n):
    items = list(range(n))
    total = 0
    while items:
        total += 100
        try:
            while True:
                total += items.pop()
                if total > 1000:
                    raise StopIteration
        except IndexError:
            total += 1
    return total


@cases(([[], ["a"], [], ["b", "c"]],), ([],))
def while_test_if_not_continue(stack):
    # 3.10+: a `continue` goes back to the test at the top; the end of the body to its copy at
    # the bottom, so `if not words: continue` is no `if words: <rest>`.
    stack = list(stack)
    out = []
    while stack:
        words = stack.pop()
        if not words:
            continue
        out.append(words[0])
    return out


@cases(([[], ["a", "#"], ["#"], ["b", "c"]],), ([],))
def while_test_for_break_then_continue(stack):
    stack = list(stack)
    out = []
    while stack:
        words = list(stack.pop())
        for i in range(len(words)):
            if words[i] == "#":
                del words[i:]
                break
        if not words:
            continue
        out.append(words)
    return out


@cases(([1, 2, 1, 3],), ([],), (None,))
def continue_to_while_test_inside_try(items):
    # A try whose body is a while loop with a `continue`: the try and the loop start at the
    # loop's test; 3.12+ leaves the jump back of the test at the bottom unprotected.
    items = list(items) if items is not None else None
    out = []
    try:
        while items:
            c = items.pop()
            if c == 1:
                continue
            out.append(c)
    except TypeError:
        out.append("error")
    out.append("end")
    return out


@cases(("r", {"r": "rb"}, ["r"]), ("w", {}, []), ("r", {}, ["r"]), ("", {}, []))
def while_true_closed_by_handler_in_if(mode, fallbacks, failing):
    # zipfile.ZipFile.__init__: a `while True:` inside an if branch whose only jump back is its
    # handler's `continue` (3.12+: in the handler code at the end, past the branch).
    log = []
    if mode:
        while True:
            try:
                if mode in failing:
                    raise OSError(mode)
                log.append(mode)
            except OSError:
                if mode in fallbacks:
                    mode = fallbacks[mode]
                    continue
                log.append("failed")
            break
    else:
        log.append("no mode")
    log.append("after")
    log.append(len(log))
    return log


@cases(([1, 300, 70000, 2],), ([],))
def while_true_closed_by_handler_in_for(values):
    # re._compiler._optimize_charset: the same loop inside a for loop; its `break` falls into
    # the for loop's jump back. (3.11 ended the loop at the handler's `continue`: its `break`
    # after the handler was dropped, an endless loop.)
    out = []
    for v in values:
        limit = 256
        while True:
            try:
                if v >= limit:
                    raise IndexError(v)
                out.append(v)
            except IndexError:
                if limit == 256:
                    limit = 65536
                    continue
                out.append("too big")
            break
    return out


@cases((["1", "0.5", "x", "7.5"],), ([],))
def for_body_after_try_reached_from_handlers(args):
    # pstats ProfileBrowser.generic: the try bodies end in `continue`, so the rest of the loop
    # body is reached only from the handlers (3.12+ lays it after the handler code).
    processed = []
    for term in args:
        try:
            processed.append(int(term))
            continue
        except ValueError:
            pass
        try:
            frac = float(term)
            if frac > 1 or frac < 0:
                processed.append("bad")
                continue
            processed.append(frac)
            continue
        except ValueError:
            pass
        processed.append(term)
    return processed


@cases((["5"],), (["1", "x"],), (["x"],), (["3", "ab", "7"],), (["a", "b"],))
def while_true_closed_by_handler_then_raise(values):
    # tarfile.TarFile.next: the clause's `continue` is the loop's only jump back; the clause's
    # `raise` and the chain's closing re-raise follow it, then the `break` the body falls into
    # (3.10 ended the loop at the `continue`: the `break` was lost and the `raise` ran after the
    # loop, a silent wrong result).
    values = list(values)
    while True:
        try:
            v = int(values.pop())
        except ValueError:
            if values:
                continue
            raise
        break
    for x in values:
        v += len(x)
    return v


@cases((["5"],), (["1", "x"],), (["x"],), ([None, "2"],), ([None],), ([],))
def while_true_closed_by_named_handler_with_else(values):
    # The same with a named clause, a second clause after it, and an else part.
    values = list(values)
    log = []
    while True:
        try:
            v = int(values.pop())
        except ValueError as e:
            log.append(type(e).__name__)
            if values:
                continue
            raise
        except (TypeError, IndexError):
            log.append("other")
            v = -1
        else:
            log.append("ok")
        break
    log.append(v)
    return log


@cases((["5", "x"], True), (["x"], True), (["1", "x"], False), ([], True))
def while_true_closed_by_handler_in_if_then_return(values, enabled):
    # Inside an if branch, with a clause that returns and a `break` after the try.
    values = list(values)
    v = 0
    if enabled:
        while True:
            try:
                v = int(values.pop())
            except ValueError:
                if values:
                    continue
                return "exhausted"
            except IndexError:
                return "empty"
            break
    else:
        v = -1
    return v + len(values)


@cases(([["x", "3"], ["4"]],), ([["x", "3"], ["y"]],), ([],))
def while_true_closed_by_handler_in_for_then_raise(groups):
    # Inside a for loop; the clause's other way out is a raise.
    out = []
    for group in groups:
        values = list(group)
        while True:
            try:
                v = int(values.pop(0))
            except ValueError:
                if values:
                    continue
                raise
            break
        out.append(v)
    return out


@cases((5,), (0,), (-1,))
def while_chained_compare(n):
    # 3.10 repeats the test at the bottom; a chained comparison's cleanup (POP_TOP) follows
    # the loop there, and at the top a jump over it enters the body.
    i = 0
    while 0 <= i < n:
        i += 1
    return i


@cases(([3, 0, 2], 4), ([], 1))
def while_chained_compare_in_for(items, n):
    seen = []
    for x in items:
        i = 0
        while 0 <= i < n <= 10:
            if x == i:
                break
            seen.append(i)
            i += 1
    return seen


@cases(([3, -1, 7], 5), ([], 2))
def while_chained_compare_closes_for(items, n):
    # 3.12+: the loop's exit is the for loop's head: both the chained comparison's cleanup and
    # the way out when its last comparison is false jump back there.
    total = 0
    for x in items:
        i = x
        while 0 <= i < n:
            i += 1
        total += i
    return total


@cases((4, 2), (0, 0), (-3, 1))
def while_chained_compare_then_return(n, k):
    # 3.12+: the exit block (a return) is copied after the chained comparison's cleanup at the
    # top, and after the loop's last test at the bottom.
    i = k
    while k <= i < n:
        i += 2
    return i * 10


@cases(([1, 2], 3), ([], 3), ([5], 0))
def while_operand_then_chained_compare(items, n):
    i = 0
    while items and 0 <= i < n:
        if i == 1:
            i += 2
            continue
        i += 1
    items_len = len(items)
    return i, items_len, n


@cases(([1, "x", 2],), (["a", "b"],), ([],))
def while_true_closed_by_named_clause(values):
    # The try body only returns: the loop ends with the except clauses (the `raise` and the
    # closing re-raise lie after the clause's `continue`, 3.8-3.10).
    pending = iter(values)
    while 1:
        try:
            return int(next(pending)) * 2
        except (TypeError, ValueError) as exc:
            if str(exc):
                continue
            raise
        except StopIteration:
            return None


@cases(([["1", "x"], ["y"], ["a", "3"], ["x", "y"]],), ([],))
def try_holding_while_true_closed_by_handler(groups):
    # 3.12+: the inner handler's `continue` (the loop's only jump back) lies in the handler code
    # at the end; the outer try ends where its body falls out of the loop (the `break`), so the
    # code after it runs once per group, not inside the loop.
    out = []
    for group in groups:
        values = list(group)
        try:
            while True:
                try:
                    v = int(values.pop())
                except ValueError:
                    if values:
                        continue
                    raise
                break
        except ValueError:
            v = "bad"
        out.append(v)
    return out


@cases(([3, 0, 2],), ([],), ([0, 0],))
def while_test_ends_for_body(counts):
    # 3.12+: a while loop that ends a for loop's body exits straight to the for loop's head:
    # its test at the top jumps into the body when true and falls into that jump back.
    out = []
    for c in counts:
        while c:
            c -= 1
            out.append(c)
    return out


@cases(([[1, 2], [], [3]],), ([],))
def while_test_try_break_ends_for_body(feeds):
    # The loop's body leaves only through its try's `break`: its test at the bottom follows
    # the handler code, and its exit jumps to the for loop's head.
    out = []
    for items in feeds:
        feed = _Feed(items)
        while feed.items:
            try:
                out.append(feed() * 2)
                break
            except StopIteration:
                out.append("stop")
    return out


@cases((["ab", "", "c"],), ([],))
def while_test_try_break_then_code_in_loop(words):
    # The code after the loop lies between the try body (whose `break` falls into it) and the
    # handler code: the loop ends there.
    out = []
    words = list(words)
    while True:
        out.append(len(words))
        feed = _Feed(words.pop(0) if words else "")
        while feed.items:
            try:
                out.append(feed())
                break
            except StopIteration:
                out.append("stop")
        out.append("after")
        if not words:
            return out


@cases(([2, 0, 3],), ([],))
def while_else_break_of_while_true(counts):
    # graphlib.TopologicalSorter._find_cycle: the inner loop's `else: break` leaves the
    # `while True:`; its test jumps straight past it, to the for loop's head.
    out = []
    for c in counts:
        feed = _Feed(range(c))
        while True:
            out.append("round")
            while feed.items:
                try:
                    out.append(feed())
                    break
                except StopIteration:
                    out.append("stop")
            else:
                break
    return out


@cases(([1, 2, 3],), ([],))
def while_else_break_then_return(items):
    # The same, the `while True:` followed by a return (3.12+ moves it after the loop).
    feed = _Feed(items)
    out = []
    n = None
    while True:
        if len(out) > 10:
            return out
        while feed.items:
            try:
                n = feed()
                out.append(n)
                break
            except StopIteration:
                out.append("stop")
        else:
            break
    return n
@cases(([3, 0, 2], 4), ([], 1))
def while_true_first_test_breaks_in_for(items, n):
    # 3.8/3.9: the first test goes to the `break`, and stopped at the loop's exit where that
    # `break` first went before it was sent on to the for loop's way back.
    seen = []
    for x in items:
        i = 0
        while True:
            if not i < n or x == i:
                break
            seen.append(i)
            i += 1
    return seen


@cases((3,), (0,))
def while_and_test_then_break_in_while(n):
    # 3.8/3.9: the test's exit and the `break` are both sent through the outer loop's way back;
    # the test jumps there from the exit, the `break` first went to the exit.
    seen = []
    k = n
    while k:
        k -= 1
        i = 0
        while 0 <= i and i < n:
            if k == i:
                break
            seen.append(i)
            i += 1
    return seen


@cases(([[3, 0, 2], [1]],), ([[]],), ([],))
def while_ending_for_body_with_continue(groups):
    # 3.10+: the `continue` makes the while loop's top test a loop head of its own; that test's
    # way out went straight to the for loop's head.
    out = []
    for group in groups:
        stack = list(group)
        while stack:
            item = stack.pop()
            if not item:
                continue
            out.append(item)
    return out


@cases(([[1, 0, "x", 2]],), ([[0], []],))
def while_ending_for_body_with_try_and_continue(groups):
    out = []
    for group in groups:
        if not group:
            continue
        stack = [iter(group)]
        while stack:
            try:
                item = next(stack[-1])
                if not isinstance(item, int):
                    continue
                if item == 0:
                    out.append("zero")
                out.append(item)
            except StopIteration:
                stack.pop()
    return out


@cases(([None, 3], True), ([None, 3], False), ([5], False))
def while_true_continue_then_returning_blocks(events, block):
    # _pyrepl Reader.handle1: the loop's last jump back is the `continue`; the blocks after it
    # both return, so the test's two ways out are the body's, not a `break` to one place.
    events = list(events)
    done = []
    while True:
        event = events.pop(0)
        if event is None:
            if block:
                continue
            return False
        done.append(event)
        return done


@cases(([0, None, 4], True), ([None, 2], False), ([1, 3], True))
def while_true_two_continues_then_returning_blocks(events, block):
    events = list(events)
    seen = []
    while True:
        event = events.pop(0)
        if not event:
            if block:
                continue
            return "empty"
        cmd = event if event % 2 == 0 else None
        if cmd is None:
            seen.append(event)
            if block and events:
                continue
            return seen
        seen.append(cmd * 10)
        return seen


@cases(([None, 7],), ([None],))
def while_true_continue_then_raise_or_return(items):
    items = list(items)
    while True:
        item = items.pop(0)
        if item is None:
            if items:
                continue
            raise LookupError("nothing")
        return item
