"""Exception handling: try/except/else/finally nested, and exits through finally-protected regions."""
from _cases import cases


@cases((0,), (1,), (2,))
def try_except_else_finally(kind):
    log = []
    try:
        log.append("body")
        if kind == 1:
            raise ValueError("v")
        if kind == 2:
            raise KeyError("k")
    except ValueError as e:
        log.append(("value", e.args))
    except (KeyError, IndexError):
        log.append("key-or-index")
    else:
        log.append("else")
    finally:
        log.append("finally")
    return log


@cases((0,), (1,))
def bare_except(kind):
    try:
        if kind:
            raise RuntimeError
        r = "ok"
    except:
        r = "caught"
    return r


@cases((0,), (1,), (2,))
def nested_try(kind):
    log = []
    try:
        try:
            if kind == 1:
                raise ValueError
            log.append("inner-body")
        except ValueError:
            log.append("inner-except")
            if kind == 1:
                raise KeyError("from-inner")
        finally:
            log.append("inner-finally")
        if kind == 2:
            raise IndexError
    except KeyError as e:
        log.append(("outer-key", e.args))
    except IndexError:
        log.append("outer-index")
    finally:
        log.append("outer-finally")
    return log


@cases((0,), (1,))
def try_finally_return(kind):
    log = []
    try:
        if kind:
            return "early", log
        log.append("body")
    finally:
        log.append("finally")
    return "late", log


@cases((0,), (1,))
def return_in_finally(kind):
    try:
        if kind:
            raise ValueError("swallowed")
        return "body"
    finally:
        return "finally"


@cases((4,),)
def break_continue_in_finally(n):
    log = []
    for i in range(n):
        try:
            if i == 1:
                continue
            log.append(("body", i))
        finally:
            log.append(("finally", i))
            if i == 2:
                break
    return log


@cases((4,),)
def continue_inside_finally_block(n):
    log = []
    for i in range(n):
        try:
            log.append(i)
        finally:
            if i % 2:
                continue
        log.append("after")
    return log


@cases((1,), (3,))
def break_in_finally_loop_rebinds(n):
    # The break's exit block (`return x`) is copied after the finally copy: it reads x after the
    # finally body rebinds it, which a `return x` in the try body would not.
    x = 1
    while n:
        try:
            if n > 2:
                break
            n -= 1
        finally:
            x = n * 10
    return x


@cases((3,),)
def break_inside_try_except(n):
    log = []
    while True:
        try:
            n -= 1
            if n == 0:
                break
            if n == 1:
                raise ValueError
        except ValueError:
            log.append("caught")
            continue
        log.append(n)
    return log


@cases((0,), (1,), (2,))
def try_in_loop_in_try(kind):
    log = []
    try:
        for i in range(3):
            try:
                if i == kind:
                    raise ValueError(i)
                log.append(i)
            except ValueError as e:
                log.append(("inner", e.args))
                if kind == 2:
                    raise
            finally:
                log.append("f%d" % i)
    except ValueError as e:
        log.append(("outer", e.args))
    else:
        log.append("outer-else")
    return log


@cases((0,), (1,))
def exception_variable_cleanup(kind):
    e = "before"
    try:
        if kind:
            raise ValueError("x")
    except ValueError as e:
        msg = str(e)
    else:
        msg = "none"
    try:
        e
        bound = True
    except NameError:
        bound = False
    return msg, bound


@cases((0,), (1,), (2,))
def except_with_return_and_raise(kind):
    try:
        if kind == 0:
            return "body"
        raise ValueError(kind)
    except ValueError as e:
        if e.args[0] == 1:
            return "handled"
        raise RuntimeError("converted") from e


@cases((0,), (1,))
def try_except_pass(kind):
    x = 1
    try:
        if kind:
            raise OSError
        x = 2
    except OSError:
        pass
    return x


@cases((2,),)
def finally_with_return_in_loop(n):
    log = []
    for i in range(n):
        try:
            try:
                if i == 1:
                    return log
            finally:
                log.append("inner")
        finally:
            log.append("outer")
    return None


@cases((0,), (1,))
def raise_in_else(kind):
    try:
        pass
    except ValueError:
        return "impossible"
    else:
        if kind:
            raise KeyError("else")
        return "else-ok"


