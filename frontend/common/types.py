"""Element types as Python objects (`f32`, `i32`, `index`, ...), shared by every surface.

A `DType` names an IR type in annotations (`x: f32`, `Slice[f16]`) and, called inside a kernel,
converts a value (`f32(i)`). Outside a kernel it is inert. `Constexpr` marks a parameter whose
value is a compile-time constant: each distinct value specialises the kernel (as Triton's
`tl.constexpr`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute


@dataclass(frozen=True)
class DType:
    """An element type: `kind` is float, int (signless, read signed), index or bool."""

    name: str
    kind: str
    bits: int

    @property
    def ir(self) -> Attribute:
        if self.kind == "index":
            return IndexType()
        if self.kind in ("int", "bool"):
            return IntegerType(self.bits)
        return {
            "f16": Float16Type(),
            "bf16": BFloat16Type(),
            "f32": Float32Type(),
            "f64": Float64Type(),
        }[self.name]

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """Integers and index (not bool)."""
        return self.kind in ("int", "index")

    def __call__(self, value: Any) -> Any:
        raise TypeError(f"{self.name}(...) converts a value only inside a ferrox kernel")

    def __repr__(self) -> str:
        return self.name


f16 = DType("f16", "float", 16)
bf16 = DType("bf16", "float", 16)
f32 = DType("f32", "float", 32)
f64 = DType("f64", "float", 64)
i1 = DType("i1", "bool", 1)
i8 = DType("i8", "int", 8)
i16 = DType("i16", "int", 16)
i32 = DType("i32", "int", 32)
i64 = DType("i64", "int", 64)
index = DType("index", "index", 64)

DTYPES = {d.name: d for d in (f16, bf16, f32, f64, i1, i8, i16, i32, i64, index)}
PYTHON_TYPES: dict[Any, DType] = {float: f32, int: index, bool: i1}
"""Python's own types as annotations: `float` is f32, `int` is index, `bool` is i1."""


def dtype_of(t: Attribute) -> DType | None:
    """The DType of an IR type, None for a type that is no scalar (a slice, a witness)."""
    for d in DTYPES.values():
        if d.ir == t:
            return d
    return None


def as_dtype(annotation: Any) -> DType | None:
    if isinstance(annotation, DType):
        return annotation
    return PYTHON_TYPES.get(annotation)


class _ConstexprType:
    """`x: Constexpr` (or `Constexpr[int]`): a compile-time constant parameter."""

    def __getitem__(self, item: Any) -> _ConstexprType:
        return self

    def __repr__(self) -> str:
        return "Constexpr"


Constexpr = _ConstexprType()
