"""ferrox explore: one HTML page with a file's IR after every stage of the lowering.

    ferrox explore kernel.mlir [-o kernel.html] [--chip sm_90]

The file is verified first, as `ferrox compile` does (op verifiers, `verify-disjoint`,
`verify-ownership`). The page shows the input, the IR after each stage of `lower-to-llvm` with
the changes from the stage before, each stage's time and op count, the LLVM IR, the PTX and
ptxas's register and shared-memory report (where ptxas is found). It is one self-contained file:
open it in any browser, offline. Errors are located diagnostics and exit 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.tools.commands.compile import (
    CompileError,
    _parse_verified,
    _read,
    _write,
    is_llvm_only,
)
from ferrox.driver.tools.explorer import explore, render_page
from ferrox.driver.tools.report import print_diagnostics


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="the .mlir file to explore ('-' for standard input)")
    parser.add_argument(
        "-o", "--output", help="where to write the page (default: the input's name with .html)"
    )
    parser.add_argument("--chip", help="the GPU to compile for (default: the module's, else sm_90)")
    parser.add_argument(
        "-O", dest="opt", type=int, default=3, choices=range(4), help="LLVM optimisation level"
    )


def execute(args: argparse.Namespace) -> int:
    sources: dict[str, str] = {}
    try:
        text, name = _read(args.input)
        sources[name] = text
        module = _parse_verified(text, name, None)
        if is_llvm_only(module):
            raise CompileError(
                "the input is already in the llvm dialect: there is nothing to lower"
            )
        page = render_page(explore(module, name, args.chip, args.opt))
        output = args.output or (
            "stdin.html" if args.input == "-" else str(Path(args.input).with_suffix(".html"))
        )
        _write(output, page)
    except DiagnosticError as e:
        print_diagnostics(e, args, sources)
        return 1
    except CompileError as e:
        print(f"ferrox explore: error: {e}", file=sys.stderr)
        return 1
    print(f"wrote {output}", file=sys.stderr)
    return 0
