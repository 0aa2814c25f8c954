"""A `while a and b:` loop whose body ends in a try: 3.12+ copy the `return None` after the loop
to each test of the chain (and of its copy at the bottom), and lay the except clause's jump back
with the handler code at the end. The copies are the loop's way out, not blocks of its body that
return; a clause's jump to the test at the top closes no loop of its own."""
from _cases import cases


class _Waiter:
    def __init__(self, fails):
        self.fails = fails
        self.released = 0

    def release(self):
        if self.fails:
            raise RuntimeError("not held")
        self.released += 1


def notify_waiters(waiters, n):
    while waiters and n > 0:
        waiter = waiters[0]
        try:
            waiter.release()
        except RuntimeError:
            pass
        else:
            n -= 1
        try:
            waiters.remove(waiter)
        except ValueError:
            pass


def drop_first(items, n):
    while items and n > 0:
        first = items[0]
        n -= 1
        try:
            items.remove(first)
        except ValueError:
            pass


def drop_first_or_retry(items, n):
    while items and n > 0:
        first = items[0]
        n -= 1
        try:
            items.remove(first)
        except ValueError:
            continue


@cases((0, 2), (1, 1), (2, 5))
def calls_notify_waiters(failing, n):
    waiters = [_Waiter(k < failing) for k in range(3)]
    kept = list(waiters)
    notify_waiters(waiters, n)
    return len(waiters), [w.released for w in kept]


@cases(([1, 2, 3], 2), ([], 1), ([4], 0))
def calls_drop_first(items, n):
    items = list(items)
    drop_first(items, n)
    left = list(items)
    drop_first_or_retry(left, n)
    return items, left
