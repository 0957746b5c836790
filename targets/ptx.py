"""LLVM IR to PTX with llvmlite's NVPTX backend, and PTX to cubin with ptxas.

`compile_ptx(llvm_ir, chip, features, opt)` parses and verifies the IR, runs LLVM's new-pass-manager
pipeline at `opt`, and emits PTX. It runs LLVM in a child process: NVPTX ends the process on some
inputs (`llvm.exp.f32` has "no libcall available", an unknown `syncscope`, a PTX version too old
for the chip), and a compiler library must not take its caller down with it. One child serves
every compile of the process and is replaced when it dies (`llvm_worker.py`), so only the first
compile pays for starting Python and llvmlite.

After emission the PTX must not declare or call any `llvm.*` symbol: LLVM turns an intrinsic it
does not know (`llvm.nvvm.bogus`) into a call to an external function instead of an error, and
that would only fail much later, when the driver links the module.

The chip comes from, in order: an explicit argument (`-t 'ptx{chip=sm_90}'`, `ferrox compile
--chip`), the module's string attribute `"ferrox.chip" = "sm_90"`, then `sm_90`. Likewise the PTX
features (`"ferrox.features" = "+ptx80"`); by default `+ptx80`, or the chip's minimum PTX version
where that is newer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.utils.target import Target

from ferrox.diagnostics import DiagnosticEngine, DiagnosticError, error
from ferrox.passes.disjoint.common import walk
from ferrox.targets.llvm_export import to_llvm_ir
from ferrox.targets.llvm_worker import LLVMFailure, submit_to_worker
from ferrox.targets.timing import Timings, stage
from ferrox.targets.toolchain import FunctionResources, run_ptxas

DEFAULT_CHIP = "sm_90"
DEFAULT_FEATURES = "+ptx80"
CHIP_ATTR = "ferrox.chip"
FEATURES_ATTR = "ferrox.features"

MIN_PTX: dict[str, int] = {
    "sm_20": 32, "sm_21": 32, "sm_30": 32, "sm_32": 40, "sm_35": 32, "sm_37": 41,
    "sm_50": 40, "sm_52": 41, "sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50,
    "sm_70": 60, "sm_72": 61, "sm_75": 63, "sm_80": 70, "sm_86": 71, "sm_87": 74,
    "sm_88": 90, "sm_89": 78, "sm_90": 78, "sm_90a": 80,
    "sm_100": 86, "sm_100a": 86, "sm_100f": 88, "sm_101": 86, "sm_101a": 86, "sm_101f": 88,
    "sm_103": 88, "sm_103a": 88, "sm_103f": 88, "sm_110": 90, "sm_110a": 90, "sm_110f": 90,
    "sm_120": 87, "sm_120a": 87, "sm_120f": 88, "sm_121": 88, "sm_121a": 88, "sm_121f": 88,
}  # fmt: skip
"""The chips LLVM 22's NVPTX backend knows, with the oldest PTX ISA (x10) each needs."""

PTX_VERSIONS = frozenset(
    {32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78}
    | {80, 81, 82, 83, 84, 85, 86, 87, 88, 90}
)
"""The `+ptxNN` features LLVM 22 knows; any other is ignored with a warning on stderr."""

NVPTX_SYNCSCOPES = ("", "singlethread", "block", "cluster", "device")

_UNLOWERABLE: dict[type[Operation], str] = {
    llvm.FExpOp: "math.exp: use exp2(x * log2(e))",
    llvm.FLogOp: "math.log: use log2(x) * ln(2) through the nvvm approximation",
    llvm.FLog2Op: "math.log2: use the nvvm lg2.approx intrinsic",
    llvm.FPowOp: "math.powf: use exp2(y * log2(x))",
}
"""xDSL llvm ops whose intrinsic NVPTX cannot lower at all (LLVM aborts); how to get the value."""

_NEEDS_AFN: dict[type[Operation], str] = {llvm.FSinOp: "sin", llvm.FCosOp: "cos"}
"""Ops NVPTX lowers only as approximations (`sin.approx.f32`), so only with the `afn` flag."""


class PTXError(DiagnosticError):
    """LLVM could not produce PTX, or produced PTX that cannot work (`symbols`: unknown
    intrinsics)."""

    def __init__(self, message: str, where: Operation | None = None, symbols: tuple[str, ...] = ()):
        super().__init__(error(where, message).diagnostics)
        self.symbols = symbols


def default_features(chip: str) -> str:
    """`+ptx80`, or the chip's minimum PTX version where that is newer (sm_100 needs +ptx86)."""
    needed = MIN_PTX.get(chip, 80)
    return DEFAULT_FEATURES if needed <= 80 else f"+ptx{needed}"


