def boolean_shapes(a, b, c):
    r1 = a and b
    r2 = a or b
    r3 = a and b or c
    r4 = a or b and c
    r5 = (a or b) and c
    r6 = not a and (b or c)
    r7 = a and b and c
    r8 = (a and b) and c
    r9 = not (a or b or c)
    return r1, r2, r3, r4, r5, r6, r7, r8, r9
