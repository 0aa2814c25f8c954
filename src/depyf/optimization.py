"""``TorchCompileWrapperWithCustomDispatcher``: call Dynamo's compiled code without its guards.

depyf 0.20's class, used by vLLM. A subclass implements ``forward``, builds
``torch.compile(self.forward, ...)`` in its ``__init__`` and passes it here, and decides in its
``__call__`` which compiled version to run::

    class Mod(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self):
            super().__init__(torch.compile(self.forward))
        def forward(self, x):
            ...
        def __call__(self, x):
            if self.compiled_codes:                # compiled once already:
                with self.dispatch_to_code(0):     # run that code directly, no guard is checked
                    return self.forward(x)
            return self.compiled_callable(x)       # first call: torch.compile compiles

This is only right when the caller knows the guards would pass (same shapes, dtypes, module
state...): nothing checks them any more.
"""
from __future__ import annotations

import contextlib
import types
import warnings
import weakref
from abc import abstractmethod
from typing import Any, Callable, Iterator, List

from depyf.dynamo import adapter

__all__ = ["TorchCompileWrapperWithCustomDispatcher"]


class TorchCompileWrapperWithCustomDispatcher:
    """Records the code Dynamo makes for this instance's ``forward`` (``self.compiled_codes``)
    and runs one of them directly with ``with self.dispatch_to_code(i): self.forward(...)``.

    Why swapping the code is enough: Dynamo's transformed code takes the same arguments and has
    the same cell and free variables as the original ``forward``, and finds its compiled graphs in
    the module's globals.
    """

    def __init__(self, compiled_callable: Callable[..., Any], use_custom_dispatcher: bool = True) -> None:
        adapter.require_torch("TorchCompileWrapperWithCustomDispatcher")
        self.compiled_callable = compiled_callable
        self.original_code_object: types.CodeType = self.__class__.forward.__code__
        self.compiled_codes: List[types.CodeType] = []
        self.use_custom_dispatcher = use_custom_dispatcher  # (stored for subclasses, as in 0.20)
        owner = weakref.ref(self)

        def hook(old_code: types.CodeType, new_code: types.CodeType) -> None:
            me = owner()
            if me is not None:
                me.bytecode_hook(old_code, new_code)
            return None  # never replaces Dynamo's code

        handle = adapter.register_bytecode_hook(hook)
        # The hook holds the instance weakly and goes away with it (0.20's kept it alive forever).
        weakref.finalize(self, handle.remove)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Override with the dispatch logic; by default, torch.compile's (guards checked)."""
        return self.compiled_callable(*args, **kwargs)

    @abstractmethod
    def forward(self, *args: Any, **kwargs: Any) -> Any:
        ...

    def bytecode_hook(self, old_code: types.CodeType, new_code: types.CodeType) -> None:
        """Keep ``new_code`` when Dynamo compiled ``forward`` for this very instance."""
        if old_code is not self.original_code_object:
            return
        frame_locals = adapter.compiling_frame_locals(old_code)
        if frame_locals is None:
            warnings.warn("depyf: cannot see which instance torch.compile is compiling forward for; "
                          "its code is not recorded and dispatch_to_code has nothing to run", RuntimeWarning)
            return
        if frame_locals.get("self") is not self:
            return
        self.compiled_codes.append(new_code)

    @contextlib.contextmanager
    def dispatch_to_code(self, index: int) -> Iterator[None]:
        """Inside the block, ``self.forward`` runs ``self.compiled_codes[index]`` (for every
        instance of this class: the code belongs to the class's function)."""
        fn = self.__class__.forward
        previous = fn.__code__
        fn.__code__ = self.compiled_codes[index]
        try:
            yield
        finally:
            fn.__code__ = previous
