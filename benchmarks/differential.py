"""Differential testing of the CPU oracle against the GPU (and the lowered tile code against the
whole-tile reference).

    python benchmarks/differential.py                 # every example + 200 random kernels
    python benchmarks/differential.py --random 1000 --seed 7 --json out.json

1. Every example (examples/simt, examples/tile) runs its host program on the CPU interpreter;
   tile examples also on the whole-tile reference interpreter; and, where a GPU is present, on
   the GPU. Every array a `host.check` reads is recorded; the runs are compared array by array:
   bit for bit, else within the example's own `host.check` tolerance (transcendental
   approximations, float sums in another order, fma contraction), else a MISMATCH.
2. Random small kernels within the verifiers' rules (`differential_gen.py`): SIMT elementwise
   integer and float expressions, gathers through computed indices, shared-memory block
   reductions with barriers and warp shuffles, and tile elementwise kernels. Each runs on the
   interpreter against a NumPy evaluation of the same expression, and on the GPU where present.
   Integer kernels must match bit for bit everywhere; float ones bit for bit against NumPy on
   the CPU, and within 2 ulp per op on the GPU (which may contract `a * b + c` to an fma).

The exit status is 1 when anything mismatches. Without a GPU only the CPU comparisons run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential_gen import generate  # noqa: E402


class Recording:
    """A host-runner backend that keeps a copy of every array it hands back (what each
    `host.check` compares, and `@main`'s results), in order."""

    def __init__(self, backend: Any):
        self._backend = backend
        self.arrays: list[np.ndarray] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._backend, name)

    def download(self, tensor: Any) -> np.ndarray:
        array = self._backend.download(tensor)
        self.arrays.append(np.array(array, copy=True))
        return array


def _tile_reference_backend():
    from ferrox.driver.host_runner.cpu import CpuBackend, _array_of
    from ferrox.driver.interpreter.tile_kernel import run_tile_kernel

    class TileReference(CpuBackend):
        """The CPU backend with tile kernels on the whole-tile interpreter."""

        def tile_launch(self, module, kernel, checked, args, stream) -> None:
            run_tile_kernel(module, kernel.name, [_array_of(a) for a in args])

    return TileReference()


def gpu_backend() -> Any | None:
    from ferrox.driver.host_runner.select import select_backend

    try:
        backend, why_cpu = select_backend("auto")
    except Exception:
        return None
    return None if why_cpu is not None else backend


def _tolerance(module) -> tuple[float, float]:
    from ferrox.dialects import host

    rtol = atol = 0.0
    for op in module.walk():
        if isinstance(op, host.CheckOp):
            r, a = op.tolerance()
            rtol, atol = max(rtol, r), max(atol, a)
    return rtol, atol


