"""Everything `ferrox-opt` can name: dialects, passes and targets, loaded lazily.

ferrox's own entries are `module:attribute` strings so that importing the driver stays cheap and a
broken module only fails the command that uses it. Other installed packages add dialects and passes
through the entry-point groups `ferrox.dialects` and `ferrox.passes`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.transforms import get_all_passes
from xdsl.utils.target import Target

# xDSL 0.74 has no `index` dialect: index values use arith ops, as MLIR allows.
XDSL_DIALECTS = ("builtin", "func", "arith", "scf", "cf", "math", "memref", "llvm")

FERROX_DIALECTS = {
    "llvm": "ferrox.dialects.llvm:LLVM",
    "simt": "ferrox.dialects.simt:SIMT",
    "nvvm": "ferrox.dialects.nvvm:NVVM",
    "host": "ferrox.dialects.host:Host",
    "tile": "ferrox.dialects.tile:Tile",
}

FERROX_PASSES = {
    "verify-disjoint": "ferrox.passes.verify_disjoint:VerifyDisjointPass",
    "verify-ownership": "ferrox.passes.verify_ownership:VerifyOwnershipPass",
    "convert-simt-to-nvvm": "ferrox.lowering.simt_to_nvvm:ConvertSimtToNvvmPass",
    "convert-tile-to-simt": "ferrox.lowering.tile_to_simt:ConvertTileToSimtPass",
    "convert-nvvm-to-llvm": "ferrox.lowering.nvvm_to_llvm:ConvertNvvmToLLVMPass",
    "convert-to-llvm": "ferrox.lowering.to_llvm:ConvertToLLVMPass",
    "lower-to-llvm": "ferrox.lowering.pipeline:LowerToLLVMPass",
    "extract-device-code": "ferrox.lowering.pipeline:ExtractDeviceCodePass",
}

FERROX_TARGETS = {
    "llvm": "ferrox.targets.llvm_export:LLVMIRTarget",
    "ptx": "ferrox.targets.ptx:PTXTarget",
}

DIALECT_GROUP = "ferrox.dialects"
PASS_GROUP = "ferrox.passes"


def load(path: str) -> Any:
    module, _, attr = path.partition(":")
    return getattr(importlib.import_module(module), attr)


def _lazy(path: str) -> Callable[[], Any]:
    return lambda: load(path)


def _plugin(obj: Any) -> Callable[[], Any]:
    """An entry point may name the object itself or a zero-argument function returning it."""

    def get() -> Any:
        loaded = obj.load()
        if isinstance(loaded, Dialect) or isinstance(loaded, type):
            return loaded
        return loaded()

    return get


def all_dialects() -> dict[str, Callable[[], Dialect]]:
    xdsl = get_all_dialects()
    dialects: dict[str, Callable[[], Dialect]] = {name: xdsl[name] for name in XDSL_DIALECTS}
    dialects.update({name: _lazy(path) for name, path in FERROX_DIALECTS.items()})
    for ep in entry_points(group=DIALECT_GROUP):
        dialects.setdefault(ep.name, _plugin(ep))
    return dialects


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    passes: dict[str, Callable[[], type[ModulePass]]] = dict(get_all_passes())
    passes.update({name: _lazy(path) for name, path in FERROX_PASSES.items()})
    for ep in entry_points(group=PASS_GROUP):
        passes.setdefault(ep.name, _plugin(ep))
    return passes


def all_targets() -> dict[str, Callable[[], type[Target]]]:
    from xdsl.targets import get_all_targets

    targets = {"mlir": get_all_targets()["mlir"]}
    targets.update({name: _lazy(path) for name, path in FERROX_TARGETS.items()})
    return targets


def make_context(allow_unregistered: bool = False):
    """A context with every dialect registered (lazily), as `ferrox-opt` and the API use it."""
    from xdsl.context import Context

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
