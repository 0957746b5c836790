"""The Python SIMT examples run as a user runs them, on the CPU interpreter: each checks its own
results against NumPy on fresh random data with NaN-poisoned outputs, and exits non-zero if not."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import in_process  # tests/support
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "simt_vecadd": (["--n", "3001"], "simt vecadd of 3001 elements on cpu: matches NumPy"),
    "simt_saxpy": (["--n", "3001"], "simt saxpy of 3001 elements on cpu: matches NumPy"),
    "simt_stencil": (["--n", "3001"], "simt stencil of 3001 elements on cpu: matches NumPy"),
    "simt_block_reduce": (
        ["--n", "3001"],
        "simt block reduce of 3001 elements on cpu: matches NumPy",
    ),
    "simt_block_reduce_gridstride": (
        ["--n", "9001"],
        "simt grid-stride block reduce of 9001 elements on cpu: matches NumPy",
    ),
    "simt_warp_reduce": (
        ["--n", "3001"],
        "simt warp reduce of 3001 elements on cpu: matches NumPy",
    ),
    "simt_histogram": (
        ["--n", "3001", "--bins", "37"],
        "simt histogram of 3001 values into 37 bins on cpu: matches NumPy",
    ),
    "simt_sgemm_micro": (
        ["--m", "40", "--n", "150", "--k", "21"],
        "simt sgemm micro 40x21 @ 21x150 on cpu: matches NumPy",
    ),
    "simt_sgemm": (
        ["--m", "20", "--n", "24", "--k", "18"],
        "simt sgemm 20x18 @ 18x24 on cpu: matches NumPy",
    ),
}


def command(name: str) -> list[str]:
    args, _ = EXAMPLES[name]
    return [str(ROOT / "examples" / "python" / f"{name}.py"), "--device", "cpu", *args]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_matches_numpy_on_the_interpreter(name):
    """In this process (`in_process.script`: the script's `__main__` with its argv and working
    directory): a new Python per example spent most of each test importing ferrox again."""
    done = in_process.script(*command(name), cwd=ROOT / "examples")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == EXAMPLES[name][1]


def test_an_example_runs_in_a_new_python():
    """One example as the user's own command, in a new Python: a script that works only after
    the test process's imports would fail here."""
    done = subprocess.run(
        [sys.executable, *command("simt_vecadd")],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == EXAMPLES["simt_vecadd"][1]
