"""The integer enums of MLIR's llvm dialect (atomic orderings, atomicrmw operations), with keyword
syntax.

MLIR stores these as `i64` attributes (generic form `ordering = 2 : i64`) and prints them as bare
keywords in the custom form (`monotonic`); xDSL's `llvm.load` does the same for its `ordering`. The
custom directives below give declarative formats that keyword spelling while the properties stay
MLIR's integers, so both forms round-trip with MLIR.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr, i64
from xdsl.dialects.llvm import ATOMIC_ORDERING_KEYWORDS
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

NOT_ATOMIC = 0
UNORDERED = 1
MONOTONIC = 2
ACQUIRE = 4
RELEASE = 5
ACQ_REL = 6
SEQ_CST = 7

ORDERING_KEYWORDS: dict[int, str] = {NOT_ATOMIC: "not_atomic", **ATOMIC_ORDERING_KEYWORDS}
"""MLIR's `AtomicOrdering` values and keywords (LLVM's, minus the unused 3)."""

BIN_OP_KEYWORDS: dict[int, str] = {
    0: "xchg",
    1: "add",
    2: "sub",
    3: "_and",
    4: "nand",
    5: "_or",
    6: "_xor",
    7: "max",
    8: "min",
    9: "umax",
    10: "umin",
    11: "fadd",
    12: "fsub",
    13: "fmax",
    14: "fmin",
    15: "uinc_wrap",
    16: "udec_wrap",
    17: "usub_cond",
    18: "usub_sat",
    19: "fmaximum",
    20: "fminimum",
}
"""MLIR's `AtomicBinOp` values and keywords (`_and`, `_or`, `_xor` are MLIR's spelling)."""

FLOAT_BIN_OPS = frozenset({"fadd", "fsub", "fmax", "fmin", "fmaximum", "fminimum"})


def ordering_attr(keyword: str) -> IntegerAttr[I64]:
    return IntegerAttr(_value_of(ORDERING_KEYWORDS, keyword), i64)


def bin_op_attr(keyword: str) -> IntegerAttr[I64]:
    return IntegerAttr(_value_of(BIN_OP_KEYWORDS, keyword), i64)


def ordering_name(attr: IntegerAttr) -> str:
    return ORDERING_KEYWORDS.get(attr.value.data, f"<invalid ordering {attr.value.data}>")


def bin_op_name(attr: IntegerAttr) -> str:
    return BIN_OP_KEYWORDS.get(attr.value.data, f"<invalid bin_op {attr.value.data}>")


def _value_of(table: dict[int, str], keyword: str) -> int:
    for value, name in table.items():
        if name == keyword:
            return value
    raise ValueError(f"unknown keyword '{keyword}'")


class _KeywordEnum(CustomDirective):
    """An `i64` property printed as one keyword of a fixed table."""

    attr: AttributeVariable
    table: ClassVar[dict[int, str]]
    what: ClassVar[str]

    def parse(self, parser: Parser, state: ParsingState) -> None:
        start = parser.pos
        keyword = parser.parse_optional_identifier()
        values = {name: value for value, name in self.table.items()}
        if keyword not in values:
            expected = ", ".join(f"'{name}'" for name in self.table.values())
            parser.raise_error(f"expected {self.what}, one of {expected}", start, parser.pos)
        self.attr.set(state, IntegerAttr(values[keyword], i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        attr = self.attr.get(op)
        assert isinstance(attr, IntegerAttr)
        printer.print_string(self.table.get(attr.value.data, str(attr.value.data)))


@irdl_custom_directive
class AtomicOrdering(_KeywordEnum):
    attr: AttributeVariable
    table = ORDERING_KEYWORDS
    what = "an atomic ordering"


@irdl_custom_directive
class AtomicBinOp(_KeywordEnum):
    attr: AttributeVariable
    table = BIN_OP_KEYWORDS
    what = "an atomicrmw operation"
