"""The Python tile examples run as a user runs them, on the CPU interpreter: each checks its own
results against NumPy on fresh random data with NaN-poisoned outputs, and exits non-zero if not.
Sizes are ragged (not multiples of the tiles) so that padded loads and masked stores are used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import in_process  # tests/support
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "tile_vector_add": (["--n", "3001"], "tile vector add of 3001 elements on cpu: matches NumPy"),
    "tile_softmax": (["--m", "9", "--n", "300"], "tile softmax of 9x300 on cpu: matches NumPy"),
    "tile_layernorm": (
        ["--m", "9", "--n", "300"],
        "tile layernorm of 9x300 on cpu: matches NumPy",
    ),
    "tile_matmul_f32": (
        ["--m", "70", "--n", "65", "--k", "40"],
        "tile matmul f32 70x40 @ 40x65 on cpu: matches NumPy",
    ),
    "tile_matmul_bf16": (
        ["--m", "70", "--n", "65", "--k", "40"],
        "tile matmul bf16 70x40 @ 40x65 on cpu: matches NumPy",
    ),
}


def command(name: str) -> list[str]:
    args, _ = EXAMPLES[name]
    return [str(ROOT / "examples" / "python" / f"{name}.py"), "--device", "cpu", *args]


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_tile_example_matches_numpy_on_the_interpreter(name):
    """In this process (`in_process.script`: the script's `__main__` with its argv and working
    directory): a new Python per example spent most of each test importing ferrox again."""
    done = in_process.script(*command(name), cwd=ROOT / "examples")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == EXAMPLES[name][1]


def test_a_tile_example_runs_in_a_new_python():
    """One example as the user's own command, in a new Python: a script that works only after
    the test process's imports would fail here."""
    done = subprocess.run(
        [sys.executable, *command("tile_vector_add")],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == EXAMPLES["tile_vector_add"][1]
