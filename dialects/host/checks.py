"""Host reads: `check` a result against a reference or a NumPy formula, and `print`.

Both read tensor contents on the host, so a tensor given back by a launch must have had its stream
synced first (`verify-ownership`). Both only borrow what they read.
"""

from __future__ import annotations

import ast

from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.host import kernels
from ferrox.dialects.host.types import TensorType, format_dims

# torch.testing.assert_close's defaults, so a ferrox check agrees with what PyTorch users expect.
DEFAULT_TOLERANCES: dict[type[Attribute], tuple[float, float]] = {
    Float16Type: (1e-3, 1e-5),
    BFloat16Type: (1.6e-2, 1e-5),
    Float32Type: (1.3e-6, 1e-5),
    Float64Type: (1e-7, 1e-7),
}


def default_tolerance(element_type: Attribute) -> tuple[float, float]:
    """`(rtol, atol)` for a check that gives none: by element type, exact for integers."""
    return DEFAULT_TOLERANCES.get(type(element_type), (0.0, 0.0))


@irdl_custom_directive
class Bindings(CustomDirective):
    """`(a = %a : T, n = %n : index)`: the names a check formula uses, each bound to a value."""

    names: AttributeVariable
    inputs: VariadicOperandVariable
    types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def one() -> tuple[str, object, Attribute]:
            name = parser.parse_identifier(" for a formula name")
            parser.parse_punctuation("=")
            operand = parser.parse_unresolved_operand()
            parser.parse_punctuation(":")
            return name, operand, parser.parse_type()

        bound = parser.parse_comma_separated_list(parser.Delimiter.PAREN, one)
        self.names.set(state, ArrayAttr([StringAttr(n) for n, _, _ in bound]))
        self.inputs.set(state, [o for _, o, _ in bound])  # type: ignore[misc]
        self.types.set(state, [t for _, _, t in bound])

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        names = self.names.get(op)
        assert isinstance(names, ArrayAttr)
        with printer.in_parens():
            for i, (name, value) in enumerate(zip(names.data, self.inputs.get(op))):
                if i:
                    printer.print_string(", ")
                printer.print_string(f"{name.data} = ")
                printer.print_ssa_value(value)
                printer.print_string(" : ")
                printer.print_attribute(value.type)
        state.should_emit_space = True
        state.last_was_punctuation = True

    def set_empty(self, state: ParsingState) -> None:
        self.names.set(state, ArrayAttr([]))
        self.inputs.set(state, [])
        self.types.set(state, [])


@irdl_op_definition
class CheckOp(IRDLOperation):
    """Compare a result with a reference tensor or a NumPy formula, within `rtol`/`atol`.

        host.check %c, %ref : !host.tensor<f32, [8]>, !host.tensor<f32, [8]>
        host.check %c, "a + b" (a = %a : T, b = %b : T) rtol 1.0e-05 : T

    A formula is a Python expression over `np` and the bound names, evaluated on NumPy arrays (or
    scalars); it passes when `numpy.allclose(result, expected, rtol, atol)` holds with equal shapes.
    NaN never compares equal, so an element left poisoned fails.
    """

    name = "host.check"
    actual = operand_def(TensorType)
    reference = opt_operand_def(TensorType)
    formula = opt_prop_def(StringAttr)
    names = prop_def(ArrayAttr[StringAttr], default_value=ArrayAttr([]))
    inputs = var_operand_def()
    rtol = opt_prop_def(FloatAttr[Float64Type])
    atol = opt_prop_def(FloatAttr[Float64Type])
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (Bindings,)
    assembly_format = (
        "$actual `,` ($reference^) : ($formula custom<Bindings>($names, $inputs, type($inputs)))?"
        " (`rtol` $rtol^)? (`atol` $atol^)? attr-dict `:` type($actual) (`,` type($reference)^)?"
    )

    def tolerance(self) -> tuple[float, float]:
        """`(rtol, atol)`: the op's own, else the element type's default."""
        assert isinstance(self.actual.type, TensorType)
        rtol, atol = default_tolerance(self.actual.type.element_type)
        if self.rtol is not None:
            rtol = self.rtol.value.data
        if self.atol is not None:
            atol = self.atol.value.data
        return rtol, atol

    def bindings(self) -> dict[str, object]:
        """Formula name -> bound SSA value."""
        return {n.data: v for n, v in zip(self.names.data, self.inputs)}

    def verify_(self) -> None:
        if (self.reference is None) == (self.formula is None):
            raise VerifyException("host.check needs exactly one of a reference tensor or a formula")
        for what, tol in (("rtol", self.rtol), ("atol", self.atol)):
            if tol is not None and not tol.value.data >= 0:
                raise VerifyException(f"{what} must be non-negative, got {tol.value.data}")
        if self.reference is not None:
            self._verify_reference()
        else:
            self._verify_formula()

    def _verify_reference(self) -> None:
        actual, ref = self.actual.type, self.reference.type  # type: ignore[union-attr]
        assert isinstance(actual, TensorType) and isinstance(ref, TensorType)
        if self.inputs:
            raise VerifyException("a check against a reference tensor binds no formula names")
        if actual.element_type != ref.element_type:
            raise VerifyException(
                f"result has element type {actual.element_type}, reference has {ref.element_type}"
            )
        a, r = actual.get_shape(), ref.get_shape()
        if len(a) != len(r) or any(x != y and x >= 0 and y >= 0 for x, y in zip(a, r)):
            raise VerifyException(
                f"result shape {format_dims(a)} and reference shape {format_dims(r)} differ"
            )

    def _verify_formula(self) -> None:
        assert self.formula is not None
        names = [n.data for n in self.names.data]
        if len(names) != len(self.inputs):
            raise VerifyException(f"{len(names)} formula names for {len(self.inputs)} values")
        for i, value in enumerate(self.inputs):
            if not isinstance(value.type, TensorType) and not kernels.is_scalar(value.type):
                raise VerifyException(f"formula name '{names[i]}' is bound to a {value.type}")
        seen: set[str] = set()
        for n in names:
            if n == "np" or not n.isidentifier():
                raise VerifyException(f"'{n}' cannot name a formula input")
            if n in seen:
                raise VerifyException(f"formula name '{n}' is bound twice")
            seen.add(n)
        try:
            tree = ast.parse(self.formula.data, mode="eval")
        except SyntaxError as e:
            raise VerifyException(
                f'formula "{self.formula.data}" is not a Python expression: {e.msg}'
            ) from None
        used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        for unknown in sorted(used - seen - {"np"}):
            bound = ", ".join(names) if names else "none"
            raise VerifyException(
                f"formula uses '{unknown}', which is not bound (bound names: {bound})"
            )


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`host.print "c = " %c : !host.tensor<f32, [8]>`: print a tensor or scalar, maybe labelled."""

    name = "host.print"
    label = opt_prop_def(StringAttr)
    value = operand_def()
    assembly_format = "($label^)? $value attr-dict `:` type($value)"

    def verify_(self) -> None:
        if not isinstance(self.value.type, TensorType) and not kernels.is_scalar(self.value.type):
            raise VerifyException(f"host.print prints tensors and scalars, not {self.value.type}")
