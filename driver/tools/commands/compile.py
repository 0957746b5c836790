"""ferrox compile: IR to PTX (and, with --cubin, a cubin assembled by ptxas).

    ferrox compile kernel.mlir --chip sm_90 -o kernel.ptx [--cubin] [--artifact k.json]

The whole file is verified first, the host program included: op verifiers, `verify-disjoint`
and `verify-ownership` (a launch whose output is also one of its inputs fails here). Kernels
then compile (the `lower-to-llvm` pipeline, NVPTX, ptxas where found) through the kernel cache,
keyed by the file's text and the options: a file compiled before is neither compiled nor even
parsed again (its entry records that the whole file passed these checks). `--artifact` writes
the typed kernel artifact as JSON; `--time` prints each stage's milliseconds on standard error
(`read`, `key`, `cache`, then on a miss `parse`, `verify`, each pass, `llvm-export`, `llvm`,
`ptxas`, `artifact`, `store`). Input in the llvm dialect is compiled as it is; `-p PIPELINE`
runs the given passes instead of `lower-to-llvm` (uncached). Errors are located diagnostics and
exit 1; a bug in ferrox is an internal error (exit 70, see failure.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    VerifyException,
)

from ferrox import registry
from ferrox.artifact import ModuleArtifact
from ferrox.diagnostics import DiagnosticError, error
from ferrox.driver.tools.report import pipeline_error, print_diagnostics
from ferrox.parser import decode_source, parse_source, read_source
from ferrox.passes.verify_disjoint import verify_disjoint
from ferrox.passes.verify_ownership import VerifyOwnershipPass
from ferrox.targets import cache
from ferrox.targets.ptx import module_to_ptx, resolve_target
from ferrox.targets.timing import Timings, stage
from ferrox.targets.toolchain import ToolchainError, run_ptxas
from ferrox.verify import verify_module

DEFAULT_PIPELINE = "lower-to-llvm"


class CompileError(Exception):
    """A failure that is not about one place in the IR (a file, a tool); printed as is."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="the .mlir file to compile ('-' for standard input)")
    parser.add_argument("--chip", help="the GPU to compile for, e.g. sm_90 (default: the module's "
                        '"ferrox.chip" attribute, else sm_90)')  # fmt: skip
    parser.add_argument("--features", help="NVPTX features, e.g. +ptx80 (default: the chip's)")
    parser.add_argument(
        "-O", dest="opt", type=int, default=3, choices=range(4), help="LLVM optimisation level"
    )
    parser.add_argument(
        "-p",
        "--passes",
        help=f"pass pipeline to run instead of {DEFAULT_PIPELINE} (default: {DEFAULT_PIPELINE} "
        "unless the input is already in the llvm dialect)",
    )
    parser.add_argument(
        "-o", "--output", default="-", help="where to write the PTX ('-': standard output)"
    )
    parser.add_argument(
        "--cubin",
        nargs="?",
        const="",
        metavar="PATH",
        help="also write a cubin assembled by ptxas (default path: the output's, or the "
        "input's, with .cubin)",
    )
    parser.add_argument(
        "--artifact", metavar="PATH", help="also write the kernel artifact (JSON) to PATH"
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="compile even if the kernel cache has the file"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print ptxas's resource usage")
    parser.add_argument(
        "--time", action="store_true", help="print each stage's time (ms) on standard error"
    )


def execute(args: argparse.Namespace) -> int:
    timings = Timings() if args.time else None
    sources: dict[str, str] = {}
    try:
        with stage(timings, "read"):
            text, name = _read(args.input)
        sources[name] = text
        artifact, module = None, None
        if args.passes is None:
            try:
                artifact = _compile_cached(text, name, args, timings)
            except _LLVMInput as e:
                module = e.module
        if artifact is not None:
            ptx, chip, cubin = artifact.ptx, artifact.chip, artifact.cubin
            if args.artifact:
                _write(args.artifact, artifact.to_json())
        else:
            if args.artifact:
                raise CompileError(
                    "--artifact needs the default pipeline (SIMT or tile kernels, no -p)"
                )
            if module is None:
                module = _parse_verified(text, name, timings)
            _lower(module, args.passes)
            chip, features = resolve_target(module, args.chip, args.features)
            ptx, cubin = module_to_ptx(module, chip, features, args.opt, timings), None
        _write(args.output, ptx)
        if args.cubin is not None:
            _assemble(ptx, chip, _cubin_path(args), args.verbose, cubin)
    except DiagnosticError as e:
        print_diagnostics(e, args, sources)
        return 1
    except (CompileError, ToolchainError) as e:
        print(f"ferrox compile: error: {e}", file=sys.stderr)
        return 1
    finally:
        if timings is not None:
            print(timings.format(), file=sys.stderr)
    return 0


class _LLVMInput(Exception):
    """The file is already in the llvm dialect: compiled as it is, never cached."""

    def __init__(self, module: ModuleOp):
        super().__init__("llvm dialect input")
        self.module = module


def _compile_cached(
    text: str, name: str, args: argparse.Namespace, timings: Timings | None
) -> ModuleArtifact:
    """The artifact from the cache (nothing parsed), else parsed, verified as a whole program,
    compiled and stored. The key says the whole program was verified: an entry made by
    `ferrox.compile`, which checks the kernels alone, is not taken for one."""
    with stage(timings, "key"):
        key = cache.artifact_key(text, args.chip, args.features, args.opt, whole_program=True)
        key.digest()

    kernels = cache.default_cache()
    if not args.no_cache:
        with stage(timings, "cache"):
            found = kernels.lookup(key, ModuleArtifact.from_json)
        if found is not None:
            return found
    module = _parse_verified(text, name, timings)  # a refusal leaves the cache untouched
    if is_llvm_only(module):
        raise _LLVMInput(module)

    def build() -> bytes:
        timed = {} if timings is None else {"timings": timings}
        artifact = cache.compile_module(
            module, chip=args.chip, features=args.features, opt=args.opt, **timed
        )
        with stage(timings, "store"):
            return artifact.to_json().encode()

    if args.no_cache:
        return ModuleArtifact.from_json(build())
    return kernels.get_or_compile(key, build, ModuleArtifact.from_json)


def _parse_verified(text: str, name: str, timings: Timings | None) -> ModuleOp:
    with stage(timings, "parse"):
        module = parse_source(registry.make_context(), text, name)
    with stage(timings, "verify"):
        verify_module(module)
        verify_program(module)
    return module


def verify_program(module: ModuleOp) -> None:
    """The rules of the whole file: the kernels' (`verify-disjoint`) and, where there is a host
    program, its ownership rules (`verify-ownership`); the first that fails raises."""
    verify_disjoint(module)
    VerifyOwnershipPass().apply(registry.make_context(), module)


def _read(path: str) -> tuple[str, str]:
    """(text, name shown in diagnostics) of the input; bytes that are not UTF-8 are located."""
    name = "<stdin>" if path == "-" else path
    if path == "-":
        return read_source("-"), name
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise CompileError(f"cannot read {path}: {e.strerror}") from None
    return decode_source(data, name), name


def is_llvm_only(module: ModuleOp) -> bool:
    return all(op.name.startswith("llvm.") for op in module.walk() if op is not module)


def _lower(module: ModuleOp, spec: str | None) -> None:
    ctx = registry.make_context()
    passes = registry.all_passes()
    if spec is None:
        if is_llvm_only(module):
            return
        first = next(
            op for op in module.walk() if op is not module and not op.name.startswith("llvm.")
        )
        if not _available(passes, DEFAULT_PIPELINE):
            raise error(
                first,
                f"'{first.name}' is not in the llvm dialect and the {DEFAULT_PIPELINE} pipeline is "
                "not available here; pass -p with the conversions to run",
            )
        spec = DEFAULT_PIPELINE

    def verify_between(previous: ModulePass | None, op: ModuleOp, following: ModulePass | None):
        if previous is not None:
            try:
                verify_module(op)
            except DiagnosticError as e:  # the input verified before: the pass broke it
                from ferrox.driver.tools.opt import InvalidPassOutput

                raise InvalidPassOutput(previous.name, e) from e

    try:
        pipeline = PassPipeline.parse_spec(passes, spec, verify_between)
    except (ArgSpecParseError, ValueError, DiagnosticException) as e:
        said, helps = pipeline_error(str(e), ["-p", spec])
        told = "".join(f"\n  = help: {h}" for h in helps)
        raise CompileError(f"bad pass pipeline '{spec}': {said}{told}") from None
    try:
        pipeline.apply(ctx, module)
    except DiagnosticError:
        raise
    except (VerifyException, DiagnosticException) as e:
        raise DiagnosticError(error(module, str(e).strip()).diagnostics) from None


def _available(passes, name: str) -> bool:
    if name not in passes:
        return False
    try:
        passes[name]()
    except (ImportError, AttributeError):
        return False
    return True


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise CompileError(f"cannot write {path}: {e.strerror}") from None


def _cubin_path(args: argparse.Namespace) -> Path:
    if args.cubin:
        return Path(args.cubin)
    if args.output != "-":
        return Path(args.output).with_suffix(".cubin")
    stem = "stdin" if args.input == "-" else Path(args.input).stem
    return Path(f"{stem}.cubin")


def _assemble(ptx: str, chip: str, path: Path, verbose: bool, cubin: bytes | None) -> None:
    if cubin is None or verbose:  # the artifact's own cubin, unless ptxas's report is wanted
        result = run_ptxas(ptx, chip)
        cubin = result.cubin
        if verbose:
            _report(result.resources.values())
    try:
        path.write_bytes(cubin)
    except OSError as e:
        raise CompileError(f"cannot write {path}: {e.strerror}") from None


def _report(functions) -> None:
    for fn in functions:
        kind = "kernel" if fn.entry else "function"
        print(
            f"{kind} {fn.name}: {fn.registers} registers, {fn.spill_stores} bytes spill stores, "
            f"{fn.spill_loads} bytes spill loads, {fn.local_memory} bytes local, "
            f"{fn.shared_memory} bytes shared",
            file=sys.stderr,
        )
