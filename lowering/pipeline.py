"""`lower-to-llvm`: the whole SIMT-to-llvm chain, as a pipeline of named passes.

The stages (`STAGES`, in order), each a `ModulePass` that can also be run on its own:

1. `verify-disjoint`: the SIMT safety rules; nothing unsafe is lowered.
2. `extract-device-code`: the module keeps only what runs on the GPU. A top-level `func.func`
   that is not a kernel is host code (a program's `@main`, in the host dialect); it is dropped,
   since no kernel can call it (`simt.call` names only `simt.func`). Tile kernels, when present,
   first become SIMT kernels through `convert-tile-to-simt`.
3. `convert-simt-to-nvvm`: kernels and device functions to func + nvvm + llvm pointer ops, with
   the kernel ABI and signature (`ferrox.abi`).
4. `canonicalize`, then 5. `cse`: xDSL's, to fold the constants and repeated address arithmetic
   the conversion leaves (LLVM would, too, but the IR in between stays readable). Neither moves
   barriers or warp collectives: they have effects, so only pure ops are merged or removed.
6. `convert-to-llvm`: func, arith, scf, cf and nvvm to the llvm dialect.

`lower-to-llvm` is the pass that runs them all. A pass driver that wants to see every stage
(`ferrox-opt --print-ir-after-all`, `--time-passes`) replaces it by its stages first:
`expand_stages`. `ferrox.targets.compile` runs the chain on a copy of a module, exports it and
compiles it to PTX.

The compiler's own path (`COMPILE_STAGES`, what `ferrox.compile` runs) leaves out what changes
nothing there: `canonicalize` and `cse` (the PTX of every example is byte-identical without
them, and `tests/targets/test_compile_stages.py` keeps it so: LLVM's own passes merge what cse
merged, and the ops cse removed were mostly constants, which LLVM IR writes as operands, so the
LLVM IR grows by a few lines and LLVM's time not measurably, where cse cost more than the later
stages spend on the ops it removed) and the safety rules checked again inside
later stages (`convert-tile-to-simt` and `convert-simt-to-nvvm` each re-run `verify-disjoint`
on the whole module, so that no composition of passes lowers an unverified kernel; here the
first stage has checked every SIMT kernel and the tile lowering checks each kernel it makes).
On a tile kernel these were a quarter of the compile. A cache miss of `ferrox.compile`
(`COMPILE_STAGES_CHECKED_BESIDE`) runs that first check too, on the module as given, while
LLVM works on the lowered copy, and returns no artifact unless it passes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.rewriter import Rewriter
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from ferrox.lowering.simt_to_nvvm import ConvertSimtToNvvmPass
from ferrox.lowering.simt_to_nvvm.convert import convert_simt_to_nvvm
from ferrox.lowering.simt_to_nvvm.support import KERNEL_ATTR
from ferrox.lowering.tile_to_simt import ConvertTileToSimtPass
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.lowering.to_llvm import ConvertToLLVMPass
from ferrox.passes.verify_disjoint import VerifyDisjointPass
from ferrox.registry import make_context, plugin_lowerings

TILE_TO_SIMT = ConvertTileToSimtPass.name

PipelineCallback = Callable[[ModulePass | None, ModuleOp, ModulePass | None], None]
"""What `xdsl.passes.PassPipeline` calls between passes: (the pass that ran, module, the next)."""


def extract_device_code(
    module: ModuleOp, ctx: Context | None = None, *, verified: bool = False
) -> None:
    """Drop host code (`func.func`s that are not kernels, at the top level of the module or of a
    module nested in it: left there, the later stages would lower them as device code and break
    their host ops); lower tile kernels to SIMT;
    then run the lowerings of installed dialect plugins (`registry.plugin_lowerings`), so that
    what is left is in ops the later stages know. `verified`: the module's SIMT kernels passed
    `verify-disjoint` already (the tile lowering still checks every kernel it makes)."""
    scopes = [module]
    while scopes:
        for op in list(scopes.pop().ops):
            if isinstance(op, ModuleOp):
                scopes.append(op)
            elif isinstance(op, func.FuncOp) and KERNEL_ATTR not in op.attributes:
                Rewriter.erase_op(op, safe_erase=False)
    if any(op.dialect_name() == "tile" for op in module.ops):
        if verified:
            convert_tile_to_simt(module)
        else:
            ConvertTileToSimtPass().apply(ctx or make_context(), module)
    for lowering in plugin_lowerings():
        lowering.apply(ctx or make_context(), module)


@dataclass(frozen=True)
class ExtractDeviceCodePass(ModulePass):
    """Keep only device code: drop host `func.func`s, lower tile kernels to SIMT."""

    name = "extract-device-code"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        extract_device_code(op, ctx)


@dataclass(frozen=True)
class _ExtractVerifiedDeviceCode(ExtractDeviceCodePass):
    """`extract-device-code` after `verify-disjoint` has run (COMPILE_STAGES only)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        extract_device_code(op, ctx, verified=True)


