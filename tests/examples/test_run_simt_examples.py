"""Every SIMT example runs as a host program on the CPU interpreter: through `ferrox run
--device cpu` (as CI and the README run it) and through the Python API, where the outputs are
compared with NumPy computed here from the same seeds, independently of the program's checks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ferrox.run_api import run_program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
FERROX = shutil.which("ferrox", path=str(Path(sys.executable).parent)) or shutil.which("ferrox") or "ferrox"

CHECKED = {
    "vecadd": "out2",
    "vecadd_unchecked": "out2",
    "vecadd_vec4": "out2",
    "saxpy": "y2",
    "neighbour": "out2",
    "transpose": "out2",
    "sgemm_naive": "c2",
    "sgemm_tiled": "c2",
    "warp_reduce": "out2",
    "block_reduce": "sum2",
    "histogram": "bins2",
}


def uniform(seed: int, shape, lo=-1.0, hi=1.0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).uniform(lo, hi, size=shape).astype(dtype)


def reference(name: str, p: dict) -> tuple[np.ndarray, dict]:
    """What the example must compute at parameters `p`, and how closely."""
    exact: dict = {"rtol": 0, "atol": 0}
    if name in ("vecadd", "vecadd_unchecked", "vecadd_vec4"):
        return uniform(1, p["n"]) + uniform(2, p["n"]), exact
    if name == "saxpy":
        return np.float32(p["alpha"]) * uniform(1, p["n"]) + uniform(2, p["n"]), exact
    if name == "neighbour":
        x = uniform(1, p["n"])
        return x + np.append(x[1:], np.float32(0)), exact
    if name == "transpose":
        return uniform(1, (p["rows"], p["cols"])).T, exact
    if name.startswith("sgemm"):
        a, b = uniform(1, (p["m"], p["k"])), uniform(2, (p["k"], p["n"]))
        return a.astype(np.float64) @ b, {"rtol": 1e-5, "atol": 1e-5}
    if name == "warp_reduce":
        x = uniform(1, p["n"]).astype(np.float64)
        return np.add.reduceat(x, np.arange(0, x.size, 32)), {"rtol": 1e-5, "atol": 1e-5}
    if name == "block_reduce":
        return np.array([uniform(1, p["n"], 0.0, 1.0).astype(np.float64).sum()]), {"rtol": 1e-5, "atol": 0}
    if name == "histogram":
        x = np.floor(np.random.default_rng(1).uniform(0.0, 1e6, size=p["n"])).astype(np.int32)
        return np.bincount(x % p["nbins"], minlength=p["nbins"]), exact
    raise AssertionError(name)


DEFAULTS = {
    "vecadd": {"n": 1000},
    "vecadd_unchecked": {"n": 1000},
    "vecadd_vec4": {"n": 1000},
    "saxpy": {"n": 1000, "alpha": 2.5},
    "neighbour": {"n": 1000},
    "transpose": {"rows": 70, "cols": 45},
    "sgemm_naive": {"m": 20, "n": 24, "k": 18},
    "sgemm_tiled": {"m": 20, "n": 24, "k": 18},
    "warp_reduce": {"n": 1000},
    "block_reduce": {"n": 3000},
    "histogram": {"n": 3000, "nbins": 64},
}
OTHER = {
    "vecadd": {"n": 257},
    "vecadd_vec4": {"n": 4099},
    "saxpy": {"n": 300, "alpha": -0.75},
    "transpose": {"rows": 33, "cols": 64},
    "sgemm_tiled": {"m": 16, "n": 17, "k": 40},
    "warp_reduce": {"n": 33},
    "histogram": {"n": 500, "nbins": 7},
}


@pytest.mark.parametrize("name", NAMES)
def test_every_example_is_covered(name):
    assert name in DEFAULTS and name in CHECKED, f"add {name} to DEFAULTS, CHECKED and reference()"


@pytest.mark.parametrize("name", NAMES)
def test_ferrox_run_on_the_interpreter(name):
    proc = subprocess.run(
        [FERROX, "run", str(EXAMPLES / f"{name}.mlir"), "--device", "cpu"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(f"check {CHECKED[name]}: ok (max abs err ")
    assert lines[-1] == f"{name}.mlir: 1 check passed on the CPU reference interpreter"
    assert proc.stderr == ""


@pytest.mark.parametrize(
    ("name", "params"),
    [(n, DEFAULTS[n]) for n in NAMES if n in DEFAULTS] + [(n, p) for n, p in OTHER.items() if n in NAMES],
    ids=lambda v: v if isinstance(v, str) else "-".join(f"{k}{x}" for k, x in v.items()),
)
def test_python_api_outputs_agree_with_numpy(name, params):
    given = None if params is DEFAULTS[name] else params
    result = run_program(EXAMPLES / f"{name}.mlir", device="cpu", params=given, out=None)
    assert result.device == "cpu" and result.fallback is None
    assert [c.name for c in result.checks] == [CHECKED[name]] and result.ok, result.checks[0].line()
    want, tol = reference(name, {**DEFAULTS[name], **params})
    (got,) = result.outputs
    assert got.shape == want.shape and got.dtype == (np.int32 if name == "histogram" else np.float32)
    np.testing.assert_allclose(got, want, **tol)


def test_a_poisoned_output_fails_its_check(tmp_path):
    """The check sees an element the kernel did not write: drop the last block from the grid of
    an unchecked launch (vecadd_unchecked cannot be prepared, so nothing refuses it)."""
    text = (EXAMPLES / "vecadd_unchecked.mlir").read_text()
    path = tmp_path / "short.mlir"
    path.write_text(text.replace("%blocks = arith.ceildivui %n, %threads : index", "%blocks = arith.divui %n, %threads : index"))
    result = run_program(path, device="cpu", out=None)
    (check,) = result.checks
    assert not check.ok and check.mismatches == 1000 - 768
    assert "first at [768]: got nan" in check.detail
