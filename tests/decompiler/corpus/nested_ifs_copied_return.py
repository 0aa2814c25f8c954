"""Nested ifs whose else parts assign and all fall into one `return x`.

Each branch gets its own copy of the small `return x` block (3.10+). From 7 levels, 3.13 lays
the original after a middle else part (`x = 3`), which falls into it, and the innermost body
(`x = 0`) jumps forward to it, past the else parts and copies in between: the ifs around that
jump go on past their own ranges, and every if whose false target is where such a range ends
has an else part up to the join. Read as code after the if instead, an else part would run
after the innermost body (`x = 0` then `x = 5`). Depth 7 is the smallest nesting of these ifs
where 3.13 lays it out so; the others are the same shape at more levels.
"""
from _cases import cases


@cases((-1,), (0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (8,))
def nested_ifs_else_7(x):
    if x > 0:
        if x > 1:
            if x > 2:
                if x > 3:
                    if x > 4:
                        if x > 5:
                            if x > 6:
                                x = 0
                            else:
                                x = 6
                        else:
                            x = 5
                    else:
                        x = 4
                else:
                    x = 3
            else:
                x = 2
        else:
            x = 1
    else:
        x = 0
    return x


@cases((-1,), (0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (8,), (9,))
def nested_ifs_else_8(x):
    if x > 0:
        if x > 1:
            if x > 2:
                if x > 3:
                    if x > 4:
                        if x > 5:
                            if x > 6:
                                if x > 7:
                                    x = 0
                                else:
                                    x = 7
                            else:
                                x = 6
                        else:
                            x = 5
                    else:
                        x = 4
                else:
                    x = 3
            else:
                x = 2
        else:
            x = 1
    else:
        x = 0
    return x


@cases((-1,), (0,), (1,), (2,), (3,), (4,), (5,), (6,), (7,), (8,), (9,), (10,), (11,), (12,))
def nested_ifs_else_11(x):
    if x > 0:
        if x > 1:
            if x > 2:
                if x > 3:
                    if x > 4:
                        if x > 5:
                            if x > 6:
                                if x > 7:
                                    if x > 8:
                                        if x > 9:
                                            if x > 10:
                                                x = 0
                                            else:
                                                x = 10
                                        else:
                                            x = 9
                                    else:
                                        x = 8
                                else:
                                    x = 7
                            else:
                                x = 6
                        else:
                            x = 5
                    else:
                        x = 4
                else:
                    x = 3
            else:
                x = 2
        else:
            x = 1
    else:
        x = 0
    return x
