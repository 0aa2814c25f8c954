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


@cases(([1, 2, 3],), ([],))
def while_true_handler_breaks_then_code(items):
    # (the code after the loop, which only the handler's `break` reaches, lies past the handler
    # code: the rest of the body after the try goes back to the loop's head on its own)
    pending = list(items)
    out = []
    while True:
        try:
            item = pending.pop()
        except IndexError:
            break
        out.append(item)
    if out:
        out.append(len(out))
    return out


@cases(([1, 2, 3],), ([],))
def while_true_handler_breaks_else_code(items):
    pending = list(items)
    out = []
    while True:
        try:
            item = pending.pop()
        except IndexError:
            break
        else:
            out.append(item)
    if out:
        out.append(len(out))
    return out


class Log:
    def __init__(self):
        self.entries = []
        self.name = None


@cases((None, [5, 1]), ("x", [1]), ("y", [5, 1]))
def while_true_try_finally_code_then_break(name, codes):
    # (3.14 borrows the loads of code the loop body runs before its last `break`; the same code
    # after the loop, which that `break` falls into, keeps plain loads)
    codes = list(codes)
    log = Log()
    if name is None or codes[0] == 5:
        while True:
            temp_name = "t%d" % len(codes)
            try:
                code = codes.pop(0)
                if code == 5:
                    if name is not None:
                        raise LookupError(name)
                    else:
                        continue
                log.entries.append(code)
            finally:
                log.entries.append(temp_name)
            log.name = temp_name
            break
    else:
        log.name = name
    return log.entries, log.name


@cases((None, [5, 1]), ("x", [1]), ("y", [5, 1]))
def while_true_try_finally_break_then_code(name, codes):
    codes = list(codes)
    log = Log()
    if name is None or codes[0] == 5:
        while True:
            temp_name = "t%d" % len(codes)
            try:
                code = codes.pop(0)
                if code == 5:
                    if name is not None:
                        raise LookupError(name)
                    else:
                        continue
                log.entries.append(code)
            finally:
                log.entries.append(temp_name)
            break
        log.name = temp_name
    else:
        log.name = name
    return log.entries, log.name


@cases(([5, 1],), ([1],))
def while_true_try_finally_code_then_break_alone(codes):
    codes = list(codes)
    log = Log()
    while True:
        temp_name = "t%d" % len(codes)
        try:
            code = codes.pop(0)
            if code == 5:
                continue
            log.entries.append(code)
        finally:
            log.entries.append(temp_name)
        log.name = temp_name
        break
    log.entries.append(0)
    return log.entries, log.name


@cases(([5, 1],), ([1],))
def while_true_try_finally_break_then_code_alone(codes):
    codes = list(codes)
    log = Log()
    while True:
        temp_name = "t%d" % len(codes)
        try:
            code = codes.pop(0)
            if code == 5:
                continue
            log.entries.append(code)
        finally:
            log.entries.append(temp_name)
        break
    log.name = temp_name
    log.entries.append(0)
    return log.entries, log.name


def _key_at(keys, i):
    return keys[i]


@cases((["a", "\0b", "c"],), ([],))
def generator_else_yields_then_code(keys):
    # (the else part's if statement yields: the reading goes on past it, at its end)
    return list(_else_yields_then_code(keys))


def _else_yields_then_code(keys):
    i = 0
    while True:
        try:
            key = _key_at(keys, i)
        except IndexError:
            break
        else:
            if "\0" not in key:
                yield key
        i += 1


@cases((["a", "\0b", "c"],), ([],))
def generator_else_yields_else_code(keys):
    return list(_else_yields_else_code(keys))


def _else_yields_else_code(keys):
    i = 0
    while True:
        try:
            key = _key_at(keys, i)
        except IndexError:
            break
        else:
            if "\0" not in key:
                yield key
            i += 1
