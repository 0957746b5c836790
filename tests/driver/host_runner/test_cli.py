"""`ferrox run`: one line per check, exit 1 on a failed check or any error, located diagnostics,
never a traceback, and on a machine with no GPU a one-line fallback to the interpreter."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import in_process
import programs
import pytest
from programs import EXAMPLES

FERROX = (
    shutil.which("ferrox", path=str(Path(sys.executable).parent))
    or shutil.which("ferrox")
    or "ferrox"
)


def ferrox_run(*args: str, script: bool = False) -> subprocess.CompletedProcess | in_process.Ran:
    """`ferrox run ARGS`: its `main(argv)` in this process (a new Python per test cost seconds
    of imports), or with `script` the console script in a new process."""
    if script:
        proc = subprocess.run([FERROX, "run", *args], capture_output=True, text=True, timeout=300)
    else:
        proc = in_process.ferrox("run", *args)
    assert "Traceback" not in proc.stderr + proc.stdout
    return proc


def gpu_reason() -> str | None:
    from ferrox.driver.host_runner.gpu import unavailable_reason

    return unavailable_reason()


@pytest.mark.skipif(gpu_reason() is None, reason="this machine has a GPU: auto runs there")
def test_auto_without_a_gpu_falls_back_in_one_line():
    proc = ferrox_run(str(EXAMPLES / "vecadd.mlir"), script=True)  # the whole process's stderr
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.startswith("ferrox run: no GPU here (")
    assert proc.stderr.endswith("); running on the CPU reference interpreter\n")
    assert proc.stdout == (
        "check out2: ok (max abs err 0, rtol 1.3e-06, atol 1e-05)\n"
        "vecadd.mlir: 1 check passed on the CPU reference interpreter\n"
    )


@pytest.mark.skipif(gpu_reason() is None, reason="this machine has a GPU")
def test_device_gpu_without_a_gpu_is_an_error():
    proc = ferrox_run(str(EXAMPLES / "vecadd.mlir"), "--device", "gpu")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith("ferrox run: error: --device gpu: no GPU can be used here: ")


def test_params_and_a_failed_check(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(programs.CHECKS_GO_ON)
    proc = ferrox_run(str(path), "--device", "cpu")
    assert proc.returncode == 1
    assert (
        proc.stdout.splitlines()[-1]
        == "p.mlir: 2 of 3 checks FAILED on the CPU reference interpreter"
    )
    ok = ferrox_run(
        str(EXAMPLES / "saxpy.mlir"), "--device", "cpu", "--param", "n=300", "--param", "alpha=-0.5"
    )
    assert ok.returncode == 0 and ok.stdout.startswith("check y2: ok")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--param", "n"], "ferrox run: error: --param takes NAME=VALUE, got 'n'\n"),
        (["--param", "n=1", "--param", "n=2"], "ferrox run: error: --param n is given twice\n"),
        (["--param", "z=1"], "error: unknown parameter 'z' (this program's parameters: n)\n"),
        (
            ["--param", "n=abc"],
            "error: parameter 'n': 'abc' is not an integer, but the parameter is index\n",
        ),
        (
            ["--entry", "nope"],
            "error: no host program @nope in this module (host functions: @main)\n",
        ),
    ],
)
def test_bad_options_exit_1(args, message):
    proc = ferrox_run(str(EXAMPLES / "vecadd.mlir"), "--device", "cpu", *args)
    assert proc.returncode == 1 and proc.stderr.endswith(message), proc.stderr


def test_verifier_errors_are_located_and_nothing_runs(tmp_path):
    path = tmp_path / "moved.mlir"
    text = (EXAMPLES / "vecadd.mlir").read_text()
    assert 'host.check %out2, "a + b"' in text
    path.write_text(text.replace('host.check %out2, "a + b"', 'host.check %out, "a + b"'))
    proc = ferrox_run(str(path), "--device", "cpu")
    assert proc.returncode == 1 and proc.stdout == ""
    assert f"{path}:" in proc.stderr and "error[E0382]: use of moved value: %out" in proc.stderr
    assert "note: value moved here" in proc.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("func.func @main() {\n  %x = host.zeros : !host.tensor<f32, [4]\n}\n", "error: "),
        ("", "error: Could not parse entire input!"),
        (
            "builtin.module {\n}\n",
            "error: no host program @main in this module (host functions: none)",
        ),
    ],
)
def test_bad_files(tmp_path, text, message):
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    proc = ferrox_run(str(path), "--device", "cpu")
    assert proc.returncode == 1 and message in proc.stderr and f"{path}:" in proc.stderr


def test_a_missing_file():
    proc = ferrox_run("/nonexistent/x.mlir", "--device", "cpu")
    assert proc.returncode == 1
    assert (
        proc.stderr
        == "/nonexistent/x.mlir:0:0: error: cannot read /nonexistent/x.mlir: No such file or "
        "directory\n"
    )


def test_a_refused_prepare_is_located_with_every_problem(tmp_path):
    path = tmp_path / "grid.mlir"
    path.write_text((EXAMPLES / "vecadd.mlir").read_text().replace(
        "%blocks = arith.ceildivui %n, %threads : index", "%blocks = arith.constant 2 : index"
    ))  # fmt: skip
    proc = ferrox_run(str(path), "--device", "cpu")
    assert proc.returncode == 1 and proc.stdout == ""
    first, note = proc.stderr.splitlines()
    assert first.startswith(f"{path}:") and first.endswith(
        "error[E1306]: cannot prepare the launch of @vecadd: the grid does not cover %out: its 1d "
        "witness reaches grid.x * block.x = 2 * 256 = 512 elements, but len(%out) = 1000 (grid.x "
        "must be at least 4)"
    )
    assert note.endswith("note: launch contract of @vecadd declared here")
