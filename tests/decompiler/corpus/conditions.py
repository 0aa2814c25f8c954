"""Condition shapes: boolean operators, comparisons and conditional expressions as jump targets
(in if/while/assert/return and inside conditional expressions), where the compiler's jump
layout depends on the exact expression."""
from _cases import cases

INPUTS = [(0, 0, 0), (0, 1, 2), (1, 0, 2), (1, 2, 0), (3, 2, 1), (1, 1, 1)]


@cases(*INPUTS)
def if_chained_comparison(a, b, c):
    if a < b < c:
        return "ascending"
    if a == b == c:
        return "flat"
    if not a < b <= c:
        return "not-asc"
    return "other"


@cases(*INPUTS)
def if_mixed_and_or_not(a, b, c):
    out = []
    if a and not b or c:
        out.append(1)
    if not (a or b) and c:
        out.append(2)
    if a or (b and not c):
        out.append(3)
    if (a or b) and (b or c):
        out.append(4)
    if not a and not b and not c:
        out.append(5)
    if a and b or not c and a:
        out.append(6)
    return out


@cases(*INPUTS)
def if_with_conditional_expression_test(a, b, c):
    if (b if a else c):
        r = 1
    else:
        r = 2
    if a and (b if c else not b):
        r += 10
    return r


@cases(*INPUTS)
def return_boolean_expressions(a, b, c):
    return (not a or b), (a and b or c), (not (a and b)), (a < b and b < c), (a or b or c)


@cases(*INPUTS)
def elif_chain_with_boolean_ops(a, b, c):
    if a and b:
        return 1
    elif a or c:
        return 2
    elif not b and c:
        return 3
    elif b < c < 5:
        return 4
    return 5


@cases((5, 1), (0, 3), (2, 2))
def while_with_boolean_condition(n, step):
    i = 0
    while i < n and (step or i < 2):
        i += step or 1
    j = n
    while not (j <= 0 or j == 3):
        j -= 1
    return i, j


@cases(*INPUTS)
def assert_with_boolean_condition(a, b, c):
    assert a or b or c, "all zero"
    assert not (a and b and c) or a == b == c, "unequal triple"
    return True


@cases(*INPUTS)
def conditional_expression_with_boolean_test(a, b, c):
    x = "yes" if a and b else "no"
    y = "yes" if a or not c else "no"
    z = a if not b else (c if a else b)
    return x, y, z


@cases(*INPUTS)
def comparison_operators_as_values(a, b, c):
    return [a < b, a <= b, a == b, a != b, a > b, a >= b, a is b, a is not c, a in (b, c), a not in (b,)]


@cases(*INPUTS)
def nested_if_with_else_and_returns(a, b, c):
    if a:
        if b:
            if c:
                return "abc"
            return "ab"
        elif c:
            return "ac"
        else:
            x = "a"
    else:
        x = "none"
    return x


@cases(*INPUTS)
def if_in_loop_with_compound_conditions(a, b, c):
    hits = []
    for i in range(4):
        if i == a or i == b and not c:
            hits.append(i)
            continue
        if i > c and (i < 3 or a):
            break
    return hits


@cases(*INPUTS)
def boolean_values_in_calls_and_containers(a, b, c):
    return [a and b, b or c], {"k": not a or c}, max(a or 1, b and 2 or 3)


@cases(*INPUTS)
def condition_with_walrus_and_short_circuit(a, b, c):
    if a and (t := b + c) > 1:
        return t
    if (u := a or b) and c:
        return u
    return -1


@cases(({None: 5.0}, lambda t: False), ({1: 2},), ({None: 1.0}, lambda t: True))
def assert_ends_if_body_before_else(partials, isfinite=None):
    # 3.12+: the assert's way on goes straight past the else part; no jump over the else.
    if None in partials:
        total = partials[None]
        assert not isfinite(total)
    else:
        total = sum(partials)
    doubled = total * 2
    return doubled, total


@cases((1, 1), (1, 0), (0, 0), (0, 1))
def inner_if_else_raise_ends_if_body(a, b):
    if a:
        if b:
            x = 1
        else:
            raise ValueError(b)
    else:
        x = 2
    y = x + 1
    return y


@cases((None, None, 0), (1, None, 1), (None, 1, [1]), (1, 1, [2]))
def negated_chain_of_identity_tests(a, b, c):
    # `not (x is y and ...)`: pushing the `not` into the comparison would turn `is` into
    # `is not`, another instruction; it stays around the whole chain.
    out = []
    if not (a is None and b is None):
        out.append(1)
    if not (type(c) is int and c == 1 and a is not None):
        out.append(2)
    if not (a in (1, 2) or b is None):
        out.append(3)
    while not (a is None or c in (0, 1)):
        out.append(4)
        break
    assert not (a is None and c is None), out
    return out


@cases((None, None, 0), (1, None, 0), (None, None, 1), (None, 2, 1))
def not_around_all_identity_tests(a, b, seen):
    if not (a is None and b is None):
        return "has"
    elif seen:
        return "seen"
    return "none"


@cases((1, [1, 2]), (3, [1, 2]), (3, []))
def not_around_membership_and_name(x, xs):
    if not (x in xs or not xs):
        return "out"
    return "in-or-empty"


