"""A `while True:` whose rest of the body (`found = True; break`) follows its last jump back
(`if c: continue`), while an except clause in the body breaks out: the clause's jump goes past
that rest, to the code after the loop (3.12+ lay the clause at the end, jumping back to it)."""
from _cases import cases


@cases(("abc", 0, 2), ("a\0c", 0, 5), ("", 0, 1), ("ab\0\0", 1, 9))
def while_true_clause_break_rest_past_jump_back(s, n, m):
    # 3.12+: the rest of the body (`found = True; break`) follows the loop's last jump back,
    # and the except clause's `break`, laid at the end, jumps back to the code after it.
    found = False
    while True:
        n += 1
        try:
            if s[n] != "\0":
                continue
        except IndexError:
            break
        if n < m:
            continue
        found = True
        break
    return n + (10 if found else 0)


@cases(("abc", 0, 2), ("a\0c", 0, 5), ("", 0, 1), ("ab\0\0", 1, 9), ("\0\0\0\0\0", 0, 3))
def while_true_clause_break_not_continue_rest(s, n, m):
    # (`if not test: continue` in that rest: the false branch goes back, the rest ends in a break)
    found = False
    while True:
        n += 1
        try:
            if s[n] != "\0":
                continue
        except IndexError:
            break
        if not n % 2:
            continue
        n += 2
        if n < m:
            continue
        found = True
        break
    return n + (10 if found else 0)
