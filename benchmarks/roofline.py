"""The roofline plot of a results JSON: each kernel's achieved FLOP rate against its arithmetic
intensity, under the H200's HBM bandwidth and its FP32 and bf16 tensor-core limits.

    python -m benchmarks.roofline results.json docs/roofline.png

Needs matplotlib (the `bench` extra). One point per computation, track and shape, its fastest
correct ferrox row: filled markers are ferrox, hollow ones the best peer of the same row. Rows
without FLOPs (a transpose) are left out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HBM_TBPS = 4.8
"""H200 HBM3e bandwidth, TB/s."""
FP32_TFLOPS = 67.0
"""H200 SXM FP32 (CUDA cores, FMA) peak, TFLOP/s."""
BF16_TFLOPS = 989.0
"""H200 SXM dense bf16 tensor-core peak, TFLOP/s."""


def best_rows(results: dict) -> list[dict]:
    """Per computation (the name up to its first comma), track and shape, the row where ferrox
    was fastest (a run with `--variants` measures several lowerings of one computation; the
    plot shows the best of each)."""
    best: dict[tuple[str, str], dict] = {}
    for row in results["rows"]:
        if "ms" not in row or row.get("correct") is False:
            continue
        key = (row["name"].split(",")[0], row.get("track", ""), row["shape"])
        if key not in best or row["ms"] < best[key]["ms"]:
            best[key] = row
    return list(best.values())


def points(results: dict) -> list[dict]:
    """(label, intensity in FLOP/byte, ferrox and best peer TFLOP/s) of each group's best row."""
    out = []
    for row in best_rows(results):
        if not row.get("flops") or not row.get("bytes"):
            continue
        best = row.get("best_peer")
        peer_ms = row["peers"][best]["ms"] if best else None
        out.append(
            {
                "label": f"{row['name']} {row['shape']}",
                "group": row.get("group", ""),
                "intensity": row["flops"] / row["bytes"],
                "ferrox": row["flops"] / (row["ms"] * 1e-3) / 1e12,
                "peer": row["flops"] / (peer_ms * 1e-3) / 1e12 if peer_ms else None,
                "peer_name": best,
            }
        )
    return out


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pts = points(results)
    fig, ax = plt.subplots(figsize=(10, 6.5))
    lo, hi = 0.05, 5000.0
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for peak, name, style in ((FP32_TFLOPS, "FP32", "--"), (BF16_TFLOPS, "bf16 tensor", ":")):
        ax.plot(xs, [min(HBM_TBPS * x, peak) for x in xs], style, color="grey")
        ax.text(hi, peak, f" {name} {peak:.0f} TFLOP/s", va="bottom", ha="right", fontsize=8)
    ax.text(lo * 1.2, HBM_TBPS * lo * 1.3, f"HBM {HBM_TBPS} TB/s", rotation=28, fontsize=8)
    colours = plt.get_cmap("tab10")
    groups = sorted({p["group"] for p in pts})
    for i, p in enumerate(pts):
        colour = colours(groups.index(p["group"]) % 10)
        ax.scatter(p["intensity"], p["ferrox"], color=colour, s=28, zorder=3)
        if p["peer"]:
            ax.scatter(
                p["intensity"], p["peer"], facecolors="none", edgecolors=colour, s=40, zorder=2
            )
        ax.annotate(
            str(i + 1), (p["intensity"], p["ferrox"]), fontsize=7, xytext=(3, 3),
            textcoords="offset points",
        )  # fmt: skip
    legend = "\n".join(f"{i + 1}: {p['label']}" for i, p in enumerate(pts))
    ax.text(1.02, 1.0, legend, transform=ax.transAxes, fontsize=6, va="top", family="monospace")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(0.01, 2000)
    ax.set_xlabel("arithmetic intensity (FLOP / byte of HBM traffic)")
    ax.set_ylabel("achieved TFLOP/s")
    ax.set_title(
        f"ferrox (filled) and best peer (hollow) on {results.get('device', '?')}, "
        f"{results.get('date', '')}",
        fontsize=9,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="roofline plot of a results JSON")
    parser.add_argument("results", type=Path)
    parser.add_argument("png", type=Path)
    args = parser.parse_args(argv)
    plot(json.loads(args.results.read_text()), args.png)
    print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
