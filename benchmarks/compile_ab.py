"""Compile latency of two checkouts, interleaved: a new kernel in a warm process, with stages.

    python benchmarks/compile_ab.py BEFORE_TREE AFTER_TREE [--rounds 3] [--reps 3]
        [--examples vecadd saxpy ...]

Each round runs BEFORE then AFTER, each in a new process (`compile_latency._TreeFinder` imports
that checkout's folders) that first compiles simt/saxpy (imports, LLVM's worker, a spare ptxas),
then compiles every example `--reps` times with `compile_cached(path, cache=False, timings=...)`,
the path of `ferrox.compile(path, cache=False)`. The figure per example and tree is the minimum
over every round and rep, with that compile's stages; the load average is printed at each
process start. On a machine shared with others, run it when it is quiet and say the load:
stages that run beside LLVM and ptxas only help where a core is free. A benchmark, never a test.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_RUN = r"""
import json, os, sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {bench!r})
import compile_latency
compile_latency.use_tree({tree!r})
os.environ["FERROX_CACHE_DIR"] = tempfile.mkdtemp(prefix="ferrox-ab-")
import ferrox
from ferrox.targets.cache import compile_cached
from ferrox.targets.timing import Timings
examples = Path({examples!r})
ferrox.compile(examples / "saxpy.mlir", chip="sm_90", cache=False)
best = {{}}
for _ in range({reps}):
    for name in {names!r}:
        path = examples / f"{{name}}.mlir"
        timings = Timings()
        start = time.perf_counter()
        compile_cached(path, chip=compile_latency.chip_of(path), cache=False, timings=timings)
        ms = (time.perf_counter() - start) * 1000
        if name not in best or ms < best[name][0]:
            best[name] = (ms, {{k: round(v * 1000, 2) for k, v in timings.stages.items()}})
print(json.dumps(best))
"""


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--examples", nargs="*", default=["vecadd", "saxpy", "alu", "warp_reduce", "vecadd_vec4"]
    )
    args = parser.parse_args()
    trees = {"before": str(Path(args.before).resolve()), "after": str(Path(args.after).resolve())}
    best: dict[tuple[str, str], tuple[float, dict[str, float]]] = {}
    loads = []
    for _ in range(args.rounds):
        for label, tree in trees.items():
            loads.append(load())
            code = _RUN.format(
                bench=str(ROOT / "benchmarks"),
                tree=tree,
                examples=str(ROOT / "examples" / "simt"),
                reps=args.reps,
                names=args.examples,
            )
            out = subprocess.run(
                [sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True
            )
            for name, (ms, stages) in json.loads(out.stdout).items():
                if (label, name) not in best or ms < best[(label, name)][0]:
                    best[(label, name)] = (ms, stages)
    print("load average at each process start:", " ".join(loads))
    for name in args.examples:
        before, after = best[("before", name)], best[("after", name)]
        change = (after[0] / before[0] - 1) * 100
        print(f"{name:18} before {before[0]:8.1f}  after {after[0]:8.1f}  ({change:+.0f}%)")
        for label, (_, stages) in (("before", before), ("after", after)):
            shown = {k: v for k, v in stages.items() if k not in ("read", "key", "store")}
            print(f"    {label}: " + " ".join(f"{k}={v}" for k, v in shown.items()))


if __name__ == "__main__":
    main()
