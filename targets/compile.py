"""Compile a module to PTX: the `lower-to-llvm` chain on a copy, the LLVM export, and NVPTX.

`compile_module_to_ptx` returns the PTX with each kernel's launch facts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import KernelOp
from ferrox.lowering.pipeline import lower_to_llvm
from ferrox.lowering.simt_to_nvvm import ABI_ATTR, read_signature
from ferrox.lowering.simt_to_nvvm.support import KERNEL_ATTR, REQNTID_ATTR
from ferrox.targets.ptx import module_to_ptx, resolve_target


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
    contracts = {
        op.sym_name.data: op.contract for op in simt_module.ops if isinstance(op, KernelOp)
    }
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
    chip, features = resolve_target(module, chip, features)
    _check_min_cc(module, chip)
    lowered = module.clone()
    lower_to_llvm(lowered, ctx)
    infos = kernel_infos(module, lowered)
    ptx = module_to_ptx(lowered, chip, features, opt)
    return CompiledKernels(ptx, chip, infos)


__all__ = ["CompiledKernels", "KernelInfo", "compile_module_to_ptx", "kernel_infos"]
