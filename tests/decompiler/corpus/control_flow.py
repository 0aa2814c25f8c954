"""Control flow: conditionals, loops with else, break/continue at depth, early returns."""
from _cases import cases


@cases((-3,), (0,), (3,), (30,))
def if_elif_else(x):
    if x < 0:
        r = "neg"
    elif x == 0:
        r = "zero"
    elif x < 10:
        r = "small"
    else:
        r = "big"
    return r


@cases((1,), (0,))
def if_without_else(x):
    r = []
    if x:
        r.append(1)
    r.append(2)
    return r


@cases((1, 1), (1, 0), (0, 1), (0, 0))
def nested_if(a, b):
    if a:
        if b:
            return "ab"
        else:
            return "a"
    elif b:
        return "b"
    return "none"


@cases((1, 1), (1, 0), (0, 0))
def if_with_early_return_then_code(a, b):
    if a:
        if b:
            return 1
        x = 2
    else:
        x = 3
    return x


@cases((5,), (0,))
def while_else(n):
    out = []
    while n > 0:
        n -= 1
        if n == 2:
            break
        out.append(n)
    else:
        out.append("else")
    return out


@cases(([1, 2, 3], 2), ([1, 2, 3], 9))
def for_else(items, target):
    for i, item in enumerate(items):
        if item == target:
            found = i
            break
    else:
        found = -1
    return found


@cases((4,),)
def while_true_break(n):
    i = 0
    while True:
        i += 1
        if i > n:
            break
    return i


@cases((6,),)
def continue_at_depth(n):
    out = []
    for i in range(n):
        if i % 2:
            continue
        for j in range(n):
            if j > i:
                break
            if j == 1:
                continue
            out.append((i, j))
    return out


@cases((3,),)
def nested_loops_with_else(n):
    out = []
    for i in range(n):
        for j in range(n):
            if i == j == 1:
                break
            out.append((i, j))
        else:
            out.append(("no-break", i))
        while i < n:
            i += 1
            if i == 2:
                continue
            out.append(("w", i))
        else:
            out.append("while-else")
    return out


@cases((3, True), (0, True), (0, False), (5, False))
def while_conditional_expression_test(n, flag):
    # 3.10+ repeat the test at the bottom with the block after the loop copied into it.
    out = []
    while (n > 0 if flag else n < 3):
        out.append(n)
        n = n - 1 if flag else n + 1
    return out


@cases((3, True), (0, True), (0, False), (5, False))
def while_conditional_expression_test_long_exit(n, flag):
    out = []
    while (n > 0 if flag else n < 3):
        out.append(n)
        n = n - 1 if flag else n + 1
    out.append("a")
    out.append("b")
    out.append("c")
    out.append("d")
    out.append("e")
    return out


@cases((10,), (0,))
def while_with_complex_condition(n):
    i = 0
    total = 0
    while i < n and (total < 20 or i % 2):
        total += i
        i += 1
    return i, total


@cases(([3, -1, 4],), ([],))
def return_from_loop(items):
    for x in items:
        if x < 0:
            return "neg", x
    return "ok", None


@cases(([1, 2, 3, 4, 5, 6],),)
def loop_with_if_elif_continue_break(items):
    out = []
    for x in items:
        if x == 1:
            continue
        elif x == 5:
            break
        elif x % 2:
            out.append("odd")
        else:
            out.append("even")
    return out


@cases((3,),)
def for_over_unpacked_pairs(n):
    out = []
    for i, (a, b) in enumerate(zip(range(n), range(n, 0, -1))):
        out.append(i * a - b)
    for k, *rest in [(1, 2, 3), (4, 5)]:
        out.append((k, rest))
    return out


@cases((0,), (1,))
def if_pass_else(x):
    if x:
        pass
    else:
        x = 5
    return x


@cases((2,), (7,))
def while_loop_in_if_in_for(n):
    out = []
    for i in range(n):
        if i > 1:
            j = 0
            while j < i:
                j += 1
                if j == 3:
                    break
            out.append(j)
        else:
            out.append(-1)
    return out


@cases((1,), (0,))
def not_condition(x):
    if not x:
        return "no"
    if not (x > 5):
        return "small"
    return "yes"


@cases((5,),)
def infinite_loop_with_return(n):
    i = 0
    while 1:
        i += 2
        if i >= n:
            return i


