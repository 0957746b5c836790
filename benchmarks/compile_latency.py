"""Compile latency: a new kernel in a warm process, a cache hit warm and in a new process.

    python benchmarks/compile_latency.py [--reps 5] [--examples vecadd softmax ...]
        [--tree OTHER_CHECKOUT] [--json OUT.json]

For every example under examples/simt and examples/tile (or the ones named):
- `new`: `ferrox.compile(path, chip="sm_90", cache=False)` (the chip its module names, if it
  names one: `gemm_wgmma` is sm_90a) in a process that has compiled
  another kernel already (imports done, LLVM's worker started): the median of `--reps` runs.
  It includes ptxas where ptxas is found, as `ferrox.compile` does.
- `stages`: one more such compile through `compile_cached(timings=...)`, each stage's
  milliseconds (absent on a checkout without `ferrox.targets.timing`). Stages that run while
  LLVM or ptxas works (`artifact`, `parse-host`, `verify`) overlap the `llvm` and `ptxas`
  waits, so the stages add up to more than the compile's wall time.
- `hit`: `ferrox.compile(path)` again once it is cached: the median, in milliseconds.
- `new process hit`: a new `python -c "import ferrox; ferrox.compile(path)"` whose cache has
  the kernel, whole-process wall time (median), and whether it imported xDSL or the lowering.
- `--launch`: a new process that loads the cached simt/vecadd with `ferrox.load` and launches
  it once on 2^20 elements (NumPy arrays in and out, the result checked), whole-process wall
  time (median): issue 14's "to its first launch", on the GPU where there is one (else the CPU
  interpreter, which imports xDSL to run the kernel), with what it imported.
  `benchmarks/cold_start.py` measures the same path on the GPU with and without torch (torch's
  import aside), step by step, with min / median / max.

`--dump-ptx DIR` writes each example's PTX there (`simt-vecadd.ptx`, ...): run it on two
checkouts (`--tree`) and `diff -r` the folders to see that a change left the PTX byte-identical.

`--tree DIR` runs the same against another checkout of ferrox (say, an older commit in a git
worktree): its root folders are imported in place of the installed ones, so one venv measures
both. CPU only: no GPU is used. A benchmark, never a test.

`--against DIR` compares two checkouts on a shared, loaded machine: this one (or `--tree`)
and DIR each in its own warm process, every example compiled (`new`, as above) in the two in
turn, `--reps` times each, and the minimum of each printed with their ratio (the load average
before and after, too). Nothing else is measured in that mode.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = ("dialects", "driver", "frontend", "lowering", "passes", "targets")
HEAVY = ("xdsl", "ferrox.lowering", "ferrox.dialects", "ferrox.passes", "llvmlite")


class _TreeFinder(importlib.abc.MetaPathFinder):
    """Import `ferrox` and `ferrox.<root folder>` from another checkout."""

    def __init__(self, tree: Path):
        self.paths = {"ferrox": tree / "ferrox"}
        self.paths.update({f"ferrox.{s}": tree / s for s in SUBPACKAGES if (tree / s).is_dir()})

    def find_spec(self, fullname, path=None, target=None):
        folder = self.paths.get(fullname)
        if folder is not None:
            return importlib.util.spec_from_file_location(
                fullname, folder / "__init__.py", submodule_search_locations=[str(folder)]
            )
        if fullname.startswith("ferrox.") and path is not None:  # a submodule: its parent's path
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is None:  # not in that checkout: no other finder may answer for it
                raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
            return spec
        return None


_PRELUDE = """
import sys
tree = {tree!r}
if tree:
    sys.path.insert(0, {bench!r})
    import compile_latency
    sys.meta_path.insert(0, compile_latency._TreeFinder(compile_latency.Path(tree)))
