def augmented_targets(v):
    box = Box()
    box.n += v
    box.n += 1
    box.items[1] += v
    box.items[-1] -= 1
    d = {'k': 1}
    d['k'] *= 10
    box.child = Box()
    box.child.n |= 4
    box.child.items[v] += 3
    s = 'a'
    s += 'b'
    return box.n, box.items, d, box.child.n, box.child.items, s