@cases((None, 5), (3, 2), (3, 4), (0, 0))
def none_test_and_comparison(last, stamp):
    # 3.11+ fuse `x is not None` into its jump (POP_JUMP_IF_NONE): read back as written, not as
    # `not (last is None or not stamp <= last)`.
    if last is not None and stamp <= last:
        stamp = last + 1
    if last is None and stamp:
        stamp = -stamp
    return stamp


@cases((None, None, None), (1, None, None), (None, 1, None), (2, 2, None), (2, 2, 3))
def chain_ending_in_is_none(gen, node, seq):
    # The last comparison of the chain, `is None`, is fused into the chain's jump (3.11+).
    if gen is not None and node is seq is None:
        return 1
    if node is seq is not None:
        return 2
    return 3


@cases(*INPUTS)
def while_chained_comparison(a, b, c):
    # 3.11 ends the test at the top with the comparison's cleanup; the copy at the bottom lays it
    # out after its jump back.
    out = []
    while 0 <= a < c:
        a += 1
        out.append(a)
    out.append(b)
    return out


@cases(*INPUTS)
def while_chained_comparison_else_break(a, b, c):
    out = []
    while 0 <= a < b < 5:
        a += 1
        out.append(a)
        if a == c:
            break
    else:
        out.append("done")
    return out



@cases((0,), (1,), ("",), ("x",))
def short_circuit_statement_last(value):
    seen = []

    def record_and():
        # `a and f()` as the function's last statement: its POP_TOP and the `return None` after
        # it are copied onto both paths (3.10+).
        value and seen.append(value)

    def record_or():
        value or seen.append("fallback")

    record_and()
    record_or()
    return seen


def _refuse(value):
    raise ValueError(value)


@cases((0,), (1,))
def and_call_statement_ends_function(flag):
    # 3.11+: the block after the statement (`POP_TOP; return None`) is copied to the end of the
    # right operand; the short circuit's jump goes to the other copy.
    flag and _refuse(flag)


@cases((0,), (1,))
def or_call_statement_ends_function(flag):
    flag or _refuse(flag)


@cases((1, 1), (None, None), (1, 2), (3, 4))
def assert_chain_ending_in_is_not_none(a, b):
    # 3.11+: the last comparison of the chain fuses into the jump to the code after the assert.
    try:
        assert a is b is not None
    except AssertionError:
        return "failed"
    try:
        assert a is b is None, "m"
    except AssertionError:
        return "second"
    return "passed"


@cases(("a", 1, {"a": 1}), ("b", 1, {}), ("", 2, {}), ("a", 2, {"a": 1}))
def assert_message_ends_if_body_with_else(name, size, known):
    # An assert with a message is the whole body of an if with an else part, inside an if body
    # with an else part: the assert's passing jump goes past both else parts (3.12 ran the inner
    # else part after the assert).
    cache = dict(known)
    out = []
    if name:
        if name in cache:
            assert cache[name] == size, f"constant {name}"
        else:
            cache[name] = size
            out.append(name)
    else:
        name = size
    line = f"{name}"
    return [line], cache, out


@cases((1, 2, True, True, 5), (0, 2, True, True, 5), (0, 2, True, False, 5), (0, 2, False, True, 5))
def nested_conditional_in_or_operand_of_return(a, b, c, d, e):
    # 3.8/3.9 thread the inner arm's jump on to the shared return and turn the outer arm's
    # jump there into a copy of it, which then ends the inner else arm.
    return a or ((b if d else e) if c else a)


@cases((1, 2, True, True, 5), (0, 2, True, True, 5), (1, 2, True, False, 5), (1, 2, False, True, 5))
def nested_conditional_in_and_operand_of_return(a, b, c, d, e):
    return a and ((b + 1 if d else -e) if c else e * 2)


@cases((1, True, False), (0, True, True), (0, False, True), (0, True, False))
def nested_conditional_in_or_operand_of_call_return(a, c, d):
    return str(a or (("x" if d else "y") if c else "z"))


@cases((3, 2), (3, 5), (4, 3), (5, 3), (1, 2), (5, 9))
def assert_and_chain_ending_in_chained_comparison(n, b):
    # 3.10+: the earlier operands jump to a copy of the assert's raise that the chained
    # comparison's cleanup falls into (3.12 read `assert False` after an if).
    try:
        assert n > 2 and n & 1 and (2 <= b < n)
    except AssertionError:
        return "failed"
    return "passed"


@cases(*[(a, b, c, d) for a in (0, 1) for b in (0, 1) for c in (0, 1) for d in (0, 1)])
def if_or_group_and_then_or(a, b, c, d):
    # `a or b` goes on to `c` when true and to `d` when false: the group combines with `c`
    # first (read as `if not ((a or b) and c): if d: pass`, the body then ran always).
    out = []
    if (a or b) and c or d:
        out.append(1)
    if (not a or b) and c or d:
        out.append(2)
    if (a and b) or c and d:
        out.append(3)
    return out


@cases(*INPUTS)
def and_or_value_after_test_chain(a, b, c):
    # Before 3.12 the chain `a or b` jumps straight to x (true) or to y (false), and x ends in
    # its own JUMP_IF_TRUE_OR_POP: read as an if statement, x was silently dropped.
    quote = (a or b) and '"' or ""
    grouped = (a and b or c) and a
    longer = (a or b or c) and b or c
    return quote, grouped, longer, (a and (b or c)) and c or a
