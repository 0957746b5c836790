"""Tensor-core ops: `nvvm.mma.sync` and `nvvm.ldmatrix`, in MLIR's syntax, and the asynchronous
global-to-shared copies that feed them (`nvvm.cp.async.shared.global`, `.commit.group`,
`.wait.group`).

    %d = nvvm.mma.sync A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%c0, %c1, %c2, %c3]
           {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
            multiplicandAPtxType = #nvvm.mma_type<bf16>,
            multiplicandBPtxType = #nvvm.mma_type<bf16>,
            shape = #nvvm.shape<m = 16, n = 8, k = 16>}
           : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %r = nvvm.ldmatrix %p {num = 4 : i32, layout = #nvvm.mma_layout<row>}
           : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>

The supported mma forms (f32 accumulators, `row.col`) are listed in `MMA_FORMS`; each has a fixed
fragment: 4 A registers, 2 B registers, 4 C/D registers per thread. Both ops are warp-wide
`.sync.aligned` instructions, hence `Convergent`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import (
    I32,
    IntAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
    f16,
    f32,
    i32,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.nvvm.atomics import address_space
from ferrox.dialects.nvvm.attributes import (
    MMALayout,
    MMALayoutAttr,
    MMAShapeAttr,
    MMAType,
    MMATypeAttr,
)
from ferrox.dialects.nvvm.traits import Convergent

F16X2 = VectorType(f16, [2])
MMA_RESULT = LLVMStructType.from_type_list([f32] * 4)


@dataclass(frozen=True)
class MmaForm:
    """One supported `mma.sync` variant: its shape, multiplicand type and register type."""

    shape: tuple[int, int, int]
    ptx_type: MMAType
    register: Attribute
    """The type of each A and B register (two f16 packed in a vector, or bf16x2/tf32 in i32)."""


MMA_FORMS: tuple[MmaForm, ...] = (
    MmaForm((16, 8, 16), MMAType.F16, F16X2),
    MmaForm((16, 8, 16), MMAType.BF16, i32),
    MmaForm((16, 8, 8), MMAType.TF32, i32),
)
MMA_FRAGMENT_SIZES = {"A": 4, "B": 2, "C": 4}


@irdl_custom_directive
class MmaOperandTypes(CustomDirective):
    """`(tA, tB, tC)`: one type for each operand group, as MLIR prints mma.sync."""

    a_types: TypeDirective
    b_types: TypeDirective
    c_types: TypeDirective

    def _groups(self) -> tuple[TypeDirective, TypeDirective, TypeDirective]:
        return (self.a_types, self.b_types, self.c_types)

    def parse(self, parser: Parser, state: ParsingState) -> None:
        types = parser.parse_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
        if len(types) != 3:
            parser.raise_error(f"expected 3 types (A, B, C), found {len(types)}")
        for group, t in zip(self._groups(), types):
            count = len(state.operands[group.inner.index])  # type: ignore[attr-defined, arg-type]
            group.set(state, (t,) * count)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        firsts = [types[0] if types else None for types in (g.get(op) for g in self._groups())]
        with printer.in_parens():
            printer.print_list(
                firsts,
                lambda t: printer.print_string("none") if t is None else printer.print_attribute(t),
            )


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`mma.sync.aligned.<shape>.row.col.f32.<t>.<t>.f32`: D = A * B + C for one warp."""

    name = "nvvm.mma.sync"
    operandA = var_operand_def()
    operandB = var_operand_def()
    operandC = var_operand_def()
    res = result_def(LLVMStructType)
    shape = prop_def(MMAShapeAttr)
    layoutA = prop_def(MMALayoutAttr)
    layoutB = prop_def(MMALayoutAttr)
    multiplicandAPtxType = opt_prop_def(MMATypeAttr)
    multiplicandBPtxType = opt_prop_def(MMATypeAttr)
    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "`A` `[` $operandA `]` `B` `[` $operandB `]` `C` `[` $operandC `]` attr-dict `:` "
        "custom<MmaOperandTypes>(type($operandA), type($operandB), type($operandC)) "
        "`->` type($res)"
    )
    custom_directives = (MmaOperandTypes,)
    traits = traits_def(Convergent())

    def __init__(
        self,
        a: list[SSAValue],
        b: list[SSAValue],
        c: list[SSAValue],
        shape: tuple[int, int, int],
        ptx_type: MMAType | None = None,
    ):
        props: dict[str, Attribute] = {
            "shape": MMAShapeAttr(*map(IntAttr, shape)),
            "layoutA": MMALayoutAttr(MMALayout.ROW),
            "layoutB": MMALayoutAttr(MMALayout.COL),
        }
        if ptx_type is not None:
            props["multiplicandAPtxType"] = MMATypeAttr(ptx_type)
            props["multiplicandBPtxType"] = MMATypeAttr(ptx_type)
        super().__init__(operands=[a, b, c], result_types=[MMA_RESULT], properties=props)

    def form(self) -> MmaForm:
        """The variant this op is (call only on a verified op)."""
        form = self._form()
        assert isinstance(form, MmaForm)
        return form

    def _ptx_type(self) -> MMAType | None:
        if self.multiplicandAPtxType is not None:
            return self.multiplicandAPtxType.data
        if self.operandA and self.operandA[0].type == F16X2:
            return MMAType.F16
        return None

    def _form(self) -> MmaForm | str:
        ptx_type = self._ptx_type()
        if ptx_type is None:
            return "i32 multiplicands need `multiplicandAPtxType` (bf16 or tf32)"
        for form in MMA_FORMS:
            if form.shape == self.shape.dims and form.ptx_type == ptx_type:
                return form
        supported = ", ".join(
            f"{MMAShapeAttr(*map(IntAttr, f.shape))} {f.ptx_type}" for f in MMA_FORMS
        )
        return f"unsupported mma.sync form {self.shape} {ptx_type}; supported: {supported}"

    def verify_(self) -> None:
        if (self.layoutA.data, self.layoutB.data) != (MMALayout.ROW, MMALayout.COL):
            raise VerifyException(
                f"mma.sync {self.shape} needs layoutA = row and layoutB = col, found "
                f"{self.layoutA.data}.{self.layoutB.data}"
            )
        if (
            self.multiplicandBPtxType is not None
            and self._ptx_type() != self.multiplicandBPtxType.data
        ):
            raise VerifyException(
                f"multiplicandBPtxType ({self.multiplicandBPtxType.data}) must equal the A "
                f"multiplicand type ({self._ptx_type()})"
            )
        form = self._form()
        if isinstance(form, str):
            raise VerifyException(form)
        expected = {"A": form.register, "B": form.register, "C": f32}
        for group, operands in (("A", self.operandA), ("B", self.operandB), ("C", self.operandC)):
            if len(operands) != MMA_FRAGMENT_SIZES[group]:
                raise VerifyException(
                    f"mma.sync {self.shape} {form.ptx_type} takes {MMA_FRAGMENT_SIZES[group]} "
                    f"{group} operands, found {len(operands)}"
                )
            for operand in operands:
                if operand.type != expected[group]:
                    raise VerifyException(
                        f"mma.sync {self.shape} {form.ptx_type}: {group} operands must be "
                        f"{expected[group]}, found {operand.type}"
                    )
        if self.res.type != MMA_RESULT:
            raise VerifyException(f"mma.sync result must be {MMA_RESULT}, found {self.res.type}")


