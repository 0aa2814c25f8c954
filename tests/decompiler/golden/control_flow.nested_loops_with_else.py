def nested_loops_with_else(n):
    out = []
    for i in range(n):
        for j in range(n):
            if i == j == 1:
                break
            out.append((i, j))
        else:
            out.append(('no-break', i))
        while i < n:
            i += 1
            if i == 2:
                continue
            out.append(('w', i))
        out.append('while-else')
    return out
