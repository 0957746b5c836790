"""`lower-sat-to-arith`: a clamp becomes arith.maximumf then arith.minimumf.

ferrox's `lower-to-llvm` runs this pass itself (the `ferrox.lowerings` entry point), after it
has extracted the device code; its own stages then take arith to the llvm dialect, and NVPTX
to PTX.
"""

# doc:begin pass
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ferrox_sat.dialect import ClampOp


class ClampToArith(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClampOp, rewriter: PatternRewriter) -> None:
        lo = arith.ConstantOp(op.lo)
        hi = arith.ConstantOp(op.hi)
        above = arith.MaximumfOp(op.value, lo.result)
        clamped = arith.MinimumfOp(above.result, hi.result)
        rewriter.replace(op, [lo, hi, above, clamped], [clamped.result])


@dataclass(frozen=True)
class LowerSatToArithPass(ModulePass):
    """lower sat.clamp to arith.maximumf and arith.minimumf"""

    name = "lower-sat-to-arith"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(ClampToArith()).rewrite_module(op)


# doc:end
