"""If statements nested in the last statement of a procedure, each branch falling off the end:
3.10+ copy the implicit `return None` into each branch that jumps to the end, which reads as
`if c: A; return` followed by the else part."""
from _cases import cases


class _Log:
    def __init__(self):
        self.calls = []

    def add(self, *what):
        self.calls.append(what)


def bind(log, fun, key=None):
    if fun is None:
        if key is None:
            log.add("unbind")
        else:
            log.add("unbind", key)
    else:
        def event():
            return fun
        if key is None:
            log.add("bind", event() is fun)
        else:
            log.add("bind", key)


def choose(log, compatible, user, in_user):
    log.add("start")
    if not compatible:
        log.add("none")
        if user:
            if in_user:
                log.add("reinstall")
            elif in_user is None:
                raise ValueError(user)
        else:
            log.add("reinstall", 2)
    elif compatible > 1:
        log.add("editable")
        log.add("none")
    else:
        log.add("satisfied")


@cases((None, None), (None, "k"), (len, None), (len, "k"))
def calls_bind(fun, key):
    log = _Log()
    bind(log, fun, key)
    return log.calls


@cases((0, 0, 0), (0, 1, 0), (0, 1, 1), (1, 0, 0), (2, 0, 0))
def calls_choose(compatible, user, in_user):
    log = _Log()
    choose(log, compatible, user, in_user)
    return log.calls


class _State:
    wanted = None
    chosen = None
    redo = False
    editable = False


def settle(state, find, local_only):
    if state.wanted is None:
        return
    found = find(state.wanted)
    if not found:
        return
    fits = found.version >= 2
    if not fits:
        state.chosen = None
        if local_only:
            if found.local:
                state.redo = True
            elif found.shared and found.version < 0:
                raise ValueError(f"no room for {found.name}")
        else:
            state.redo = True
    else:
        if state.editable:
            state.redo = True
            state.chosen = None
        else:
            state.chosen = found


class _Found:
    def __init__(self, version, local=False, shared=False):
        self.version, self.local, self.shared, self.name = version, local, shared, "x"


@cases((None, 0, 0), (1, 0, 0), (1, 1, 0), (1, 1, 1), (3, 0, 0), (3, 0, 1))
def calls_settle(version, local, editable):
    state = _State()
    state.wanted = "w"
    state.editable = bool(editable)
    settle(state, lambda name: None if version is None else _Found(version, local), bool(local))
    return state.redo, state.chosen is None