@cases(([[1, 2], [3, 4, 5], []],),)
def break_outer_via_flag(rows):
    found = None
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            if v == 4:
                found = (r, c)
                break
        if found:
            break
    return found


@cases((3,), (0,))
def empty_bodies(n):
    i = n
    while i > 10:
        pass
    for _ in range(n):
        pass
    if n:
        pass
    elif n < 0:
        pass
    else:
        pass
    return i


@cases(([1, 5, 0, 7],),)
def walrus_in_conditions(items):
    out = []
    for x in items:
        if (y := x * 2) > 5:
            out.append(y)
        elif (z := x - 1) < 0:
            out.append(z)
    return out


@cases((5,),)
def assert_and_del_in_loop(n):
    seen = {}
    for i in range(n):
        seen[i] = i
        assert i in seen, i
        if i % 2:
            del seen[i]
    return seen


@cases(("ab", ["a"]), ("xb", ["b", "x"]), ("zz", ["a", "b"]), ("", []))
def return_in_loop_then_same_return_in_later_loop(header, prefixes):
    # 3.10: the first `return True` drops the iterator like a break whose exit block was
    # copied; the same code inside the next loop is not that exit block.
    for pfx in prefixes:
        if header.startswith(pfx):
            return True
    for bom in prefixes:
        if not header.startswith(bom):
            continue
        for start in prefixes:
            if start == bom:
                return True
    return False


@cases(([5, 3, 1, 4], 0, 3), ([1, 2, 3], 0, 2), ([7], 0, 0))
def continue_then_break_ends_while_body(heap, startpos, pos):
    # 3.8/3.9 keep the final `break` as a jump nothing reaches.
    newitem = heap[pos]
    while pos > startpos:
        parentpos = (pos - 1) >> 1
        parent = heap[parentpos]
        if newitem < parent:
            heap[pos] = parent
            pos = parentpos
            continue
        break
    heap[pos] = newitem
    return heap


@cases(({"a": 1},), ({},))
def for_body_always_returns(d):
    # No jump goes back to the FOR_ITER: the body returns on its first pass.
    for key in d:
        return (key, d[key])
    raise KeyError("empty")


@cases(([1, -2],), ([-1],), ([],))
def for_body_returns_or_raises(xs):
    for x in xs:
        if x < 0:
            return x
        raise ValueError(x)
    return None


@cases(([1, 2],), ([],))
def for_body_always_breaks(xs):
    r = 0
    for x in xs:
        r = x
        break
    else:
        r = -1
    return r


@cases(([1, 2, 2, 3], [2, 3, 4]), ([], [1]), ([5], [5, 5]))
def identity_test_then_continue_in_loop(xs, ys):
    # `if a is None: ...` ending a branch that continues: its test cannot be turned round into
    # `if a is not None: continue` (another instruction), and the test's false branch goes
    # straight to the loop's head (no else part after the continue).
    first = None
    seen = []
    for x in xs:
        for y in ys:
            if x == y:
                if first is None:
                    first = (x, y)
                continue
            seen.append(y)
    for y in ys:
        if y > 2:
            if y in seen:
                seen.remove(y)
            continue
        seen.append(-y)
    return first, seen


@cases(([1, 0, 1, 1, 0],), ([],), ([0, 0],))
def open_if_then_else_part_in_loop(flags):
    # The same shapes with an else part: the inner test's false branch stops at the loop's
    # closing jump.
    changes, inside = 0, False
    for flag in flags:
        if flag:
            if not inside:
                inside = True
                changes += 1
        else:
            inside = False
    return changes


@cases((0, 0, 0), (1, 0, 1), (1, 1, 1), (0, 1, 1))
def open_if_ends_if_body_outside_loops(a, b, c):
    out = []
    if c:
        if a:
            if b:
                out.append(1)
        else:
            out.append(2)
    return out


@cases((0, [1, 2, 3, 0]), (1, [5, 6]), (0, [4]))
def endless_loop_ends_function_after_early_return(early, items):
    # The body ends in a loop left only by return: the compiler's own `return None` after it is
    # unreachable, and no source statement.
    out = []
    if early:
        out.append("early")
        return out
    it = iter(items)
    while True:
        item = next(it, None)
        if item is not None and item > 2:
            out.append(item)
        if not item:
            return out


