"""The Python host-program and torch examples run as a user runs them, on the CPU interpreter:
each checks its own results (NaN-poisoned outputs, fresh random data) and prints one line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run_example(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / "python" / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
        timeout=600,
    )


def test_host_two_streams_matches_numpy_on_the_interpreter():
    done = run_example("host_two_streams", "--device", "cpu", "--n", "3001")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "host program with two streams and a partition, 3001 elements on cpu: matches NumPy"
    )
