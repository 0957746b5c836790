"""A module of llvm-dialect ops to an llvmlite module for NVPTX: globals, functions, bodies.

Follows xDSL's `convert_module` (globals first so `addressof` finds them, then every
declaration so calls can refer forward, then bodies) and reuses its global and type conversion;
what differs is GPU-specific and lives in `functions` and `ops`. Every problem is reported at
its op, all at once, as a `DiagnosticError`.
"""

from __future__ import annotations

from contextlib import nullcontext

from llvmlite import ir
from xdsl.backend.llvm.convert import _convert_global  # pyright: ignore[reportPrivateUsage]
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, NoneType, StringAttr
from xdsl.ir import Attribute, Block
from xdsl.utils.exceptions import LLVMTranslationException

from ferrox.diagnostics import DiagnosticEngine
from ferrox.targets.llvm_export.functions import declare_function
from ferrox.targets.llvm_export.ops import ExportError, convert_op
from ferrox.targets.llvm_export.types import wide_structs_named

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
NVPTX_DATALAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
"""LLVM 22's data layout for nvptx64 (what its NVPTX target machine reports)."""

SHARED = 3


def convert_module(module: ModuleOp, default_triple: str = NVPTX_TRIPLE) -> ir.Module:
    """The llvmlite module for `module`; a `DiagnosticError` lists every op it cannot export.
    A module that names no `llvm.target_triple` gets `default_triple` (`ferrox-opt -t llvm`
    passes the host's for input that is not GPU code, see `gpu_input`). For NVPTX, wide structs
    become named types (`types.wide_structs_named`); other targets get xDSL's literal ones, as
    `xdsl-opt -t llvm` prints them."""
    out = ir.Module(name=_module_name(module), context=ir.Context())  # its own named types
    diag = DiagnosticEngine()
    for key in ("llvm.target_triple", "llvm.data_layout"):  # misspelt, it would be ignored
        attr = module.attributes.get(key)
        if attr is not None and not isinstance(attr, StringAttr):
            diag.error(module, f"Unsupported {key} attribute: {attr} (expected a string)")
    out.triple = _string_attr(module, "llvm.target_triple") or default_triple
    layout = _string_attr(module, "llvm.data_layout")
    out.data_layout = (
        layout if layout is not None else NVPTX_DATALAYOUT if out.triple == NVPTX_TRIPLE else ""
    )
    nvptx = out.triple.startswith("nvptx")
    with wide_structs_named(out.context) if nvptx else nullcontext():
        _convert_ops(module, out, diag)
    diag.raise_if_errors()
    return out


def _convert_ops(module: ModuleOp, out: ir.Module, diag: DiagnosticEngine) -> None:
    """The module's globals and functions into `out`, every problem reported to `diag`."""
    globals_: list[llvm.GlobalOp] = []
    functions: list[llvm.FuncOp] = []
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            globals_.append(op)
        elif isinstance(op, llvm.FuncOp):
            functions.append(op)
        else:
            diag.error(
                op,
                f"'{op.name}' cannot appear at the top level of a module exported to LLVM IR "
                "(only llvm.func and llvm.mlir.global can)",
            )
    for op in globals_:
        _global(op, out, diag)
    declared = [(op, declare_function(op, out, diag)) for op in functions]
    for op, fn in declared:
        if op.body.blocks:
            _body(op, fn, diag)


def _module_name(module: ModuleOp) -> str:
    return module.sym_name.data if module.sym_name is not None else ""


def _string_attr(module: ModuleOp, name: str) -> str | None:
    attr = module.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def _global(op: llvm.GlobalOp, out: ir.Module, diag: DiagnosticEngine) -> None:
    if op.body.blocks and op.body.block.ops:
        diag.error(
            op, f"global @{op.sym_name.data} has an initializer region; give its value inline"
        )
        return
    if (problem := _unstorable(op.global_type)) is not None:
        diag.error(op, f"global @{op.sym_name.data} cannot be exported: {problem}")
        return
    try:
        _convert_global(op, out)
    except (LLVMTranslationException, TypeError, ValueError) as e:
        diag.error(op, f"global @{op.sym_name.data} cannot be exported: {e}")
        return
    gvar = out.get_global(op.sym_name.data)
    assert isinstance(gvar, ir.GlobalVariable)
    gvar.type = ir.PointerType(addrspace=op.addr_space.value.data)  # opaque, as LLVM 17+ spells it
    if op.alignment is not None:
        gvar.align = op.alignment.value.data
    if op.unnamed_addr is not None and op.unnamed_addr.value.data == 2:
        gvar.unnamed_addr = True
    if op.section is not None:
        gvar.section = op.section.data
    space = op.addr_space.value.data
    if space == SHARED and op.value is not None:
        diag.error(
            op,
            f"shared-memory global @{op.sym_name.data} has an initial value; NVPTX cannot "
            "initialise .shared variables, store the values from the kernel instead",
        )


_MAX_ARRAY = 2**63 - 1
"""llvmlite measures an array with `len()`, which stops at sys.maxsize."""


def _unstorable(t: Attribute) -> str | None:
    """Why a global of type `t` cannot exist (llvmlite asserts on a void one and overflows on
    an array longer than _MAX_ARRAY), or None."""
    if isinstance(t, llvm.LLVMArrayType):
        if t.size.data > _MAX_ARRAY:
            return f"an array of {t.size.data} elements is longer than {_MAX_ARRAY}"
        return _unstorable(t.type)
    if isinstance(t, llvm.LLVMStructType):
        return next((p for p in map(_unstorable, t.types) if p is not None), None)
    if isinstance(t, NoneType | llvm.LLVMVoidType | llvm.LLVMFunctionType):
        return f"its type {t} has no size"
    return None


def _name(value: ir.Value | None, hint: str | None) -> None:
    """Carry the IR's value names into LLVM IR, so that it reads like its source."""
    if hint and isinstance(value, (ir.Instruction, ir.Argument)):
        value.name = hint


def _body(op: llvm.FuncOp, fn: ir.Function, diag: DiagnosticEngine) -> None:
    """Blocks first (forward branches), phis for non-entry block arguments, then each op."""
    blocks: dict[Block, ir.Block] = {}
    vals: dict = {}
    for i, block in enumerate(op.body.blocks):
        blocks[block] = fn.append_basic_block(name=block.name_hint or "")
        if i == 0:
            vals.update(zip(block.args, fn.args))
            for arg, llvm_arg in zip(block.args, fn.args):
                _name(llvm_arg, arg.name_hint)
    for block in list(op.body.blocks)[1:]:
        builder = ir.IRBuilder(blocks[block])
        for arg in block.args:
            vals[arg] = builder.phi(convert_type(arg.type), name=arg.name_hint or "")
    for block in op.body.blocks:
        builder = ir.IRBuilder(blocks[block])
        if blocks[block].instructions:
            builder.position_after(blocks[block].instructions[-1])
        for inner in block.ops:
            try:
                convert_op(inner, builder, vals, blocks)
                for result in inner.results:
                    _name(vals.get(result), result.name_hint)
            except ExportError as e:
                diag.error(e.op, str(e))
                return
            except (LLVMTranslationException, TypeError, ValueError, KeyError) as e:
                diag.error(inner, f"'{inner.name}' cannot be exported to LLVM IR: {e}")
                return
