"""The differential harness (benchmarks/differential.py) on the CPU: random kernels of every kind
agree with NumPy bit for bit, and a wrong result is reported as a mismatch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import ferrox

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))

import differential  # noqa: E402
from differential_gen import generate  # noqa: E402


def test_random_kernels_match_numpy_on_the_interpreter(capsys):
    assert differential.main(["--cpu-only", "--no-examples", "--random", "18", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "OK: 0 mismatches" in out
    kinds = {line.split()[1] for line in out.splitlines() if line.startswith("random ")}
    assert kinds == {"block-reduce", "gather", "simt-float", "simt-int", "tile", "warp-reduce"}


def test_a_wrong_result_is_a_mismatch():
    case = generate(np.random.default_rng(5), 0)
    got = case.run(ferrox.load(case.text, device="cpu"))
    assert case.judge(got, case.expected, exact_floats=True)[0] == "exact"
    wrong = [g.copy() for g in got]
    wrong[0][0] = wrong[0][0] + 1 if wrong[0].dtype.kind == "i" else np.float32(1e30)
    assert case.judge(wrong, case.expected, exact_floats=True)[0] == "MISMATCH"


def test_arrays_compare_bit_for_bit_then_within_tolerance():
    a = np.array([1.0, np.nan, -0.0], np.float32)
    assert differential.compare(a, a.copy(), 0.0, 0.0) == ("exact", 0.0)
    b = np.array([1.0 + 1e-6, np.nan, -0.0], np.float32)
    assert differential.compare(a, b, 1e-5, 0.0)[0] == "tolerance"
    assert differential.compare(a, b, 0.0, 0.0)[0] == "MISMATCH"
    assert differential.compare(a, np.array([1.0, np.nan, 0.0], np.float32), 0, 0)[0] == "tolerance"