def resolve_target(
    module: ModuleOp | None, chip: str | None = None, features: str | None = None
) -> tuple[str, str]:
    """The chip and features to compile for: explicit values, else module attributes, else
    the defaults."""
    chip = chip or _module_string(module, CHIP_ATTR) or DEFAULT_CHIP
    features = features or _module_string(module, FEATURES_ATTR) or default_features(chip)
    return chip, normalize_features(features)


def device_chip(module: ModuleOp | None, chip: str) -> str:
    """The chip to compile `module` for on a device of `chip`: the module's arch-specific variant
    of that chip when its `"ferrox.chip"` asks for one (`sm_90a` on an sm_90 device: wgmma), else
    `chip`. An arch-specific target is opt-in, so every other module keeps the device's chip."""
    wanted = _module_string(module, CHIP_ATTR)
    return wanted if wanted == f"{chip}a" else chip


def _module_string(module: ModuleOp | None, name: str) -> str | None:
    if module is None or name not in module.attributes:
        return None
    attr = module.attributes[name]
    if not isinstance(attr, StringAttr):
        raise PTXError(
            f'module attribute "{name}" must be a string such as "sm_90", got {attr}', module
        )
    return attr.data


def normalize_features(features: str) -> str:
    """`ptx80` and `+ptx80` both mean `+ptx80` (a pass-spec value cannot start with `+`)."""
    items = [f.strip() for f in features.split(",") if f.strip()]
    return ",".join(f if f[0] in "+-" else f"+{f}" for f in items)


def validate_target(chip: str, features: str) -> None:
    """Reject what LLVM would only warn about on stderr, or die on."""
    if chip not in MIN_PTX:
        known = ", ".join(MIN_PTX)
        raise PTXError(f"unknown chip '{chip}'; LLVM's NVPTX backend knows {known}")
    newest = 0
    for feature in (f for f in features.split(",") if f):
        m = re.fullmatch(r"([+-])ptx(\d+)", feature)
        if m is None or int(m.group(2)) not in PTX_VERSIONS:
            raise PTXError(
                f"unknown NVPTX feature '{feature}'; expected +ptxNN with NN one of "
                + ", ".join(str(v) for v in sorted(PTX_VERSIONS))
            )
        if m.group(1) == "+":
            newest = max(newest, int(m.group(2)))
    if newest and newest < MIN_PTX[chip]:
        raise PTXError(
            f"{chip} needs PTX ISA {MIN_PTX[chip] / 10:.1f} or newer, but the features ask for "
            f"{newest / 10:.1f}; use features=+ptx{MIN_PTX[chip]} or drop them"
        )


def compile_ptx(
    llvm_ir: str, chip: str = DEFAULT_CHIP, features: str = DEFAULT_FEATURES, opt: int = 3
) -> str:
    """PTX for `llvm_ir` (text); raises `PTXError` with LLVM's own message when it cannot.
    LLVM runs in this process's persistent worker (`llvm_worker`), restarted if it dies."""
    return submit_ptx(llvm_ir, chip, features, opt)()


def submit_ptx(
    llvm_ir: str, chip: str = DEFAULT_CHIP, features: str = DEFAULT_FEATURES, opt: int = 3
) -> Callable[[], str]:
    """`compile_ptx` in two steps: the IR goes to LLVM now, and the function returned waits for
    the PTX (raising what `compile_ptx` raises). It must be called, even when the work done
    meanwhile fails: the worker serves no other compile until then."""
    features = normalize_features(features)
    validate_target(chip, features)
    if opt not in (0, 1, 2, 3):
        raise PTXError(f"optimisation level must be 0, 1, 2 or 3, got {opt}")
    pending = submit_to_worker(llvm_ir, chip, features, opt)

    def wait() -> str:
        try:
            ptx = pending.result()
        except LLVMFailure as e:
            raise PTXError(f"LLVM could not compile the module for {chip}: {e}") from None
        check_ptx_symbols(ptx)
        return ptx

    return wait


_LLVM_SYMBOL = re.compile(r"(?<![\w.$])llvm\.[\w.$]+")
_PARAM = re.compile(r"_param_\d+$")


def check_ptx_symbols(ptx: str) -> None:
    """Fail if the PTX refers to any `llvm.*` function: an intrinsic LLVM did not recognise."""
    code = "\n".join(line.split("//", 1)[0] for line in ptx.splitlines())
    found = (s for s in _LLVM_SYMBOL.findall(code) if not _PARAM.search(s))  # not `f_param_0`
    symbols = tuple(dict.fromkeys(found))
    if symbols:
        names = ", ".join(f"'{s}'" for s in symbols)
        raise PTXError(
            f"unknown intrinsic {names}: LLVM's NVPTX backend does not know it and emitted a call "
            "to an external function instead; check the name and its operand types against "
            "LLVM's NVVM intrinsics",
            symbols=symbols,
        )


