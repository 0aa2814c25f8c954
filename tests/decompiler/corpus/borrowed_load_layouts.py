"""Layouts that 3.13 compiles alike and 3.14 tells apart by its borrowed loads (`borrows.py`).

3.14 writes a local load that its basic block consumes as LOAD_FAST_BORROW, in the blocks its
borrow pass reaches. Two facts follow, each a pair of shapes here:

- `return a if c else y`: the else arm's load is the last value of its block (it falls into the
  shared RETURN_VALUE) and stays LOAD_FAST; `if c: return a` / `return y` borrows it;
- 3.14 (not 3.15) never reaches the block after a try statement that no handler falls out of:
  code after the try keeps plain loads (and all code only it leads to), the same code in the
  else part borrows them; an else part followed by more code after the try has both.
"""
from _cases import cases


class Box:
    def __init__(self, data):
        self.data = data


@cases((Box(1),), (2,), (None,))
def return_ternary_local_arm(other):
    return other.data if isinstance(other, Box) else other


@cases((Box(1),), (2,), (None,))
def return_if_then_local(other):
    if isinstance(other, Box):
        return other.data
    return other


@cases((0,), (-1,), (5,))
def return_ternary_after_store(n):
    result = n * 2 + 1
    return -2 if result == -1 else result


@cases((1,), ("x",), ([],))
def handler_returns_then_code(item):
    try:
        wr = hash(item)
    except TypeError:
        return False
    return wr % 7 == item


@cases((1,), ("x",), ([],))
def handler_returns_else_code(item):
    try:
        wr = hash(item)
    except TypeError:
        return False
    else:
        return wr % 7 == item


@cases((1,), ([],), ("abc",))
def handler_raises_else_then_code(size):
    try:
        size_index = size.__index__
    except AttributeError:
        raise TypeError(f"{size!r} is not an integer")
    else:
        size = size_index()
    if size < 0:
        size = 0
    return size


@cases(([],), ([1, 2],))
def handler_bare_return_then_code(waiters):
    out = []
    try:
        fut = next(iter(waiters))
    except StopIteration:
        return
    if fut > 1:
        out.append(fut)
    out.append(0)
    return out


@cases(({"a": 1},), ({},))
def handler_returns_none_then_if(d):
    d = dict(d)
    try:
        closed = d["a"]
    except KeyError:
        return None
    if closed:
        return closed
    d["a"] = 1


@cases(([1, None, 2],), ([],))
def loop_handler_breaks_then_code(items):
    items = list(items)
    out = []
    while True:
        try:
            work_item = items.pop()
        except IndexError:
            break
        if work_item is not None:
            out.append(work_item)
    return out


@cases(([1, None, 2],), ([],))
def loop_handler_breaks_else_code(items):
    items = list(items)
    out = []
    while True:
        try:
            work_item = items.pop()
        except IndexError:
            break
        else:
            if work_item is not None:
                out.append(work_item)
    return out



@cases(("ab]", 0, []), ("]", 0, [1]))
def while_true_last_if_returns(src, pos, array):
    # (3.14's borrow pass stops at the empty block a `while True:` loop ends at: code after the
    # loop that the last `break` falls into keeps plain loads, a `return` in the loop borrows)
    while True:
        pos += 1
        if src.startswith("]", pos - 1):
            return (pos + 1, array)


@cases(("ab]", 0, []), ("]", 0, [1]))
def while_true_last_if_breaks(src, pos, array):
    while True:
        pos += 1
        if src.startswith("]", pos - 1):
            break
    return (pos + 1, array)
