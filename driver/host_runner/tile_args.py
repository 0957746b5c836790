"""A tile launch on the GPU: the SIMT kernel a tile kernel lowers to, and its arguments.

`convert-tile-to-simt` keeps the kernel's name and records, in `tile.params`, where each SIMT
parameter's value comes from: `argI` (tile parameter I itself: its buffer, or the scalar) or
`argI.dimD` (dimension D of tile parameter I's tensor). The lowered kernel has a contract (its
block, and `len(slice) == d0 * d1 * ...` for every tensor), so the GPU backend prepares the
launch against it and the device's limits, exactly like a SIMT launch, before launching.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr

from ferrox.dialects import simt
from ferrox.driver.host_runner.values import Partition, Tensor

PARAMS_ATTR = "tile.params"  # lowering/tile_to_simt/kernel.py's PARAMS_ATTR


def lowered_tile_kernels(module: ModuleOp) -> dict[str, simt.KernelOp]:
    """Every tile kernel of `module` as the SIMT kernel the compiler makes of it (by name)."""
    if not any(op.name == "tile.kernel" for op in module.ops):
        return {}
    from ferrox.lowering.pipeline import extract_device_code

    device = module.clone()
    extract_device_code(device)
    return {
        op.sym_name.data: op
        for op in device.ops
        if isinstance(op, simt.KernelOp) and PARAMS_ATTR in op.attributes
    }


def simt_arguments(lowered: simt.KernelOp, args: Sequence[Any]) -> list[Any]:
    """The lowered kernel's arguments, in its parameter order, from the tile launch's `args`
    (in the tile kernel's parameter order: partitions, tensors and scalars)."""
    sources = lowered.attributes[PARAMS_ATTR]
    assert isinstance(sources, ArrayAttr)
    values: list[Any] = []
    for source in sources.data:
        assert isinstance(source, StringAttr)
        arg, _, dim = source.data.partition(".dim")
        value = args[int(arg.removeprefix("arg"))]
        if isinstance(value, Partition):
            value = value.tensor
        if dim:
            assert isinstance(value, Tensor)
            values.append(value.shape[int(dim)])
        else:
            values.append(value)
    return values