LDMATRIX_COUNTS = (1, 2, 4)


def ldmatrix_result(num: int) -> Attribute:
    return i32 if num == 1 else LLVMStructType.from_type_list([i32] * num)


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`ldmatrix.sync.aligned.m8n8.x<num>{.trans}.b16`: load `num` 8x8 b16 tiles for mma.

    `layout = col` is the transposing form (`.trans`).
    """

    name = "nvvm.ldmatrix"
    ptr = operand_def(LLVMPointerType)
    res = result_def(BaseAttr(IntegerType) | BaseAttr(LLVMStructType))
    num = prop_def(IntegerAttr[I32])
    layout = prop_def(MMALayoutAttr)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$ptr attr-dict `:` functional-type($ptr, $res)"
    traits = traits_def(Convergent())

    def __init__(self, ptr: SSAValue, num: int, layout: MMALayout = MMALayout.ROW):
        super().__init__(
            operands=[ptr],
            result_types=[ldmatrix_result(num)],
            properties={"num": IntegerAttr(num, i32), "layout": MMALayoutAttr(layout)},
        )

    def verify_(self) -> None:
        num = self.num.value.data
        if num not in LDMATRIX_COUNTS:
            raise VerifyException(f"ldmatrix loads 1, 2 or 4 matrices, found num = {num}")
        if address_space(self.ptr.type) not in (0, 3):
            raise VerifyException(
                f"ldmatrix reads shared memory: the pointer must be generic (0) or shared (3), "
                f"found address space {address_space(self.ptr.type)}"
            )
        if self.res.type != ldmatrix_result(num):
            raise VerifyException(
                f"ldmatrix with num = {num} returns {ldmatrix_result(num)}, found {self.res.type}"
            )


@irdl_op_definition
class CpAsyncOp(IRDLOperation):
    """`nvvm.cp.async.shared.global %dst, %src, %n {size = 16} : !llvm.ptr<3>, !llvm.ptr<1>, i32`:
    PTX `cp.async.cg.shared.global [dst], [src], 16, n`: copy `n` bytes (`n <= 16`), zero-fill
    the rest of the 16; both addresses 16-byte aligned. Only the 16-byte `.cg` form (L2 only,
    which suits operands each block reads once) is supported."""

    name = "nvvm.cp.async.shared.global"
    dst = operand_def(LLVMPointerType)
    src = operand_def(LLVMPointerType)
    src_size = operand_def(i32)
    size = prop_def(IntegerAttr[I32])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$dst `,` $src `,` $src_size attr-dict `:` type($dst) `,` type($src)"

    def __init__(self, dst: SSAValue, src: SSAValue, src_size: SSAValue):
        super().__init__(operands=[dst, src, src_size], properties={"size": IntegerAttr(16, i32)})

    def verify_(self) -> None:
        if self.size.value.data != 16:
            raise VerifyException(
                f"cp.async.cg copies 16 bytes, found size = {self.size.value.data}"
            )
        if address_space(self.dst.type) != 3 or address_space(self.src.type) != 1:
            raise VerifyException(
                "cp.async.shared.global copies from a global pointer (1) to a shared one (3), "
                f"found {address_space(self.src.type)} to {address_space(self.dst.type)}"
            )


@irdl_op_definition
class CpAsyncCommitGroupOp(IRDLOperation):
    """`nvvm.cp.async.commit.group`: PTX `cp.async.commit_group`."""

    name = "nvvm.cp.async.commit.group"
    assembly_format = "attr-dict"


@irdl_op_definition
class CpAsyncWaitGroupOp(IRDLOperation):
    """`nvvm.cp.async.wait.group 1`: PTX `cp.async.wait_group 1`."""

    name = "nvvm.cp.async.wait.group"
    n = prop_def(IntegerAttr[I32])
    assembly_format = "$n attr-dict"

    def __init__(self, n: int):
        super().__init__(properties={"n": IntegerAttr(n, i32)})


CP_ASYNC_OPS = (CpAsyncOp, CpAsyncCommitGroupOp, CpAsyncWaitGroupOp)
