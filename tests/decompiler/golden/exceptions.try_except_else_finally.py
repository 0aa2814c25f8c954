def try_except_else_finally(kind):
    log = []
    try:
        log.append('body')
        if kind == 1:
            raise ValueError('v')
        if kind == 2:
            raise KeyError('k')
    except ValueError as e:
        log.append(('value', e.args))
    except (KeyError, IndexError):
        log.append('key-or-index')
    else:
        log.append('else')
    finally:
        log.append('finally')
    return log
