"""A written `return` in a nested if, beside the implicit `return None` that ends the function:
3.12+ give the copy of a block with a line that line, so a written `return` on its own line is
no copy of the implicit one (which takes the line of the test jumping to it), and
`if a: if b: return` stays nested rather than becoming `if not a or b: return`."""
from _cases import cases


def nested_return_then_rest(log, a, b):
    if a:
        if b:
            return
        log.append(a)


@cases((0, 0), (0, 1), (1, 0), (1, 1))
def calls_nested_return_then_rest(a, b):
    log = []
    nested_return_then_rest(log, a, b)
    return log


def nested_return_after_statement(log, first, a, b):
    if first:
        log.append(first)
    if a:
        if b:
            return
        if b == a:
            log.append(b)


@cases((0, 0, 0), (1, 1, 0), (1, 1, 1), (0, 2, 2))
def calls_nested_return_after_statement(first, a, b):
    log = []
    nested_return_after_statement(log, first, a, b)
    return log
