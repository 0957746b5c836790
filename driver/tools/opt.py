"""`ferrox-opt`: xDSL's opt driver with ferrox's dialects, passes, targets and diagnostics.

Differences from `xdsl-opt`, all for MLIR parity: every op gets a source location, errors print as
`file:line:col: error: ...` and exit 1 (never a traceback); a bug in ferrox is an internal error
(exit 70; `--debug` or FERROX_TRACEBACK=1 shows the traceback; see failure.py);
`--verify-diagnostics` checks `expected-*` annotations, and `--print-ir-before-all` /
`--print-ir-after-all` are spelled as in mlir-opt. A pipeline pass made of stages
(`lower-to-llvm`) runs stage by stage, so the dumps and `--time-passes` show each stage.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

import ferrox
from ferrox import registry
from ferrox.diagnostics import Diagnostic, DiagnosticError, SourceLoc, location_of
from ferrox.driver.tools import expected_diagnostics
from ferrox.driver.tools.failure import USER_ERRORS, report_internal_error
from ferrox.parser import decode_source, parse_module
from ferrox.verify import verify_module


class InvalidPassOutput(RuntimeError):
    """A pass turned IR that verified into IR that does not: a ferrox bug, not a user error."""

    def __init__(self, name: str, cause: BaseException):
        first = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        self.pass_name, self.problem = name, first
        super().__init__(f"pass '{name}' produced IR that does not verify: {first}")


class FerroxOptMain(xDSLOptMain):
    version_format = f"ferrox-opt {ferrox.__version__} (xDSL {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
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
            verify_module(module)
            self.apply_passes(module)
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

    def run(self) -> int:
        self.stage = "reading the input"
        name, chunks = self._split()
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
                for d in diagnostics:
                    print(d.format(), file=sys.stderr)
                failed = True
        if self.args.time_passes:
            for pass_name, seconds in self.timings:
                print(f"  {seconds * 1000:9.3f} ms  {pass_name}", file=sys.stderr)
        self._write(out.getvalue())
        return 1 if failed else 0

    def _write(self, text: str) -> None:
        stream: IO[str] = sys.stdout
        if self.args.output_file:
            stream = open(self.args.output_file, "w", encoding="utf-8")
        try:
            stream.write(text)
        finally:
            if stream is not sys.stdout:
                stream.close()


def _quote_spec_values(argv: list[str]) -> list[str]:
    """xDSL's spec lexer rejects a bare `+` (`ptx{features=+ptx80}`): quote such values."""
    return [re.sub(r"=(\+[\w.,+-]*)", r'="\1"', a) if "{" in a else a for a in argv]


def main(args: Sequence[str] | None = None) -> int:
    argv = _quote_spec_values(list(sys.argv[1:] if args is None else args))
    debug = "--debug" in argv
    try:  # the command line: options, pass pipeline and target names
        tool = FerroxOptMain(argv)
    except ArgSpecParseError as e:  # a BaseException in xDSL
        print(f"ferrox-opt: error: {e}", file=sys.stderr)
        return 1
    except (ValueError, DiagnosticException) as e:  # an unknown pass or a bad pass option
        print(f"ferrox-opt: error: {e}", file=sys.stderr)
        return 1
    try:
        return tool.run()
    except DiagnosticError as e:
        print(e, file=sys.stderr)
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
