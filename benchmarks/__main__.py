"""`python -m benchmarks`: every kernel beside its peers, in one process on the GPU.

    python -m benchmarks [--out DIR] [--only GROUP,...] [--variants] [--docs docs/performance.md]

Runs the modules of MODULES (vecadd, tile, reductions, gemm, attention), prints each row as it
is measured and then the table (`report.py`), and writes `DIR/results.json` (default: $OUT, else
the current folder): the date, device and versions, and per row the times, rates, peers, ratio,
check and the PTX, with its registers, spills and shared memory from `ptxas -v` where ptxas is
installed. `--docs` writes the table into the page. The roofline plot is drawn from the JSON
afterwards (`python -m benchmarks.roofline results.json docs/roofline.png`), on any machine with
matplotlib. Without a usable GPU it says why and exits 0: there is nothing to measure.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path

MODULES = ("vecadd", "tile", "reductions", "gemm", "attention")


def no_gpu_reason() -> str | None:
    """Why nothing can be measured here, or None."""
    from ferrox.driver.runtime.device import unavailable_reason

    reason = unavailable_reason(0)
    if reason is not None:
        return reason
    if importlib.util.find_spec("torch") is None:
        return "PyTorch is not installed (the peers and the timing run on it)"
    import torch

    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    return None


def versions() -> dict[str, str]:
    import ferrox

    found = {"python": platform.python_version(), "ferrox": ferrox.__version__}
    for name in ("torch", "triton", "cupy", "llvmlite", "xdsl"):
        if importlib.util.find_spec(name) is not None:
            found[name] = str(getattr(importlib.import_module(name), "__version__", "?"))
    import torch

    found["cuda"] = str(torch.version.cuda)
    return found


def run(groups: list[str], variants: bool, out: Path) -> dict:
    import torch

    from benchmarks import ptxas_report, report

    props = torch.cuda.get_device_properties(0)
    results: dict = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "device": f"{props.name} ({props.multi_processor_count} SMs)",
        "chip": f"sm_{props.major}{props.minor}",
        "versions": versions(),
        "ptxas": ptxas_report.available(),
        "rows": [],
    }
    for name in groups:
        module = importlib.import_module(f"benchmarks.{name}")
        print(f"== {name}", flush=True)
        results["rows"].extend(module.rows(variants))
        (out / "results.json").write_text(json.dumps(results, indent=1))  # so far
    report.fill_resources(results)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ".")))
    parser.add_argument("--only", default="", help=f"comma-separated, of {', '.join(MODULES)}")
    parser.add_argument("--variants", action="store_true", help="also other thread counts")
    parser.add_argument("--docs", type=Path, help="write the kernel table into this page")
    args = parser.parse_args(argv)
    groups = [g for g in args.only.split(",") if g] or list(MODULES)
    unknown = [g for g in groups if g not in MODULES]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)} (have {', '.join(MODULES)})")
    reason = no_gpu_reason()
    if reason is not None:
        print(f"python -m benchmarks: no GPU to measure on: {reason}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    results = run(groups, args.variants, args.out)
    from benchmarks import report

    path = args.out / "results.json"
    path.write_text(json.dumps(results, indent=1))
    print(report.table(results))
    print(f"wrote {path}")
    if args.docs:
        report.write_docs(results, args.docs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
