"""The usage examples of depyf 0.20's README and documentation, as scripts.

Written from the documented API (the call sequences the README, index, advanced usage and
optimization tutorial pages show), not copied from depyf 0.20's tests. They must run unchanged
against this depyf; test_compat_examples.py runs them and checks what they produced.
"""

# docs/index.rst: the two context managers, launched as a script
INDEX = '''
import torch

@torch.compile
def function(inputs):
    x = inputs["x"]
    y = inputs["y"]
    x = x.cos().cos()
    if x.mean() > 0.5:
        x = x / 1.1
    return x * y

shape_10_inputs = {"x": torch.randn(10, requires_grad=True), "y": torch.randn(10, requires_grad=True)}
shape_8_inputs = {"x": torch.randn(8, requires_grad=True), "y": torch.randn(8, requires_grad=True)}

import depyf
with depyf.prepare_debug("./debug_dir"):
    # warmup
    for i in range(100):
        output = function(shape_10_inputs)
        output = function(shape_8_inputs)
# the program will pause here for you to set breakpoints
# then you can hit breakpoints when running the function
with depyf.debug():
    output = function(shape_10_inputs)
'''

# README, "Debug torch.compile with your favorite debugger" (the 0.13+ form of prepare_debug)
README_DEBUG = '''
import torch

@torch.compile(backend="eager")
def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b

import depyf
with depyf.prepare_debug("./dump_src_dir"):
    # run your code long enough under `depyf.prepare_debug` to prepare all the source code for debugging
    for _ in range(100):
        toy_example(torch.randn(10), torch.randn(10))
# the program will pause here for you to set breakpoints
with depyf.debug():
    # then you can hit breakpoints when running the function
    result = toy_example(torch.ones(10), torch.ones(10))
'''

# README / advanced usage, "Enhance torch.compile logging"; run with TORCH_LOGS="+bytecode"
INSTALL = '''
import depyf
depyf.install()
from typing import List
import torch
from torch import _dynamo as torchdynamo
def my_compiler(gm: torch.fx.GraphModule, example_inputs: List[torch.Tensor]):
    print("my_compiler() called with FX graph:")
    gm.graph.print_tabular()
    return gm.forward  # return a python callable

@torchdynamo.optimize(my_compiler)
def toy_example(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b
for _ in range(100):
    toy_example(torch.randn(10), torch.randn(10))
'''

# depyf.install's docstring example
INSTALL_DOCSTRING = '''
import torch
import depyf
depyf.install()
# anything with torch.compile
@torch.compile
def f(a, b):
    return a + b
f(torch.tensor(1), torch.tensor(2))
'''

# docs/opt_tutorial.rst, "Understanding the Code with Depyf": the example with the two lines added
OPT_TUTORIAL_DUMP = '''
import torch

class F(torch.nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i

    def forward(self, x):
        return x + self.i

class Mod(torch.nn.Module):
    def __init__(self, n: int):
        super().__init__()
        self.fs = torch.nn.ModuleList([F(i) for i in range(n)])

    @torch.compile
    def forward(self, x):
        for f in self.fs:
            x = f(x)
        return x

total_time = 0
import time

mod = Mod(100)
# Insert these lines before ``mod(torch.tensor([1]))``
import depyf
with depyf.prepare_debug("dump_src_dir/"):
    mod(torch.tensor([1]))  # Compile the function
# Remaining code as above

x = torch.tensor([2])  # Create input tensor
start = time.time()
for i in range(10000):
    y = mod(x)
    # do something with y
end = time.time()
total_time += end - start
print(total_time)
'''

# docs/opt_tutorial.rst, "Optimizing the Code": the guard-skipping dispatcher
OPT_TUTORIAL_WRAPPER = '''
import torch
import depyf
from depyf.optimization import TorchCompileWrapperWithCustomDispatcher

class F(torch.nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i

    def forward(self, x):
        return x + self.i

class Mod(TorchCompileWrapperWithCustomDispatcher):
    def __init__(self, n: int):
        self.fs = torch.nn.ModuleList([F(i) for i in range(n)])
        compiled_callable = torch.compile(self.forward)
        super().__init__(compiled_callable)

    def forward(self, x):
        for f in self.fs:
            x = f(x)
        return x

    def __call__(self, x):
        if len(self.compiled_codes) == 1:
            with self.dispatch_to_code(0):
                return self.forward(x)
        else:
            return self.compiled_callable(x)

total_time = 0
import time

mod = Mod(100)
mod(torch.tensor([1]))  # Compile

x = torch.tensor([2])  # Input tensor
start = time.time()
for i in range(10000):
    y = mod(x)
end = time.time()
total_time += end - start
print(total_time)
'''

# vLLM's use of depyf (its compilation monitor and compile wrapper): prepare_debug entered when
# compilation starts and exited from another call stack when it ends (the compiled graph's
# first run), and the transformed code decompiled in a bytecode hook of its own, into a file.
VLLM = '''
import os
import torch
import depyf
from depyf.optimization import TorchCompileWrapperWithCustomDispatcher

context_manager = None

def start_monitoring_torch_compile(path):
    global context_manager
    context_manager = depyf.prepare_debug(path)
    context_manager.__enter__()

def end_monitoring_torch_compile():
    global context_manager
    if context_manager is not None:
        context_manager.__exit__(None, None, None)
        context_manager = None

class PiecewiseBackend:
    """What the backend returns: ends the monitoring on its first run, as vLLM's does."""

    def __init__(self, graph):
        self.graph = graph
        self.first_run_finished = False

    def __call__(self, *args):
        if not self.first_run_finished:
            self.first_run_finished = True
            end_monitoring_torch_compile()
        return self.graph(*args)

def vllm_backend(gm, example_inputs):
    return PiecewiseBackend(gm)

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return torch.relu(self.linear(x)) * 2

class CompiledModel(TorchCompileWrapperWithCustomDispatcher):
    def __init__(self, model, dump_path):
        self.model = model
        self.dump_path = dump_path
        compiled_callable = torch.compile(self.forward, backend=vllm_backend, fullgraph=True)
        super().__init__(compiled_callable)
        torch._dynamo.convert_frame.register_bytecode_hook(self.save_transformed_code)

    def save_transformed_code(self, old_code, new_code):
        if old_code is not self.original_code_object:
            return
        decompiled_file = os.path.join(self.dump_path, "transformed_code.py")
        if not os.path.exists(decompiled_file):
            src = depyf.decompile(new_code)
            with open(decompiled_file, "w") as f:
                f.write(src)

    def forward(self, x):
        return self.model(x)

    def __call__(self, x):
        if len(self.compiled_codes) < 1:
            start_monitoring_torch_compile(os.path.join(self.dump_path, "rank_0"))
            return self.compiled_callable(x)
        with self.dispatch_to_code(0):
            return self.forward(x)

torch.manual_seed(0)
model = Model()
compiled = CompiledModel(model, os.path.abspath("vllm_dump"))
x = torch.randn(3, 4)
first = compiled(x)
second = compiled(x)
expected = model(x)
'''
