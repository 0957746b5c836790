"""ferrox-opt's defaults (issue 15): the safety rules run on ferrox input unless
`--no-safety-checks`, `-t llvm` / `-t ptx` lower ferrox input themselves, xDSL's diagnostic
flags keep xDSL's meaning on input without `expected-*` annotations, and `--help` /
`--list-passes` put ferrox's passes first."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ferrox.driver.tools.opt import main

FILECHECK = Path(__file__).resolve().parents[2] / "filecheck"
UNSAFE = FILECHECK / "dialects" / "simt" / "ops.mlir"  # every op, not all of it safe
KERNEL = FILECHECK / "lowering" / "lower-to-llvm.mlir"  # a safe vecadd kernel and host @main


def _tool(name: str) -> str:
    """The command beside this Python (a venv), else on PATH (the GPU host installs the
    package's scripts into a folder of its own)."""
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name) or name


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_safety_rules_run_by_default(capsys):
    code, out, err = run(capsys, UNSAFE)
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"{UNSAFE}:28:5: error[E1005]: index space 2d<32> needs a launch contract of domain 2, "
        "found domain 1",
        f"{UNSAFE}:11:3: note: launch contract declared here",
        f"{UNSAFE}:30:5: error[E1005]: index space 2d_runtime needs a launch contract of domain 2, "
        "found domain 1",
        f"{UNSAFE}:11:3: note: launch contract declared here",
    ]


def test_no_safety_checks_turns_them_off(capsys):
    code, out, err = run(capsys, UNSAFE, "--no-safety-checks")
    assert (code, err) == (0, "")
    assert "simt.kernel" in out and "2d_runtime" in out


def test_ptx_target_lowers_ferrox_input(capsys):
    code, implicit, err = run(capsys, KERNEL, "-t", "ptx")
    assert (code, err) == (0, "")
    code, explicit, err = run(capsys, KERNEL, "-p", "lower-to-llvm", "-t", "ptx")
    assert (code, err) == (0, "")
    assert implicit == explicit
    assert ".visible .entry vecadd(" in implicit


def test_llvm_target_lowers_ferrox_input(capsys):
    code, implicit, err = run(capsys, KERNEL, "-t", "llvm")
    assert (code, err) == (0, "")
    code, explicit, err = run(capsys, KERNEL, "-p", "lower-to-llvm", "-t", "llvm")
    assert implicit == explicit
    assert 'define ptx_kernel void @"vecadd"(' in implicit


def test_ptx_target_on_unsafe_input_reports_the_rule(capsys):
    code, out, err = run(capsys, UNSAFE, "-t", "ptx")
    assert (code, out) == (1, "")
    assert err.splitlines()[0] == (
        f"{UNSAFE}:28:5: error[E1005]: index space 2d<32> needs a launch contract of domain 2, "
        "found domain 1"
    )


@pytest.mark.parametrize(
    "flag, text",
    [
        ("--verify-diagnostics", "func.func @f() -> i32 {\n  func.return\n}\n"),
        ("--parsing-diagnostics", '"test.op"() : () -> (\n'),
    ],
)
def test_xdsl_diagnostic_flags_print_what_xdsl_opt_prints(capsys, tmp_path, flag, text):
    """Without `expected-*` annotations these flags mean what they mean in xdsl-opt: the error
    goes to stdout, exit 0 (xDSL's own FileCheck tests rely on it)."""
    src = tmp_path / "bad.mlir"
    src.write_text(text)
    xdsl_opt = _tool("xdsl-opt")
    want = subprocess.run([xdsl_opt, src, flag], capture_output=True, text=True, check=True)
    assert want.stdout.strip()  # the error, printed
    code, out, err = run(capsys, src, flag)
    assert (code, out, err) == (0, want.stdout, "")


def test_list_passes_puts_ferrox_first(capsys):
    code, out, err = run(capsys, "--list-passes")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:8] == [
        "ferrox passes (-p NAME or -p 'NAME{option=value}'):",
        "  verify-disjoint        check the SIMT safety rules 1-7 (docs/safety.md); changes "
        "nothing",
        "  verify-ownership       check every host function's tensor ownership; changes nothing",
        "  convert-simt-to-nvvm   lower SIMT kernels and device functions to func, nvvm and llvm",
        "  convert-tile-to-simt   lower tile kernels to SIMT kernels (threads per block, elems "
        "per chunk; 0: auto)",
        "                           threads: int = 0",
        "                           elems: int = 0",
        "                           chip: str = ''",
    ]
    assert lines[12].startswith("xDSL and plugin passes (")
    assert "  canonicalize" in lines[13:] and "  cse" in lines[13:]


def test_help_describes_ferrox_passes(capsys):
    try:
        main(["--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    tail = out[out.index("ferrox passes") :].splitlines()
    assert tail[1].startswith("  verify-disjoint        check the SIMT safety rules")
    assert tail[-1].startswith("and ") and tail[-1].endswith("ferrox-opt --list-passes")
    assert "--no-safety-checks" in out


def test_xdsl_verify_diagnostics_keeps_the_safety_rules(capsys):
    """xDSL's meaning of the flag prints the error and exits 0; the rules still run."""
    code, out, err = run(capsys, UNSAFE, "--verify-diagnostics")
    assert (code, err) == (0, "")
    assert out.splitlines()[:2] == [
        f"{UNSAFE}:28:5: error: index space 2d<32> needs a launch contract of domain 2, "
        "found domain 1",
        f"{UNSAFE}:11:3: note: launch contract declared here",
    ]


def test_the_command_shows_deprecations_as_xdsl_opt_does(tmp_path):
    src = tmp_path / "empty.mlir"
    src.write_text("builtin.module {}\n")
    opt = _tool("ferrox-opt")
    proc = subprocess.run([opt, "-p", "test-deprecation", src], capture_output=True, text=True)
    assert proc.returncode == 0
    assert "DeprecationWarning: hello" in proc.stderr
