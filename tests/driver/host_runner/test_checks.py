"""host.check: formulas in a builtin-free namespace, allclose semantics, one line per result."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.diagnostics import SourceLoc
from ferrox.driver.host_runner.checks import FormulaError, compare, evaluate

HERE = SourceLoc("p.mlir", 3, 5)


def test_formula_sees_np_and_the_bound_names():
    a, b = np.arange(4, dtype=np.float32), np.ones(4, dtype=np.float32)
    np.testing.assert_array_equal(
        evaluate("np.maximum(a, b) * 2 + a[::-1]", {"a": a, "b": b}), [5, 4, 5, 6]
    )
    assert evaluate("x.T.shape", {"x": np.zeros((2, 3))}) == (3, 2)


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("open('/etc/passwd')", "NameError: name 'open' is not defined"),
        ("len(a)", "NameError: name 'len' is not defined"),
        ("__import__('os')", "name '__import__' is not allowed"),
        ("a.__class__", "attribute '__class__' is not allowed"),
        ("np.load('x.npy')", "'load' is not allowed"),
        ("np.ctypeslib", "'ctypeslib' is not allowed"),
        ("(lambda: 1)()", "lambdas and assignments are not allowed"),
        ("a +", "not a Python expression"),
        ("a @ b", "ValueError"),
    ],
)
def test_formula_screen_and_errors(formula, message):
    with pytest.raises(FormulaError, match=message.replace("(", r"\(").replace(")", r"\)")):
        evaluate(formula, {"a": np.zeros(3), "b": np.zeros(4)})


def test_ok_line_reports_max_abs_err_and_tolerance():
    r = compare(
        "c2", HERE, np.array([1.0, 2.0], np.float32), np.array([1.0, 2.000001]), 1.3e-6, 1e-5
    )
    assert r.ok and r.line() == "check c2: ok (max abs err 1e-06, rtol 1.3e-06, atol 1e-05)"


def test_failed_line_counts_and_shows_the_first_difference():
    got = np.array([[1.0, np.nan], [3.0, 9.0]], np.float32)
    r = compare("out", HERE, got, np.array([[1.0, 2.0], [3.0, 4.0]]), 1e-6, 1e-6)
    assert not r.ok and r.mismatches == 2
    assert r.line() == (
        "check out: FAILED (2 of 4 elements differ, max abs err nan, rtol 1e-06, atol 1e-06; "
        "first at [0, 1]: got nan, expected 2)"
    )


def test_allclose_semantics_and_shapes():
    tol = dict(rtol=1e-3, atol=1e-2)
    assert compare("x", HERE, np.array([100.0]), np.array([100.1]), **tol).ok  # 0.1 <= 0.01 + 0.1
    assert not compare("x", HERE, np.array([100.0]), np.array([100.2]), **tol).ok
    shape = compare("x", HERE, np.zeros(3), np.zeros((3, 1)), **tol)
    assert not shape.ok and "expected shape [3, 1], but the result has shape [3]" in shape.detail
    assert not compare("x", HERE, np.zeros(3), np.float64(0.0), **tol).ok  # no broadcasting


def test_integers_compare_exactly():
    r = compare("bins", HERE, np.array([3, 4], np.int32), np.array([3, 4], np.int64), 0.0, 0.0)
    assert r.ok and "exact" in r.line()
    bad = compare("bins", HERE, np.array([3, 5], np.int32), np.array([3, 4]), 0.0, 0.0)
    assert not bad.ok and "got 5, expected 4" in bad.line()


def test_array_methods_work_in_a_fresh_process():
    """`x.sum(axis=0)` imports part of NumPy the first time it runs; without an `__import__`
    the formula failed with `KeyError: '__import__'` (seen in a new Python). Run where nothing
    has called the methods yet."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from ferrox.driver.host_runner.checks import evaluate\n"
        "x = np.arange(6.0).reshape(2, 3)\n"
        "print(evaluate('x.sum(axis=0)', {'x': x}).tolist(),"
        " evaluate('x.mean(axis=1, keepdims=True)', {'x': x}).tolist(),"
        " evaluate('x.max(axis=-1)', {'x': x}).tolist())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[3.0, 5.0, 7.0] [[1.0], [4.0]] [2.0, 5.0]\n"


def test_a_formula_cannot_import_anything_but_numpy():
    with pytest.raises(FormulaError) as e:
        evaluate("np.__dict__", {})  # the screen refuses the attribute first
    assert "'__dict__'" in str(e.value)
    from ferrox.driver.host_runner import checks

    with pytest.raises(ImportError, match="a check formula may not import 'os'"):
        checks._numpy_import("os")