@cases(({1: True}, 1), ({}, 2), (None, 3))
def try_except_ends_function_after_early_return(cache, key):
    if cache is None:
        return False
    try:
        return cache[key]
    except KeyError:
        value = cache[key] = key > 1
        return value


@cases(([1, 5, 2, 7], True), ([3, 3], False), ([], True))
def conditional_continue_ends_inner_if_in_loop(items, compact):
    # The continue ends the inner if only: when its test fails, the loop body goes on below.
    out = []
    for item in items:
        if compact:
            width = item * 2
            if width >= 6:
                out.append(width)
                continue
        out.append(-item)
    return out


@cases(("ab\\c\"",), ("xy\\",))
def continue_in_else_before_more_body(text):
    items = list(text)
    out = []
    while 1:
        if not items:
            break
        t = items.pop()
        if t == '"':
            break
        elif t != "\\":
            if t == "!":
                raise ValueError(t)
            else:
                out.append(t)
                continue
        out.append("esc")
    return out


@cases((None, 0), (3, 3), (3, 5))
def if_then_while_same_exit(source, raw):
    seen = []
    if source is not None:
        while raw == source:
            seen.append(raw)
            raw -= 1
    while raw > 4:
        raw -= 1
    seen.append(raw)
    return seen


@cases((0, 1, 1), (1, 0, 1), (1, 1, 0))
def while_and_test_in_if(a, b, c):
    out = []
    if c:
        while a and b:
            out.append(a)
            a -= 1
    return out


@cases(("ab c#d",), ("x,y",), ("",))
def state_machine_branches_end_in_break_or_continue(text):
    chars = list(text)
    state = " "
    token = ""
    out = []
    while True:
        c = chars.pop(0) if chars else ""
        if state is None:
            break
        elif state == " ":
            if not c:
                state = None
                break
            elif c == "#":
                out.append("comment")
            elif c.isalpha():
                token = c
                state = "a"
            else:
                out.append(c)
                if token:
                    break
                continue
        elif state == "a":
            if c.isalpha():
                token += c
            else:
                state = " "
                out.append(token)
                if not c:
                    break
                else:
                    continue
        out.append(state)
    return out


@cases(([[1, 2], [2, 3]],), ([[1], [1]],), ([[3, 1], [1, 3]],))
def inner_for_else_breaks_outer(sequences):
    result = []
    while len(result) < 4:
        for s1 in sequences:
            candidate = s1[0]
            for s2 in sequences:
                if candidate in s2[1:]:
                    candidate = None
                    break
            else:
                break
        if candidate is None:
            return ("inconsistent", result)
        result.append(candidate)
    return result


@cases((3, 1), (3, 5), (0, 0))
def inner_while_else_breaks_outer(n, stop):
    out = []
    for i in range(n):
        j = 0
        while j < i:
            if j == stop:
                break
            j += 1
        else:
            out.append(("done", i))
            break
    return out


@cases(("b", "ab:c"), ("a", "ab:c"), ("z", "ab"))
def chained_compare_test_in_loop(opt, shortopts):
    for i in range(len(shortopts)):
        if opt == shortopts[i] != ":":
            return shortopts.startswith(":", i + 1)
    return None


@cases(([("a", 1, True), ("b", 0, False), ("c", 1, False)], {}), ([("a", 1, False)], {"a": 2}))
def continue_after_inner_if_then_more_tests(fields, changes):
    out = []
    for name, kind, init in fields:
        if kind == 0:
            continue
        if not init:
            if name in changes:
                out.append(("dup", name))
            continue
        if name not in changes:
            out.append(name)
    return out


@cases(("-xy", "z"), ("-x", "1"), ("--long", "z"), ("-xq", "z"))
def elif_after_branch_that_loops_again(option, explicit):
    known = {"-x": 0, "-y": 0, "-q": 1}
    taken = []
    while True:
        count = known.get(option, 2)
        if explicit:
            if count == 0 and option[1] != "-" and explicit != "":
                taken.append(option)
                option = "-" + explicit[0]
                rest = explicit[1:] or None
                if option in known:
                    explicit = rest
                else:
                    raise ValueError(option)
            elif count == 1:
                taken.append((option, explicit))
                break
            else:
                raise ValueError(explicit)
        else:
            taken.append((option, None))
            break
    return taken


