"""`lower-to-llvm`: the whole SIMT-to-llvm chain, and `compile_module_to_ptx` on top of it.

The stages, each also a pass of its own (`STAGES`, in order):

1. `verify-disjoint`: the SIMT safety rules; nothing unsafe is lowered.
2. `extract-device-code`: the module keeps only what runs on the GPU. A top-level `func.func`
   that is not a kernel is host code (a program's `@main`, in the host dialect); it is dropped,
   since no kernel can call it (`simt.call` names only `simt.func`). Tile kernels, when present,
   first become SIMT kernels through `convert-tile-to-simt`.
3. `convert-simt-to-nvvm`: kernels and device functions to func + nvvm + llvm pointer ops, with
   the kernel ABI and signature (`ferrox.abi`).
4. `canonicalize` and `cse`: xDSL's, to fold the constants and repeated address arithmetic the
   conversion leaves (LLVM would, too, but the IR in between stays readable). Neither moves
   barriers or warp collectives: they have effects, so only pure ops are merged or removed.
5. `convert-to-llvm`: func, arith, scf, cf and nvvm to the llvm dialect.

`compile_module_to_ptx` runs the chain on a copy of a module, exports it and compiles it to
PTX, returning the PTX with each kernel's launcher signature.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import KernelOp
from ferrox.lowering.simt_to_nvvm import ABI_ATTR, convert_simt_to_nvvm, read_signature
from ferrox.lowering.simt_to_nvvm.support import KERNEL_ATTR, REQNTID_ATTR
from ferrox.passes.verify_disjoint import verify_disjoint

TILE_TO_SIMT = "convert-tile-to-simt"


def _context(ctx: Context | None) -> Context:
    if ctx is not None:
        return ctx
    from ferrox.driver.registry import make_context

    return make_context()


def extract_device_code(module: ModuleOp, ctx: Context | None = None) -> None:
    """Drop host code (top-level `func.func`s that are not kernels); lower tile kernels to SIMT."""
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and KERNEL_ATTR not in op.attributes:
            Rewriter.erase_op(op, safe_erase=False)
    if any(op.dialect_name() == "tile" for op in module.ops):
        from ferrox.driver.registry import all_passes

        factory = all_passes().get(TILE_TO_SIMT)
        if factory is not None:
            try:
                tile_pass = factory()
            except ImportError:
                return  # the tile ops stay, and the next stages report them
            tile_pass().apply(_context(ctx), module)


@dataclass(frozen=True)
class ExtractDeviceCodePass(ModulePass):
    """Keep only device code: drop host `func.func`s, lower tile kernels to SIMT."""

    name = "extract-device-code"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        extract_device_code(op, ctx)


def _canonicalize(module: ModuleOp, ctx: Context | None) -> None:
    CanonicalizePass().apply(_context(ctx), module)
    CommonSubexpressionElimination().apply(_context(ctx), module)


def _convert_to_llvm(module: ModuleOp, ctx: Context | None) -> None:
    from ferrox.lowering.to_llvm import convert_to_llvm

    convert_to_llvm(module)


Stage = Callable[[ModuleOp, "Context | None"], None]

STAGES: tuple[tuple[str, Stage], ...] = (
    ("verify-disjoint", lambda m, ctx: verify_disjoint(m)),
    ("extract-device-code", extract_device_code),
    ("convert-simt-to-nvvm", lambda m, ctx: convert_simt_to_nvvm(m)),
    ("canonicalize,cse", _canonicalize),
    ("convert-to-llvm", _convert_to_llvm),
)
"""The pipeline, stage by stage, as `docs/lowering.py` shows it."""


def lower_to_llvm(module: ModuleOp, ctx: Context | None = None) -> None:
    """Lower `module` in place to the llvm dialect; raises `DiagnosticError` on the first stage
    that fails (each stage reports all of its errors)."""
    for _, stage in STAGES:
        stage(module, ctx)


@dataclass(frozen=True)
class LowerToLLVMPass(ModulePass):
    """verify-disjoint, extract-device-code, convert-simt-to-nvvm, canonicalize, cse, convert-to-llvm."""

    name = "lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_to_llvm(op, ctx)


# -- to PTX ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelInfo:
    """What the launcher needs of one compiled kernel."""

    name: str
    signature: tuple[str, ...]
    """Argument kinds for `pack_args`: `slice:f32`, `ptr`, `f32`, `i32`, `i64`, `index`, ..."""
    block: tuple[int, int, int] | None = None
    """The launch contract's exact block (the PTX's `.reqntid`); None without a contract."""
    shared_bytes: int = 0
    """Dynamic shared memory the contract asks the launch for."""
    min_cc: int = 0
    """The contract's minimum compute capability (major * 10 + minor; 0: any)."""