def check_lowerable(module: ModuleOp) -> None:
    """Located errors for what NVPTX cannot compile and would abort LLVM on; all of them at once."""
    diag = DiagnosticEngine()
    for op in walk(module):
        scope = op.properties.get("syncscope") or op.attributes.get("syncscope")
        if scope is not None:  # (`isinstance` against an ABC, only where there is a scope)
            _check_scope(diag, op, scope)
        cls = type(op)
        if cls in _UNLOWERABLE:
            diag.error(op, f"NVPTX has no lowering for '{op.name}'; {_UNLOWERABLE[cls]}")
        if cls in _NEEDS_AFN:
            flags = op.properties.get("fastmathFlags")
            names = {f.value for f in flags.data} if isinstance(flags, llvm.FastMathAttr) else set()
            if not names & {"afn", "fast"}:
                diag.error(
                    op,
                    f"NVPTX lowers '{op.name}' only as the approximation "
                    f"{_NEEDS_AFN[type(op)]}.approx.f32; say so with "
                    "fastmathFlags = #llvm.fastmath<afn>",
                )
    diag.raise_if_errors()


def _check_scope(diag: DiagnosticEngine, op: Operation, scope: Attribute) -> None:
    if isinstance(scope, StringAttr) and scope.data not in NVPTX_SYNCSCOPES:
        diag.error(
            op,
            f'syncscope("{scope.data}") is not an NVPTX scope; use "block", "cluster", '
            '"device", "singlethread", or none for the whole system',
        )


def module_to_ptx(
    module: ModuleOp,
    chip: str | None = None,
    features: str | None = None,
    opt: int = 3,
    timings: Timings | None = None,
) -> str:
    """PTX for an llvm-dialect module, with errors located at the ops that cause them
    (`timings`: the export and LLVM's time, as `llvm-export` and `llvm`)."""
    return submit_module(module, chip, features, opt, timings)()


def submit_module(
    module: ModuleOp,
    chip: str | None = None,
    features: str | None = None,
    opt: int = 3,
    timings: Timings | None = None,
) -> Callable[[], str]:
    """`module_to_ptx` in two steps (as `submit_ptx`): the module is exported and handed to LLVM
    now; the function returned waits for the PTX and must be called. The `llvm` stage's time is
    that wait."""
    chip, features = resolve_target(module, chip, features)
    try:
        validate_target(chip, features)
    except PTXError as e:
        raise PTXError(e.diagnostics[0].message, module) from None
    with stage(timings, "llvm-export"):
        check_lowerable(module)
        llvm_ir = to_llvm_ir(module)
    try:
        with stage(timings, "llvm"):
            wait = submit_ptx(llvm_ir, chip, features, opt)
    except PTXError as e:
        raise PTXError(e.diagnostics[0].message, module) from None

    def located() -> str:
        try:
            with stage(timings, "llvm"):
                return wait()
        except PTXError as e:
            if not e.symbols:
                raise PTXError(e.diagnostics[0].message, module) from None
            raise _locate_symbols(module, e) from None

    return located


def _locate_symbols(module: ModuleOp, e: PTXError) -> DiagnosticError:
    diag = DiagnosticEngine()
    for op in module.walk():
        if isinstance(op, llvm.CallIntrinsicOp) and op.intrin.data in e.symbols:
            diag.error(
                op,
                f"unknown intrinsic '{op.intrin.data}': LLVM's NVPTX backend does not know it and "
                "would call an external function of that name",
            )
        elif (
            isinstance(op, llvm.CallOp)
            and op.callee is not None
            and op.callee.string_value() in e.symbols
        ):
            diag.error(op, f"call to unknown intrinsic '{op.callee.string_value()}'")
    return DiagnosticError(diag.diagnostics) if diag.diagnostics else e


@dataclass(frozen=True)
class PTXTarget(Target):
    """`ferrox-opt -t 'ptx{chip=sm_90 features="+ptx80" opt=3}'`: print the module as PTX.

    An empty chip or features means: from the module's attributes, else the default.
    """

    name = "ptx"

    chip: str = ""
    features: str = ""
    opt: int = 3

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(module_to_ptx(module, self.chip or None, self.features or None, self.opt))


def assemble_cubin(ptx: str, chip: str = DEFAULT_CHIP) -> bytes:
    """A cubin for `chip` from `ptx`, by ptxas (`ToolchainError` when it is missing or fails)."""
    return run_ptxas(ptx, chip, verbose=False).cubin


def ptx_resources(ptx: str, chip: str = DEFAULT_CHIP) -> dict[str, FunctionResources]:
    """What `ptxas -v` reports for each function of `ptx`: registers, spills, local and shared
    memory."""
    return run_ptxas(ptx, chip).resources
