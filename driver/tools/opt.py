"""`ferrox-opt`: xDSL's opt driver with ferrox's dialects, passes, targets and diagnostics.

Differences from `xdsl-opt`, all for MLIR parity: every op gets a source location, errors print in
rustc's shape (`error[E0382]: ...`, the source line, `help:`; `--error-format=short` or
FERROX_ERROR_FORMAT=short: `file:line:col: error[E0382]: ...`) and exit 1 (never a traceback); a
misspelt pass or pass option gets a did-you-mean; a bug in ferrox is an internal error
(exit 70; `--debug` or FERROX_TRACEBACK=1 shows the traceback; see failure.py);
`--verify-diagnostics` checks `expected-*` annotations, and `--print-ir-before-all` /
`--print-ir-after-all` are spelled as in mlir-opt. A pipeline pass made of stages
(`lower-to-llvm`) runs stage by stage, so the dumps and `--time-passes` show each stage.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import time
import warnings
from collections.abc import Sequence
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

import ferrox
from ferrox import registry
from ferrox.diagnostics import (
    Diagnostic,
    DiagnosticError,
    SourceLoc,
    error_format,
    location_of,
    render,
)
from ferrox.driver.tools import expected_diagnostics
from ferrox.driver.tools.failure import USER_ERRORS, report_internal_error
from ferrox.driver.tools.report import add_error_format, command_line_error
from ferrox.parser import LocatedParser, decode_source, parse_module
from ferrox.verify import verify_module


class InvalidPassOutput(RuntimeError):
    """A pass turned IR that verified into IR that does not: a ferrox bug, not a user error."""

    def __init__(self, name: str, cause: BaseException):
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        self.pass_name, self.problem = name, first
        super().__init__(f"pass '{name}' produced IR that does not verify: {first}")


class FerroxOptMain(xDSLOptMain):
    version_format = f"ferrox-opt {ferrox.__version__} ({xDSLOptMain.version_format})"
    """`ferrox-opt 0.1.0 (xdsl-opt built from xdsl version 0.74.0)`: names our tool, and keeps
    xdsl-opt's own line, which xDSL's `version.mlir` checks."""

    def __init__(self, args: Sequence[str] | None = None):
        self.sources = {}
        super().__init__(description="ferrox modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        for name, factory in registry.all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        for name, factory in registry.all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        self.available_targets.update(registry.all_targets())

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--print-ir-before-all", action="store_true", help="print the IR before each pass"
        )
        arg_parser.add_argument(
            "--print-ir-after-all", action="store_true", help="print the IR after each pass"
        )
        arg_parser.add_argument(
            "--debug",
            action="store_true",
            help="on an internal error (a ferrox bug), print the Python traceback",
        )
        arg_parser.add_argument(
            "--list-passes",
            action="store_true",
            help="list ferrox's passes (what each does, its options), then every other pass",
        )
        add_error_format(arg_parser)
        arg_parser.add_argument(
            "--no-safety-checks",
            action="store_true",
            help="do not run verify-disjoint and verify-ownership before the passes (they run "
            "by default on input with simt, tile or host ops; for tests of the verifiers)",
        )
        for action in arg_parser._actions:  # xDSL's help names all ~150 passes in one line
            if "--passes" in action.option_strings:
                action.help = "comma-separated pass pipeline (see below and --list-passes)"
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        help_text = arg_parser.format_help
        arg_parser.format_help = lambda: help_text() + "\n" + passes_help(full=False)  # type: ignore[method-assign]

    def setup_pipeline(self) -> None:
        """The pipeline, with our verifier (located diagnostics) and IR dumps between passes."""
        timings: list[tuple[str, float]] = []
        self.timings = timings
        started = time.perf_counter()

        def callback(previous: ModulePass | None, module: ModuleOp, following: ModulePass | None):
            nonlocal started
            if previous is not None:
                timings.append((previous.name, time.perf_counter() - started))
                if not self.args.disable_verify:
                    try:
                        verify_module(module)
                    except USER_ERRORS as e:  # the input verified before: the pass broke it
                        raise InvalidPassOutput(previous.name, e) from e
                if self.args.print_ir_after_all:
                    self._dump(f"// -----// IR Dump After {previous.name} //----- //", module)
            self.stage = None if following is None else following.name
            if following is not None:
                if self.args.print_ir_before_all:
                    self._dump(f"// -----// IR Dump Before {following.name} //----- //", module)
                started = time.perf_counter()

        self._callback = callback
        parsed = PassPipeline.parse_spec(self.available_passes, self.args.passes)
        passes = parsed.passes
        if any(hasattr(p, "stages") for p in passes):  # lower-to-llvm: show each of its stages
            from ferrox.lowering.pipeline import expand_stages

            passes = expand_stages(passes)
        self.pipeline = PassPipeline(passes, callback)

    def _dump(self, banner: str, module: ModuleOp) -> None:
        print(banner, file=sys.stderr)
        Printer(stream=sys.stderr, print_generic_format=self.args.print_op_generic).print_op(module)
        print(file=sys.stderr)

    def _split(self) -> tuple[str, list[tuple[str, int]]]:
        name = self.args.input_file or "<stdin>"
        if self.args.input_file is None:
            stdin = getattr(sys.stdin, "buffer", None)  # a test's StringIO has no bytes
            text = sys.stdin.read() if stdin is None else decode_source(stdin.read(), name)
        else:
            with open(self.args.input_file, "rb") as f:
                text = decode_source(f.read(), name)
        self.sources[name] = text
        if not self.args.split_input_file:
            return name, [(text, 0)]
        chunks: list[tuple[str, int]] = []
        offset = 0
        for chunk in text.split("// -----"):
            chunks.append((chunk, offset))
            offset += chunk.count("\n")
        return name, chunks

    def _process(self, chunk: str, name: str, offset: int) -> tuple[str, list[Diagnostic]]:
        """Parse, verify, run the pipeline and emit; the output text, or the diagnostics.

        Only errors about the input become diagnostics; any other exception is a ferrox bug and
        goes up to `main`, which reports it as an internal error."""
        self.stage = "parsing the input"
        try:
            module = parse_module(self.ctx, chunk, name, offset)
            self._choose_llvm_export(module)
            verify_module(module)
            self._safety_checks(module)
            self.apply_passes(module)
            self._lower_for_target(module)
            self.stage = f"emitting target '{self.args.target}'"
            return self.output_resulting_program(module), []
        except ParseError as e:
            where = e.span.get_location()
            loc = SourceLoc(name, where.line + offset, where.col)
            return "", [Diagnostic("error", e.msg, loc)]
        except DiagnosticError as e:
            return "", e.diagnostics
        except USER_ERRORS as e:  # VerifyException, DiagnosticException: no location of their own
            return "", [Diagnostic("error", str(e).strip(), location_of(None))]

    stage: str | None = None
    sources: dict[str, str]
    """The input's text by name, for the source lines of diagnostics."""

    def _safety_checks(self, module: ModuleOp) -> None:
        """The safety rules run on every ferrox program, as in `ferrox compile` and `ferrox run`;
        `--no-safety-checks` turns them off (tests of the verifiers, of a pass on unsafe IR)."""
        if self.args.no_safety_checks or not _has_ops_of(module, SAFETY_DIALECTS):
            return
        from ferrox.passes.verify_disjoint import VerifyDisjointPass
        from ferrox.passes.verify_ownership import VerifyOwnershipPass

        for check in (VerifyDisjointPass(), VerifyOwnershipPass()):
            self.stage = check.name
            check.apply(self.ctx, module)

    def _lower_for_target(self, module: ModuleOp) -> None:
        """`-t llvm` and `-t ptx` on IR still holding ferrox's ops run lower-to-llvm first."""
        if self.args.target.partition("{")[0].strip() not in ("llvm", "ptx"):
            return
        if not _has_ops_of(module, LOWERED_BY_TARGET):
            return
        from ferrox.lowering.pipeline import STAGES

        PassPipeline(STAGES, self._callback).apply(self.ctx, module)

    gpu_input = True
    """Whether the chunk being run is GPU code (`targets/llvm_export/gpu_input.py`)."""

    def _choose_llvm_export(self, module: ModuleOp) -> None:
        """Decide, on the input as parsed (before any pass), whether `-t llvm` targets NVPTX."""
        if self.args.target.partition("{")[0].strip() != "llvm":
            return
        from ferrox.targets.llvm_export.gpu_input import is_gpu_module

        self.gpu_input = is_gpu_module(module)

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """`-t llvm` on input that is not GPU code targets the host, as xdsl-opt's does: the
        host's triple (unless the module names one) and no data layout. ferrox's exporter writes
        it either way, so its refusals hold for every input. See ferrox-opt.md."""
        if self.gpu_input:
            return super().output_resulting_program(prog)
        from ferrox.targets.llvm_export import host_triple, to_llvm_ir

        return to_llvm_ir(prog, host_triple()) + "\n"  # xDSL's exporter `print`s the module

    def run(self) -> int:
        if self.args.list_passes:
            print(passes_help(full=True), end="")
            return 0
        self.stage = "reading the input"
        name, chunks = self._split()
        if _xdsl_diagnostics_mode(self.args, chunks):
            return self._run_as_xdsl(name, chunks)
        out = StringIO()
        failed = False
        for i, (chunk, offset) in enumerate(chunks):
            if i > 0:
                out.write("// -----\n")
            text, diagnostics = self._process(chunk, name, offset)
            out.write(text)
            if self.args.verify_diagnostics:
                expected = expected_diagnostics.parse_expectations(chunk, offset, name)
                problems = expected_diagnostics.check(diagnostics, expected, name)
                for problem in problems:
                    print(problem, file=sys.stderr)
                failed |= bool(problems)
            elif diagnostics:
                text = render(diagnostics, self.args.error_format, self.sources)
                if failed and error_format(self.args.error_format) == "human":
                    text = "\n" + text  # a blank line between diagnostics, as within a chunk
                print(text, file=sys.stderr)
                failed = True
        if self.args.time_passes:
            for pass_name, seconds in self.timings:
                print(f"  {seconds * 1000:9.3f} ms  {pass_name}", file=sys.stderr)
        self._write(out.getvalue())
        return 1 if failed else 0

    def _run_as_xdsl(self, name: str, chunks: list[tuple[str, int]]) -> int:
        """xdsl-opt's own loop and output, for its `--parsing-diagnostics` and its
        `--verify-diagnostics` (an error printed to stdout, exit 0) on input without `expected-*`
        annotations: xDSL's test suites rely on that output, word for word."""
        xDSLOptMain.setup_pipeline(self)  # xDSL's verification between passes
        out = StringIO()
        for i, (chunk, offset) in enumerate(chunks):
            if i > 0:
                out.write("// -----\n")
            try:  # the safety rules' DiagnosticError is a DiagnosticException: printed too
                module = self._parse_as_xdsl(chunk, name, offset)
                self._choose_llvm_export(module)
                self._safety_checks(module)
                self.apply_passes(module)
                self._lower_for_target(module)
                out.write(self.output_resulting_program(module))
            except ParseError as e:
                if not self.args.parsing_diagnostics:
                    raise
                e.span = dataclasses.replace(e.span, line_offset=offset)
                out.write(f"{e}\n")
            except DiagnosticException as e:
                if not self.args.verify_diagnostics:
                    raise
                out.write(f"{e}\n")
                for note in getattr(e, "__notes__", ()):
                    out.write(f"{note}\n")
        self._write(out.getvalue())
        return 0

    def _parse_as_xdsl(self, chunk: str, name: str, offset: int) -> ModuleOp:
        """xDSL's parser (its errors are what xDSL's tests check); ferrox input is parsed again
        by ours, so that the safety rules' diagnostics have locations."""
        implicit = not self.args.no_implicit_module
        module = Parser(self.ctx, chunk, name).parse_module(implicit)
        if _has_ops_of(module, SAFETY_DIALECTS):
            module = LocatedParser(self.ctx, chunk, name, offset).parse_module(implicit)
        return module

    def _write(self, text: str) -> None:
        stream: IO[str] = sys.stdout
        if self.args.output_file:
            stream = open(self.args.output_file, "w", encoding="utf-8")
        try:
            stream.write(text)
        finally:
            if stream is not sys.stdout:
                stream.close()


