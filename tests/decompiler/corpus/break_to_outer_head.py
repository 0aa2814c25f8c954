"""An elif arm that ends with an inner if whose else part is a `break` of a while loop that ends
an enclosing for loop's body: the break jumps to the for loop's head (3.12+ thread it there), so
the arm's last instruction is that jump back, while the inner if's body jumps past the later
arms. The arm has no jump of its own over them; the later arms are still its else part."""
from _cases import cases


@cases(([[1, 2, 3, 4], [2]], True), ([[2, 3], [3, 1]], False), ([], True), ([[4, 2, 1]], False))
def elif_arm_breaks_to_outer_head(lines, ok):
    # parso's tokenize_lines: `elif token in triple_quoted: if endmatch: ... else: ...; break`.
    out = []
    for line in lines:
        pos = 0
        while pos < len(line):
            t = line[pos]
            pos += 1
            if t == 1:
                out.append("one")
            elif t == 2:
                if ok or out:
                    out.append("two")
                else:
                    out.append("stop")
                    break
            elif t == 3:
                out.append("three")
            else:
                out.append(t)
    return out
