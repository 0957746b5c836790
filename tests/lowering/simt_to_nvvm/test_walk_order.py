"""The patterns hand SIMT values to each other through casts, so the conversion does not depend on
the order the walker visits ops in: every order gives valid IR that convert-to-llvm accepts."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp

from ferrox.lowering.conversion import ConversionState, DispatchWalker, Guarded, dispatch
from ferrox.lowering.pipeline import extract_device_code
from ferrox.lowering.simt_to_nvvm.casts import finish
from ferrox.lowering.simt_to_nvvm.convert import SIMT_TO_NVVM_PATTERNS
from ferrox.lowering.to_llvm import convert_to_llvm
from ferrox.parser import parse_module
from ferrox.registry import make_context

ROOT = Path(__file__).resolve().parents[3]
INPUTS = [
    *sorted((ROOT / "examples" / "simt").glob("*.mlir")),
    ROOT / "tests" / "filecheck" / "dialects" / "simt" / "docs.mlir",  # every op, as documented
    *(
        ROOT / "tests" / "filecheck" / "lowering" / "simt_to_nvvm" / f"{name}.mlir"
        for name in ("kernel", "shared", "atomic", "warp", "unsafe", "memory")
    ),
]
ORDERS = {
    "forward": {},
    "regions-first": {"walk_regions_first": True},
    "reverse": {"walk_reverse": True},
    "reverse-regions-first": {"walk_regions_first": True, "walk_reverse": True},
}


@functools.cache
def device_code(path: Path) -> ModuleOp:
    """`path` parsed, without the examples' host @main (not device code): once per input for
    its four orders (the wgmma GEMM's parse is a quarter second); each test lowers a clone."""
    module = parse_module(make_context(), path.read_text(), str(path))
    extract_device_code(module)
    return module


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.stem)
def test_any_walk_order(path: Path, order: str):
    module = device_code(path).clone()
    state = ConversionState("nvvm")
    patterns = [Guarded(p, state) for p in SIMT_TO_NVVM_PATTERNS]
    # The walker the compile uses (each op offered only the patterns that can match its
    # class: the same rewrites as a greedy applier without folding), in each order.
    walker = DispatchWalker(dispatch(patterns), **ORDERS[order])
    walker.rewrite_module(module)
    finish(module, state)
    assert not state.diagnostics.diagnostics
    module.verify()
    assert not any(
        op.dialect_name() == "simt" or isinstance(op, UnrealizedConversionCastOp)
        for op in module.walk()
    )
    convert_to_llvm(module)
    module.verify()
