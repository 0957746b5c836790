"""Every SIMT example runs as a host program on the CPU interpreter: through `ferrox run
--device cpu` (as CI and the README run it) and through the Python API, where the outputs are
compared with NumPy computed here from the same seeds, independently of the program's checks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import in_process
import numpy as np
import pytest
from simt_examples import CHECKED, DEFAULTS, OTHER, reference, uniform  # noqa: F401

from ferrox.run_api import run_program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
FERROX = (
    shutil.which("ferrox", path=str(Path(sys.executable).parent))
    or shutil.which("ferrox")
    or "ferrox"
)


@pytest.mark.parametrize("name", NAMES)
def test_every_example_is_covered(name):
    assert name in DEFAULTS and name in CHECKED, f"add {name} to DEFAULTS, CHECKED and reference()"


def assert_passed(name: str, proc) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"check {CHECKED[name]}: ok (max abs err ")
    assert lines[-1] == f"{name}.mlir: 1 check passed on the CPU reference interpreter"
    assert proc.stderr == ""


@pytest.mark.parametrize("name", NAMES)
def test_ferrox_run_on_the_interpreter(name):
    """`ferrox run` in this process (`main(argv)`): a new Python per example cost seconds."""
    assert_passed(name, in_process.ferrox("run", EXAMPLES / f"{name}.mlir", "--device", "cpu"))


def test_the_ferrox_script_runs_an_example():
    """The console script itself, as CI and the README run it, once."""
    proc = subprocess.run(
        [FERROX, "run", str(EXAMPLES / "vecadd.mlir"), "--device", "cpu"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert_passed("vecadd", proc)


@pytest.mark.parametrize(
    ("name", "params"),
    [(n, DEFAULTS[n]) for n in NAMES if n in DEFAULTS]
    + [(n, p) for n, p in OTHER.items() if n in NAMES],
    ids=lambda v: v if isinstance(v, str) else "-".join(f"{k}{x}" for k, x in v.items()),
)
def test_python_api_outputs_agree_with_numpy(name, params):
    given = None if params is DEFAULTS[name] else params
    result = run_program(EXAMPLES / f"{name}.mlir", device="cpu", params=given, out=None)
    assert result.device == "cpu" and result.fallback is None
    assert [c.name for c in result.checks] == [CHECKED[name]] and result.ok, result.checks[0].line()
    want, tol = reference(name, {**DEFAULTS[name], **params})
    (got,) = result.outputs
    assert got.shape == want.shape and got.dtype == (
        np.int32 if name in ("histogram", "gcd") else np.float32
    )
    np.testing.assert_allclose(got, want, **tol)


def test_a_poisoned_output_fails_its_check(tmp_path):
    """The check sees an element the kernel did not write: drop the last block from the grid of
    an unchecked launch (vecadd_unchecked cannot be prepared, so nothing refuses it)."""
    text = (EXAMPLES / "vecadd_unchecked.mlir").read_text()
    path = tmp_path / "short.mlir"
    path.write_text(
        text.replace(
            "%blocks = arith.ceildivui %n, %threads : index",
            "%blocks = arith.divui %n, %threads : index",
        )
    )
    result = run_program(path, device="cpu", out=None)
    (check,) = result.checks
    assert not check.ok and check.mismatches == 1000 - 768
    assert "first at [768]: got nan" in check.detail
