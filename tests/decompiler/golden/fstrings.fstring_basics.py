def fstring_basics(name, value, width):
    a = f'hello {name}'
    b = f'{name!r} {name!s} {name!a}'
    c = f'{value:.2f} {value:10.3f} {width:>8} {width:08x} {width:,}'
    d = f'{value:{width}.{2}f}'
    e = f'{{literal}} {name}{{'
    f = f'name={name!r}'
    g = f'value={value:.1f}'
    h = f'{width!r:>10}'
    return a, b, c, d, e, f, g, h