SAFETY_DIALECTS = frozenset({"simt", "tile", "host"})
"""Input with ops of these dialects gets the safety rules checked by default."""

LOWERED_BY_TARGET = frozenset({"simt", "tile", "host", "nvvm"})
"""IR with ops of these dialects is lowered by `-t llvm` / `-t ptx` before export."""


def _has_ops_of(module: ModuleOp, dialects: frozenset[str]) -> bool:
    return any(op.name.partition(".")[0] in dialects for op in module.walk())


def _xdsl_diagnostics_mode(args: argparse.Namespace, chunks: list[tuple[str, int]]) -> bool:
    """xDSL's diagnostic flags print errors as output; MLIR's `--verify-diagnostics` (ours) checks
    `expected-*` annotations instead. A file with annotations gets MLIR's meaning."""
    if args.parsing_diagnostics:
        return True
    return args.verify_diagnostics and not any("expected-" in text for text, _ in chunks)


def passes_help(full: bool) -> str:
    """ferrox's passes, one line each with their options; with `full`, every other pass too."""
    import dataclasses as dc

    lines = ["ferrox passes (-p NAME or -p 'NAME{option=value}'):"]
    for name, path in registry.FERROX_PASSES.items():
        lines.append(f"  {name:22} {registry.PASS_DESCRIPTIONS[name]}")
        pass_class = registry.load(path)
        for field in dc.fields(pass_class):
            if field.name != "name":
                kind = getattr(field.type, "__name__", field.type)
                lines.append(f"  {'':22}   {field.name}: {kind} = {field.default!r}")
    plugins = registry.plugin_passes()
    if plugins:
        lines.append("passes of installed ferrox plugins:")
    for name, factory in plugins.items():
        doc = (factory().__doc__ or "").strip().splitlines()
        lines.append(f"  {name:22} {doc[0] if doc else ''}".rstrip())
    known = {*registry.FERROX_PASSES, *plugins}
    others = [n for n in registry.all_passes() if n not in known]
    if full:
        lines.append(f"xDSL and plugin passes ({len(others)}):")
        lines.extend(f"  {n}" for n in others)
    else:
        lines.append(f"and {len(others)} passes of xDSL and plugins: ferrox-opt --list-passes")
    return "\n".join(lines) + "\n"


