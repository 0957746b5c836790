"""The Python examples run as a user runs them, on the CPU interpreter: each checks its own
results against NumPy on fresh random data with poisoned outputs, and exits non-zero if not."""

from __future__ import annotations

from pathlib import Path

import in_process  # tests/support

ROOT = Path(__file__).resolve().parents[2]


def test_vecadd_api_matches_numpy_and_shows_a_refusal():
    # In this process (the script's `__main__`, its argv and working directory): a new Python
    # would spend most of the test importing ferrox; tests/frontend/test_examples.py runs an
    # example script in a new Python once.
    done = in_process.script(
        ROOT / "examples" / "python" / "vecadd_api.py",
        *("--device", "cpu", "--n", "3001"),
        cwd=ROOT / "examples",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 6 * 256 = 1536 "
        "elements, but len(%out) = 3001 (grid.x must be at least 12)",
        "vecadd of 3001 elements on cpu: matches NumPy",
    ]
