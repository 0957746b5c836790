"""How one kernel argument becomes the values of its PTX parameters.

The artifact says each parameter's kind and element (`Param.abi`: a slice is its address as a
u64 then its length in elements as an i64; a scalar is one slot of its own type). The packers
here are built once per kernel; each turns a caller's value into what `cuda.core.launch`
copies into the parameter buffer: a Python int for 64-bit integer slots (cuda.core passes an
int as a 64-bit value), a NumPy scalar of the exact width for every other slot.

Values are range-checked, because a wrapped integer or an f32 overflowed to infinity would run
the kernel on a value nobody passed; a refusal names the parameter.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ferrox.artifact import AbiSlot, Param, ParamKind
from ferrox.driver.runtime.buffers import DeviceArray, DeviceView, view_of
from ferrox.driver.runtime.errors import ArgumentError, ArrayError

Packer = Callable[[Any, Any, list], None]
"""packer(value, stream, out): append the value's PTX parameter values to `out`."""

_INT_RANGES = {
    AbiSlot.I8: (-(2**7), 2**7 - 1),
    AbiSlot.I16: (-(2**15), 2**15 - 1),
    AbiSlot.I32: (-(2**31), 2**31 - 1),
    AbiSlot.I64: (-(2**63), 2**63 - 1),
}
_INT_TYPES = {AbiSlot.I8: np.int8, AbiSlot.I16: np.int16, AbiSlot.I32: np.int32}
_FLOAT_LIMITS = {
    AbiSlot.F16: float(np.finfo(np.float16).max),
    AbiSlot.BF16: float.fromhex("0x1.fep127"),
    AbiSlot.F32: float(np.finfo(np.float32).max),
    AbiSlot.F64: math.inf,
}


def describe(param: Param) -> str:
    """`argument 'n' (i32 scalar)`: how refusals name a parameter."""
    kind = "scalar" if param.kind is ParamKind.SCALAR else param.kind.value.replace("_", " ")
    return f"argument '{param.name}' ({param.element} {kind})"


def packer(param: Param) -> Packer:
    """The packer of one entry parameter."""
    if param.kind is ParamKind.SCALAR:
        return _scalar_packer(param)
    if param.kind is ParamKind.POINTER:
        return _pointer_packer(param)
    if param.kind in (ParamKind.TILE_TENSOR, ParamKind.PARTITION):
        raise ArgumentError(f"{describe(param)} is a tile parameter: it has no PTX form")
    return _slice_packer(param)


def buffer_view(value: Any, stream: Any) -> DeviceView:
    """The device memory of a buffer argument (a DeviceView or DeviceArray on the fast path)."""
    if isinstance(value, DeviceView):
        return value
    if isinstance(value, DeviceArray):
        return value.view
    return view_of(value, stream=stream)


def _slice_packer(param: Param) -> Packer:
    element, where = param.element, describe(param)

    def pack(value: Any, stream: Any, out: list) -> None:
        if type(value) is DeviceArray or type(value) is DeviceView:
            view = value  # both have ptr, size and element: no view to build
        else:
            try:
                view = buffer_view(value, stream)
            except ArrayError as exc:
                raise ArgumentError(f"{where}: {exc}") from None
        if view.element != element and _storage(view.element) != _storage(element):
            raise ArgumentError(f"{where}: expected {element} elements, got {view.element}")
        out.append(view.ptr)
        out.append(view.size)

    return pack


def _storage(element: str) -> str:
    """Integers are signless in memory: i32 and u32 are one storage type, index is i64."""
    if element == "index":
        return "i64"
    return "i" + element[1:] if element.startswith("u") else element


def _pointer_packer(param: Param) -> Packer:
    where = describe(param)

    def pack(value: Any, stream: Any, out: list) -> None:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            address = int(value)
            if not 0 <= address < 2**64:
                raise ArgumentError(f"{where}: address {address} is outside the 64-bit range")
            out.append(address - 2**64 if address >= 2**63 else address)  # as cuda.core's int64
            return
        try:
            out.append(buffer_view(value, stream).ptr)
        except ArrayError as exc:
            raise ArgumentError(f"{where}: {exc}") from None

    return pack


