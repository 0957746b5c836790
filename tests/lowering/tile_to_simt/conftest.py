"""Helpers for the convert-tile-to-simt tests: lower tile IR, and run a lowered kernel on the
reference interpreter the way a host runner would, from the kernel's `tile.*` attributes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ferrox.dialects import simt
from ferrox.lowering import knobs as lowering_knobs
from ferrox.lowering.tile_to_simt import convert_tile_to_simt
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "tests" / "filecheck" / "dialects" / "tile" / "kernels.mlir"


def _impls():
    import simt_tile_impls

    return simt_tile_impls


# The latest lowerings, by text, choices, name and knobs (`lower_text`).
_LOWERED: dict[tuple, object] = {}
_KEEP = 16


def lower_text(text: str, threads: int = 0, elems: int = 0, name: str = "test.mlir"):
    """`text` parsed, verified, lowered and verified again. The same text, choices and name
    under the same knobs (every setting `knobs()` reads, and `ferrox.lowering.knobs.changed()`,
    the compile cache's own) lowers to the same module, so the latest few are kept and a repeat
    (a test's other sizes, another test of the same kernel) gets the kept module: callers read,
    compile (`compile_module` lowers a copy) or run it, and must not change it. A lowering that
    fails is not kept: it runs, and fails, each time."""
    key = (text, threads, elems, name, knobs(), lowering_knobs.changed())
    module = _LOWERED.pop(key, None)
    if module is None:
        module = parse_module(make_context(), text, name)
        verify_module(module)
        convert_tile_to_simt(module, threads, elems)
        verify_module(module)
    _LOWERED[key] = module  # the latest last
    while len(_LOWERED) > _KEEP:
        del _LOWERED[next(iter(_LOWERED))]
    return module


def knobs() -> tuple:
    """The lowering's settings as they are now: each upper-case bool, int or None of the loaded
    modules of `ferrox.lowering.tile_to_simt` (the names tests monkeypatch, and the rest), which
    choose what the lowering makes of one source. Part of the key of a cache of lowered modules."""
    return tuple(
        (name, key, value)
        for name, module in sorted(list(sys.modules.items()))
        if name.startswith("ferrox.lowering.tile_to_simt") and module is not None
        for key, value in sorted(vars(module).items())
        if key.isupper() and isinstance(value, (bool, int, type(None)))
    )


def simt_kernel(module, name: str) -> simt.KernelOp:
    for op in module.walk():
        if isinstance(op, simt.KernelOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def launch_args(
    kernel: simt.KernelOp, tile_args: list
) -> tuple[tuple[int, ...], tuple[int, int, int], list]:
    """(grid, block, SIMT arguments) for the tile arguments, read from the host attributes as
    the host runners read them (the grid in the kernel's grid order)."""
    from ferrox.driver.interpreter.tile_lowered import simt_launch

    return simt_launch(kernel, tile_args)


@pytest.fixture(scope="session")
def interpreter():
    """`run(module, name, tile_args)`: launch a lowered tile kernel on the interpreter."""
    try:
        from ferrox.driver.interpreter import run_simt_kernel
    except ImportError as e:  # pragma: no cover - the interpreter is part of the package
        pytest.skip(f"the SIMT interpreter is not available: {e}")
    _impls().register()

    def run(module, name: str, tile_args: list) -> None:
        kernel = simt_kernel(module, name)
        grid, block, args = launch_args(kernel, tile_args)
        shared = kernel.contract.shared_bytes.data if kernel.contract is not None else 0
        run_simt_kernel(module, name, grid, block, args, shared)

    return run


@pytest.fixture(scope="session")
def examples_text() -> str:
    return KERNELS.read_text()


@pytest.fixture(scope="session")
def lower():
    """`lower(text, threads=0, elems=0)`: the module, its tile kernels lowered and verified
    (`lower_text`: kept for repeats, not to be changed)."""
    return lower_text


@pytest.fixture(scope="session")
def find_kernel():
    return simt_kernel
