"""Reduced shapes of standard-library functions that do not decompile yet (known gaps).

`finally_retry_loop_then_try`: `asyncio.locks.Condition.wait` (3.13 source): a finally body
holding a `while True:` retry loop whose try `break`s and whose except clause falls out, then a
try of its own. On the normal way out (3.12+) the `break` falls into the code after the loop,
laid before the loop's jump back (which only the except clause reaches), and the copy of the
finally body there is not matched with the handler's copy.

`if_nested_try_else_in_try`: `mailbox._lock_file` (3.11): `try: if c:` around a try/except
whose body is a try/except/else; 3.11 leaves the copied `return None`s and the inner handler
code outside the outer try's protected range, so the if's jump to the end reads as leaving it.
"""
from _cases import cases


class _Lock:
    def __init__(self, fails):
        self.fails = fails
        self.log = []

    def acquire(self):
        self.log.append("acquire")
        if self.fails:
            self.fails -= 1
            raise ValueError("busy")

    def release(self):
        self.log.append("release")


@cases((0, False), (2, False), (1, True), (0, True))
def finally_retry_loop_then_try(fails, bad):
    lock = _Lock(fails)
    try:
        try:
            lock.release()
            return True
        finally:
            tries = 0
            while True:
                tries += 1
                if tries > 10:
                    raise RuntimeError("too many")
                try:
                    lock.acquire()
                    break
                except ValueError:
                    pass
            if bad:
                try:
                    raise KeyError(tries)
                finally:
                    lock.log.append("cleanup")
    except BaseException:
        lock.log.append("notify")
        raise


@cases((0, []), (1, []), (2, []), (3, []), (4, []))
def if_nested_try_else_in_try(n, log):
    try:
        if n:
            try:
                try:
                    if n == 2:
                        raise TypeError(n)
                    if n == 3:
                        raise KeyError(n)
                    log.append("body")
                except TypeError:
                    log.append("type")
                else:
                    log.append("else")
            except KeyError:
                log.append("key")
    except ValueError:
        log.append("value")


@cases((0, False), (2, False), (1, True), (0, True))
def finally_retry_loop_then_try_except(fails, bad):
    # (the try after the loop has an except clause instead of a finally body)
    lock = _Lock(fails)
    try:
        lock.release()
        return lock.log
    finally:
        tries = 0
        while True:
            tries += 1
            if tries > 10:
                raise RuntimeError("too many")
            try:
                lock.acquire()
                break
            except ValueError:
                lock.log.append("retry")
        if bad:
            try:
                raise KeyError(tries)
            except KeyError:
                lock.log.append("key")


@cases((0, False), (2, False), (1, True), (3, True))
def finally_retry_loop_then_try_no_return(fails, bad):
    # (the try body falls out: the normal way out of the finally body is its last copy)
    lock = _Lock(fails)
    try:
        lock.release()
    finally:
        tries = 0
        while True:
            tries += 1
            if tries > 3:
                break
            try:
                lock.acquire()
                break
            except ValueError:
                pass
        if bad:
            try:
                lock.log.append(tries)
            finally:
                lock.log.append("cleanup")
    return lock.log