def _scalar_packer(param: Param) -> Packer:
    (slot,) = param.abi
    where = describe(param)
    if slot in _INT_RANGES:
        low, high = _INT_RANGES[slot]
        if param.element == "i1":
            low, high = 0, 1
        make = _INT_TYPES.get(slot, int)

        def pack_int(value: Any, stream: Any, out: list) -> None:
            if type(value) is not int and (
                isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
            ):
                if param.element == "i1" and isinstance(value, (bool, np.bool_)):
                    out.append(make(int(value)))
                    return
                raise ArgumentError(
                    f"{where}: expected an integer, got {type(value).__name__} {value!r}"
                )
            number = int(value)
            if not low <= number <= high:
                raise ArgumentError(
                    f"{where}: {number} does not fit in {param.element} ({low}..{high})"
                )
            out.append(make(number))

        return pack_int
    limit = _FLOAT_LIMITS[slot]
    makers: dict[AbiSlot, Callable[[float], Any]] = {
        AbiSlot.F16: np.float16,
        AbiSlot.BF16: bf16_bits,
        AbiSlot.F32: np.float32,
        AbiSlot.F64: np.float64,
    }
    make_float = makers[slot]

    def pack_float(value: Any, stream: Any, out: list) -> None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)
        ):
            raise ArgumentError(f"{where}: expected a number, got {type(value).__name__}")
        number = float(value)
        if math.isfinite(number) and abs(number) > limit:
            raise ArgumentError(
                f"{where}: {number!r} does not fit in {param.element} (largest is {limit:.6g})"
            )
        out.append(make_float(number))

    return pack_float


def bf16_bits(value: float) -> np.uint16:
    """The bf16 nearest `value` (ties to even), as its 16 bits; NaN stays a quiet NaN."""
    bits = int(np.array(value, dtype=np.float32).view(np.uint32))
    if math.isnan(value):
        return np.uint16((bits >> 16) | 0x40)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return np.uint16(rounded & 0xFFFF)


_C_TYPES: dict[AbiSlot, type] = {
    AbiSlot.U64: ctypes.c_uint64,
    AbiSlot.I64: ctypes.c_int64,
    AbiSlot.I32: ctypes.c_int32,
    AbiSlot.I16: ctypes.c_int16,
    AbiSlot.I8: ctypes.c_int8,
    AbiSlot.F16: ctypes.c_uint16,  # its bits
    AbiSlot.BF16: ctypes.c_uint16,  # its bits
    AbiSlot.F32: ctypes.c_float,
    AbiSlot.F64: ctypes.c_double,
}


class Packed:
    """Packed arguments, reusable across launches: `values` (what `cuda.core.launch` takes)
    and the `void**` array cuLaunchKernel reads (`address`), built once here.

    A relaunch of the checked API writes new buffer addresses into the address slots it was
    given (`address_cell`, `moved`); `values` reads them back (the fake GPU decodes them)."""

    __slots__ = ("_values", "address", "_cells", "_array", "_moved")

    def __init__(self, slots: Sequence[AbiSlot], values: tuple):
        self._values = values
        self._moved: frozenset[int] = frozenset()
        self._cells = [_cell(slot, value) for slot, value in zip(slots, values, strict=True)]
        self._array = (ctypes.c_void_p * max(len(self._cells), 1))(
            *[ctypes.addressof(c) for c in self._cells]
        )
        self.address = ctypes.addressof(self._array) if self._cells else 0

    @property
    def values(self) -> tuple:
        """The parameter values as packed, with the addresses a relaunch wrote since."""
        if not self._moved:
            return self._values
        return tuple(
            self._cells[i].value if i in self._moved else v for i, v in enumerate(self._values)
        )

    def address_cell(self, slot: int) -> ctypes.c_uint64:
        """The cell of address slot `slot` (an address is always a u64 slot: a slice's first,
        a pointer's only), which `cuLaunchKernel` reads at each launch."""
        cell = self._cells[slot]
        if not isinstance(cell, ctypes.c_uint64):
            raise TypeError(f"parameter slot {slot} holds no address")
        return cell

    def moved(self, slots: Sequence[int]) -> None:
        """Say that a relaunch writes the address slots `slots` (see `values`)."""
        self._moved = self._moved | frozenset(slots)

    def as_bytes(self) -> list[bytes]:
        """Each parameter's bytes as the driver copies them."""
        return [ctypes.string_at(ctypes.addressof(c), ctypes.sizeof(c)) for c in self._cells]

    def __repr__(self) -> str:
        return f"Packed{self.values!r}"


def _cell(slot: AbiSlot, value: Any) -> Any:
    if slot is AbiSlot.TENSOR_MAP:  # a TMA tensor map's bytes (tensor_map.py)
        return (ctypes.c_ubyte * len(value)).from_buffer_copy(value)
    if slot is AbiSlot.F16:
        return ctypes.c_uint16(int(np.float16(value).view(np.uint16)))
    if slot is AbiSlot.BF16:
        return ctypes.c_uint16(int(value))
    if slot is AbiSlot.U64:
        return ctypes.c_uint64(int(value) % 2**64)
    return _C_TYPES[slot](value.item() if isinstance(value, np.generic) else value)