def _quote_spec_values(argv: list[str]) -> list[str]:
    """xDSL's spec lexer rejects a bare `+` (`ptx{features=+ptx80}`): quote such values."""
    return [re.sub(r"=(\+[\w.,+-]*)", r'="\1"', a) if "{" in a else a for a in argv]


def main(args: Sequence[str] | None = None) -> int:
    if args is None:  # the command (not a call from Python): deprecations shown, as by xdsl-opt
        warnings.filterwarnings("default", category=DeprecationWarning)
    argv = _quote_spec_values(list(sys.argv[1:] if args is None else args))
    debug = "--debug" in argv
    try:  # the command line: options, pass pipeline and target names
        tool = FerroxOptMain(argv)
        fmt = error_format(tool.args.error_format)
    except ArgSpecParseError as e:  # a BaseException in xDSL
        print(f"ferrox-opt: error: {e}", file=sys.stderr)
        return 1
    except (ValueError, DiagnosticException) as e:  # an unknown pass or a bad pass option
        print(command_line_error("ferrox-opt", str(e), argv), file=sys.stderr)
        return 1
    try:
        return tool.run()
    except DiagnosticError as e:
        print(render(e, fmt, tool.sources), file=sys.stderr)
        return 1
    except OSError as e:
        print(f"ferrox-opt: error: {e}", file=sys.stderr)
        return 1
    except USER_ERRORS as e:
        print(f"ferrox-opt: error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug in ferrox: reported as one, never as a user error
        return report_internal_error("ferrox-opt", e, debug, _during(tool))


def _during(tool: FerroxOptMain) -> str | None:
    stage = tool.stage
    if stage is None:
        return None
    return stage if " " in stage else f"running pass '{stage}'"


if __name__ == "__main__":
    sys.exit(main())
