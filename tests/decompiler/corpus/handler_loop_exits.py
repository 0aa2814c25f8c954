"""A `while True:` whose try's handlers `break` or `continue` it. From 3.12 handler code lies
after everything; the code after such a loop, which only a handler's `break` reaches, is laid
after (or right behind) the handler code, and a handler's `continue` jumps to the loop's head
while falling out of the try goes to the loop's own jump back."""
from _cases import cases


@cases((["1", "x", "2"],), ([],), (["y"],))
def handler_continue_then_rest_of_body(items):
    pending = list(items)
    out = []
    while True:
        try:
            v = int(pending.pop())
        except ValueError:
            continue
        except IndexError:
            break
        out.append(v)
    return out


@cases((["1", "x", "2"],), ([],))
def handler_continue_or_break_in_body(items):
    pending = list(items)
    out = []
    while True:
        try:
            v = pending.pop()
            if v == "x":
                break
            out.append(int(v))
        except ValueError:
            continue
        except IndexError:
            break
    return out


@cases(([1, 2],), ([],))
def handler_break_then_code(items):
    pending = list(items)
    n = 0
    while True:
        try:
            pending.pop()
        except IndexError:
            break
        n += 1
    return n * 2


@cases(([1, 2], True), ([1], False))
def handler_break_then_code_in_if(items, flag):
    pending = list(items)
    state = {}
    if flag:
        while True:
            try:
                pending.pop()
            except IndexError:
                break
        state["drained"] = len(pending)
    return state


@cases(([1, 2], True, True), ([1], True, False), ([], False, True))
def handler_break_then_code_in_nested_if(items, a, b):
    pending = list(items)
    state = {}
    if a:
        state["a"] = True
        if b:
            while True:
                try:
                    pending.pop()
                except IndexError:
                    break
            state["b"] = len(pending)
    return state


@cases(([b"ab", b"c", b""],), ([b"ab", None],), ([None],))
def breaks_copy_exit_block_in_handler(chunks):
    # Only breaks leave the loop; 3.12+ copies the block after it (`return tuple(out)`) into
    # each of them, the handler's copy right after its unwinding.
    pending = list(chunks)
    out = []
    while True:
        try:
            chunk = pending.pop(0)
            chunk + b""
        except TypeError:
            if out:
                break
            return None
        if not chunk:
            break
        out.append(chunk)
    return tuple(out)


@cases(([["x", "2"], ["y"], ["3", "x"]],), ([["x"]],), ([],))
def while_test_try_break_after_handler(groups):
    # `while s:` whose body never falls off its end (3.10: no copy of the test at the bottom):
    # the try body's jump over its handlers goes to the loop's exit, a `break`.
    for s in groups:
        s = list(s)
        try:
            while s:
                try:
                    v = int(s.pop())
                except ValueError:
                    if s:
                        continue
                    raise
                break
            return v
        except ValueError:
            pass
    return None


@cases((["1", "x", "2"],), (["x"],), ([],))
def while_test_try_break_then_return(items):
    s = list(items)
    v = None
    while s:
        try:
            v = int(s.pop())
        except ValueError:
            if s:
                continue
            raise
        break
    return v


@cases(([b"ab", b"c"], [1]), ([b"abc"], []), ([b"x", None], [2]), ([None], []))
def while_true_ends_in_if_break_after_try(chunks, results):
    # lzma.decompress: the loop body ends with `if not data: break` after a try whose handler
    # breaks; 3.12+ keep that break's jump right before the loop's jump back, which the test
    # jumps to when true. (It was read as an unconditional `break` after an empty if.)
    out = list(results)
    chunks = list(chunks)
    while True:
        try:
            res = len(chunks[0])
        except TypeError:
            if out:
                break
            else:
                raise
        out.append(res)
        chunks = chunks[1:]
        if not chunks:
            break
    return out
