"""Each kernel's registers, spills and shared memory, from `ptxas -v` on the PTX ferrox made.

`resources(ptx, chip)` assembles the PTX with the toolchain's ptxas (`targets/toolchain.py`) and
returns, per entry, the four figures the kernel table shows; `from_text` reads them from a saved
`ptxas -v` log. Where no ptxas is installed (a GPU host with the driver only) the benchmark saves
the PTX beside its results and `python -m benchmarks.report` fills the figures in later.
"""

from __future__ import annotations

FIELDS = ("registers", "spill_stores", "spill_loads", "shared_bytes")


def from_text(text: str) -> dict[str, dict[str, int]]:
    """Per entry function in a `ptxas -v` log: registers, spill stores and loads (bytes per
    thread) and static shared memory (bytes per block)."""
    from ferrox.targets.toolchain import parse_ptxas_info

    out = {}
    for name, r in parse_ptxas_info(text).items():
        if r.entry:
            out[name] = {
                "registers": r.registers,
                "spill_stores": r.spill_stores,
                "spill_loads": r.spill_loads,
                "shared_bytes": r.shared_memory,
            }
    return out


def available() -> bool:
    from ferrox.targets.toolchain import find_ptxas

    return find_ptxas() is not None


def resources(ptx: str, chip: str = "sm_90") -> dict[str, dict[str, int]]:
    """`from_text` of ptxas's report on `ptx` (ptxas must be installed: see `available`)."""
    from ferrox.targets.toolchain import run_ptxas

    result = run_ptxas(ptx, chip, verbose=True)
    return from_text(result.log)


__all__ = ["FIELDS", "available", "from_text", "resources"]
