"""Module verification that reports every failing op at its source location."""

from __future__ import annotations

from xdsl.dialects import memref, scf
from xdsl.ir import Operation
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from ferrox.diagnostics import DiagnosticEngine, DiagnosticError


def verify_module(root: Operation) -> None:
    """Run each op's own verifier (not recursively) so that all failures are collected.

    The ops inside an op that fails are not verified: their verifiers may rely on what it
    guarantees (a `simt.call` looks its callee up in the module's one block; a module body of
    two blocks made that an internal error), as xDSL's recursive verify relies on it too."""
    engine = DiagnosticEngine()
    pending = [root]
    while pending:  # pre-order, as root.walk()
        op = pending.pop()
        try:
            _check_before_xdsl(op)
            op.verify(verify_nested_ops=False)
            _check_terminators(op)
        except DiagnosticError as e:
            engine.diagnostics.extend(e.diagnostics)
            continue
        except VerifyException as e:
            # xDSL's constraint errors span lines ("operand 'x' ... does not verify:\n<why>").
            lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
            engine.error(op, " ".join(lines) if lines else type(e).__name__)
            continue
        pending.extend(
            reversed(
                [inner for region in op.regions for block in region.blocks for inner in block.ops]
            )
        )
    engine.raise_if_errors()


def _check_before_xdsl(op: Operation) -> None:
    """What xDSL's own verifiers of these ops assume, checked first: scf.while's indexes block
    arguments without counting them and raises a bare Exception on a type mismatch, memref.load
    and memref.store's raise a bare Exception for a wrong index count."""
    if isinstance(op, scf.WhileOp):
        for region, values, what in (
            (op.before_region, op.arguments, "operands"),
            (op.after_region, op.res, "results"),
        ):
            name = "before" if region is op.before_region else "after"
            if len(region.blocks) != 1:
                raise VerifyException(f"the '{name}' region of scf.while must have one block")
            args = region.block.args
            have = ", ".join(str(a.type) for a in args)
            want = ", ".join(str(v.type) for v in values)
            if have != want:
                raise VerifyException(
                    f"the '{name}' region's block arguments ({have}) must match the "
                    f"scf.while's {what} ({want})"
                )
    elif isinstance(op, memref.LoadOp | memref.StoreOp):
        t = op.memref.type
        if isinstance(t, memref.MemRefType) and t.get_num_dims() != len(op.indices):
            raise VerifyException(
                f"'{op.name}' needs {t.get_num_dims()} indices for {t}, got {len(op.indices)}"
            )


def _check_terminators(op: Operation) -> None:
    """No block of a region is empty, unless the op needs no terminators. xDSL checks that a
    block's last op is a terminator but lets an empty block (`^exit:` with nothing after it)
    through; a pass such as canonicalize then makes a branch into another region of it."""
    if not op.regions or op.has_trait(NoTerminator):
        return
    for region in op.regions:
        for index, block in enumerate(region.blocks):
            if block.first_op is None:
                raise VerifyException(
                    f"block #{index} of a region of '{op.name}' is empty; a block must end with "
                    "a terminator"
                )
