"""NumPy references for the SIMT examples, shared by the CPU and the GPU example tests."""

from __future__ import annotations

import numpy as np

CHECKED = {
    "vecadd": "out2",
    "vecadd_unchecked": "out2",
    "vecadd_vec4": "out2",
    "saxpy": "y2",
    "neighbour": "out2",
    "transpose": "out2",
    "sgemm_naive": "c2",
    "sgemm_tiled": "c2",
    "sgemm_micro": "c2",
    "gemm_wgmma": "c2",
    "gemm_tma": "c2",
    "tma_copy": "out2",
    "tma_copy_f32": "out2",
    "warp_reduce": "out2",
    "block_reduce": "sum2",
    "block_reduce_gridstride": "sum2",
    "histogram": "bins2",
    "gcd": "out2",
    "alu": "out2",
    "piecewise": "out2",
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
    if name in ("gemm_wgmma", "gemm_tma"):  # bf16 operands (rounded once from f64), B: n x k
        from ferrox.driver.interpreter.bf16 import round_f64

        a = round_f64(np.random.default_rng(81).uniform(-1.0, 1.0, (p["m"], p["k"])))
        b = round_f64(np.random.default_rng(82).uniform(-1.0, 1.0, (p["n"], p["k"])))
        return a.astype(np.float64) @ b.astype(np.float64).T, {"rtol": 1e-5, "atol": 1e-4}
    if name == "tma_copy":  # a bf16 copy (rounded once from f64)
        from ferrox.driver.interpreter.bf16 import round_f64

        n = p["rows"] * p["cols"]
        return round_f64(np.random.default_rng(1).uniform(-1.0, 1.0, n)).astype(np.float64), exact
    if name == "tma_copy_f32":
        return uniform(1, p["rows"] * p["cols"]), exact
    if name == "warp_reduce":
        x = uniform(1, p["n"]).astype(np.float64)
        return np.add.reduceat(x, np.arange(0, x.size, 32)), {"rtol": 1e-5, "atol": 1e-5}
    if name in ("block_reduce", "block_reduce_gridstride"):
        return np.array([uniform(1, p["n"], 0.0, 1.0).astype(np.float64).sum()]), {
            "rtol": 1e-5,
            "atol": 0,
        }
    if name == "histogram":
        x = np.floor(np.random.default_rng(1).uniform(0.0, 1e6, size=p["n"])).astype(np.int32)
        return np.bincount(x % p["nbins"], minlength=p["nbins"]), exact
    if name == "gcd":  # scf.while
        a, b = (uniform(s, p["n"], 1.0, 1e6, np.float64) for s in (1, 2))
        return np.gcd(np.floor(a).astype(np.int32), np.floor(b).astype(np.int32)), exact
    if name == "alu":  # scf.index_switch
        a, b = uniform(1, p["n"]), uniform(2, p["n"])
        op = np.floor(uniform(3, p["n"], 0.0, 5.0, np.float64))
        return np.select(
            [op == 0, op == 1, op == 2], [a + b, a - b, a * b], np.maximum(a, b)
        ), exact
    if name == "piecewise":  # cf.switch
        x, sel = uniform(1, p["n"]), np.floor(uniform(2, p["n"], 0.0, 8.0, np.float64))
        return np.select([sel == 0, sel == 1, sel == 5], [x * x, x + 1, x], np.float32(0)), exact
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
    "sgemm_micro": {"m": 130, "n": 140, "k": 37},
    "gemm_wgmma": {"m": 128, "n": 256, "k": 192},
    "gemm_tma": {"m": 200, "n": 136, "k": 136},
    "tma_copy": {"rows": 130, "cols": 136},
    "tma_copy_f32": {"rows": 100, "cols": 68},
    "warp_reduce": {"n": 1000},
    "block_reduce": {"n": 3000},
    "block_reduce_gridstride": {"n": 20000},
    "histogram": {"n": 3000, "nbins": 64},
    "gcd": {"n": 1000},
    "alu": {"n": 1000},
    "piecewise": {"n": 1000},
}
OTHER = {
    "vecadd": {"n": 257},
    "vecadd_vec4": {"n": 4099},
    "saxpy": {"n": 300, "alpha": -0.75},
    "transpose": {"rows": 33, "cols": 64},
    "sgemm_tiled": {"m": 16, "n": 17, "k": 40},
    "sgemm_micro": {"m": 40, "n": 300, "k": 16},
    "gemm_wgmma": {"m": 100, "n": 136, "k": 72},
    "gemm_tma": {"m": 100, "n": 72, "k": 104},  # k: rows of 16 bytes (the tensor map)
    "tma_copy": {"rows": 64, "cols": 8},
    "tma_copy_f32": {"rows": 129, "cols": 4},
    "warp_reduce": {"n": 33},
    "block_reduce_gridstride": {"n": 8195},
    "histogram": {"n": 500, "nbins": 7},
    "gcd": {"n": 300},
    "alu": {"n": 4099},
    "piecewise": {"n": 257},
}
