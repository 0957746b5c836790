"""Streams, prepared launches, the safe and unsafe launch of a SIMT kernel, and sync.

A launch is asynchronous: it enqueues the kernel on a stream and gives back, as new values, the
tensors it took as exclusive outputs; they hold the kernel's results only once the host program
has run `host.sync_on` on that stream (`verify-ownership` rejects an earlier host read).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import IndexType, SymbolRefAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.constraints import AttrConstraint, InferenceContext, VerificationContext
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.host import kernels
from ferrox.dialects.host.types import PreparedType, StreamType, TensorType

CONFIG = "`grid` `(` $grid `)` `block` `(` $block `)` (`shared` `(` $shared^ `)`)?"
INS_OUTS = (
    "`on` $stream (`ins` `(` $ins^ `:` type($ins) `)`)? (`outs` `(` $outs^ `:` type($outs) `)`)?"
    " attr-dict (`->` type($new_outs)^)?"
)


@dataclass(frozen=True)
class PreparedFor(AttrConstraint[PreparedType]):
    """Any `!host.prepared`, inferred in the custom syntax from the op's kernel symbol.

    Verification accepts every prepared type so that a launch whose proof is for another kernel
    gets the launch's own diagnostic rather than a constraint-variable mismatch.
    """

    kernel_var: str

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not isinstance(attr, PreparedType):
            raise VerifyException(f"expected a !host.prepared launch, got {attr}")

    def can_infer(self, var_constraint_names) -> bool:
        return self.kernel_var in var_constraint_names

    def mapping_type_vars(self, type_var_mapping) -> PreparedFor:
        return self

    def get_bases(self) -> set[type[Attribute]]:
        return {PreparedType}

    def infer(self, context: InferenceContext) -> PreparedType:
        kernel = context.get_variable(self.kernel_var)
        assert isinstance(kernel, SymbolRefAttr)
        return PreparedType(kernel)


def _verify_config(grid: Sequence[SSAValue], block: Sequence[SSAValue]) -> None:
    for what, dims in (("grid", grid), ("block", block)):
        if not 1 <= len(dims) <= 3:
            raise VerifyException(f"{what} needs 1 to 3 dimensions, got {len(dims)}")


def _verify_gives_back(outs: Sequence[SSAValue], results: Sequence[SSAValue]) -> None:
    """A launch gives back every tensor it took, as new values (docs/safety.md#host-3)."""
    out_types = [o.type for o in outs]
    result_types = [r.type for r in results]
    if out_types != result_types:
        raise VerifyException(
            "a launch gives back every tensor it takes: expected results "
            f"({', '.join(map(str, out_types))}), got ({', '.join(map(str, result_types))})"
        )


@irdl_op_definition
class StreamOp(IRDLOperation):
    """`%s = host.stream`: a new stream; launches on it run in order, asynchronously to the host."""

    name = "host.stream"
    result = result_def(StreamType())
    assembly_format = "attr-dict"


@irdl_op_definition
class SyncOnOp(IRDLOperation):
    """`host.sync_on %s`: wait for every launch on `%s`; their results become readable."""

    name = "host.sync_on"
    stream = operand_def(StreamType())
    assembly_format = "$stream attr-dict"


@irdl_op_definition
class PrepareOp(IRDLOperation):
    """`%p = host.prepare @k grid(%g) block(%b) args(%a, %n : ...)`: check a launch configuration.

    At run time the grid and block are checked against the kernel's launch contract, the device's
    limits, and the contract's `requires` relations on `args` (every kernel parameter, in order;
    tensors are only inspected for their shape). The result is the proof a safe `host.launch`
    needs. A kernel without a contract cannot be prepared.
    """

    name = "host.prepare"
    _K: ClassVar = VarConstraint("K", BaseAttr(SymbolRefAttr))
    kernel = prop_def(_K)
    grid = var_operand_def(IndexType())
    block = var_operand_def(IndexType())
    shared = opt_operand_def(IndexType())
    args = var_operand_def()
    result = result_def(PreparedFor("K"))
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = f"$kernel {CONFIG} `args` `(` ($args^ `:` type($args))? `)` attr-dict"

    def verify_(self) -> None:
        _verify_config(self.grid, self.block)
        assert isinstance(self.result.type, PreparedType)
        if self.result.type.kernel != self.kernel:
            raise VerifyException(f"prepares {self.kernel} but its result is {self.result.type}")
        kernel = kernels.lookup_kernel(self, self.kernel)
        if kernel is not None and kernels.has_contract(kernel) is False:
            raise VerifyException(
                f"{self.kernel} has no launch contract, so it cannot be prepared; "
                "give it a contract or launch it with host.unsafe_launch"
            )
        kernels.bind_all(self, self.kernel, self.args)


def verify_launch(op: IRDLOperation, ins: Sequence[SSAValue], outs: Sequence[SSAValue]) -> None:
    """What every launch checks: operand kinds, rule 3, the binding to the kernel's parameters."""
    for i, value in enumerate(ins):
        if not isinstance(value.type, TensorType) and not kernels.is_scalar(value.type):
            raise VerifyException(
                f"ins operand #{i} has type {value.type}; a launch takes tensors and scalars"
            )
    _verify_gives_back(outs, op.results)
    kernel = op.properties["kernel"]
    assert isinstance(kernel, SymbolRefAttr)
    kernels.bind_ins_outs(op, kernel, ins, outs)


@irdl_op_definition
class LaunchOp(IRDLOperation):
    """`%c2 = host.launch @k with %p on %s ins(%a : T) outs(%c : T) -> T`: a safe launch.

    Needs a `!host.prepared<@k>` made by `host.prepare` (docs/safety.md#host-5). `ins` are
    borrowed for the launch; `outs` (the kernel's exclusive outputs) are moved in and given back
    as the results. At run time each argument must have the shape (tensors) or value (scalars)
    it had at `host.prepare`.
    """

    name = "host.launch"
    _K: ClassVar = VarConstraint("K", BaseAttr(SymbolRefAttr))
    kernel = prop_def(_K)
    prepared = operand_def(PreparedFor("K"))
    stream = operand_def(StreamType())
    ins = var_operand_def()
    outs = var_operand_def(TensorType)
    new_outs = var_result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = f"$kernel `with` $prepared {INS_OUTS}"

    def verify_(self) -> None:
        assert isinstance(self.prepared.type, PreparedType)
        if self.prepared.type.kernel != self.kernel:
            raise VerifyException(
                f"launch of {self.kernel} needs a prepared launch of {self.kernel}, "
                f"but got {self.prepared.type}"
            )
        verify_launch(self, self.ins, self.outs)


@irdl_op_definition
class UnsafeLaunchOp(IRDLOperation):
    """`host.unsafe_launch @k grid(%g) block(%b) on %s ...`: launch with an unchecked configuration.

    Spelled unsafe because nothing checked the configuration; a contracted kernel still carries
    `.reqntid`, so a block shape that breaks its contract fails at the driver.
    """

    name = "host.unsafe_launch"
    kernel = prop_def(SymbolRefAttr)
    grid = var_operand_def(IndexType())
    block = var_operand_def(IndexType())
    shared = opt_operand_def(IndexType())
    stream = operand_def(StreamType())
    ins = var_operand_def()
    outs = var_operand_def(TensorType)
    new_outs = var_result_def(TensorType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = f"$kernel {CONFIG} {INS_OUTS}"

    def verify_(self) -> None:
        _verify_config(self.grid, self.block)
        verify_launch(self, self.ins, self.outs)
