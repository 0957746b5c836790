"""The nvvm dialect's attributes: enum kinds, memory scopes and orderings, mma descriptors.

Names and spellings follow MLIR's nvvm dialect where it has the concept (`#nvvm<shfl_kind bfly>`,
printed bare in op formats; `#nvvm.mem_scope<cta>`, `#nvvm.mma_layout<row>`,
`#nvvm.shape<m = 16, n = 8, k = 16>`);
`mem_order` and `atomic_bin_op` are ferrox's, since MLIR's nvvm has no atomic ops of its own.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import IntAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition, param_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum


class _Bracketed:
    """Mixin: an enum printed `#nvvm.mem_scope<cta>`, as MLIR prints enums formatted `<$value>`."""

    # `Any`: the enum type is the one of the EnumAttribute this is mixed into.
    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> Any:
        with parser.in_angle_brackets():
            return super().parse_parameter(parser)  # type: ignore[misc]

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)  # type: ignore[misc]


class ShflKind(StrEnum):
    BFLY = "bfly"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShflKindAttr(EnumAttribute[ShflKind], SpacedOpaqueSyntaxAttribute):
    name = "nvvm.shfl_kind"


class VoteSyncKind(StrEnum):
    ANY = "any"
    ALL = "all"
    BALLOT = "ballot"
    UNI = "uni"


@irdl_attr_definition
class VoteSyncKindAttr(EnumAttribute[VoteSyncKind], SpacedOpaqueSyntaxAttribute):
    name = "nvvm.vote_sync_kind"


class ReduxKind(StrEnum):
    """The integer reductions of `redux.sync` (sm_80); the f32 ones need sm_100a."""

    ADD = "add"
    AND = "and"
    MAX = "max"
    MIN = "min"
    OR = "or"
    UMAX = "umax"
    UMIN = "umin"
    XOR = "xor"


@irdl_attr_definition
class ReduxKindAttr(EnumAttribute[ReduxKind], SpacedOpaqueSyntaxAttribute):
    name = "nvvm.redux_kind"


class MemScope(StrEnum):
    """PTX memory scopes: the set of threads an ordering or atomicity guarantee covers."""

    CTA = "cta"
    CLUSTER = "cluster"
    GPU = "gpu"
    SYS = "sys"


@irdl_attr_definition
class MemScopeAttr(_Bracketed, EnumAttribute[MemScope]):
    name = "nvvm.mem_scope"


class MemOrder(StrEnum):
    """C++/PTX memory orderings of an atomic (`relaxed` is LLVM's `monotonic`)."""

    RELAXED = "relaxed"
    ACQUIRE = "acquire"
    RELEASE = "release"
    ACQ_REL = "acq_rel"
    SEQ_CST = "seq_cst"


@irdl_attr_definition
class MemOrderAttr(EnumAttribute[MemOrder], SpacedOpaqueSyntaxAttribute):
    name = "nvvm.mem_order"


class AtomicBinOp(StrEnum):
    """Read-modify-write operations, spelled as LLVM's `atomicrmw` spells them."""

    XCHG = "xchg"
    ADD = "add"
    AND = "and"
    OR = "or"
    XOR = "xor"
    MAX = "max"
    MIN = "min"
    UMAX = "umax"
    UMIN = "umin"
    FADD = "fadd"


@irdl_attr_definition
class AtomicBinOpAttr(EnumAttribute[AtomicBinOp], SpacedOpaqueSyntaxAttribute):
    name = "nvvm.atomic_bin_op"


class MMALayout(StrEnum):
    ROW = "row"
    COL = "col"


@irdl_attr_definition
class MMALayoutAttr(_Bracketed, EnumAttribute[MMALayout]):
    name = "nvvm.mma_layout"


class MMAType(StrEnum):
    """PTX element types of mma multiplicands (those ferrox lowers)."""

    F16 = "f16"
    BF16 = "bf16"
    TF32 = "tf32"
    F32 = "f32"


@irdl_attr_definition
class MMATypeAttr(_Bracketed, EnumAttribute[MMAType]):
    name = "nvvm.mma_type"


@irdl_attr_definition
class MMAShapeAttr(ParametrizedAttribute):
    """The `mMnNkK` shape of an mma instruction: `#nvvm.shape<m = 16, n = 8, k = 16>`."""

    name = "nvvm.shape"

    m: IntAttr = param_def(converter=IntAttr.get)
    n: IntAttr = param_def(converter=IntAttr.get)
    k: IntAttr = param_def(converter=IntAttr.get)

    @property
    def dims(self) -> tuple[int, int, int]:
        return (self.m.data, self.n.data, self.k.data)

    def __str__(self) -> str:
        m, n, k = self.dims
        return f"m{m}n{n}k{k}"

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[IntAttr, IntAttr, IntAttr]:
        values: list[IntAttr] = []
        with parser.in_angle_brackets():
            for i, key in enumerate("mnk"):
                if i:
                    parser.parse_punctuation(",")
                parser.parse_keyword(key)
                parser.parse_punctuation("=")
                values.append(IntAttr(parser.parse_integer(allow_negative=False)))
        return (values[0], values[1], values[2])

    def print_parameters(self, printer: Printer) -> None:
        m, n, k = self.dims
        printer.print_string(f"<m = {m}, n = {n}, k = {k}>")
