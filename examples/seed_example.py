import torch
@torch.compile(backend="eager")
def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b

for _ in range(100):
    toy_example(torch.randn(10), torch.randn(10))

from depyf.explain import dump_src
src = dump_src(toy_example)
with open("explained_code.py", "w") as f:
    f.write(src)

# Beyond the blog post: the same function, compiled afresh under depyf.prepare_debug, which writes
# every artifact (transformed code, resume functions, graphs, guards, reasons) to a folder.
import os

import depyf

torch._dynamo.reset()
with depyf.prepare_debug("depyf_dump") as dump_dir:
    for _ in range(100):
        toy_example(torch.randn(10), torch.randn(10))

# A page to browse the dump: per function, the flow from guards to compiled code and resume
# functions, with every guard, graph and piece of code (`depyf report DUMP_DIR` does the same).
from depyf.report import write_report

report = write_report(dump_dir)

print("explanation (dump_src):", os.path.abspath("explained_code.py"))
print("dump (prepare_debug):  ", dump_dir)
for name in sorted(os.listdir(dump_dir)):
    print("    ", name)
print("report (open it in a browser):", report)
