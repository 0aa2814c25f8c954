def docstring_then_code():
    """First line.

    More lines, with 'quotes' and "double quotes" and a backslash \\ too.
    """
    x = 1
    return x
