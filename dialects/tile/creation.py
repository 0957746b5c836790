"""Tiles from values: `tile.constant`, `tile.full`, `tile.iota`, and back: `tile.extract`."""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.types import TileType, is_bool, is_float, is_int


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`tile.constant dense<[1.0, 2.0]> : !tile.tile<f32, [2]>`: a tile of literal values.

    The value is a builtin dense attribute whose tensor type has the tile's shape; the custom
    form spells it without that type (`dense<0.0>` is a splat).
    """

    name = "tile.constant"

    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TileType)

    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        t = value.type
        super().__init__(
            properties={"value": value},
            result_types=[TileType(t.get_element_type(), t.get_shape())],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attrs = parser.parse_optional_attr_dict()
        # The literal comes before the type it must be read with: skim it, read the type,
        # then read the literal again through xDSL's dense parser with the type known.
        literal = parser.pos
        parser.parse_keyword("dense")
        parser.parse_punctuation("<")
        if parser.parse_optional_punctuation(">") is None:
            if parser.parse_optional_str_literal() is None:
                parser._parse_tensor_literal()  # pyright: ignore[reportPrivateUsage]
            parser.parse_punctuation(">")
        parser.parse_punctuation(":")
        type_pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, TileType):
            parser.raise_error(f"tile.constant builds a !tile.tile, found {t}", type_pos)
        parser._resume_from(literal)  # pyright: ignore[reportPrivateUsage]
        parser.parse_keyword("dense")
        value = parser.parse_dense_int_or_fp_elements_attr(
            # The tile type's verifier has restricted its element to scalars TensorType takes.
            TensorType(t.element_type, t.get_shape())  # type: ignore[arg-type]
        )
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(value)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        self.value.print_without_type(printer)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TileType)
        v = self.value.type
        if v.get_element_type() != t.element_type or v.get_shape() != t.get_shape():
            raise VerifyException(f"constant value of type {v} does not match {t}")


@irdl_op_definition
class FullOp(IRDLOperation):
    """`tile.full %s : f32 -> !tile.tile<f32, [16]>`: every element is the scalar %s."""

    name = "tile.full"

    value = operand_def()
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "$value attr-dict `:` type($value) `->` type($result)"

    def __init__(self, value: SSAValue, result_type: TileType):
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TileType)
        if self.value.type != t.element_type:
            raise VerifyException(
                f"full value of type {self.value.type} does not match the tile's element type "
                f"{t.element_type}"
            )


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`tile.iota : !tile.tile<i32, [128]>`: the rank-1 tile [0, 1, ..., n-1]."""

    name = "tile.iota"

    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: TileType):
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        t = self.result.type
        assert isinstance(t, TileType)
        if t.rank != 1:
            raise VerifyException(f"tile.iota builds a rank-1 tile, found {t}")
        e, n = t.element_type, t.get_shape()[0]
        if not (is_float(e) or (is_int(e) and not is_bool(e))):
            raise VerifyException(
                f"tile.iota needs a float or integer element type (not i1), found {e}"
            )
        if isinstance(e, IntegerType) and n - 1 > 2 ** (e.width.data - 1) - 1:
            raise VerifyException(f"tile.iota of {n} elements does not fit in {e}")


@irdl_op_definition
class ExtractOp(IRDLOperation):
    """`tile.extract %t : !tile.tile<f32, []> -> f32`: the scalar in a rank-0 tile."""

    name = "tile.extract"

    input = operand_def(TileType)
    result = result_def()

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue):
        t = input.type
        assert isinstance(t, TileType)
        super().__init__(operands=[input], result_types=[t.element_type])

    def verify_(self) -> None:
        t = self.input.type
        assert isinstance(t, TileType)
        if t.rank != 0:
            raise VerifyException(f"tile.extract needs a rank-0 tile, found {t} (reshape it first)")
        if self.result.type != t.element_type:
            raise VerifyException(
                f"tile.extract result must be the element type {t.element_type}, "
                f"found {self.result.type}"
            )
