"""Two branches that end a function with the same statements written twice: 3.12+ copy small
exit blocks with their line, so alike blocks on different lines are two written ones."""
from _cases import cases


class _Record:
    flag = None
    chosen = None


def nested_if_and_else_alike(record, compatible, user, in_user):
    if not compatible:
        record.chosen = None
        if user:
            if in_user:
                record.flag = True
            elif in_user is None:
                raise ValueError(user)
        else:
            record.flag = True
    else:
        record.chosen = compatible


@cases((0, 0, 0), (0, 1, 0), (0, 1, 1), (1, 0, 0))
def calls_nested_if_and_else_alike(compatible, user, in_user):
    record = _Record()
    nested_if_and_else_alike(record, compatible, user, in_user)
    return record.flag, record.chosen


@cases((0, 0), (0, 1), (1, 0))
def alike_returns_on_two_lines(a, b):
    log = []
    if a:
        log.append(a)
        if b:
            log.append("b")
            return log
    else:
        log.append("b")
        return log
    return None
