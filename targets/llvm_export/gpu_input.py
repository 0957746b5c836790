"""Which modules `ferrox-opt -t llvm` exports for NVPTX, and which for the host, as `xdsl-opt`.

`ferrox-opt` is `xdsl-opt` plus ferrox, so on input `xdsl-opt` could have been given, `-t llvm`
targets what `xdsl-opt -t llvm` targets: the host's triple, no data layout. Input that says it
is GPU code gets the NVPTX triple and data layout. ferrox's exporter writes both (its refusals
and located errors hold for every input; xDSL's exporter crashes or writes invalid IR on some,
see docs/ferrox-opt.md). A module is GPU code by any one of:

- an op of `simt`, `tile`, `host` or `nvvm` (ferrox's dialects; `-t llvm` lowers them first);
- an `llvm` op that xDSL's llvm dialect lacks (ferrox adds atomics, casts, intrinsics; xdsl-opt
  cannot read them, so there is no xdsl-opt behaviour to match);
- a kernel (`nvvm.kernel` or a `ptx_*` calling convention) or any `nvvm.*` attribute on a
  function, or a call of an `llvm.nvvm.*` intrinsic;
- an `llvm.target_triple` naming an NVPTX target (`nvptx64-nvidia-cuda`, `nvptx-...`).

The choice is made on the input as parsed, before any pass runs, so `-p lower-to-llvm -t llvm`
and `-t llvm` agree, and a plain device function is exported for NVPTX by naming the triple.
"""

from __future__ import annotations

import functools

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation

from ferrox.targets.llvm_export.functions import is_kernel

GPU_DIALECTS = frozenset({"simt", "tile", "host", "nvvm"})
"""ferrox's dialects: their ops are GPU code (lowered by `-t llvm` before export)."""

NVVM_INTRINSIC_PREFIX = "llvm.nvvm."


def is_gpu_module(module: ModuleOp) -> bool:
    """Whether `module` is GPU code by the rules above (NVPTX), else the host's."""
    triple = module.attributes.get("llvm.target_triple")
    if isinstance(triple, StringAttr) and triple.data.startswith("nvptx"):
        return True
    return any(_is_gpu_op(op) for op in module.walk())


def _is_gpu_op(op: Operation) -> bool:
    dialect = op.name.partition(".")[0]
    if dialect in GPU_DIALECTS:
        return True
    if dialect != "llvm":
        return False
    if type(op) not in _xdsl_llvm_ops():
        return True
    if isinstance(op, llvm.FuncOp):
        return (
            is_kernel(op)
            or op.CConv.cconv_name.startswith("ptx")
            or any(name.startswith("nvvm.") for name in op.attributes)
        )
    if isinstance(op, llvm.CallIntrinsicOp):
        return op.intrin.data.startswith(NVVM_INTRINSIC_PREFIX)
    return False


@functools.cache
def _xdsl_llvm_ops() -> frozenset[type[Operation]]:
    return frozenset(llvm.LLVM.operations)
