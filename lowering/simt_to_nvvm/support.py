"""What every `convert-simt-to-nvvm` pattern shares beyond the conversion toolkit
(`ferrox.lowering.conversion`, which reports unsupported ops and places new ops): SIMT values as
their lowered parts, bounds checks that trap, element addresses, and the launch contract's block.

A SIMT value that lowers to several values (a slice: pointer and length; a witness: raw index and
validity) is handed from pattern to pattern through `builtin.unrealized_conversion_cast`: the
pattern that lowers its producer casts the parts back to the SIMT type (`pack`), and a pattern
that lowers a user looks through that cast to the parts (`unpack`), or, where the producer is not
lowered yet, casts the other way. MLIR's 1:N conversions work the same way. `casts.finish`
removes every cast once all SIMT ops are gone.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    UnrealizedConversionCastOp,
    i1,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import KernelOp
from ferrox.lowering.build import call_intrinsic, cmpi, convert, gep, if_, yield_
from ferrox.lowering.build import cast as build_cast
from ferrox.lowering.build import load as build_load
from ferrox.lowering.build import store as build_store
from ferrox.lowering.conversion import Emitter
from ferrox.lowering.simt_to_nvvm.constants import pooled, pooled_cast, pooled_register
from ferrox.lowering.simt_to_nvvm.types import expanded, is_simt_type, memory_type

TRAP = "llvm.trap"
KERNEL_ATTR = "nvvm.kernel"
REQNTID_ATTR = "nvvm.reqntid"


class SimtEmitter(Emitter):
    """The toolkit's emitter with what SIMT patterns build: constants, index casts, SIMT values
    as their parts, element addresses, loads and stores, and bounds checks that trap."""

    @property
    def matched(self) -> Operation:
        """The op this pattern lowers (every SIMT emitter has one)."""
        assert self.origin is not None
        return self.origin

    # -- constants and casts ---------------------------------------------------------------
    def const(self, value: int, t: Attribute = i64) -> SSAValue:
        """The function's one `arith.constant value : t` (`constants.py`)."""
        assert isinstance(t, IntegerType | IndexType)
        return pooled(self, value, t)

    def true(self) -> SSAValue:
        return self.const(1, i1)

    def to_i64(self, index: SSAValue) -> SSAValue:
        """An `index` value as the i64 the ABI and address arithmetic use (a no-op in LLVM);
        an index made from an i64 gives that i64 back."""
        if index.type == i64:
            return index
        owner = index.owner
        if isinstance(owner, arith.IndexCastOp) and owner.input.type == i64:
            return owner.input
        if isinstance(index, BlockArgument):
            return pooled_cast(self, index, lambda: convert(arith.IndexCastOp, index, i64))
        return self(convert(arith.IndexCastOp, index, i64))

    def to_index(self, value: SSAValue) -> SSAValue:
        if isinstance(value.type, IndexType):
            return value
        if value.type != i64:
            value = self(convert(arith.ExtUIOp, value, i64))
        return self(convert(arith.IndexCastOp, value, IndexType()))

    def register(self, op_type: type[Operation], name: str | None = None) -> SSAValue:
        """A 32-bit special register, zero-extended to i64."""
        return pooled_register(self, op_type, name)

    # -- SIMT values as parts ----------------------------------------------------------------
    def unpack(self, value: SSAValue) -> list[SSAValue]:
        """The lowered parts of a SIMT value (the value itself when it is not SIMT-typed)."""
        if not is_simt_type(value.type):
            return [value]
        parts = expanded(value.type)
        owner = value.owner
        if (
            isinstance(owner, UnrealizedConversionCastOp)
            and len(owner.outputs) == 1
            and [v.type for v in owner.inputs] == parts
        ):
            return list(owner.inputs)
        cast = build_cast([value], parts)
        self.emit(cast)
        return list(cast.results)

    def pack(self, parts: Sequence[SSAValue], simt_type: Attribute) -> SSAValue:
        """The SIMT value that `parts` stand for, for users that are not lowered yet."""
        assert [p.type for p in parts] == expanded(simt_type)
        return self(build_cast(parts, [simt_type]))

    # -- memory -----------------------------------------------------------------------------
    def element(
        self,
        base: SSAValue,
        indices: Sequence[SSAValue | int],
        element: Attribute,
        inbounds: bool = False,
    ) -> SSAValue:
        """The address of `base[indices]` (i64 values or constants) in `base`'s address space."""
        assert isinstance(base.type, LLVMPointerType)
        return self(
            gep(
                base,
                [i if isinstance(i, int) else llvm.GEP_USE_SSA_VAL for i in indices],
                element,
                [i for i in indices if not isinstance(i, int)],
                base.type,
                inbounds,
            )
        )

    def load(self, address: SSAValue, element: Attribute, invariant: bool = False) -> SSAValue:
        """The element at `address`, as the SIMT element type (`index` is an i64 in memory)."""
        load = build_load(address, memory_type(element))
        if invariant:
            load.attributes["invariant"] = UnitAttr()
        value = self(load)
        return self.to_index(value) if isinstance(element, IndexType) else value

    def store(self, value: SSAValue, address: SSAValue) -> None:
        if isinstance(value.type, IndexType):
            value = self.to_i64(value)
        self.emit(build_store(value, address))

    def trap_unless(self, index: SSAValue, length: SSAValue) -> None:
        """Trap (`llvm.trap`, PTX `trap`) unless `index < length`, unsigned: nothing past this
        point runs with an index out of range, so no access can read or write wild."""
        bad = self(cmpi(index, length, "uge"), "out_of_range")
        then = Block()
        self.at(InsertPoint.at_end(then)).emit(call_intrinsic(TRAP, []))
        self.at(InsertPoint.at_end(then)).emit(yield_())
        self.emit(if_(bad, [], Region(then)))

    def checked_element(
        self, slice_value: SSAValue, index: SSAValue, element: Attribute
    ) -> SSAValue:
        """The address of element `index` (an `index` value) of a slice, trapping out of range."""
        ptr, length = self.unpack(slice_value)
        i = self.to_i64(index)
        self.trap_unless(i, length)
        return self.element(ptr, [i], memory_type(element), inbounds=True)


def is_constant(value: SSAValue, expected: int) -> bool:
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return False
    return owner.value == IntegerAttr(expected, owner.value.type)


def launch_block(op: Operation) -> tuple[int, int, int] | None:
    """The exact block shape of the kernel around `op`, when a launch contract fixes it.

    Read from the SIMT kernel's contract or, once the kernel is lowered, from its
    `nvvm.reqntid`, so patterns may run in any order. Device functions have none: any kernel
    may call them.
    """
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, KernelOp):
            return parent.contract.block_xyz if parent.contract is not None else None
        reqntid = parent.attributes.get(REQNTID_ATTR)
        if KERNEL_ATTR in parent.attributes:
            if reqntid is None:
                return None
            x, y, z = (int(v) for v in reqntid.get_values())  # type: ignore[attr-defined]
            return (x, y, z)
        parent = parent.parent_op()
    return None


__all__ = ["KERNEL_ATTR", "REQNTID_ATTR", "TRAP", "SimtEmitter", "is_constant", "launch_block"]
