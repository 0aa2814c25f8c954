"""Structural pattern matching: every pattern kind (needs Python 3.10)."""
from _cases import cases


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


RED = "red"


class Colors:
    RED = "red"
    BLUE = "blue"


@cases((0,), (1,), ("s",), (None,), (True,), (2.5,), (-1,), (b"b",))
def literal_patterns(v):
    match v:
        case 0:
            return "zero"
        case 1 | 2:
            return "one-or-two"
        case "s":
            return "string"
        case None:
            return "none"
        case True:
            return "true"
        case -1:
            return "minus-one"
        case b"b":
            return "bytes"
        case _:
            return "other"


@cases(("red",), ("blue",), ("green",))
def value_patterns(v):
    match v:
        case Colors.RED:
            return "RED"
        case Colors.BLUE:
            return "BLUE"
        case other:
            return "captured " + other


@cases(([],), ([1],), ([1, 2],), ([1, 2, 3, 4],), ((5, 6),), ("ab",))
def sequence_patterns(v):
    match v:
        case []:
            return "empty"
        case [x]:
            return ("one", x)
        case [x, y]:
            return ("two", x, y)
        case [first, *rest]:
            return ("many", first, rest)
        case _:
            return "no"


@cases(([1, [2, 3]],), ([0, 1, 2],), ([9, 9, 9, 9],))
def nested_and_star_patterns(v):
    match v:
        case [a, [b, c]]:
            return a + b + c
        case [0, *_, last]:
            return last
        case [*head, 9]:
            return len(head)
    return None


@cases(({"type": "a", "v": 1},), ({"type": "b", "extra": 2, "more": 3},), ({},))
def mapping_patterns(v):
    match v:
        case {"type": "a", "v": value}:
            return ("a", value)
        case {"type": "b", **rest}:
            return ("b", sorted(rest))
        case {}:
            return "empty-or-other"


@cases((Point(0, 0),), (Point(1, 2),), (Point(3, 3),), (5,), ("str",))
def class_patterns(v):
    match v:
        case Point(x=0, y=0):
            return "origin"
        case Point(x, y) if x == y:
            return ("diag", x)
        case Point(x=x1, y=y1):
            return ("point", x1, y1)
        case int(n):
            return ("int", n)
        case str() as s:
            return ("str", s)


@cases((1,), ([1, 2],), ((3, "x"),), ({"k": [1]},))
def as_and_or_patterns(v):
    match v:
        case (1 | 2) as small:
            return ("small", small)
        case [1, _] | [_, 1] as pair:
            return ("pair", pair)
        case (int() as n, str() as s):
            return (n, s)
        case {"k": [x] as lst}:
            return (x, lst)


@cases((3,), (-3,), (30,))
def guards(v):
    match v:
        case n if n < 0:
            result = "neg"
        case n if n < 10:
            result = "small"
        case _:
            result = "big"
    return result


@cases(([1, 2, 3],), ([],))
def match_in_loop(items):
    out = []
    for item in items:
        match item:
            case 2:
                continue
            case 3:
                break
            case x:
                out.append(x)
    return out


@cases((1,), (2,))
def match_without_default(v):
    r = "none"
    match v:
        case 1:
            r = "one"
    return r


@cases(([1, 2, 3, 4],), ([],))
def match_case_continue_then_pass(items):
    # 3.10: `case 3: pass` jumps forward to the loop's closing jump; only `continue` goes
    # straight back to the head from a case that is nothing else.
    out = []
    for item in items:
        match item:
            case 1:
                out.append(-1)
            case 2:
                continue
            case 3:
                pass
            case x:
                out.append(x)
    return out


@cases((None,), ("1",), ("x",), ("y",), (3,))
def match_case_try_return_then_try(v):
    # 3.12+: the second try, reached only from the first one's handler, follows the handler code.
    match v:
        case None:
            return 0
        case str():
            try:
                return int(v)
            except ValueError:
                pass
            try:
                if v == 'x':
                    return -1
            except ValueError:
                return 0
            return 0


@cases(([1],), ([2],), ([1, 2],), (3,), ([0],))
def match_guard_then_if_in_body(x, s=1):
    # The body's `if` falls out to a copy of the code after the statement: not part of the guard
    # (read as `case [y] if y == s and y:`, which lost the code after the match).
    match x:
        case [y] if y == s:
            if y:
                return True
    return False


@cases((1,), ([1],), ((1,),), ("s",), (None,))
def match_or_pattern_body_after_code_after_match(node):
    # The last case's body lies after the failure pops and the code after the statement, which
    # was swallowed into that case (the function returned None).
    match node:
        case int():
            return "int"
        case list() | tuple():
            return len(node)
    return False


@cases((Point(1, 2), Point(3, 4)), (Point(1, 2), Point(5, 4)), (Point(1, 2), 7), (3, Point(3, 4)))
def nested_match_class_or_pattern_returns(node, other):
    # The inner or-pattern's failure, after its pops, is threaded past the jump that the class
    # pattern's failure takes to the code after the outer statement.
    out = []
    match node:
        case Point():
            match other:
                case Point(x=3 | 5):
                    return "both"
    out.append("after")
    return out


@cases((1, 1), (1, 2), ("a", "a"), ([1], [1]), (None, 1))
def match_or_pattern_captures_body_after_code_after_match(a, b):
    # The same layout with captures: the alternatives enter the moved body at their capture
    # stores, in front of it (the `return False` after the match was lost).
    match a, b:
        case [int(real=x), int(real=y)] | [str(x), str(y)]:
            return x == y
    return False


@cases((1,), ("s",), (None,), ([2],))
def match_or_pattern_capture_assigns_then_code_after_match(node):
    match node:
        case int(real=v) | str(v):
            found = v
            return found
    return False
