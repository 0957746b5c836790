"""What an `llvm.func` carries besides its body: linkage, calling convention, attributes.

xDSL's exporter declares each function with its argument types and a few parameter attributes
and drops everything else. On a GPU the rest matters: a kernel is a PTX `.entry` only with the
`ptx_kernel` calling convention, its launch bounds (`nvvm.reqntid`, ...) become `.reqntid` and
friends, `noalias` + `readonly` parameters let LLVM use the read-only data path
(`ld.global.nc`), and device helpers should stay `internal` so they can be inlined away.
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.backend.llvm.convert import _declare_func  # pyright: ignore[reportPrivateUsage]
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IntegerAttr, StringAttr, UnitAttr
from xdsl.ir import Attribute
from xdsl.utils.exceptions import LLVMTranslationException

from ferrox.diagnostics import DiagnosticEngine, DiagnosticError, make
from ferrox.targets.llvm_export.instructions import ArgumentAttributes, FunctionAttributes

KERNEL_ATTR = "nvvm.kernel"
"""Unit attribute marking an `llvm.func` as a kernel (MLIR's spelling), like `ptx_kernel`."""

LAUNCH_BOUNDS = {
    "nvvm.reqntid": 3,  # exact block shape: `.reqntid x, y, z`
    "nvvm.maxntid": 3,  # block size bound: `.maxntid x, y, z`
    "nvvm.minctasm": 1,  # `.minnctapersm n`
    "nvvm.maxnreg": 1,  # `.maxnreg n`
}
"""Kernel attributes LLVM 22's NVPTX backend reads as `"name"="v1,v2,..."` function attributes."""

_FLAG_ATTRS = {
    "convergent": "convergent",
    "no_inline": "noinline",
    "always_inline": "alwaysinline",
    "inline_hint": "inlinehint",
    "no_unwind": "nounwind",
    "will_return": "willreturn",
    "optimize_none": "optnone",
}
"""MLIR's unit properties of `llvm.func` and the LLVM function attributes they stand for."""

_ARG_FLAGS = {
    "llvm.readonly": "readonly",
    "llvm.writeonly": "writeonly",
    "llvm.readnone": "readnone",
}
_ARG_HANDLED_BY_XDSL = {
    "llvm.inreg", "llvm.nest", "llvm.noalias", "llvm.nocapture", "llvm.nofree", "llvm.nonnull",
    "llvm.noundef", "llvm.returned", "llvm.signext", "llvm.zeroext", "llvm.align",
    "llvm.dereferenceable", "llvm.dereferenceable_or_null", "llvm.byval", "llvm.byref",
    "llvm.sret", "llvm.inalloca", "llvm.preallocated",
}  # fmt: skip


def is_kernel(op: llvm.FuncOp) -> bool:
    return KERNEL_ATTR in op.attributes or op.CConv.cconv_name == "ptx_kernel"


def declare_function(op: llvm.FuncOp, module: ir.Module, diag: DiagnosticEngine) -> ir.Function:
    """Declare `op` in `module` with everything it says about itself; problems go to `diag`."""
    _check_xdsl_argument_attributes(op)
    _declare_func(op, module)
    fn = module.get_global(op.sym_name.data)
    assert isinstance(fn, ir.Function)
    linkage = op.linkage.linkage.data
    if not op.body.blocks and linkage not in ("external", "extern_weak"):
        diag.error(
            op,
            f"function declaration @{op.sym_name.data} has '{linkage}' linkage; a declaration "
            "must be 'external' or 'extern_weak' (give it a body or drop the linkage)",
        )
    fn.linkage = "" if linkage == "external" else linkage
    fn.attributes = FunctionAttributes()
    _set_calling_convention(op, fn, diag)
    _set_function_attributes(op, fn, diag)
    _set_argument_attributes(op, fn, diag)
    return fn


def _set_calling_convention(op: llvm.FuncOp, fn: ir.Function, diag: DiagnosticEngine) -> None:
    if is_kernel(op):
        fn.calling_convention = "ptx_kernel"
        if not isinstance(op.function_type.output, llvm.LLVMVoidType):
            diag.error(
                op, f"kernel @{op.sym_name.data} must return void, not {op.function_type.output}"
            )
        if (linkage := op.linkage.linkage.data) in ("internal", "private"):
            diag.error(
                op,
                f"kernel @{op.sym_name.data} has '{linkage}' linkage, so LLVM may delete it and "
                "the driver could not find it; a kernel must be external",
            )
    elif (cconv := op.CConv.cconv_name) != "ccc":
        fn.calling_convention = cconv


def _set_function_attributes(op: llvm.FuncOp, fn: ir.Function, diag: DiagnosticEngine) -> None:
    props = {**op.properties, **op.attributes}
    for name, flag in _FLAG_ATTRS.items():
        if isinstance(props.get(name), UnitAttr):
            fn.attributes.add(flag)
    if "optnone" in fn.attributes:
        fn.attributes.add("noinline")  # LLVM requires optnone functions to be noinline
    # xDSL parses these into properties from generic IR and into attributes from custom IR.
    for key, name in (("target-cpu", "target_cpu"), ("tune-cpu", "tune_cpu")):
        if isinstance(value := props.get(name), StringAttr):
            fn.attributes.strings[key] = value.data
    if isinstance(features := props.get("target_features"), llvm.TargetFeaturesAttr):
        fn.attributes.strings["target-features"] = ",".join(f.data for f in features.features)
    if isinstance(passthrough := props.get("passthrough"), ArrayAttr):
        for entry in passthrough:
            _add_passthrough(op, fn, entry, diag)
    _set_launch_bounds(op, fn, diag)


def _add_passthrough(op: llvm.FuncOp, fn: ir.Function, entry: Attribute, diag: DiagnosticEngine):
    """`passthrough = ["noinline", ["key", "value"]]`, as in MLIR."""
    if isinstance(entry, StringAttr):
        if entry.data in FunctionAttributes._known:
            fn.attributes.add(entry.data)
        else:
            fn.attributes.strings[entry.data] = ""
        return
    if (
        isinstance(entry, ArrayAttr)
        and len(entry) == 2
        and all(isinstance(e, StringAttr) for e in entry)
    ):
        key, value = (e.data for e in entry)
        fn.attributes.strings[key] = value
        return
    diag.error(op, f'passthrough entry {entry} is neither "name" nor ["key", "value"]')


def _set_launch_bounds(op: llvm.FuncOp, fn: ir.Function, diag: DiagnosticEngine) -> None:
    present = [name for name in LAUNCH_BOUNDS if name in op.attributes]
    if present and not is_kernel(op):
        diag.error(
            op, f"'{present[0]}' is only meaningful on a kernel; @{op.sym_name.data} is not one"
        )
        return
    if "nvvm.reqntid" in present and "nvvm.maxntid" in present:
        diag.error(
            op,
            f"kernel @{op.sym_name.data} has both nvvm.reqntid and nvvm.maxntid; ptxas rejects "
            ".reqntid together with .maxntid, keep one",
        )
    for name in present:
        values = _bound_values(op.attributes[name])
        arity = LAUNCH_BOUNDS[name]
        if values is None or not 1 <= len(values) <= arity or any(v <= 0 for v in values):
            shape = (
                "array<i32: x[, y[, z]]> of positive values" if arity == 3 else "a positive integer"
            )
            diag.error(op, f"'{name}' must be {shape}, got {op.attributes[name]}")
            continue
        if arity == 3 and _product(values) > 1024:
            diag.error(
                op,
                f"'{name}' asks for {_product(values)} threads per block; a block has at most 1024",
            )
            continue
        fn.attributes.strings[name] = ",".join(str(v) for v in values)


def _bound_values(attr: Attribute) -> list[int] | None:
    if isinstance(attr, DenseArrayBase):
        return [int(v) for v in attr.get_values()]
    if isinstance(attr, IntegerAttr):
        return [attr.value.data]
    return None


def _product(values: list[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


_ARG_INTS = ("llvm.align", "llvm.dereferenceable", "llvm.dereferenceable_or_null")
_ARG_TYPES = ("llvm.byval", "llvm.byref", "llvm.sret", "llvm.inalloca", "llvm.preallocated")


def _check_xdsl_argument_attributes(op: llvm.FuncOp) -> None:
    """The argument attributes xDSL's `_declare_func` reads, checked first: it asserts that an
    integer one is an integer (llvmlite, that it is not negative) and converts a type-valued
    one without a location; both are mistakes in the input, said at the function."""
    if op.arg_attrs is None:
        return
    problems = []
    for index, attrs in enumerate(op.arg_attrs):
        for name, value in attrs.data.items():
            what = f"argument #{index} of @{op.sym_name.data}: '{name}'"
            if name in _ARG_INTS:
                n = value.value.data if isinstance(value, IntegerAttr) else -1
                ok = n >= 0
                if ok and name == "llvm.align":
                    ok = n > 0 and n & (n - 1) == 0
                if not ok:
                    shape = "a power of two" if name == "llvm.align" else "a non-negative integer"
                    problems.append(make("error", op, f"{what} must be {shape}, got {value}"))
            elif name in _ARG_TYPES:
                try:
                    convert_type(value)
                except LLVMTranslationException:
                    problems.append(make("error", op, f"{what} must be an LLVM type, got {value}"))
    if problems:
        raise DiagnosticError(problems)


def _set_argument_attributes(op: llvm.FuncOp, fn: ir.Function, diag: DiagnosticEngine) -> None:
    if op.arg_attrs is None:
        return
    grid_constant = [i for i, a in enumerate(op.arg_attrs) if GRID_CONSTANT in a.data]
    if grid_constant:
        _annotate_grid_constant(fn, grid_constant)
    for index, (arg, attrs) in enumerate(zip(fn.args, op.arg_attrs)):
        arg.attributes = ArgumentAttributes.upgrade(arg.attributes)
        for name in attrs.data:
            if name in _ARG_FLAGS:
                arg.attributes.add(_ARG_FLAGS[name])
            elif name.startswith("llvm.") and name not in _ARG_HANDLED_BY_XDSL:
                diag.error(
                    op, f"argument #{index} of @{op.sym_name.data}: unsupported attribute '{name}'"
                )


GRID_CONSTANT = "nvvm.grid_constant"
"""MLIR's argument attribute for a by-value kernel parameter read in place (a TMA tensor map)."""


def _annotate_grid_constant(fn: ir.Function, indices: list[int]) -> None:
    """`nvvm.grid_constant` on arguments `indices` as the `!nvvm.annotations` entry NVPTX reads
    (llvmlite has no string argument attributes): the parameter stays in the param space and
    its address is a generic one (`cvta.param`), never a copy in local memory."""
    module = fn.module
    i32 = ir.IntType(32)
    numbers = module.add_metadata([ir.Constant(i32, i + 1) for i in indices])
    entry = [fn, ir.MetaDataString(module, "grid_constant"), numbers]
    module.add_named_metadata("nvvm.annotations", entry)