@cases(("a*b**?c",), ("**",), ("?x*",))
def if_closing_a_branch_of_a_loop(pattern):
    star = object()
    out = []
    for c in pattern:
        if c == "*":
            if not out or out[-1] is not star:
                out.append(star)
        elif c == "?":
            out.append(".")
        else:
            out.append(c)
    return ["*" if piece is star else piece for piece in out]


@cases(([None, 2, 3], (None,)), ([4, None], ()), ([], ()))
def if_else_inner_else_returns_in_while(keys, flags):
    # 3.10+: the if body ends in an inner if/else whose else returns, so no jump over the outer
    # else part follows it; the inner body's jump goes to the loop test copied at the bottom.
    out = []
    i = 0
    while i < len(keys):
        key = keys[i]
        i += 1
        if key is None or key in flags:
            if key in flags:
                out.append(1)
            else:
                return out, "none"
        else:
            out.append(key)
    return out, i


@cases((["a", "1", "b"],), (["x"],), ([],))
def for_else_returns_after_break_copies(items):
    # Only `break` reaches the code after the loop: 3.10+ copy it into the loop body, and the
    # code at the loop's exit is the else part, which returns.
    for s in items:
        try:
            value = int(s)
            break
        except ValueError:
            pass
    else:
        return []
    return value


@cases(([0, 3, 7, -2],), ([],), ([9, 9],))
def if_closing_a_branch_then_explicit_continues(xs):
    # 3.13 compiles the inner `if` with its `continue` and the outer `continue` as it compiles an
    # inner `if` closing the branch of an if/else: both read the same.
    out = []
    for x in xs:
        if x > 0:
            if x > 5:
                out.append(x)
                continue
            continue
        out.append(-x)
    return out


@cases(([0, 3, 7, -2],), ([],), ([9, 4],))
def continue_test_closing_a_loop_branch(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x)
            if x > 5:
                continue
        elif x < 0:
            out.append(-x)
        out.append(0)
    return out


@cases((7,), (0,), (12,))
def if_closing_a_while_branch_with_chained_test(n):
    out = []
    while n:
        n -= 1
        if n % 2:
            if n % 3 or n > 8:
                out.append(n)
        else:
            out.append(-n)
    return out


@cases(([0, 3, 7, -2],), ([],), ([-1, 4, -3],))
def break_test_closing_a_loop_branch(xs):
    out = []
    for x in xs:
        if x > 0:
            out.append(x)
            if x > 5:
                break
        elif x < 0:
            out.append(-x)
        out.append(0)
    return out


@cases((9,), (0,), (4,))
def continue_test_closing_a_while_branch(n):
    out = []
    while n > 0:
        n -= 1
        if n % 2:
            out.append(n)
            if n > 5:
                continue
        elif n % 3:
            out.append(-n)
        out.append(0)
    return out
@cases(("a**?b*",), ("",), ("?*",))
def or_test_in_if_branch_ends_while_body(pat):
    # fnmatch.translate: an `or` test in an if branch that ends the loop body; 3.12+ send its
    # false exit (and the branch's jump over the elif) forward to the loop's test at the bottom.
    res = []
    i = 0
    while i < len(pat):
        c = pat[i]
        i += 1
        if c == "*":
            if (not res) or res[-1] != "*":
                res.append("*")
        elif c == "?":
            res.append(".")
    return res


@cases((["", "b", "c"],), (["", ""],), ([],))
def for_else_returns_break_copies_value(items):
    # 3.10+: only the `break` reaches the code after the loop, which the compiler copied in its
    # place and dropped: the copy (iterator dropped, then the value computed) is that break.
    for s in items:
        if s:
            value = s.upper()
            break
    else:
        return []
    return [value]


@cases((["ab", "b", "ax", "xa"], None), (["ab", "b", "ax", "xa"], 1))
def if_branch_ends_in_continue_before_elif(names, namer):
    # logging.handlers.TimedRotatingFileHandler.getFilesToDelete: the if body ends with an inner
    # `if ...: continue` (3.12+: no jump over the else part), whose test otherwise jumps to the
    # code after the whole if statement. (The rest of the loop body was read as the else part,
    # and the inner if as `pass`: a wrong result.)
    out = []
    for f in names:
        if namer is None:
            if not f.startswith("a"):
                continue
        else:
            if not f.startswith("a") and f.endswith("b"):
                continue
        out.append(f)
    return out


