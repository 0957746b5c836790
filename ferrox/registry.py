"""Everything `ferrox-opt` can name: dialects, passes and targets, loaded lazily.

Every dialect, pass and target `xdsl-opt` knows (xDSL's multiverse: its own and those of xDSL
plugins) is here, so that `ferrox-opt` is `xdsl-opt` plus ferrox; where a name is both, ferrox's
entry wins (`llvm`: xDSL's dialect extended, and the LLVM IR target). ferrox's own entries are
`module:attribute` strings so that importing the driver stays cheap and a broken module only fails
the command that uses it. Other installed packages add dialects and passes through the
entry-point groups `ferrox.dialects` and `ferrox.passes`; a plugin's dialect compiles and runs
through `ferrox.lowerings` (passes that `lower-to-llvm` runs on every module, see
`plugin_lowerings`) and `ferrox.interpreter` (modules whose import registers the ops' meanings
with the reference interpreter, see `load_interpreter_plugins`).
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target

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

PASS_DESCRIPTIONS = {
    "verify-disjoint": "check the SIMT safety rules 1-7 (docs/safety.md); changes nothing",
    "verify-ownership": "check every host function's tensor ownership; changes nothing",
    "convert-simt-to-nvvm": "lower SIMT kernels and device functions to func, nvvm and llvm",
    "convert-tile-to-simt": (
        "lower tile kernels to SIMT kernels (threads per block, elems per chunk; 0: auto)"
    ),
    "convert-nvvm-to-llvm": "lower nvvm ops alone to llvm",
    "convert-to-llvm": "lower func, arith, math, scf, cf, memref and nvvm to the llvm dialect",
    "lower-to-llvm": "the whole lowering of a ferrox module to llvm, stage by stage",
    "extract-device-code": "keep only device code: drop host functions, lower tile kernels",
}
"""One line for each of ferrox's passes, as `ferrox-opt --help` and `--list-passes` print it."""

FERROX_TARGETS = {
    "llvm": "ferrox.targets.llvm_export:LLVMIRTarget",
    "ptx": "ferrox.targets.ptx:PTXTarget",
}

DIALECT_GROUP = "ferrox.dialects"
PASS_GROUP = "ferrox.passes"
LOWERING_GROUP = "ferrox.lowerings"
INTERPRETER_GROUP = "ferrox.interpreter"


@functools.cache
def _multiverse() -> Universe:
    """xDSL's registry of itself and its plugins; building it scans entry points (~10 ms)."""
    return Universe.get_multiverse()


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
    dialects: dict[str, Callable[[], Dialect]] = dict(_multiverse().all_dialects)
    dialects.update({name: _lazy(path) for name, path in FERROX_DIALECTS.items()})
    for ep in _entry_points(DIALECT_GROUP, tuple(sys.path)):
        dialects.setdefault(ep.name, _plugin(ep))
    return dialects


@functools.lru_cache(maxsize=8)
def _entry_points(group: str, path: tuple[str, ...]) -> tuple[Any, ...]:
    """`entry_points(group=group)` for this `sys.path` (scanning every installed distribution
    took about 1 ms of each compile's `make_context`)."""
    return tuple(entry_points(group=group))


def all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """ferrox's passes first (the order `--help` lists them in), then xDSL's and plugins'."""
    passes: dict[str, Callable[[], type[ModulePass]]] = {
        name: _lazy(path) for name, path in FERROX_PASSES.items()
    }
    for name, factory in _multiverse().all_passes.items():
        passes.setdefault(name, factory)
    for ep in entry_points(group=PASS_GROUP):
        passes.setdefault(ep.name, _plugin(ep))
    return passes


def plugin_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """The passes installed packages add through the `ferrox.passes` entry points."""
    return {ep.name: _plugin(ep) for ep in entry_points(group=PASS_GROUP)}


@functools.cache
def plugin_lowerings() -> tuple[ModulePass, ...]:
    """The passes installed packages add to `lower-to-llvm` (group `ferrox.lowerings`), in the
    order of their entry-point names, each made with no arguments. They run after the device code
    is extracted and before the SIMT lowering, so a plugin op in a kernel becomes ops the rest of
    the pipeline knows (arith, math, llvm). Scanned once per process."""
    found = sorted(entry_points(group=LOWERING_GROUP), key=lambda ep: ep.name)
    return tuple(_plugin(ep)()() for ep in found)


@functools.cache
def load_interpreter_plugins() -> None:
    """Import every module of the `ferrox.interpreter` group once: importing one registers its
    ops with the reference interpreter (`ferrox.driver.interpreter.ops.lowers`)."""
    for ep in entry_points(group=INTERPRETER_GROUP):
        ep.load()


def all_targets() -> dict[str, Callable[[], type[Target]]]:
    targets = dict(_multiverse().all_targets)
    targets.update({name: _lazy(path) for name, path in FERROX_TARGETS.items()})
    return targets


def make_context(allow_unregistered: bool = False):
    """A context with every dialect registered (lazily), as `ferrox-opt` and the API use it."""
    from xdsl.context import Context

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