def compare(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> tuple[str, float]:
    """('exact' | 'tolerance' | 'MISMATCH', max abs difference)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return "MISMATCH", float("inf")
    if a.dtype.kind == "f":
        bits = np.dtype(f"i{a.itemsize}")
        same = (a.view(bits) == b.view(bits)) | (np.isnan(a) & np.isnan(b))
    else:
        same = a == b
    if same.all():
        return "exact", 0.0
    x, y = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        err = np.abs(x - y)
        ok = (err <= atol + rtol * np.abs(y)) | (np.isnan(x) & np.isnan(y))
    worst = float(np.nanmax(err)) if err.size else 0.0
    return ("tolerance" if ok.all() else "MISMATCH"), worst


def run_examples(gpu: Any | None) -> list[dict]:
    from ferrox.driver.host_runner import run_host_program
    from ferrox.driver.host_runner.cpu import CpuBackend
    from ferrox.run_api import load_program

    rows = []
    paths = sorted((ROOT / "examples" / "simt").glob("*.mlir"))
    paths += sorted((ROOT / "examples" / "tile").glob("*.mlir"))
    for path in paths:
        module = load_program(path)
        rtol, atol = _tolerance(module)
        runs: dict[str, Recording] = {"cpu": Recording(CpuBackend())}
        if path.parent.name == "tile":
            runs["tile-reference"] = Recording(_tile_reference_backend())
        if gpu is not None:
            runs["gpu"] = Recording(gpu)
        times = {}
        errors = {}
        for name, backend in runs.items():
            start = time.perf_counter()
            try:
                result = run_host_program(load_program(path), backend, out=None)  # type: ignore[arg-type]
                if not result.ok:
                    errors[name] = "; ".join(c.line() for c in result.failed)
            except Exception as e:  # reported, and a mismatch
                errors[name] = f"{type(e).__name__}: {str(e).splitlines()[0]}"
            times[name] = round(time.perf_counter() - start, 3)
        if len(runs) == 1:
            rows.append(
                {
                    "example": f"{path.parent.name}/{path.stem}",
                    "against": "its checks",
                    "arrays": len(runs["cpu"].arrays),
                    "verdict": "MISMATCH" if errors else "checks-ok",
                    "max_abs_diff": 0.0,
                    "tolerance": [rtol, atol],
                    "seconds": times,
                    "errors": errors,
                }
            )
        for other in [n for n in runs if n != "cpu"]:
            verdicts = []
            worst = 0.0
            if "cpu" in errors or other in errors:
                verdicts.append("MISMATCH")
            else:
                pairs = list(zip(runs["cpu"].arrays, runs[other].arrays))
                if len(runs["cpu"].arrays) != len(runs[other].arrays):
                    verdicts.append("MISMATCH")
                for a, b in pairs:
                    verdict, err = compare(a, b, rtol, atol)
                    verdicts.append(verdict)
                    worst = max(worst, err)
            verdict = (
                "MISMATCH"
                if "MISMATCH" in verdicts
                else "tolerance"
                if "tolerance" in verdicts
                else "exact"
            )
            rows.append(
                {
                    "example": f"{path.parent.name}/{path.stem}",
                    "against": other,
                    "arrays": len(runs["cpu"].arrays),
                    "verdict": verdict,
                    "max_abs_diff": worst,
                    "tolerance": [rtol, atol],
                    "seconds": times,
                    "errors": errors,
                }
            )
    return rows


def run_random(count: int, seed: int, gpu: Any | None) -> list[dict]:
    import ferrox

    rows = []
    rng = np.random.default_rng(seed)
    for k in range(count):
        case = generate(rng, k)
        row: dict[str, Any] = {"case": case.name, "kind": case.kind}
        try:
            cpu = ferrox.load(case.text, device="cpu")
            got = case.run(cpu)
            row["cpu"], row["cpu_err"] = case.judge(got, case.expected, exact_floats=True)
            if gpu is not None:
                dev = ferrox.load(case.text, device="gpu")
                on_gpu = case.run(dev)
                row["gpu"], row["gpu_err"] = case.judge(on_gpu, got, exact_floats=False)
        except Exception as e:
            row["cpu" if "cpu" not in row else "gpu"] = "MISMATCH"
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if "MISMATCH" in (row.get("cpu"), row.get("gpu")):
            row["text"] = case.text
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=200, help="random kernels (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-examples", action="store_true")
    parser.add_argument("--cpu-only", action="store_true", help="do not use a GPU even if present")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args(argv)
    gpu = None if args.cpu_only else gpu_backend()
    print(f"GPU: {'present' if gpu is not None else 'none (CPU comparisons only)'}")
    report: dict[str, Any] = {"gpu": gpu is not None}
    bad = 0
    if not args.no_examples:
        rows = run_examples(gpu)
        report["examples"] = rows
        for r in rows:
            errs = "; ".join(f"{k}: {v}" for k, v in r["errors"].items())
            print(
                f"{r['example']:<26} cpu vs {r['against']:<15} {r['verdict']:<9} "
                f"max diff {r['max_abs_diff']:.3g} (rtol {r['tolerance'][0]:g}, atol "
                f"{r['tolerance'][1]:g}) {r['seconds']} {errs}"
            )
            bad += r["verdict"] == "MISMATCH"
    if args.random:
        rows = run_random(args.random, args.seed, gpu)
        report["random"] = rows
        tally: dict[str, int] = {}
        for r in rows:
            for side in ("cpu", "gpu"):
                if side in r:
                    key = f"{r['kind']} {side} {r[side]}"
                    tally[key] = tally.get(key, 0) + 1
            if "MISMATCH" in (r.get("cpu"), r.get("gpu")):
                bad += 1
                print(f"MISMATCH {r['case']}: {r.get('error', '')}\n{r.get('text', '')}")
        for key in sorted(tally):
            print(f"random {key}: {tally[key]}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, default=str))
    print(f"{'FAIL' if bad else 'OK'}: {bad} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