@cases(([1, 2],), ([],))
def for_over_tuple_with_starred_item(rest):
    # 3.8's grammar wants the parentheses (`for x in a, *b:` is 3.9+); the code is the same.
    out = []
    for item in (0, *rest):
        out.append(item)


@cases(([1, 2, 20, -1, 0, 30], [2, 30]), ([], [1]), ([5], []))
def for_else_ends_if_body_in_loop(items, known):
    # The inner loop ends an if body that ends the outer body: its break jumps back to the outer
    # head (3.8/3.9: to the outer body's closing jump), so all code after it is its else part.
    out = []
    for a in items:
        if a > 0:
            for x in known:
                if x == a:
                    out.append(("found", x))
                    break
            else:
                if a > 10:
                    out.append("big")
                else:
                    out.append("small")
        else:
            out.append("other")
    return out


@cases(([1, 2, 20, -1, 0, 30], [2, 30]), ([], [1]))
def for_break_ends_if_body_in_loop(items, known):
    # The same without an else part: the code after the inner loop is the outer body's end.
    out = []
    for a in items:
        if a > 0:
            for x in known:
                if x == a:
                    out.append(("found", x))
                    break
        else:
            out.append("other")
    return out


@cases(([101, -101, 3, 6, 12, 8, 0],), ([],))
def else_continue_in_body_with_else(items):
    # The innermost body jumps past the outer else part to the code after it; the middle if's
    # `else: ...; continue` lies before that else part and must stay an else (3.10+ read it as
    # statements after the middle if, so the innermost body ran them too).
    out = []
    for n in items:
        if n <= 100:
            if n % 3 == 0:
                if n > 10:
                    out.append("m")
                else:
                    out.append("s")
                    continue
            else:
                out.append("o")
                continue
        else:
            out.append("big")
        out.append("hit")
    return out


@cases(([101, -101, 3, 6, 12, 8, 0],), ([],))
def elif_continue_in_body_with_else(items):
    out = []
    for n in items:
        if n <= 100:
            if n % 2:
                out.append("odd")
                continue
            elif n % 3 == 0:
                if n > 10:
                    out.append("m")
                else:
                    out.append("s")
                    continue
            else:
                out.append("o")
                continue
        else:
            out.append("big")
        out.append("hit")
    return out


@cases(((1,),), ((1, 2, 3),), ((),), (tuple(range(1, 13)),), ((1, 2, 5),))
def while_true_if_continue_after_inner_return_then_break(keep):
    # The if body's inner if falls into the loop's only jump back (its `continue`); the test's
    # false branch is the `break` (read as `if ...: <inner if>` then `break`, losing the continue).
    i = 0
    while True:
        i += 1
        if i in keep:
            if i >= 10:
                return -2
            continue
        break
    return i



@cases((0, 3), (4, 2), (9, 5), (12, 1))
def while_not_continue_then_rest_ending_in_break(n, k):
    # 3.10+: the body never falls off its end (no copy of the test at the bottom): its rest
    # past the last jump back ends in a `break`, so `if not test: continue` stays as written
    found = False
    while n < 10:
        n += 1
        if not n % k:
            continue
        n += 2
        found = True
        break
    return n + (100 if found else 0)


@cases(([3, 2, 0, 5], 1), ([1, 0], 0), ([0], 1))
def while_true_if_continue_then_break(values, extra):
    # 3.10+: the `break` after `if m: ...; continue` is a fall into the loop's exit, and the
    # test jumps there straight (a written `if not m: break` keeps a jump of its own).
    seen = []
    it = iter(values)
    while True:
        m = next(it)
        if m and extra >= 0:
            seen.append(m)
            continue
        break
    return seen, m


@cases((3, [1, 7, 2, 4]), (9, [0, 6, 6, -1, 2]), (1, [0]), (4, [0, 9, 9, 9]))
def while_true_rest_after_continue_with_breaks(n, xs):
    # 3.10+: the rest of the body (`found = True; break`) lies past the last jump back (the
    # `continue`), and the written breaks jump past it to the exit (read as a loop ending at the
    # continue: the breaks became `pass` and the loop never ended).
    found = False
    i = 0
    while True:
        i += 1
        if i >= n:
            break
        if xs[i] < 0:
            break
        if xs[i] > 5:
            continue
        found = True
        break
    out = [i]
    out.append(found)
    out.append(n)
    return out
