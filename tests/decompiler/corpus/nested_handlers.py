"""A try statement inside an except clause. 3.8/3.9 close each try's clauses with a marker of
its own (END_FINALLY / RERAISE), so the nested try's marker must not be read as the end of a
final bare `except:` around it; 3.10 leaves both clauses (two POP_EXCEPTs) and then runs a copy of
the code after the outer try, which is not a `finally` body nor a statement of the inner clause."""
from _cases import cases


@cases(("1",), ("x",), (1.5,), (None,))
def try_in_final_bare_clause(text):
    out = []
    try:
        out.append(int(text, 10))
    except ValueError:
        return "value"
    except:
        try:
            out.append(float(text))
        except:
            out.append("bad")
    return out


@cases(("1",), (1.5,), (None,))
def try_in_bare_clause_reraises(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except:
            value = "bad"
            raise
    return value


@cases(("1",), ("x",), (1.5,), (None,))
def try_in_bare_clause_after_return(text):
    try:
        value = int(text, 10)
    except ValueError:
        return "value"
    except:
        try:
            value = float(text)
        except:
            raise
    return value


@cases(("1",), (1.5,), (None,))
def typed_clauses_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except ValueError:
            return "v"
        except:
            return "bad"
        value += 1
    return value


@cases(("1",), (1.5,), (None,))
def named_clause_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        try:
            value = float(text)
        except TypeError as e:
            value = type(e).__name__
        value = [value]
        try:
            value.append(1)
        except:
            pass
    return value


@cases(("1",), ([],))
def bare_pass_in_bare_clause(text):
    try:
        value = int(text, 10)
    except:
        value = [text]
        try:
            value.append(len(text))
        except:
            pass
    return value


@cases((["1", "2.5", "x", None],), ([],))
def try_in_bare_clause_in_loop(items):
    out = []
    for t in items:
        try:
            value = int(t, 10)
        except:
            try:
                value = float(t)
            except:
                break
            if value:
                continue
        out.append(value)
    return out


@cases(({1: 2}, 1, 3), ({3: 4}, 1, 3), ({}, 1, 3), ({1: 5}, 1, 1))
def inner_clause_returns_past_outer(d, u, v):
    # 3.12+: the inner clause's `return` unwinds both handlers (`POP_EXCEPT; POP_EXCEPT`); it is
    # no code after the inner try.
    try:
        k = d[u]
    except KeyError:
        try:
            k = d[v]
        except KeyError:
            return False
    if k == 5:
        return -5
    return k


@cases(("1",), ("1.5",), ("x",))
def return_in_try_in_clause(text):
    # The inner body's way out unwinds the outer clause too (3.12+: `POP_EXCEPT; RETURN_CONST`);
    # the inner handler's `return` after its own unwinding is its statement, not code after the
    # inner try (3.12/3.13 dropped the inner body's return and ran the handler's).
    try:
        int(text)
        return True
    except ValueError:
        try:
            float(text)
            return True
        except ValueError:
            return False


@cases(("1",), ("1.5",), ("x",))
def clause_try_falls_out_handler_returns(text):
    # The inner body falls out of the outer clause; only its handler returns (3.13 ran that
    # return after the inner body).
    try:
        value = int(text)
    except Exception:
        try:
            value = float(text)
        except Exception:
            return ""
    return value + 1


@cases(("1",), ("1.5",), ("x",))
def clause_try_handler_logs_and_returns(text):
    log = []
    try:
        value = int(text)
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            log.append("bad")
            return log
    return value


@cases((["1", "1.5", "x"],), ([],))
def continue_in_try_in_clause_in_loop(items):
    # The inner handler's `continue` unwinds both clauses and jumps to the loop's head; the inner
    # body leaves the outer clause for the code after the outer try (3.13 read the `continue` as
    # the inner handler falling out of the try).
    out = []
    for x in items:
        try:
            out.append(int(x))
        except ValueError:
            try:
                out.append(float(x))
            except ValueError:
                out.append("bad")
                continue
        out.append("ok")
    return out


@cases((["1", "1.5", "x", "2"],), ([],))
def break_in_try_in_clause_in_loop(items):
    out = []
    for x in items:
        try:
            out.append(int(x))
        except ValueError:
            try:
                out.append(float(x))
            except ValueError:
                out.append("bad")
                break
        out.append("ok")
    return out


def _lookup_or_fail(value):
    if value == "missing":
        raise KeyError(value)
    if value == "broken":
        raise ImportError(value)
    return "found " + value


@cases(("a",), ("missing",))
def clause_returns_after_try_whose_handler_raises(value):
    # 3.10: the inner try's handler never finishes, so the `return` after it follows the inner
    # POP_BLOCK with no jump, leaving the outer clause first (ROT_FOUR, POP_EXCEPT).
    try:
        return _lookup_or_fail(value)
    except KeyError:
        try:
            _lookup_or_fail("a")
        except ImportError:
            raise ValueError("x")
        return value.upper()


@cases(("a",), ("missing",), ("MISSING",))
def clause_if_returns_after_try_whose_handler_raises(value):
    try:
        return _lookup_or_fail(value)
    except KeyError:
        value = value.lower()
        if value == "missing":
            try:
                _lookup_or_fail("b")
            except ImportError:
                raise ValueError("y") from None
            return value
        raise


@cases(("1",), ("1.5",), ("x",), (None,))
def try_in_clause_if_body_else_raises(text):
    # 3.12+ lays the clause's unwinding (POP_EXCEPT, jump back to the code after the outer try)
    # after the else part's `raise`: the inner try's way on, past the if body, is that
    # unwinding, not code after the inner try.
    try:
        value = int(text, 10)
    except ValueError:
        if text:
            try:
                value = float(text)
            except ValueError:
                raise KeyError(text)
        else:
            raise LookupError(text)
    except TypeError:
        value = None
    return value


@cases(("1",), ("1.5",), ("x",), ("",))
def try_in_clause_if_body_else_runs(text):
    try:
        value = int(text, 10)
    except ValueError:
        if text:
            try:
                value = float(text)
            except ValueError:
                return "bad"
        else:
            value = "empty"
    return value



@cases((0, "1"), (1, "1"), (1, "x"), (1, None), (1, []))
def nested_try_in_if_body_before_else(flag, text):
    # 3.11+ give each inner handler's way on (through the end of the outer try and of the if
    # body to the implicit `return None`) its own copy of that block, between the if body and
    # its else part (3.12: after the body's copy, reached by jumps back).
    log = []

    def run():
        if flag:
            try:
                try:
                    log.append(int(text))
                except ValueError:
                    log.append("value")
                except TypeError:
                    log.append("type")
            except AttributeError:
                log.append("attribute")
        else:
            log.append("flag")

    run()
    return log


@cases(("1",), ("1.5",), ("x",), ("",), (None,))
def try_else_in_clause_if_body_else_raises(text):
    # 3.13 copies the clause's way out (POP_EXCEPT, jump back to the code after the outer try)
    # into the inner try's else part; the clause's read points that jump at the clause's end,
    # which is where the inner try goes on, not code after it.
    try:
        value = int(text, 10)
    except ValueError:
        if text:
            try:
                value = float(text)
            except ValueError:
                value = None
            else:
                value = -value
        else:
            raise LookupError(text)
    except TypeError:
        value = 0
    if not value:
        raise IndexError(value)
    return value
