def try_in_loop_in_try(kind):
    log = []
    try:
        for i in range(3):
            try:
                if i == kind:
                    raise ValueError(i)
                log.append(i)
            except ValueError as e:
                log.append(('inner', e.args))
                if kind == 2:
                    raise
            finally:
                log.append('f%d' % i)
    except ValueError as e:
        log.append(('outer', e.args))
    else:
        log.append('outer-else')
    return log
