"""LLVM types that llvmlite lacks, and the type mangling of overloaded intrinsic names.

llvmlite has no `bfloat`, and xDSL's `convert_type` rejects builtin `bf16` ("Type not
supported"), yet bf16 is what the tile track's tensor-core matmul feeds to `mma.sync`.
`BFloatType` prints LLVM's `bfloat` and its constants in LLVM's exact `0xRXXXX` form (LLVM reads
a decimal bfloat constant only when the double converts exactly); registering it in xDSL's type
table makes every converter that calls `convert_type` (functions, globals, casts, constants,
vectors, structs) accept it.

A literal struct of `WIDE_STRUCT` members or more (a wgmma's 64 or 128 accumulators, returned
by its inline asm) is exported as a named type, `%"ferrox.struct.N" = type {...}`, while
`wide_structs_named` is active (`convert_module`, for NVPTX): each `extractvalue` of it then
spells the name instead of the whole member list. The bf16 GEMM's LLVM IR is 0.48 MB instead
of 2.9 MB (2,688 extractvalues of a 128-float struct), which LLVM parses in 14 ms instead of
49, and the PTX is the same. Smaller structs stay literal. The name is a pure abbreviation: it
stands for one LLVM literal type, whatever xDSL type it comes from (`!llvm.ptr` and
`!llvm.ptr<0>`, a struct xDSL names, a tuple: xDSL converts each to the same literal), so
values that had one type in the literal spelling still have one type.

`intrinsic_suffix` is LLVM's name mangling of an overload type (`f32`, `v4f32`, `v2bf16`, `p1`):
llvmlite's `declare_intrinsic` and xDSL's `intrinsic_suffix` know only scalar int/half/float/
double and crash on a vector or bfloat.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from llvmlite import ir
from xdsl.backend.llvm.convert_type import (  # pyright: ignore[reportPrivateUsage]
    _TYPE_CONVERTERS,
    convert_type,
)
from xdsl.dialects.builtin import BFloat16Type, TupleType
from xdsl.dialects.llvm import LLVMStructType

_BF16 = BFloat16Type()


def bf16_bits(value: float) -> int:
    """The bf16 bit pattern of `value`, rounded to nearest even (xDSL's own bf16 encoding)."""
    return int.from_bytes(_BF16.pack([value]), "little")


class BFloatType(ir.types._BaseFloatType):  # pyright: ignore[reportPrivateUsage]
    """LLVM's `bfloat`: 1 sign, 8 exponent and 7 fraction bits, the upper half of an f32."""

    null = "0xR0000"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value: float) -> str:
        return f"0xR{bf16_bits(value):04X}"


BFloatType._create_instance()  # pyright: ignore[reportPrivateUsage]

_TYPE_CONVERTERS.setdefault(BFloat16Type, lambda _: BFloatType())

WIDE_STRUCT = 16
"""Members from which a literal struct is exported as a named type (see the module's doc)."""

_named = threading.local()
"""`names`: while an export runs on this thread, its llvmlite context and the named types made
so far, by the literal type they stand for (its LLVM spelling)."""


@contextmanager
def wide_structs_named(context: ir.Context) -> Iterator[None]:
    """Wide literal structs converted on this thread meanwhile become named types of `context`
    (one per LLVM literal type, so every value of that type gets the same one)."""
    previous = getattr(_named, "names", None)
    _named.names = (context, {})
    try:
        yield
    finally:
        _named.names = previous


def _literal_or_named(members: list[ir.Type]) -> ir.Type:
    """The literal struct of `members`, or while an export names them and it is wide, its name.
    Keyed by the literal's spelling, not by the xDSL type: xDSL types that differ (`!llvm.ptr`
    and `!llvm.ptr<0>`, a named `!llvm.struct<"s", (...)>`, a tuple) convert to one literal type,
    which LLVM lets them share (a call's argument, a return), so they must share one name."""
    literal = ir.LiteralStructType(members)
    naming: tuple[ir.Context, dict[str, ir.Type]] | None = getattr(_named, "names", None)
    if naming is None or len(members) < WIDE_STRUCT:
        return literal  # as xDSL's converter makes it
    context, names = naming
    key = str(literal)
    named = names.get(key)
    if named is None:
        named = names[key] = context.get_identified_type(f"ferrox.struct.{len(names)}")
        named.set_body(*members)
    return named


def _convert_struct(t: LLVMStructType | TupleType) -> ir.Type:
    return _literal_or_named([convert_type(m) for m in t.types.data])


_TYPE_CONVERTERS[LLVMStructType] = _convert_struct
_TYPE_CONVERTERS[TupleType] = _convert_struct


def intrinsic_suffix(typ: ir.Type) -> str:
    """The mangled form of an overload type in an intrinsic's name (`llvm.floor.v4f32`)."""
    if isinstance(typ, ir.VectorType):
        return f"v{typ.count}{intrinsic_suffix(typ.element)}"
    if isinstance(typ, ir.PointerType):
        return f"p{typ.addrspace}"
    name = getattr(typ, "intrinsic_name", None)
    if not isinstance(name, str):
        raise TypeError(f"no intrinsic name mangling for type {typ}")
    return name


def bit_width(typ: ir.Type) -> int | None:
    """The size in bits of a scalar or vector of scalars; None for other types."""
    if isinstance(typ, ir.VectorType):
        element = bit_width(typ.element)
        return None if element is None else element * typ.count
    if isinstance(typ, ir.IntType):
        return typ.width
    return {"half": 16, "bfloat": 16, "float": 32, "double": 64}.get(str(typ))
