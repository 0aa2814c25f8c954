def list_comprehensions(n):
    a = [i for i in range(n)]
    b = [i * j for i in range(n) if i for j in range(i) if j % 2 == 0]
    c = [(i, j) for i in range(n) for j in range(n) if i < j if j != 2]
    d = [[j for j in range(i)] for i in range(n)]
    e = [x for x, _ in zip(range(n), range(n))]
    return a, b, c, d, e
