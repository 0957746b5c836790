"""The kernel ABI: how a SIMT kernel's parameters become PTX parameters, and its signature.

A slice parameter of any kind becomes two PTX parameters, its `ptr addrspace(1)` and its length
in elements as an `i64`; a raw pointer is one global pointer; scalars pass as themselves (`index`
as a 64-bit integer). Attributes tell LLVM what the SIMT types guarantee:

- a shared slice is read-only and aliases no written memory: `noalias readonly`, which lets the
  NVPTX backend read it through the non-coherent path (`ld.global.nc`);
- a disjoint slice is the kernel's own output, reached through no other parameter: `noalias`;
- an atomic slice is updated by every thread: no aliasing claim;
- every slice pointer is aligned to its element (`align`), as its loads already assume.

The signature is the list of argument kinds the launcher packs (`driver/runtime/abi.py`):
`slice:<element>` for every kind of slice, `ptr`, and the scalars `f32`, `f64`, `i32`, `i64`,
`index`. It is recorded on the lowered kernel as the `ferrox.abi` attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute

from ferrox.dialects.simt.types import (
    AtomicSliceType,
    DisjointSliceType,
    PtrType,
    SharedArrayType,
    SliceType,
    ThreadIndexType,
)
from ferrox.lowering.simt_to_nvvm.types import GLOBAL_PTR, SimtTypeError, byte_size, is_simt_type

SLICES = (SliceType, DisjointSliceType, AtomicSliceType)
_WHY = {
    ThreadIndexType: "a witness is never passed on",
    SharedArrayType: "shared memory is a global of the kernel, never a parameter",
}

ABI_ATTR = "ferrox.abi"
"""The kernel's signature (an array of kind strings) on the lowered function."""

SCALAR_KINDS = ("f32", "f64", "i32", "i64", "index")


def element_kind(t: Attribute) -> str:
    """The launcher's name for a slice element type (`f32`, `i32`, `bool`, ...); `index`
    elements are 64-bit integers."""
    if isinstance(t, IndexType):
        return "i64"
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return "bool"
        if width in (8, 16, 32, 64):
            return f"i{width}"
    floats = (
        (Float16Type, "f16"),
        (BFloat16Type, "bf16"),
        (Float32Type, "f32"),
        (Float64Type, "f64"),
    )
    for cls, name in floats:
        if isinstance(t, cls):
            return name
    raise SimtTypeError(
        f"slices of {t} cannot be passed to a kernel (elements: i1, i8 to i64, f16, bf16, f32, f64)"
    )


def scalar_kind(t: Attribute) -> str:
    if isinstance(t, IndexType):
        return "index"
    kind = str(t)
    if kind not in SCALAR_KINDS:
        raise SimtTypeError(
            f"a kernel parameter of type {t} cannot be passed by the launcher "
            f"(scalars: {', '.join(SCALAR_KINDS)}); widen it to i32"
        )
    return kind


@dataclass(frozen=True)
class Param:
    """One SIMT parameter at the ABI: the PTX parameters it becomes (types and attributes)."""

    types: tuple[Attribute, ...]
    attrs: tuple[dict[str, Attribute], ...]


def _slice_attrs(t: Attribute) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {}
    if isinstance(t, SliceType | DisjointSliceType):
        attrs["llvm.noalias"] = UnitAttr()
    if isinstance(t, SliceType):
        attrs["llvm.readonly"] = UnitAttr()
    attrs["llvm.align"] = IntegerAttr(byte_size(t.get_element_type()), i64)
    return attrs


def param(t: Attribute) -> Param:
    """How a kernel or device-function parameter of SIMT type `t` is passed."""
    if isinstance(t, SLICES):
        return Param((GLOBAL_PTR, i64), (_slice_attrs(t), {}))
    if isinstance(t, PtrType):
        return Param((GLOBAL_PTR,), ({},))
    if is_simt_type(t):
        raise SimtTypeError(
            f"a value of type {t} cannot be passed to or from a function: {_WHY[type(t)]}"
        )
    return Param((t,), ({},))


def kind(t: Attribute) -> str:
    """The launcher's argument kind for a kernel parameter of SIMT type `t`."""
    if isinstance(t, SLICES):
        return f"slice:{element_kind(t.get_element_type())}"
    if isinstance(t, PtrType):
        return "ptr"
    param(t)  # refuses witnesses and shared arrays with the reason
    return scalar_kind(t)


def signature(param_types: Sequence[Attribute]) -> list[str]:
    """The launcher's argument kinds for a kernel with these SIMT parameter types."""
    return [kind(t) for t in param_types]


def signature_attr(kinds: Sequence[str]) -> ArrayAttr[StringAttr]:
    return ArrayAttr(StringAttr(k) for k in kinds)


def read_signature(attr: Attribute | None) -> list[str] | None:
    """The kinds recorded in a `ferrox.abi` attribute (None when absent)."""
    if not isinstance(attr, ArrayAttr):
        return None
    return [a.data for a in attr.data if isinstance(a, StringAttr)]


def arg_attrs(params: Sequence[Param]) -> ArrayAttr[DictionaryAttr]:
    return ArrayAttr(DictionaryAttr(a) for p in params for a in p.attrs)
