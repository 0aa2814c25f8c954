"""Helpers that dumped guard functions call.

torch describes several guards in a form that is not a Python expression, or names helpers that
live only inside its C++ guard tree. The guard renderer turns each of those into a call to one of
the functions below, so a dumped guard function runs on its own and gives torch's verdict for the
same ``L`` (frame locals) and ``G`` (frame globals). Identity checks (``___check_obj_id``) compare
``id()`` values of the process that compiled, so they only hold inside that process.
"""
from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence

from depyf.dynamo import adapter

__all__ = [
    "___check_tensor",
    "___check_obj_id",
    "___check_type_id",
    "___dict_contains",
    "___check_global_state",
    "___check_torch_function_mode_stack",
    "___check_no_aliasing",
    "___guard_stand_in",
    "utils_device",
    "math",
]


def _device_matches(tensor: Any, device: Any) -> bool:
    if device is None:
        return tensor.device.type == "cpu"
    return str(tensor.device) == str(device) or tensor.device == device


def _dims_match(actual: Sequence[int], expected: Optional[List[Optional[int]]]) -> bool:
    if expected is None:
        return True
    if len(actual) != len(expected):
        return False
    return all(e is None or int(a) == e for a, e in zip(actual, expected))


def ___check_tensor(
    value: Any,
    type_name: str,
    dispatch_keys: str,
    dtype: Any,
    device: Any = None,
    requires_grad: bool = False,
    size: Optional[List[Optional[int]]] = None,
    stride: Optional[List[Optional[int]]] = None,
) -> bool:
    """TENSOR_MATCH: exact type, dispatch keys, dtype, device, requires_grad, sizes and strides."""
    import torch

    if not isinstance(value, torch.Tensor) or type(value).__name__ != type_name:
        return False
    if dispatch_keys and adapter.dispatch_key_text(value) not in ("", dispatch_keys):
        return False
    if value.dtype != dtype or bool(value.requires_grad) != bool(requires_grad):
        return False
    if not _device_matches(value, device):
        return False
    return _dims_match(value.size(), size) and _dims_match(value.stride(), stride)


def ___check_obj_id(value: Any, expected: int) -> bool:
    return id(value) == expected


def ___check_type_id(value: Any, expected: int) -> bool:
    return id(type(value)) == expected


def ___dict_contains(key: Any, mapping: Any) -> bool:
    return key in mapping


def ___check_global_state(expected: Optional[Dict[str, Any]] = None) -> bool:
    """GLOBAL_STATE: compares grad mode, determinism, thread count and torch-function state.

    torch also compares autocast and default-dtype state, which have no public reader here.
    """
    if not expected:
        return True
    now = adapter.global_state_snapshot()
    for key, value in now.items():
        if key in expected and expected[key] != value:
            return False
    return True


def ___check_torch_function_mode_stack() -> bool:
    """TORCH_FUNCTION_MODE_STACK: compiled code assumed no torch-function mode was active."""
    return adapter.torch_function_mode_stack_len() == 0


def ___check_no_aliasing(*tensors: Any) -> bool:
    """NO_TENSOR_ALIASING: the guarded tensors are distinct objects."""
    return len({id(t) for t in tensors}) == len(tensors)


def ___guard_stand_in(description: str) -> bool:
    """A guard torch describes in prose only; it is assumed to hold (see the comment beside it)."""
    return True


# DEFAULT_DEVICE guards read ``utils_device.CURRENT_DEVICE`` (torch's default-device module).
utils_device = adapter.utils_device_module()
