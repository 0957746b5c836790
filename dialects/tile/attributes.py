"""Enum attributes of tile ops: the padding of a ragged load and the predicate of a compare.

Inside an op's assembly they print as bare keywords (`padding = neg_inf`, `tile.cmp lt, ...`).
"""

from __future__ import annotations

from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.utils.str_enum import StrEnum


class Padding(StrEnum):
    """The value a load gives an element that lies outside the tensor."""

    ZERO = "zero"
    NEG_INF = "neg_inf"
    POS_INF = "pos_inf"
    NAN = "nan"


FLOAT_ONLY_PADDINGS = (Padding.NEG_INF, Padding.POS_INF, Padding.NAN)


@irdl_attr_definition
class PaddingAttr(EnumAttribute[Padding], SpacedOpaqueSyntaxAttribute):
    name = "tile.padding"


class CmpPredicate(StrEnum):
    """Float compares are ordered (false on NaN) except `ne`, true on NaN; integers are signed."""

    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


@irdl_attr_definition
class CmpPredicateAttr(EnumAttribute[CmpPredicate], SpacedOpaqueSyntaxAttribute):
    name = "tile.cmp_predicate"
