"""ferrox run: run a host program's `@main` on the GPU, or on the CPU reference interpreter.

    ferrox run examples/simt/vecadd.mlir [--device gpu|cpu|auto] [--param n=4096 ...] [--entry main]

The file is parsed and verified (op verifiers, `verify-disjoint`, `verify-ownership`) before
anything runs. `auto` (the default) runs on the GPU when one can be used, else on the
interpreter, and says so in one line. Each `host.check` prints its result; the exit status is 1
when a check failed or the input is wrong (a located diagnostic, never a traceback), else 0; a
bug in ferrox is an internal error (exit 70; `--debug` or FERROX_TRACEBACK=1 for the traceback).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.tools.report import print_diagnostics
from ferrox.parser import parse_source, read_source
from ferrox.registry import make_context


class RunError(Exception):
    """A failure that is not about one place in the IR (a file, the device, an option)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("input", help="the .mlir file holding the host program and its kernels")
    parser.add_argument(
        "--device",
        choices=("auto", "gpu", "cpu"),
        default="auto",
        help="gpu, cpu (the reference interpreter), or auto: the GPU when there is one (default)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="override a host.param, e.g. --param n=4096 (repeatable)",
    )
    parser.add_argument("--entry", default="main", help="the host function to run (default: main)")
    parser.add_argument(
        "--max-steps",
        metavar="N",
        help="the CPU interpreter's step budget per launch, in operations over all threads "
        "(default: FERROX_MAX_STEPS, else 100,000,000); a launch past it is an error, not a hang",
    )


def parse_params(items: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items:
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq or not name.isidentifier() or not value.strip():
            raise RunError(f"--param takes NAME=VALUE, got '{item}'")
        if name in params:
            raise RunError(f"--param {name} is given twice")
        params[name] = value.strip()
    return params


def _first_clause(reason: str) -> str:
    return reason.split(": ", 1)[0]


def execute(args: argparse.Namespace) -> int:
    from ferrox.driver.host_runner.interpreter import host_max_steps
    from ferrox.driver.interpreter import max_steps, step_budget
    from ferrox.driver.interpreter.machine import parse_max_steps
    from ferrox.run_api import load_program

    try:
        params = parse_params(args.param)
        try:
            steps = max_steps() if args.max_steps is None else parse_max_steps(args.max_steps)
        except ValueError as e:
            where = "--max-steps" if args.max_steps is not None else "FERROX_MAX_STEPS"
            raise RunError(f"{where}: {e}") from None
        try:
            host_max_steps()
        except ValueError as e:
            raise RunError(f"FERROX_HOST_MAX_STEPS: {e}") from None
        # Read and parse here (bytes that are not UTF-8 are a located diagnostic), then let
        # load_program verify the module.
        text = read_source(args.input)
        module = load_program(parse_source(make_context(), text, args.input))
        from ferrox.driver.host_runner import BackendUnavailable, run_host_program, select_backend

        try:
            backend, why_cpu = select_backend(args.device)
        except BackendUnavailable as e:
            raise RunError(f"--device gpu: no GPU can be used here: {e}") from None
        if why_cpu is not None:
            print(
                f"ferrox run: no GPU here ({_first_clause(why_cpu)}); "
                "running on the CPU reference interpreter",
                file=sys.stderr,
                flush=True,
            )
        with step_budget(steps):
            result = run_host_program(
                module, backend, entry=args.entry, params=params, out=sys.stdout
            )
    except DiagnosticError as e:
        sys.stdout.flush()
        print_diagnostics(e, args)
        return 1
    except RunError as e:
        print(f"ferrox run: error: {e}", file=sys.stderr)
        return 1
    # Anything else is a bug in ferrox: cli.main reports it as an internal error.
    total, failed = len(result.checks), len(result.failed)
    name = Path(args.input).name
    if failed:
        print(f"{name}: {failed} of {total} checks FAILED on {result.device_name}")
        return 1
    print(f"{name}: {total} check{'s' if total != 1 else ''} passed on {result.device_name}")
    return 0