"""


def use_tree(tree: str | None) -> None:
    if tree:
        sys.meta_path.insert(0, _TreeFinder(Path(tree).resolve()))


def examples(names: list[str]) -> list[Path]:
    found = sorted((ROOT / "examples" / "simt").glob("*.mlir")) + sorted(
        (ROOT / "examples" / "tile").glob("*.mlir")
    )
    if names:
        found = [p for p in found if p.stem in names or f"{p.parent.name}/{p.stem}" in names]
    return found


def median_ms(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def chip_of(path: Path) -> str:
    """The chip an example names (`"ferrox.chip" = "sm_90a"`), else sm_90."""
    m = re.search(r'"ferrox\.chip"\s*=\s*"(\w+)"', path.read_text())
    return m.group(1) if m else "sm_90"


def stage_times(path: Path) -> dict[str, float] | None:
    try:
        from ferrox.targets.timing import Timings
    except ImportError:
        return None
    from ferrox.targets.cache import compile_cached

    timings = Timings()  # the path `new` measures: ferrox.compile's, parse and verify included
    compile_cached(path, chip=chip_of(path), cache=False, timings=timings)
    return {name: round(s * 1000, 2) for name, s in timings.stages.items()}


def new_process_hit(path: Path, tree: str | None, reps: int) -> tuple[float, list[str]]:
    code = _PRELUDE.format(tree=tree or "", bench=str(Path(__file__).parent)) + (
        "import ferrox\n"
        f"ferrox.compile({str(path)!r}, chip={chip_of(path)!r})\n"
        f"print(sorted({{m.split('.')[0] if m.startswith('xdsl') else m for m in sys.modules "
        f"if m.startswith({HEAVY!r})}}))\n"
    )
    times, imported = [], []
    for _ in range(reps):
        start = time.perf_counter()
        # -P: the checkout's root is not on the path, so `ferrox` is the installed package
        # (where the install is not editable, ./ferrox alone would shadow it).
        out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        imported = json.loads(out.stdout.strip().replace("'", '"'))
    return statistics.median(times) * 1000, imported


LAUNCH = """
import sys
import numpy as np
import ferrox
n = 1 << 20
a, b = np.arange(n, dtype=np.float32), np.ones(n, dtype=np.float32)
out = np.full(n, np.nan, dtype=np.float32)
module = ferrox.load(sys.argv[1])
module["vecadd"][(n + 255) // 256, 256](a, b, out)
assert np.array_equal(out, a + b)
heavy = sorted({{m.split('.')[0] if m.startswith('xdsl') else m for m in sys.modules
                if m.startswith({heavy!r})}})
print(module.device, ",".join(heavy))
"""


def new_process_launch(tree: str | None, reps: int) -> tuple[float, str, str]:
    """Whole-process wall time of a new process that loads the cached vecadd and launches it."""
    path = ROOT / "examples" / "simt" / "vecadd.mlir"
    prelude = _PRELUDE.format(tree=tree or "", bench=str(Path(__file__).parent))
    code = prelude + LAUNCH.format(heavy=HEAVY)
    times, device, imported = [], "", ""
    for i in range(reps + 1):  # the first run fills the cache (its compile is not counted)
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-P", "-c", code, str(path)], capture_output=True,
                             text=True)  # fmt: skip
        if i:
            times.append(time.perf_counter() - start)
        if out.returncode != 0:
            raise RuntimeError(out.stderr)
        device, _, imported = out.stdout.strip().partition(" ")
    return statistics.median(times) * 1000, device, imported


_WORKER = """
import os
import tempfile
import time
os.environ["FERROX_CACHE_DIR"] = tempfile.mkdtemp(prefix="ferrox-bench-cache-")
import ferrox
ferrox.compile({warm!r}, chip="sm_90", cache=False)  # imports, LLVM's worker
print("ready", flush=True)
for line in sys.stdin:
    path, chip = line.split()
    start = time.perf_counter()
    ferrox.compile(path, chip=chip, cache=False)
    print(time.perf_counter() - start, flush=True)
"""


def interleaved(trees: list[str | None], paths: list[Path], reps: int) -> list[list[float]]:
    """Per example, the least `new` milliseconds of each tree over `reps` compiles, the trees'
    warm processes taking turns, first one then the other (one warm-up round first, not
    counted)."""
    bench = str(Path(__file__).parent)
    warm = str(ROOT / "examples" / "simt" / "saxpy.mlir")
    workers = []
    for tree in trees:
        code = _PRELUDE.format(tree=tree or "", bench=bench) + _WORKER.format(warm=warm)
        workers.append(subprocess.Popen([sys.executable, "-P", "-c", code], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True))  # fmt: skip
    try:
        for w in workers:
            assert w.stdout is not None and w.stdout.readline().strip() == "ready"
        table = []
        for path in paths:
            best = [float("inf")] * len(workers)
            for rep in range(reps + 1):
                # the order alternates: whichever tree compiles second in a round follows the
                # other's compile (its ptxas may still be exiting), so neither always does
                order = list(enumerate(workers))
                for i, w in order if rep % 2 else order[::-1]:
                    assert w.stdin is not None and w.stdout is not None
                    w.stdin.write(f"{path} {chip_of(path)}\n")
                    w.stdin.flush()
                    line = w.stdout.readline()
                    if not line:
                        raise RuntimeError(f"the worker of {trees[i] or ROOT} died on {path}")
                    if rep:
                        best[i] = min(best[i], float(line) * 1000)
            table.append(best)
        return table
    finally:
        for w in workers:
            if w.stdin is not None:
                w.stdin.close()
            w.wait()


def compare(tree: str | None, against: str, paths: list[Path], reps: int) -> None:
    print(f"load average {os.getloadavg()[0]:.2f}; min of {reps}, interleaved")
    print(f"{'example':24} {'this ms':>9} {'against ms':>11} {'ratio':>6}")
    for path, (mine, other) in zip(paths, interleaved([tree, against], paths, reps)):
        name = f"{path.parent.name}/{path.stem}"
        print(f"{name:24} {mine:9.1f} {other:11.1f} {mine / other:6.2f}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--examples", nargs="*", default=[])
    parser.add_argument("--tree", help="another ferrox checkout to measure instead")
    parser.add_argument("--json", help="write the results here too")
    parser.add_argument("--no-new-process", action="store_true")
    parser.add_argument("--dump-ptx", metavar="DIR", help="write each example's PTX into DIR")
    parser.add_argument(
        "--launch", action="store_true", help="also a new process's load and first launch"
    )
    parser.add_argument("--against", metavar="DIR", help="compare with DIR, interleaved")
    args = parser.parse_args()
    if args.against:
        compare(args.tree, args.against, examples(args.examples), args.reps)
        return
    cache = tempfile.mkdtemp(prefix="ferrox-bench-cache-")
    os.environ["FERROX_CACHE_DIR"] = cache
    use_tree(args.tree)
    import ferrox

    paths = examples(args.examples)
    warm = ROOT / "examples" / "simt" / "saxpy.mlir"
    ferrox.compile(warm, chip="sm_90", cache=False)  # imports, LLVM's worker
    rows = []
    print(f"{'example':24} {'new ms':>9} {'hit ms':>8} {'new-process hit ms':>19}  imported")
    for path in paths:
        name = f"{path.parent.name}/{path.stem}"
        chip = chip_of(path)
        new = median_ms(lambda p=path, c=chip: ferrox.compile(p, chip=c, cache=False), args.reps)
        stages = stage_times(path)
        compiled = ferrox.compile(path, chip=chip)  # now cached, on disk too
        if args.dump_ptx:
            Path(args.dump_ptx).mkdir(parents=True, exist_ok=True)
            (Path(args.dump_ptx) / f"{path.parent.name}-{path.stem}.ptx").write_text(compiled.ptx)
        hit = median_ms(lambda p=path, c=chip: ferrox.compile(p, chip=c), max(args.reps, 20))
        row = {"example": name, "new_ms": round(new, 2), "hit_ms": round(hit, 4)}
        if stages is not None:
            row["stages_ms"] = stages
        if not args.no_new_process:
            fresh, imported = new_process_hit(path, args.tree, args.reps)
            row["new_process_hit_ms"] = round(fresh, 1)
            row["new_process_imported"] = imported
        rows.append(row)
        print(
            f"{name:24} {new:9.1f} {hit:8.3f} {row.get('new_process_hit_ms', float('nan')):19.1f}"
            f"  {','.join(row.get('new_process_imported', [])) or '-'}"
        )
        if stages:
            print("    " + " ".join(f"{k}={v:.1f}" for k, v in stages.items()))
    launch = None
    if args.launch:
        ms, device, imported = new_process_launch(args.tree, args.reps)
        launch = {"ms": round(ms, 1), "device": device, "imported": imported.split(",")}
        print(f"new process, load + first launch of simt/vecadd on {device}: {ms:.1f} ms"
              f"  imported: {imported or '-'}")  # fmt: skip
    result = {
        "python": sys.version.split()[0],
        "launch": launch,
        "tree": args.tree or str(ROOT),
        "reps": args.reps,
        "rows": rows,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