@dataclass(frozen=True)
class _ConvertVerifiedSimtToNvvm(ConvertSimtToNvvmPass):
    """`convert-simt-to-nvvm` of kernels verified earlier in COMPILE_STAGES."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_simt_to_nvvm(op)


STAGES: tuple[ModulePass, ...] = (
    VerifyDisjointPass(),
    ExtractDeviceCodePass(),
    ConvertSimtToNvvmPass(),
    CanonicalizePass(),
    CommonSubexpressionElimination(),
    ConvertToLLVMPass(),
)
"""The pipeline, stage by stage, as `ferrox-opt` and `docs/lowering.py` show it."""

COMPILE_STAGES: tuple[ModulePass, ...] = (
    VerifyDisjointPass(),
    _ExtractVerifiedDeviceCode(),
    _ConvertVerifiedSimtToNvvm(),
    ConvertToLLVMPass(),
)
"""The compiler's path: the same PTX as `STAGES`, without the stages that change nothing
there (see the module docstring)."""

COMPILE_STAGES_CHECKED_BESIDE: tuple[ModulePass, ...] = COMPILE_STAGES[1:]
"""`COMPILE_STAGES` less `verify-disjoint`, for a compile that checks the SIMT rules itself on
the module it was given, while LLVM works, and returns nothing until they hold
(`targets/compile.py`, `verified=False`): the check reads the module and changes nothing, so
where it runs changes no artifact, only whether one is returned."""


def lower_to_llvm(
    module: ModuleOp,
    ctx: Context | None = None,
    callback: PipelineCallback | None = None,
    stages: tuple[ModulePass, ...] = STAGES,
) -> None:
    """Lower `module` in place to the llvm dialect; raises `DiagnosticError` on the first stage
    that fails (each stage reports all of its errors). `callback` runs between stages;
    `stages`: `STAGES`, or `COMPILE_STAGES` for the compiler's path."""
    PassPipeline(stages, callback).apply(ctx or make_context(), module)


@dataclass(frozen=True)
class LowerToLLVMPass(ModulePass):
    """verify-disjoint, extract-device-code, convert-simt-to-nvvm, canonicalize, cse,
    convert-to-llvm."""

    name = "lower-to-llvm"

    @property
    def stages(self) -> tuple[ModulePass, ...]:
        return STAGES

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_to_llvm(op, ctx)


def expand_stages(passes: Iterable[ModulePass]) -> tuple[ModulePass, ...]:
    """`passes` with each composite pass (one with `stages`, as `lower-to-llvm`) replaced by its
    stages, so that a pipeline's callback runs, prints and times each stage."""
    out: list[ModulePass] = []
    for p in passes:
        stages = getattr(p, "stages", None)
        out.extend(expand_stages(stages) if isinstance(stages, tuple) else (p,))
    return tuple(out)


__all__ = [
    "COMPILE_STAGES",
    "COMPILE_STAGES_CHECKED_BESIDE",
    "STAGES",
    "ExtractDeviceCodePass",
    "LowerToLLVMPass",
    "PipelineCallback",
    "expand_stages",
    "extract_device_code",
    "lower_to_llvm",
]
