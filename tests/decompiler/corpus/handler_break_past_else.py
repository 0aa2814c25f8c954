"""A `while True:` that ends an if body, left only by a `break` in an except clause, and an
else part after it that normal flow goes on from too: 3.12+ lay the clause's jump with the
handler code at the end, so only that jump tells where the else part ends."""
from _cases import cases


def strip_flags(flags, strip, env):
    if strip or "A" in env:
        while True:
            try:
                index = flags.index("-arch")
                del flags[index:index + 2]
            except ValueError:
                break
    elif not env:
        for idx in reversed(range(len(flags))):
            if flags[idx] == "-x":
                del flags[idx]
    if "A" in env and not strip:
        flags = flags + [env]
    return flags


@cases((["-arch", "a", "-x"], True, ""), (["-x", "-arch", "b"], False, "A"), (["-x", "y"], False, ""),
       (["-x"], False, "B"))
def calls_strip_flags(flags, strip, env):
    return strip_flags(list(flags), strip, env)


def drain_or_note(items, log, drain):
    if drain:
        while True:
            try:
                log.append(items.pop())
            except IndexError:
                break
    else:
        for item in items:
            log.append(-item)
    log.append(len(items))
    return log


@cases(([1, 2], True), ([1, 2], False), ([], True))
def calls_drain_or_note(items, drain):
    return drain_or_note(list(items), [], drain)
