"""The results JSON as a table: printed by `python -m benchmarks`, and written into
`docs/performance.md` between the kernel-table markers.

    python -m benchmarks.report results.json [--docs docs/performance.md]

Rows whose registers, spills and shared memory are missing (ptxas was not on the GPU host) get
them here from the PTX saved in the JSON.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from benchmarks import ptxas_report

BEGIN = "<!-- kernel-table:begin (python -m benchmarks writes this section) -->"
END = "<!-- kernel-table:end -->"


def fill_resources(results: dict) -> None:
    """Each row's `resources` from ptxas on its PTX, where missing and ptxas is here."""
    if not ptxas_report.available():
        return
    cache: dict[str, dict] = {}
    for row in results["rows"]:
        ptx = row.get("ptx")
        if not ptx or row.get("resources"):
            continue
        if ptx not in cache:  # for the PTX's own target (sm_90a where a kernel takes wgmma)
            cache[ptx] = ptxas_report.resources(ptx, _target(ptx) or results.get("chip", "sm_90"))
        found = cache[ptx].get(row.get("kernel", ""))
        if found is not None:
            row["resources"] = found


def _target(ptx: str) -> str | None:
    """The chip a PTX module's `.target` line names (`sm_90a`), if any."""
    found = re.search(r"^\s*\.target\s+(sm_\w+)", ptx, re.MULTILINE)
    return found.group(1) if found else None


def _peer_cell(row: dict) -> str:
    best = row.get("best_peer")
    if best is None:
        return "-"
    return f"{best} {row['peers'][best]['rate']:.2f}"


def _resources_cell(row: dict) -> list[str]:
    r = row.get("resources")
    if not r:
        return ["-", "-", "-"]
    spills = f"{r['spill_stores']}/{r['spill_loads']}"
    return [str(r["registers"]), spills, str(r["shared_bytes"])]


def table(results: dict) -> str:
    """The markdown table of every row, in order."""
    lines = [
        "| kernel | shape | ferrox | best peer | ratio | regs | spills (st/ld B) | smem B |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in results["rows"]:
        if "error" in row:
            cells = [row["name"], row["shape"], f"error: {row['error'][:80]}", "", "", "", "", ""]
        else:
            ratio = f"{row['ratio']:.2f}" if "ratio" in row else "-"
            if row.get("correct") is False:
                ratio += " (wrong result)"
            cells = [
                row["name"],
                row["shape"],
                f"{row['rate']:.2f} {row['unit']}",
                _peer_cell(row),
                ratio,
                *_resources_cell(row),
            ]
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return "\n".join(lines)


def section(results: dict) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in sorted(results.get("versions", {}).items()))
    return "\n".join(
        [
            BEGIN,
            f"Measured {results.get('date', '?')} on {results.get('device', '?')} ({versions}).",
            "Rate: TB/s of memory traffic (TFLOP/s for matrix multiplies); ratio: the best "
            "peer's time / ferrox's (above 1, ferrox is faster); regs, spills and shared memory "
            "from `ptxas -v` on the PTX ferrox made. Roofline: `docs/roofline.png`.",
            "",
            table(results),
            END,
        ]
    )


def write_docs(results: dict, page: Path) -> None:
    """Replace the section between the markers in `page` (appended if it has none)."""
    text = page.read_text() if page.exists() else "# Performance\n"
    new = section(results)
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + new + tail
    else:
        text = text.rstrip("\n") + "\n\n## Kernel table (`python -m benchmarks`)\n\n" + new + "\n"
    page.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the results JSON as a table")
    parser.add_argument("results", type=Path)
    parser.add_argument("--docs", type=Path, help="write the table into this page")
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text())
    fill_resources(results)
    args.results.write_text(json.dumps(results, indent=1))
    print(table(results))
    if args.docs:
        write_docs(results, args.docs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
