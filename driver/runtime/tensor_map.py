"""TMA tensor maps, built at each launch from the arguments (`cuTensorMapEncodeTiled`).

A kernel's `simt.tma_load` ops name a slice parameter and two index parameters, its rows and
columns (`dialects/simt/tma.py`); the artifact lists each distinct map (`KernelArtifact.
tensor_maps`), and the lowered kernel takes one 128-byte by-value parameter a map after its own.
`map_values` turns the packed values of the kernel's own parameters into those maps' bytes.

The map is the whole safety argument of a TMA load's global side: the hardware never reads
outside the map's bounds (a box that crosses them is zero-filled), so the map must lie inside the
slice. A launch is refused, naming the argument, unless `rows * cols <= len` (a 3-D map's
`planes * rows * cols <= len`), and unless the
map can be made at all: the slice's address 16-byte aligned, a row a multiple of 16 bytes,
`rows` and `cols` from 1 to 2^32 (docs/safety.md, "TMA loads"). Those last refusals are
`NoTensorMap`: a tile kernel's launch goes to its portable twin then (`TileLaunch.portable`,
compiled the first time a launch needs it).
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from typing import Any

from ferrox.artifact import TENSOR_MAP_BYTES, KernelArtifact, Param, TensorMap
from ferrox.driver.runtime.abi import describe
from ferrox.driver.runtime.errors import ArgumentError, NoTensorMap, check

_ELEMENT_BYTES = {"bf16": 2, "f16": 2, "f32": 4}
_DIM_LIMIT = 2**32


def _data_type(element: str) -> Any:
    from cuda.bindings import driver as cu

    names = {"bf16": "BFLOAT16", "f16": "FLOAT16", "f32": "FLOAT32"}
    return getattr(cu.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{names[element]}")


def encode_tiled(
    element: str,
    address: int,
    rows: int,
    cols: int,
    box: tuple[int, int],
    swizzle: int,
    planes: int = 0,
) -> bytes:
    """The 128 bytes of the tiled tensor map of a row-major `rows` x `cols` matrix at `address`,
    or with `planes` of a `planes` x `rows` x `cols` tensor read a box one plane deep (the seam
    tests replace: it needs a driver)."""
    from cuda.bindings import driver as cu

    size = _ELEMENT_BYTES[element]
    mode = (
        cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
        if swizzle == 128
        else cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE
    )
    dims = [cols, rows, *([planes] if planes else [])]  # innermost first
    strides = [cols * size, *([rows * cols * size] if planes else [])]  # of dims 1.. in bytes
    boxes = [box[1], box[0], *([1] if planes else [])]
    err, tensor_map = cu.cuTensorMapEncodeTiled(
        _data_type(element),
        len(dims),
        address,
        [cu.cuuint64_t(d) for d in dims],
        [cu.cuuint64_t(d) for d in strides],
        [cu.cuuint32_t(b) for b in boxes],
        [cu.cuuint32_t(1) for _ in dims],
        cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        mode,
        cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,  # zeros
    )
    check(err, "cuTensorMapEncodeTiled")
    return ctypes.string_at(tensor_map.getPtr(), TENSOR_MAP_BYTES)


def slot_starts(params: Sequence[Param]) -> list[int]:
    """The position of each parameter's first PTX value among the packed values."""
    starts, at = [], 0
    for p in params:
        starts.append(at)
        at += len(p.abi)
    return starts


def check_bounds(
    m: TensorMap,
    param: Param,
    address: int,
    length: int,
    rows: int,
    cols: int,
    planes: int = 0,
):
    """Refuse a map that would reach outside its slice, or that the driver cannot make
    (`planes`: a 3-D map's, 0 for a 2-D map)."""
    where = describe(param)
    size = _ELEMENT_BYTES[m.element]
    if not (1 <= rows <= _DIM_LIMIT and 1 <= cols <= _DIM_LIMIT):
        raise NoTensorMap(
            f"{where}: its TMA tensor map needs rows and cols from 1 to 2^32, got {rows} x {cols}"
        )
    if planes and not 1 <= planes <= _DIM_LIMIT:
        raise NoTensorMap(f"{where}: its TMA tensor map needs 1 to 2^32 planes, got {planes}")
    if max(planes, 1) * rows * cols > length:
        shape = f"{planes} x {rows} x {cols}" if planes else f"{rows} x {cols}"
        raise ArgumentError(
            f"{where}: its TMA tensor map of {shape} elements reaches past the slice's "
            f"{length} elements"
        )
    if (cols * size) % 16:
        raise NoTensorMap(
            f"{where}: a TMA tensor map's rows must be a multiple of 16 bytes, got {cols} "
            f"elements of {m.element} ({cols * size} bytes)"
        )
    if address % 16:
        raise NoTensorMap(
            f"{where}: a TMA tensor map needs a 16-byte aligned address, got {address:#x}",
            by_address=True,
        )


def map_values(info: KernelArtifact, values: Sequence[Any]) -> list[bytes]:
    """The tensor maps of a launch whose own parameters packed to `values`, in parameter order."""
    params = info.entry_params
    starts = slot_starts(params)
    maps = []
    for m in info.tensor_maps:
        at = starts[m.param]
        address, length = int(values[at]) % 2**64, int(values[at + 1])
        rows, cols = int(values[starts[m.rows_param]]), int(values[starts[m.cols_param]])
        planes = int(values[starts[m.planes_param]]) if m.planes_param >= 0 else 0
        check_bounds(m, params[m.param], address, length, rows, cols, planes)
        if planes:
            map_bytes = encode_tiled(m.element, address, rows, cols, m.box, m.swizzle, planes)
        else:
            map_bytes = encode_tiled(m.element, address, rows, cols, m.box, m.swizzle)
        maps.append(map_bytes)
    return maps


__all__ = ["check_bounds", "encode_tiled", "map_values", "slot_starts"]
