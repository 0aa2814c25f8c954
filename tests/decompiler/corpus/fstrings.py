"""f-strings: conversions, format specs, nested specs, self-documenting '=', adjacent literals."""
from _cases import cases


@cases(("w", 3.14159, 42),)
def fstring_basics(name, value, width):
    a = f"hello {name}"
    b = f"{name!r} {name!s} {name!a}"
    c = f"{value:.2f} {value:10.3f} {width:>8} {width:08x} {width:,}"
    d = f"{value:{width}.{2}f}"
    e = f"{{literal}} {name}{{"
    f = f"{name=}"
    g = f"{value=:.1f}"
    h = f"{width!r:>10}"
    return a, b, c, d, e, f, g, h


@cases(([1, 2], {"k": "v"}),)
def fstring_expressions(items, mapping):
    a = f"{items[0] + items[1]} {mapping['k']} {len(items) * 2}"
    b = f"{'nested ' + f'{items[0]}'}"
    c = f"{items[0] if items else 'empty'}"
    d = f"{(lambda x: x * 2)(3)}"
    e = f"{', '.join(str(i) for i in items)}"
    f = "plain" f"{items}" "tail"
    g = f"multi" f"ple {mapping}"
    return a, b, c, d, e, f, g


@cases((5,),)
def fstring_only_value(v):
    return f"{v}", f"{v}{v}", f"{v:}", f"{v!s:}", f"a{v}b{v}c"


@cases(("x",),)
def fstring_with_quotes_and_escapes(s):
    a = f"it's {s}"
    b = f'say "{s}"'
    c = f"tab\t{s}\n"
    d = f"{s}\\{s}"
    return a, b, c, d


@cases((3,),)
def format_builtin_and_percent(v):
    return format(v, "03d"), "%d-%s" % (v, v), "{0}{1!r}".format(v, str(v))
