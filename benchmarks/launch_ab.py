"""`launch.py` on two checkouts in turn, on the GPU host: before and after, with each process's
own peers (CuPy, cuda.core, the bare driver call) beside them.

    python benchmarks/launch_ab.py BEFORE_CHECKOUT [--rounds 2] [--batches 40]

Each round runs this checkout's `launch.py` twice, each in a new process: first importing
ferrox from BEFORE_CHECKOUT (`compile_latency._TreeFinder`), then this one. Per row it prints
each tree's best median (µs) over the rounds and that process's ratio to CuPy's `RawKernel`, the
figure to compare across processes (lent machines drift). A row one tree lacks is left blank. A
benchmark, never a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RUN = """
import runpy, sys
sys.path.insert(0, {bench!r})
import compile_latency
compile_latency.use_tree({tree!r})
sys.argv = ["launch.py", "--batches", {batches!r}]
runpy.run_path({script!r}, run_name="__main__")
"""


def run(tree: Path, batches: int) -> dict[str, float]:
    """One `launch.py` process on `tree`'s ferrox: its figures (launch.json)."""
    out = tempfile.mkdtemp(prefix="launch-ab-")
    code = _RUN.format(
        bench=str(ROOT / "benchmarks"),
        tree=str(tree),
        batches=str(batches),
        script=str(ROOT / "benchmarks" / "launch.py"),
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=os.environ | {"OUT": out}, capture_output=True, text=True
    )
    if done.returncode:
        print(f"launch.py on {tree} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        return {}
    return json.loads(Path(out, "launch.json").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the other checkout (say, a worktree of main)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batches", type=int, default=40)
    args = parser.parse_args()
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    best: dict[str, dict[str, tuple[float, float]]] = {label: {} for label in trees}
    for _ in range(args.rounds):
        for label, tree in trees.items():
            found = run(tree, args.batches)
            cupy = found.get("CuPy RawKernel", float("nan"))
            for name, us in found.items():
                if name.startswith("torch read") or name.endswith("(ns)"):
                    continue
                kept = best[label].get(name)
                if kept is None or us < kept[0]:
                    best[label][name] = (us, us / cupy)
    names = list(best["after"]) + [n for n in best["before"] if n not in best["after"]]
    print(f"{'row (best median over rounds, us; / CuPy)':60} {'before':>15} {'after':>15}")
    for name in names:
        cells = []
        for label in trees:
            us, ratio = best[label].get(name, (float("nan"), float("nan")))
            cells.append(f"{us:7.2f} {ratio:6.2f}x")
        print(f"{name[:60]:60} {cells[0]:>15} {cells[1]:>15}")


if __name__ == "__main__":
    main()
