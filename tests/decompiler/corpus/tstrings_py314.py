"""Template strings (PEP 750, needs Python 3.14): fields, conversions, format specs, `=`."""
from string.templatelib import Template

from _cases import cases


def parts(template):
    """A template as plain data (templates compare by identity)."""
    return (template.strings,
            [(parts(i.value) if isinstance(i.value, Template) else i.value, i.expression,
              i.conversion, i.format_spec) for i in template.interpolations])


@cases((1, "a"), ("x", [2]))
def tstring_fields(x, y):
    return parts(t"x={x} and y={y}!")


@cases((3.14159,), ("s'q\"",))
def tstring_conversions(x):
    return parts(t"{x!r} {x!s} {x!a} {x}")


@cases((3.14159, 8, 3), (2.5, 0, 1))
def tstring_format_specs(x, width, digits):
    return parts(t"[{x:>10}] [{x:{width}.{digits}f}] [{x!r:^{width}}] [{x:.{digits}}]")


@cases((1, 2),)
def tstring_debugging(x, y):
    return parts(t"{x=} {y = } {x + y=:>4} {x=!s} {y=!r:<3}")


@cases((1,), ("two",))
def tstring_spacing(x):
    return parts(t"{ x } {x  +  1 if isinstance(x, int) else x * 2}")


@cases((5,),)
def tstring_nested(x):
    inner = t"<{x}>"
    outer = t"[{t'{x}-{inner}'}]"
    return parts(outer), type(outer).__name__


@cases((1, 2),)
def tstring_concatenation(a, b):
    return parts(t"a={a}, " t'b={b}' t"""!""")


@cases(("v",),)
def tstring_raw_and_escapes(v):
    return (parts(rt"raw \n {v} \d"), parts(t"tab\t{v}\n{{braces}} 'single' \"double\""),
            parts(t""), parts(t"{{}}"))


@cases((1, 2),)
def tstring_quotes_in_fields(a, b):
    d = {"k": a, 'j': b}
    return parts(t"{d['k']} {d["j"]} {'}'} {"{" + str(a)}")


@cases(([1, 2, 3],),)
def tstring_expressions(items):
    return parts(t"{[i * 2 for i in items]} {len(items) > 2 and 'long'} {(lambda v: v)(1)}"
                 t"{items[0]:{'>'}{3}} {(yield_ := items[-1])} {yield_}")


def tstring_interpolate(template):
    out = []
    for item in template:
        if isinstance(item, str):
            out.append(item)
        else:
            out.append(format(item.value, item.format_spec))
    return "".join(out)


@cases(("world", 3),)
def tstring_iterated(name, n):
    return tstring_interpolate(t"hello {name}, {n:03d} times")
