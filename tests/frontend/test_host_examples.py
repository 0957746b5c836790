"""The Python host-program and torch examples run as a user runs them, on the CPU interpreter:
each checks its own results (NaN-poisoned outputs, fresh random data) and prints one line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import in_process  # tests/support

ROOT = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None


def run_example(name: str, *args: str) -> in_process.Ran:
    """`python examples/python/NAME.py ARGS...` from examples/, its `__main__` in this process
    (tests/support/in_process.py): a new Python would spend most of the test importing ferrox;
    tests/frontend/test_examples.py runs an example script in a new Python once."""
    return in_process.script(
        ROOT / "examples" / "python" / f"{name}.py", *args, cwd=ROOT / "examples"
    )


def test_host_two_streams_matches_numpy_on_the_interpreter():
    done = run_example("host_two_streams", "--device", "cpu", "--n", "3001")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "host program with two streams and a partition, 3001 elements on cpu: matches NumPy"
    )
