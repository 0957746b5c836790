"""ferrox explain: the long explanation of an error code, with an example and what ferrox says.

    ferrox explain E0382        # one code
    ferrox explain --list       # every code, one line each

Each code has a file `driver/tools/errors/CODE.mlir` (shipped with the package): its opening
comment is the explanation, the text between `doc:begin example` and `doc:end` is a program that
breaks the rule, and the `doc:begin output` block is what ferrox prints for it.
`tests/driver/tools/test_explain.py` runs every example and checks that it still produces that
output, so an explanation cannot drift from the compiler; docs/errors.md includes the same
examples. An unknown code is a diagnostic with the nearest known code.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from ferrox.diagnostic_codes import BY_CODE, CODES
from ferrox.diagnostic_suggest import did_you_mean

ERRORS = Path(__file__).resolve().parent.parent / "errors"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("code", nargs="?", help="an error code, e.g. E0382")
    parser.add_argument("--list", action="store_true", help="list every error code")


@dataclass(frozen=True)
class Explanation:
    code: str
    title: str
    text: str
    """The prose, comment markers removed."""
    example: str
    output: str

    def format(self) -> str:
        rules = BY_CODE[self.code].rules
        where = ", ".join(f"docs/safety.md#{r}" for r in rules)
        out = [f"{self.code}: {self.title}" + (f" ({where})" if where else ""), "", self.text]
        if self.example:
            out += ["", "Erroneous example:", "", _indent(self.example)]
        if self.output:
            out += ["", "ferrox reports:", "", _indent(self.output)]
        return "\n".join(out).rstrip() + "\n"


def _indent(text: str) -> str:
    return "\n".join(f"    {line}".rstrip() for line in text.rstrip("\n").splitlines())


def _block(lines: list[str], name: str, comment: bool) -> str:
    begin = next(
        (i for i, line in enumerate(lines) if line.strip() == f"// doc:begin {name}"), None
    )
    if begin is None:
        return ""
    end = next(i for i in range(begin + 1, len(lines)) if lines[i].strip() == "// doc:end")
    body = lines[begin + 1 : end]
    if comment:
        body = [re.sub(r"^// ?", "", line) for line in body]
    return "\n".join(body) + "\n"


def path_of(code: str) -> Path:
    return ERRORS / f"{code}.mlir"


def load(code: str) -> Explanation:
    """The explanation of a known code, read from its file."""
    lines = path_of(code).read_text(encoding="utf-8").splitlines()
    prose: list[str] = []
    for line in lines[1:]:  # the first line is `// CODE: title`
        if not line.startswith("//") or line.startswith("// doc:begin"):
            break
        prose.append(re.sub(r"^// ?", "", line))
    return Explanation(
        code,
        BY_CODE[code].title,
        "\n".join(prose).strip("\n"),
        _block(lines, "example", comment=False),
        _block(lines, "output", comment=True),
    )


def normalise(code: str) -> str:
    code = code.strip().upper()
    return f"E{code}" if code.isdigit() else code


def listing() -> str:
    return "\n".join(f"{c.code}  {c.title}" for c in CODES) + "\n"


def execute(args: argparse.Namespace) -> int:
    if args.list or args.code is None:
        sys.stdout.write(listing())
        return 0
    code = normalise(args.code)
    if code not in BY_CODE:
        print(f"error: no error code `{args.code}`", file=sys.stderr)
        hint = did_you_mean(code, BY_CODE)
        if hint:
            print(f"  = help: {hint}", file=sys.stderr)
        print("  = help: `ferrox explain --list` lists every code", file=sys.stderr)
        return 1
    sys.stdout.write(load(code).format())
    return 0


def run_example(code: str) -> str:
    """What ferrox says about `code`'s example, rendered as a user sees it: the checks of
    `ferrox compile` (op verifiers, `verify-disjoint`, `verify-ownership`), then the lowering
    (tile kernels' safety is judged there), and for a host program with `@main` a run on the
    CPU interpreter (the launch checks). '' when nothing refuses it."""
    from ferrox import registry
    from ferrox.diagnostics import DiagnosticError, render
    from ferrox.driver.tools.commands.compile import verify_program
    from ferrox.parser import parse_source
    from ferrox.verify import verify_module

    example = load(code).example
    name = f"{code}.mlir"
    try:
        module = parse_source(registry.make_context(), example, name)
        verify_module(module)
        verify_program(module)
        if _has_main(module):
            from ferrox.driver.host_runner import run_host_program, select_backend
            from ferrox.run_api import load_program

            backend, _ = select_backend("cpu")
            run_host_program(load_program(module), backend)
        else:
            from ferrox.lowering.pipeline import LowerToLLVMPass

            LowerToLLVMPass().apply(registry.make_context(), module)
    except DiagnosticError as e:
        return render(e, "human", {name: example}) + "\n"
    return ""


def _has_main(module) -> bool:
    return any(getattr(op, "sym_name", None) is not None and op.sym_name.data == "main"
               and op.name == "func.func" for op in module.ops)  # fmt: skip


def write_output(code: str, output: str) -> None:
    """Store `output` as the `doc:begin output` block of `code`'s file (replacing the old)."""
    path = path_of(code)
    lines = path.read_text(encoding="utf-8").splitlines()
    if "// doc:begin output" in lines:
        begin = lines.index("// doc:begin output")
        end = next(i for i in range(begin + 1, len(lines)) if lines[i] == "// doc:end")
        del lines[begin : end + 1]
    block = [f"// {line}".rstrip() for line in output.rstrip("\n").splitlines()]
    lines += ["// doc:begin output", *block, "// doc:end"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
