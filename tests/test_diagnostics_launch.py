"""A refused launch from the Python API has the codes of the launch rules (docs/safety.md's
`launch-*`, E1301-E1307, from the one table), and renders in the tools' shape. Each launch is
refused on fresh data with a poisoned output that stays untouched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox.diagnostics import render

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vecadd():
    return ferrox.load(ROOT / "examples" / "simt" / "vecadd.mlir", device="cpu")["vecadd"]


@pytest.fixture(scope="module")
def vector_add():
    return ferrox.load(ROOT / "examples" / "tile" / "vector_add.mlir", device="cpu")["vector_add"]


def fresh(n: int):
    rng = np.random.default_rng()
    a, b = (rng.standard_normal(n, dtype=np.float32) for _ in range(2))
    return a, b, np.full(n, np.nan, np.float32)


def refusal(launch, *args) -> ferrox.LaunchError:
    with pytest.raises(ferrox.LaunchError) as info:
        launch(*args)
    return info.value


def test_each_launch_rule_has_its_code(vecadd, vector_add):
    a, b, out = fresh(1000)
    assert refusal(vecadd[8, 128], a, b, out).codes == ["E1301"]  # the contract's block
    assert refusal(vecadd[4], a.astype(np.float64), b, out).codes == ["E1303"]  # argument type
    assert refusal(vecadd[4], a[:999], b, out).codes == ["E1305"]  # requires
    assert refusal(vecadd[1], a, b, out).codes == ["E1306"]  # coverage
    assert refusal(vecadd[4], a, out, out).codes == ["E1307"]  # aliasing
    assert np.isnan(out).all()
    x, y, z = fresh(3001)
    assert refusal(vector_add[2], z, x, y).codes == ["E1304"]  # the tile grid
    assert np.isnan(z).all()


def test_a_refused_launch_renders_like_any_diagnostic(vecadd):
    a, _, out = fresh(1000)
    error = refusal(vecadd[4], a, out, out)
    message = (
        "%b (argument #1) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    )
    assert str(error) == message  # the API's text stays the sentence
    assert render(error.diagnostics, "short") == f"<unknown>: error[E1307]: {message}"
    assert render(error.diagnostics, "human").splitlines() == [
        f"error[E1307]: {message}",
        "  |",
        "  = help: pass the output a buffer of its own",
    ]
    assert np.isnan(out).all()


def test_a_problem_no_rule_covers_has_no_code():
    error = ferrox.LaunchError("@k", ["something else went wrong"])
    assert error.codes == [None]
    assert render(error.diagnostics, "short") == "<unknown>: error: something else went wrong"
