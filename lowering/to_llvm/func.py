"""func -> llvm: functions, returns and direct calls.

A `func.func` becomes an `llvm.func` that keeps what the GPU export needs: `sym_visibility`, the
linkage (an `llvm.linkage` attribute, else external as in MLIR), an `llvm.cconv` attribute as the
calling convention, every discardable attribute (`nvvm.kernel`, `nvvm.reqntid`, ...) and the
argument and result attributes (`llvm.noalias`, `llvm.readonly`, ...). Every block of the body
gets converted argument types.
"""

from __future__ import annotations

from xdsl.dialects import func, llvm
from xdsl.ir import Attribute
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.lowering.build import call as build_call
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.to_llvm.support import (
    convert_block_signature,
    legal_operands,
    replace_op,
    result_types,
)
from ferrox.lowering.to_llvm.types import function_type

LINKAGE_ATTR = "llvm.linkage"
CCONV_ATTR = "llvm.cconv"


def _single_result(types: tuple[Attribute, ...] | list[Attribute], what: str) -> None:
    if len(types) > 1:
        raise Unsupported(f"{what} returns {len(types)} values; llvm functions return at most one")


class FuncToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter, /) -> None:
        inputs = list(op.function_type.inputs.data)
        outputs = list(op.function_type.outputs.data)
        _single_result(outputs, f"function @{op.sym_name.data}")
        fn_type = function_type(inputs, outputs)

        attrs = dict(op.attributes)
        linkage = attrs.pop(LINKAGE_ATTR, None)
        if linkage is not None and not isinstance(linkage, llvm.LinkageAttr):
            raise Unsupported(f"'{LINKAGE_ATTR}' must be an #llvm.linkage attribute, got {linkage}")
        cconv = attrs.pop(CCONV_ATTR, None)
        if cconv is not None and not isinstance(cconv, llvm.CallingConventionAttr):
            raise Unsupported(f"'{CCONV_ATTR}' must be an #llvm.cconv attribute, got {cconv}")

        other: dict[str, Attribute | None] = {}
        if op.arg_attrs is not None:
            other["arg_attrs"] = op.arg_attrs
        if op.res_attrs is not None:
            other["res_attrs"] = op.res_attrs
        new = llvm.FuncOp(
            op.sym_name,
            fn_type,
            linkage=linkage or llvm.LinkageAttr("external"),
            cconv=cconv or llvm.CallingConventionAttr("ccc"),
            sym_visibility=op.sym_visibility,
            body=rewriter.move_region_contents_to_new_regions(op.body),
            other_props=other,
            extra_attrs=attrs,
        )
        replace_op(rewriter, op, [new], [])
        for block in new.body.blocks:
            convert_block_signature(rewriter, block)


class ReturnToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /) -> None:
        _single_result(op.arguments.types, "func.return")
        values = legal_operands(rewriter, op.arguments)
        replace_op(rewriter, op, [llvm.ReturnOp(values[0] if values else None)])


class CallToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter, /) -> None:
        _single_result(op.res.types, f"call to {op.callee}")
        types = result_types(op)
        args = legal_operands(rewriter, op.arguments)
        call = build_call(op.callee, args, types[0] if types else None)
        call.attributes.update(op.attributes)
        replace_op(rewriter, op, [call], list(call.results))


FUNC_PATTERNS: tuple[RewritePattern, ...] = (FuncToLLVM(), ReturnToLLVM(), CallToLLVM())
