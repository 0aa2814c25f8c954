"""What 3.14's borrowed loads tell about the code a try's body falls into (`borrows.py`).

3.14 never walks the block after a try statement that no handler falls out of: the code after
the try keeps plain loads, the same code in the else part (the block of the body's end) borrows
them. 3.13 compiles both alike. The pairs here need more of the code read to tell:

- the first statement after the try is no plain assignment (`for x in a.b:`, a call with a
  lambda argument, a walrus in a while test, a chained comparison);
- the rest is a lone `break`: the code after the loop tells whether its jump was reached;
- the handler jumps back to the head of a while loop (`except E: continue`);
- the body ends in an if statement, whose test jumps to the rest.
"""
from _cases import cases


class Node:
    def __init__(self, names, level=0):
        self.names = names
        self.level = level


@cases((Node(["a", "b"]), {"a": 1}), (Node(["a"]), None))
def handler_returns_then_for_over_attribute(node, table):
    try:
        module = dict(table)
    except TypeError:
        return
    for name in node.names:
        if name in module:
            module[name] += 1
    return module


@cases((Node(["a", "b"]), {"a": 1}), (Node(["a"]), None))
def handler_returns_else_for_over_attribute(node, table):
    try:
        module = dict(table)
    except TypeError:
        return
    else:
        for name in node.names:
            if name in module:
                module[name] += 1
        return module


def _find(items, key):
    return [key(i) for i in items]


@cases(([1, 2],), (None,))
def handler_returns_then_lambda_argument(items):
    try:
        first = items[0]
    except TypeError:
        return None
    found = _find(items, lambda i: i + first)
    if found:
        return found


@cases(([1, 2],), (None,))
def handler_returns_else_lambda_argument(items):
    try:
        first = items[0]
    except TypeError:
        return None
    else:
        found = _find(items, lambda i: i + first)
        if found:
            return found


@cases(([3, 2, 1],), (None,))
def handler_returns_then_walrus_test(items):
    out = []
    try:
        pending = iter(items)
    except TypeError:
        return out
    while item := next(pending, None):
        out.append(item)


@cases(([3, 2, 1],), (None,))
def handler_returns_else_walrus_test(items):
    out = []
    try:
        pending = iter(items)
    except TypeError:
        return out
    else:
        while item := next(pending, None):
            out.append(item)
        return out


@cases(("1", [4, 5]), ("x", [4]), ("7", []))
def handler_returns_then_chained_test(arg, chain):
    out = []
    try:
        number = int(arg)
    except ValueError:
        out.append("not a number")
        return out
    if 0 <= number < len(chain):
        out.append(chain[number])
    else:
        out.append("out of range")
    return out


@cases(("1", [4, 5]), ("x", [4]), ("7", []))
def handler_returns_else_chained_test(arg, chain):
    out = []
    try:
        number = int(arg)
    except ValueError:
        out.append("not a number")
        return out
    else:
        if 0 <= number < len(chain):
            out.append(chain[number])
        else:
            out.append("out of range")
    return out


@cases((["x", "2", "3"],), (["x"],))
def for_try_else_break_then_code(texts):
    for text in texts:
        try:
            value = int(text)
        except ValueError:
            pass
        else:
            break
    else:
        raise LookupError("no number")
    return value * 2


@cases((["x", "2", "3"],), (["x"],))
def for_try_break_after_then_code(texts):
    for text in texts:
        try:
            value = int(text)
        except ValueError:
            continue
        break
    else:
        raise LookupError("no number")
    return value * 2


@cases((["x", "2", "3"],), (["x"],))
def for_try_else_break_then_longer_code(texts):
    for text in texts:
        try:
            value = int(text)
        except ValueError:
            pass
        else:
            break
    else:
        raise LookupError("no number")
    doubled = [value, value]
    return sum(doubled) + len(texts)


@cases((["1", "x", "2"],), ([],))
def while_true_handler_continue_then_code(texts):
    pending = list(texts)
    out = []
    while True:
        if not pending:
            return out
        try:
            value = int(pending.pop())
        except ValueError:
            continue
        item = [value]
        out.append(item)


@cases((["1", "x", "2"],), ([],))
def while_true_handler_continue_else_code(texts):
    pending = list(texts)
    out = []
    while True:
        if not pending:
            return out
        try:
            value = int(pending.pop())
        except ValueError:
            continue
        else:
            item = [value]
            out.append(item)


@cases((["x", "2"],), (["x", "y", "0"],))
def while_true_try_else_break_then_code(texts):
    pending = list(texts)
    while True:
        try:
            handle = int(pending.pop(0))
        except ValueError as e:
            if not pending:
                raise LookupError("none") from e
        else:
            break
    pending.append(handle)
    return pending


@cases((["x", "2"],), (["x", "y", "0"],))
def while_true_try_else_code_returns(texts):
    pending = list(texts)
    while True:
        try:
            handle = int(pending.pop(0))
        except ValueError as e:
            if not pending:
                raise LookupError("none") from e
            continue
        else:
            pending.append(handle)
            return pending


class Sink:
    def __init__(self, ok):
        self.ok = ok
        self.log = []

    def ready(self):
        return self.ok

    def close(self):
        self.log.append("close")
        return self.log


@cases((Sink(True),), (Sink(False),))
def try_body_ends_in_if_handler_returns(sink):
    try:
        if sink.ready():
            sink.log.append("send")
    except ValueError:
        return None
    sink.close()


@cases((Sink(True),), (Sink(False),))
def try_body_ends_in_if_then_code(sink):
    try:
        if not sink.ready():
            sink.log.append("send")
    except:
        raise
    sink.close()


@cases((Sink(True),), (Sink(False),))
def try_body_ends_in_if_else_code(sink):
    try:
        if not sink.ready():
            sink.log.append("send")
    except:
        raise
    else:
        sink.close()
