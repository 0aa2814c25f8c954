"""A loop with an else part that ends a with body: 3.10 copies the with's exit (and the return
after it) to each `break`, so the breaks jump past the range of the with body, to copies of the
block where it goes on; the code they skip is the else part. (Only a short block is copied: the
functions return one name.)"""
from _cases import cases


class _Guard:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")

    def __exit__(self, *exc):
        self.log.append("exit")
        return False


@cases(([1, 2, 3], 2), ([1, 2, 3], 5), ([], 1))
def for_else_in_with(items, wanted):
    log = []
    found = False
    with _Guard(log):
        for item in items:
            if item == wanted:
                break
        else:
            found = True
    return found


@cases((3, True, None), (3, False, None), (3, True, 2), (0, True, 1))
def while_else_two_breaks_in_with(count, blocking, limit):
    # Each `break` jumps to its own copy of the with's exit. (Every iteration counts down.)
    log = []
    done = False
    with _Guard(log):
        while count > 0:
            if not blocking:
                break
            if limit is not None:
                limit -= 1
                if limit <= 0:
                    break
            count -= 1
        else:
            done = True
    return done


@cases((3, True, None), (3, False, None), (5, True, 2), (2, True, 9))
def while_else_nested_break_in_with(count, blocking, timeout):
    # threading.Semaphore.acquire: the second `break` is in the else part of an if.
    # (Every iteration counts down.)
    log = []
    done = False
    deadline = None
    with _Guard(log):
        while count > 0:
            if not blocking:
                break
            if timeout is not None:
                if deadline is None:
                    deadline = count + timeout
                else:
                    timeout = deadline - count
                    if timeout <= 0:
                        break
            count -= 1
        else:
            log.append("else")
            done = True
    return done


@cases(([1, 2], 2, True), ([1, 2], 3, True), ([1], 1, False))
def for_else_in_if_in_with(items, wanted, flag):
    log = []
    found = None
    with _Guard(log):
        if flag:
            for item in items:
                if item == wanted:
                    break
            else:
                found = False
        else:
            found = "skipped"
    return found