@cases((1,),)
def except_star_like_handlers_in_order(kind):
    out = []
    for exc in (ValueError(1), TypeError(2), KeyError(3), Exception(4)):
        try:
            raise exc
        except (ValueError, TypeError) as e:
            out.append(("vt", e.args))
        except LookupError:
            out.append("lookup")
        except Exception as e:
            out.append(type(e).__name__)
    return out


@cases(())
def try_finally_no_except():
    log = []
    try:
        log.append(1)
    finally:
        log.append(2)
    return log


@cases((0,), (1,))
def handler_reraises_new(kind):
    try:
        try:
            raise ValueError("inner")
        except ValueError:
            if kind:
                raise TypeError("during handling")
            return "quiet"
    except TypeError as e:
        return type(e.__context__).__name__


@cases((0,), (1,))
def try_inside_finally(kind):
    log = []
    try:
        if kind:
            raise ValueError
    except ValueError:
        log.append("caught")
    finally:
        try:
            log.append("cleanup")
            if kind:
                raise KeyError
        except KeyError:
            log.append("cleanup-failed")
    return log


@cases(())
def optional_import():
    try:
        import _depyf_module_that_does_not_exist as missing
    except ImportError:
        missing = None
    try:
        import json
    except ImportError:
        json = None
    return missing, json.__name__


@cases((3,),)
def generator_with_try_finally(n):
    try:
        for i in range(n):
            try:
                yield i
            except GeneratorExit:
                raise
    finally:
        yield "finally"


class _Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


@cases((_Pair(1, 2), _Pair(1, 2)), (_Pair(1, 2), _Pair(1, 3)), (_Pair(1, 2), _Pair(0, 2)), (_Pair(1, 2), 5))
def try_returns_short_circuit(x, y):
    # The `and` jumps straight to the return, which lies past the protected range.
    try:
        return (x.a == y.a
                and x.b == y.b)
    except AttributeError:
        return NotImplemented


@cases((_Pair(0, 2),), (_Pair(1, 0),), (5,))
def try_returns_or_chain(x):
    try:
        return x.a or x.b or None
    except AttributeError:
        return -1


