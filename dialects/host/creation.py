"""Ops that create tensors: zeros, full, arange, random, poison, from_array, and scalar params.

Each creation op makes a fresh owned tensor. A `?` dimension of the result type takes one `index`
size operand, in order, as MLIR's `tensor.empty` does. Creation runs on the host (NumPy), so the
interpreter and the GPU runner produce bit-identical inputs from the same seed.
"""

from __future__ import annotations

from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloatConstr,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    f64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParamAttrConstraint,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ferrox.dialects.host.types import TensorType

SIZES = " (` ` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)"


class TensorCreationOp(IRDLOperation):
    """A fresh tensor; one `index` size operand per `?` dimension of the result type."""

    dynamic_sizes = var_operand_def(IndexType())
    result = result_def(TensorType)

    def verify_(self) -> None:
        assert isinstance(self.result.type, TensorType)
        expected = self.result.type.dynamic_count()
        if len(self.dynamic_sizes) != expected:
            raise VerifyException(
                f"{self.result.type} has {expected} dynamic dimension(s), "
                f"but {len(self.dynamic_sizes)} size operand(s) were given"
            )


@irdl_op_definition
class ZerosOp(TensorCreationOp):
    """`%t = host.zeros : !host.tensor<f32, [1024]>`: every element 0."""

    name = "host.zeros"
    assembly_format = "(`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)"


@irdl_op_definition
class PoisonOp(TensorCreationOp):
    """`%c = host.poison : !host.tensor<f32, [1024]>`: an output buffer filled with NaN.

    Outputs are poisoned before a launch so that an element the kernel forgot to write fails the
    check instead of passing by luck. Integer tensors are filled with the type's maximum value.
    """

    name = "host.poison"
    assembly_format = "(`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)"


@irdl_op_definition
class FullOp(TensorCreationOp):
    """`%t = host.full %v : f32 -> !host.tensor<f32, [1024]>`: every element `%v`."""

    name = "host.full"
    value = operand_def(base(IntegerType) | base(IndexType) | AnyFloatConstr)
    assembly_format = (
        "$value (` ` `(` $dynamic_sizes^ `)`)? attr-dict `:` type($value) `->` type($result)"
    )

    def verify_(self) -> None:
        super().verify_()
        assert isinstance(self.result.type, TensorType)
        if self.value.type != self.result.type.element_type:
            raise VerifyException(
                f"fill value has type {self.value.type}, but the tensor's element type is "
                f"{self.result.type.element_type}"
            )


@irdl_op_definition
class ArangeOp(TensorCreationOp):
    """`%t = host.arange start 0.0 step 1.0 : !host.tensor<f32, [1024]>`.

    The element at row-major flat index `i` is `start + i * step`, computed in f64 and cast to the
    element type.
    """

    name = "host.arange"
    start = prop_def(FloatAttr[Float64Type], default_value=FloatAttr(0.0, f64))
    step = prop_def(FloatAttr[Float64Type], default_value=FloatAttr(1.0, f64))
    assembly_format = "(`start` $start^)? (`step` $step^)?" + SIZES


class Distribution(StrEnum):
    UNIFORM = auto()
    NORMAL = auto()


@irdl_attr_definition
class DistributionAttr(EnumAttribute[Distribution], SpacedOpaqueSyntaxAttribute):
    """`uniform(low, high)` draws from [low, high); `normal(mean, stddev)` from a Gaussian."""

    name = "host.distribution"


@irdl_op_definition
class RandomOp(TensorCreationOp):
    """`%x = host.random uniform(-1.0, 1.0) seed 42 : !host.tensor<f32, [1024]>`.

    Reproducible everywhere: the runtime draws with `numpy.random.default_rng(seed)` (see
    docs/dialects/host.md for the exact calls), so the interpreter and the GPU see the same data.
    """

    name = "host.random"
    distribution = prop_def(DistributionAttr)
    low = prop_def(FloatAttr[Float64Type])
    high = prop_def(FloatAttr[Float64Type])
    seed = prop_def(IntegerAttr[I64])
    assembly_format = "$distribution `(` $low `,` $high `)` `seed` $seed" + SIZES

    def verify_(self) -> None:
        super().verify_()
        low, high = self.low.value.data, self.high.value.data
        if self.distribution.data is Distribution.UNIFORM and not low < high:
            raise VerifyException(f"uniform range needs low < high, got ({low}, {high})")
        if self.distribution.data is Distribution.NORMAL and not high > 0:
            raise VerifyException(f"normal distribution needs a positive stddev, got {high}")


@irdl_op_definition
class FromArrayOp(IRDLOperation):
    """`%a = host.from_array 0 : !host.tensor<f32, [?]>`: the caller's array number 0.

    Bound when a host program is driven from Python; its dtype and static dimensions are checked
    against the type before any launch, `?` dimensions are taken from the array. Each array may be
    bound once (`verify-ownership`), so two tensors never alias.
    """

    name = "host.from_array"
    index = prop_def(IntegerAttr[I64])
    result = result_def(TensorType)
    assembly_format = "$index attr-dict `:` type($result)"

    def verify_(self) -> None:
        if self.index.value.data < 0:
            raise VerifyException(f"array index must be non-negative, got {self.index.value.data}")


@irdl_op_definition
class ParamOp(IRDLOperation):
    """`%n = host.param "n" = 1024 : index`: a scalar the caller may override by name.

    `ferrox run --param n=4096` (or a keyword from Python) replaces the default, so one program
    runs small on the interpreter and full size on the GPU.
    """

    name = "host.param"
    _T: ClassVar = VarConstraint("T", base(IntegerType) | base(IndexType) | AnyFloatConstr)
    param_name = prop_def(StringAttr, prop_name="name")
    default = prop_def(
        ParamAttrConstraint(IntegerAttr, (AnyAttr(), _T))
        | ParamAttrConstraint(FloatAttr, (AnyAttr(), _T))
    )
    result = result_def(_T)
    assembly_format = "$name `=` $default attr-dict"

    def verify_(self) -> None:
        if not self.param_name.data.isidentifier():
            raise VerifyException(
                f'parameter name must be an identifier, got "{self.param_name.data}"'
            )


__all__ = [
    "ArangeOp",
    "Distribution",
    "DistributionAttr",
    "FromArrayOp",
    "FullOp",
    "ParamOp",
    "PoisonOp",
    "RandomOp",
    "ZerosOp",
]
