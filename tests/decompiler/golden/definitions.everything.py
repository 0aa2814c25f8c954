def everything(a, b=2, /, c=3, *args, d, e=5, **kwargs) -> tuple:
    return a, b, c, args, d, e, kwargs
