"""The `sat` dialect: one op, `sat.clamp`, a float saturated into [lo, hi]."""

# doc:begin dialect
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloatConstr, FloatAttr
from xdsl.ir import Dialect
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ClampOp(IRDLOperation):
    """`min(max(x, lo), hi)`: the value saturated into [lo, hi]."""

    name = "sat.clamp"

    T: ClassVar = VarConstraint("T", AnyFloatConstr)

    value = operand_def(T)
    lo = prop_def(FloatAttr)
    hi = prop_def(FloatAttr)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$value `to` ` ` `[` $lo `,` $hi `]` attr-dict `:` type($value)"

    def verify_(self) -> None:
        if self.lo.value.data > self.hi.value.data:
            raise VerifyException(
                f"empty clamp range: lower bound {self.lo.value.data} "
                f"exceeds upper bound {self.hi.value.data}"
            )


Sat = Dialect("sat", [ClampOp])
# doc:end
