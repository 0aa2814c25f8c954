def precedence_minimal_parens(a, b, c):
    x = (a + b) * c
    y = a + b * c
    z = a - (b - c)
    w = a - b - c
    p = a ** b ** c if c < 3 else 0
    q = (a ** b) ** 2
    r = -a ** 2
    s = (-a) ** 2
    t = a * (b // c) % 7
    u = (a | b) & c ^ a
    v = not (a and b)
    return x, y, z, w, p, q, r, s, t, u, v
