"""Fused attention forward (`examples/python/tile_attention.py`, bf16 q/k/v, f32 out) against
torch's `scaled_dot_product_attention` on the same bf16 tensors (FlashAttention's kernels on an
H200), full and causal, head dims 64 and 128 (issue 13 item 5: target 0.8 of SDPA).

FLOPs counted as FlashAttention's papers count them: 4 * heads * seq^2 * dim for full attention
(two matrix products), half of that when causal.

Part of `python -m benchmarks`; alone on a GPU host: `python benchmarks/attention.py`.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not __package__:  # run as a script: find the package `benchmarks` after the installed ferrox
    sys.path.append(str(ROOT))

from benchmarks.common import launcher, write_result  # noqa: E402
from benchmarks.suite import measure  # noqa: E402

EXAMPLE = ROOT / "examples" / "python" / "tile_attention.py"
BATCH, HEADS, SEQ = 4, 16, 4096


def example():
    spec = importlib.util.spec_from_file_location("tile_attention", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(variants: bool = False) -> list[dict]:
    import torch
    import torch.nn.functional as F

    kernel = example().attention
    out = []
    for dim, causal in ((64, False), (64, True), (128, False), (128, True)):
        shape = (BATCH, HEADS, SEQ, dim)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty(shape, device="cuda", dtype=torch.float32)
        flat = [t.view(BATCH * HEADS, SEQ, dim) for t in (o, q, k, v)]
        ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
        constants = {"D": dim, "CAUSAL": causal}

        def make(flat=flat, o=o, constants=constants):
            artifact = kernel.artifact("sm_90", **constants)
            make.artifact = artifact  # type: ignore[attr-defined]
            go = launcher(artifact, "attention", flat)
            o.fill_(float("nan"))
            go()
            torch.cuda.synchronize()
            return go

        def err(o=o, ref=ref) -> float:
            return (o - ref).abs().max().item()

        def sdpa(q=q, k=k, v=v, causal=causal):
            return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        flops = 4 * BATCH * HEADS * SEQ * SEQ * dim / (2 if causal else 1)
        row = measure(
            f"attention {'causal' if causal else 'full'} d{dim}, tile tile_attention.py",
            group="attention",
            track="tile",
            shape=f"{BATCH}x{HEADS}x{SEQ}x{dim} bf16",
            unit="TFLOP/s",
            bytes_moved=2 * 3 * BATCH * HEADS * SEQ * dim + 4 * BATCH * HEADS * SEQ * dim,
            flops=flops,
            ferrox=make,
            peers={"torch sdpa": sdpa},
            check=err,
            tolerance=3e-2,  # bf16 probabilities before p @ v, as SDPA's kernels round them
            artifact=getattr(make, "artifact", None),
            kernel="attention",
        )
        if "ptx" not in row and getattr(make, "artifact", None) is not None:
            row["kernel"], row["ptx"] = "attention", make.artifact.ptx  # type: ignore[attr-defined]
        out.append(row)
    return out


if __name__ == "__main__":
    write_result("attention", {"rows": rows()})
