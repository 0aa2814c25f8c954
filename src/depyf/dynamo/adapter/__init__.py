"""The one place where depyf touches torch internals.

Every private torch API that depyf uses is reached through a function of this package. Each one
is feature-detected: when a torch release moved or removed something, the function returns a
neutral value (an empty list, ``None``) or raises :class:`TorchFeatureMissing` with a message that
says what is missing, and the caller degrades instead of breaking the user's program.

Nothing here is imported by ``import depyf``: torch is optional, and these modules import it on
first use. Callers use the names below (``from depyf.dynamo import adapter``); the modules split
them by subject:

- ``torch_import``: whether torch is installed and new enough, its modules on first use;
- ``compiled``: what torch.compile returns and makes (wrappers, graph modules, generated names);
- ``entries``: Dynamo's cache entries, their guards and the global state those read;
- ``hooks``: hooks into a running compilation (bytecode hook, backends, AOT and Inductor graphs);
- ``runtime``: the process around it (the user's stack, compilation metrics, caches, rank).
"""
from __future__ import annotations

from depyf.dynamo.adapter.torch_import import (
    MIN_TORCH, TorchFeatureMissing, TorchNotInstalled, require_torch, torch_version,
)
from depyf.dynamo.adapter.compiled import (
    compiled_wrappers, dig_artifacts, graph_backend_id, graph_code, graph_compile_reason,
    innermost_fn, is_compile_wrapper, is_dynamo_generated_name, is_graph_module, is_resume_code,
    module_call_wrapper, source_can_match, unwrap_compiled,
)
from depyf.dynamo.adapter.entries import (
    LeafGuard, cache_entries, dispatch_key_text, entry_code, entry_compile_id,
    entry_guard_manager, global_state_snapshot, guard_leaves, guard_verdict,
    torch_function_mode_stack_len, utils_device_module, whole_locations,
)
from depyf.dynamo.adapter.hooks import (
    InductorCodeHook, Patch, bytecode_artifact_logger, compiling_frame_globals,
    compiling_frame_locals, current_compile_id, inductor_code_origin, inductor_in_use,
    patch_aot_graph_logging, patch_frame_compile, patch_inductor_module_loading,
    patch_recompile_reasons, patch_user_compiler, register_bytecode_hook,
)
from depyf.dynamo.adapter.runtime import (
    caches_disabled, compilation_metrics_since, distributed_rank, now_us, user_stack,
)

__all__ = [
    "InductorCodeHook",
    "LeafGuard",
    "MIN_TORCH",
    "Patch",
    "TorchFeatureMissing",
    "TorchNotInstalled",
    "bytecode_artifact_logger",
    "cache_entries",
    "caches_disabled",
    "compilation_metrics_since",
    "compiled_wrappers",
    "compiling_frame_globals",
    "compiling_frame_locals",
    "current_compile_id",
    "dig_artifacts",
    "dispatch_key_text",
    "distributed_rank",
    "entry_code",
    "entry_compile_id",
    "entry_guard_manager",
    "global_state_snapshot",
    "graph_backend_id",
    "graph_code",
    "graph_compile_reason",
    "guard_leaves",
    "guard_verdict",
    "inductor_code_origin",
    "inductor_in_use",
    "innermost_fn",
    "is_compile_wrapper",
    "is_dynamo_generated_name",
    "is_graph_module",
    "is_resume_code",
    "module_call_wrapper",
    "now_us",
    "patch_aot_graph_logging",
    "patch_frame_compile",
    "patch_inductor_module_loading",
    "patch_recompile_reasons",
    "patch_user_compiler",
    "register_bytecode_hook",
    "require_torch",
    "source_can_match",
    "torch_function_mode_stack_len",
    "torch_version",
    "unwrap_compiled",
    "user_stack",
    "utils_device_module",
    "whole_locations",
]
