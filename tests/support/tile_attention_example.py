"""The fused attention example (`examples/python/tile_attention.py`) as a fresh module: its kernel
with an empty compile cache, `reference`, `main`. For the tests that run it outside its folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "tile_attention.py"


def load(name: str = "tile_attention") -> ModuleType:
    """A new copy of the example module, named `name`."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def matches_numpy_on_gpu(torch, ex: ModuleType, heads: int, seq: int, **constants) -> None:
    """`ex.attention` run on the GPU with `constants` on random bf16 q, k, v of `[heads, seq,
    D]` (a NaN-poisoned output) against the example's float64 reference."""
    import numpy as np

    dim, causal = constants["D"], constants.get("CAUSAL", False)
    q, k, v = (torch.randn(heads, seq, dim, device="cuda").to(torch.bfloat16) for _ in "qkv")
    out = torch.full((heads, seq, dim), float("nan"), device="cuda")
    ex.attention.on("gpu")(out, q, k, v, **constants)
    torch.cuda.synchronize()
    got = out.cpu().numpy()
    x, y, z = (t.float().cpu().numpy() for t in (q, k, v))
    assert not np.isnan(got).any()
    np.testing.assert_allclose(got, ex.reference(x, y, z, causal), rtol=1e-2, atol=1e-2)