@dataclass(frozen=True)
class CompiledKernels:
    """A module's PTX and, per kernel, its ABI."""

    ptx: str
    chip: str
    kernels: Mapping[str, KernelInfo] = field(default_factory=dict)

    @property
    def signatures(self) -> dict[str, list[str]]:
        """`{kernel: kinds}`, as `Module(image, signatures=...)` of the launcher takes them."""
        return {name: list(k.signature) for name, k in self.kernels.items()}

    def __getitem__(self, name: str) -> KernelInfo:
        return self.kernels[name]


def _compute_capability(chip: str) -> int | None:
    m = re.fullmatch(r"sm_(\d+)[a-z]?", chip)
    return int(m.group(1)) if m else None


def _check_min_cc(module: ModuleOp, chip: str) -> None:
    cc = _compute_capability(chip)
    diag = DiagnosticEngine()
    for op in module.ops:
        if isinstance(op, KernelOp) and op.contract is not None and cc is not None:
            needed = op.contract.min_cc.data
            if needed > cc:
                diag.error(
                    op,
                    f"kernel @{op.sym_name.data} needs compute capability {needed // 10}.{needed % 10} "
                    f"(its contract's min_cc = {needed}), but the target is {chip}",
                )
    diag.raise_if_errors()


def kernel_infos(simt_module: ModuleOp, lowered: ModuleOp) -> dict[str, KernelInfo]:
    """Each kernel's ABI, from the lowered functions' `ferrox.abi` and `nvvm.reqntid`, with the
    contract's shared memory and compute capability from the SIMT kernels."""
    contracts = {op.sym_name.data: op.contract for op in simt_module.ops if isinstance(op, KernelOp)}
    infos: dict[str, KernelInfo] = {}
    for op in lowered.ops:
        if not isinstance(op, llvm.FuncOp | func.FuncOp) or KERNEL_ATTR not in op.attributes:
            continue
        name = op.sym_name.data
        signature = read_signature(op.attributes.get(ABI_ATTR)) or []
        reqntid = op.attributes.get(REQNTID_ATTR)
        block = None
        if isinstance(reqntid, DenseArrayBase):
            x, y, z = (int(v) for v in reqntid.get_values())
            block = (x, y, z)
        contract = contracts.get(name)
        infos[name] = KernelInfo(
            name,
            tuple(signature),
            block,
            contract.shared_bytes.data if contract is not None else 0,
            contract.min_cc.data if contract is not None else 0,
        )
    return infos


def compile_module_to_ptx(
    module: ModuleOp,
    chip: str | None = None,
    opt: int = 3,
    features: str | None = None,
    ctx: Context | None = None,
) -> CompiledKernels:
    """PTX for every kernel of `module` (left unchanged), with each kernel's launcher signature.

    `chip` and `features` default to the module's `ferrox.chip`/`ferrox.features` attributes,
    else `sm_90` and that chip's PTX version. Host code in the module is ignored. Raises a
    `DiagnosticError` (located) for anything that cannot be compiled.
    """
    from ferrox.lowering.ptx import module_to_ptx, resolve_target

    chip, features = resolve_target(module, chip, features)
    _check_min_cc(module, chip)
    lowered = module.clone()
    lower_to_llvm(lowered, ctx)
    infos = kernel_infos(module, lowered)
    ptx = module_to_ptx(lowered, chip, features, opt)
    return CompiledKernels(ptx, chip, infos)


__all__ = [
    "STAGES",
    "CompiledKernels",
    "ExtractDeviceCodePass",
    "KernelInfo",
    "LowerToLLVMPass",
    "compile_module_to_ptx",
    "extract_device_code",
    "kernel_infos",
    "lower_to_llvm",
]