@cases((0,), (1,), (2,))
def two_tries_first_handler_returns(x):
    # 3.10: the first handler's `return` is a copy of the implicit return that ends the second try.
    log = []
    try:
        v = 10 // x
    except:
        return
    try:
        log.append(10 // (v - 5))
    except:
        log.append("err")


@cases((0,), (1,))
def bare_except_returns_value(x):
    try:
        v = 1 // x
    except:
        return -1
    return v


@cases(([1, 2],), ([3, 1],), ([5, 6],), ([],))
def loop_try_last_clause_continues(keys):
    # The clause that continues jumps back to the loop's head; the chain's closing re-raise
    # (no clause matched) comes after that jump.
    d = {1: "one", 2: "two"}
    it = iter(keys)
    while True:
        try:
            return d[next(it)]
        except StopIteration:
            return None
        except KeyError:
            continue


@cases((["a", "", "b"],), (["a", "!"],))
def loop_test_jumps_back_inside_try(specs):
    seen = []
    try:
        for spec in specs:
            if spec and not spec.isalpha():
                raise ValueError(spec)
            seen.append(spec)
    except ValueError as e:
        seen.append(("bad", str(e)))
    return seen


@cases((["a", "", "b"],),)
def written_continue_inside_try(specs):
    seen = []
    try:
        for spec in specs:
            if not spec:
                continue
            seen.append(spec)
    except ValueError:
        pass
    return seen


@cases(((None, None),), (("a", "b"),), (("a", None),), (3,))
def try_body_ends_in_if_else_returns(t):
    try:
        a, b = t
        if a is None:
            a = "C"
        if b is None:
            return a
        else:
            return a + b
    except (TypeError, ValueError):
        return "bad"


@cases((("a", None),), (("a", "b"),), (3,))
def try_body_ends_in_return_after_if(t):
    try:
        a, b = t
        if b is None:
            return a
        return a + b
    except (TypeError, ValueError):
        return "bad"


@cases((("a", None),), (("a", "b"),), (3,))
def try_body_ends_in_if_else_raises(t):
    try:
        a, b = t
        if b is None:
            raise ValueError(a)
        else:
            raise KeyError(b)
    except (TypeError, ValueError):
        return "bad"
    except KeyError as e:
        return str(e)


def _pop_or_fail(parts):
    if parts[0] == "bad":
        raise ImportError(parts[0])
    return parts.pop(0)


@cases((["a", "b"], True), (["a", "bad", "c"], False), (["a", "b"], False), ([], False))
def break_from_clause_in_else_part(items, flag):
    # 3.10: the clause's `break` jumps past the loop's duplicated test, out of the range of the
    # loop body (it read as `pass`: a silent wrong result).
    parts = list(items)
    mod = None
    if flag:
        mod = "flag"
    else:
        while parts:
            try:
                mod = _pop_or_fail(parts)
            except ImportError:
                break
    result = (mod, parts)
    count = len(parts)
    return result, count


@cases(("12",), ("-3",), ("x",), ("",))
def try_else_ends_if_body(text):
    # The clause jumps straight past the if's else part, where the if body's closing jump goes:
    # the code after the clauses is the try's else part (it read as code after the try, run
    # after the clause too: a silent wrong result on 3.8-3.10).
    out = {}
    if text:
        try:
            out["n"] = int(text)
        except ValueError:
            out["n"] = None
        else:
            if out["n"] < 0:
                out["n"] = None
    else:
        out["n"] = "empty"
    out["done"] = True
    return out


@cases(("a",), ("b",), ("c",))
def nested_try_returns_in_named_handler(key):
    # The handler body is one try whose ways out all leave: the `as` name's cleanup is reached
    # only from the inner handler's own cleanup (3.11+).
    primary = {"a": 1}
    fallback = {"b": 2}
    try:
        return primary[key]
    except KeyError as missing:
        try:
            return fallback[key]
        except KeyError:
            raise LookupError(f'{missing}') from None


class _Managed:
    def __init__(self, items):
        self.items = items

    def __enter__(self):
        if self.items is None:
            raise OSError("cannot open")
        return iter(self.items)

    def __exit__(self, *exc):
        return False


@cases(([1, 2],), (None,), ([],))
def with_ends_try_body_then_else_loop(items):
    # 3.11: the with statement's handler code lies between the try body and its else part; the
    # with's normal exit jumps over it (the else part was dropped: a silent wrong result).
    out = []
    try:
        with _Managed(items) as it:
            entries = list(it)
    except OSError:
        out.append("error")
    else:
        for entry in entries:
            out.append(entry)
    return out


@cases(([1, 2],), (None,))
def with_ends_try_body_in_generator(items):
    try:
        with _Managed(items) as it:
            entries = list(it)
    except OSError:
        pass
    else:
        for entry in entries:
            yield entry


@cases((None,), (1,), (0,))
def try_return_conditional_expression(value):
    # 3.11: the try body's return lies after the protected range; the conditional expression's
    # first branch jumps to it.
    try:
        return value if value is None else 10 // value
    except ZeroDivisionError:
        return "zero"


@cases(("1", True), ("1.5", False), ("x", True), (None, True))
def nested_try_in_handler_then_if(text, flag):
    # 3.12+: the inner handler's nested try falls out through the handler's unwinding with a
    # jump back to the `if` after the try (handler code lies at the end): not a loop.
    state = {}
    try:
        try:
            state["v"] = int(text)
        except ValueError:
            try:
                state["f"] = float(text)
            except ValueError:
                state["bad"] = True
        if flag:
            state["flag"] = True
    except TypeError:
        state["type"] = True
    return state


@cases((3,), (0,))
def while_true_try_break_copies_return(n):
    # The `while True:` is left only by the try body's `break`, which copies the code after the
    # loop (3.11+: unprotected, unlike a `return` whose value the try protects); that code
    # exists nowhere else.
    out = []
    while True:
        try:
            n -= 1
            if n < 0:
                break
            out.append(10 // n)
        except ZeroDivisionError:
            out.append("zero")
    return out


@cases((0, ()), (1, (ValueError,)), (2, (ValueError,)), (1, ()))
def except_starred_type_tuple(k, extra):
    # `except (E, *more):` builds its type tuple from a list (3.9+ LIST_EXTEND, 3.12+ an
    # intrinsic call turns it into a tuple)
    try:
        if k == 1:
            raise ValueError(k)
        if k == 2:
            raise KeyError(k)
        return "none"
    except (*extra, KeyError) as e:
        return "caught", type(e).__name__
    except (TypeError, *extra):
        return "typed"
    except Exception:
        return "other"


@cases(([], "1"), ([], "x"))
def bare_except_pass_at_end(values, text):
    # The implicit `return None` after the statement: 3.10 copies it into the clause, which
    # then compiles exactly as a finally body that only returns; it reads as the clause.
    try:
        values.append(int(text))
    except:
        pass
