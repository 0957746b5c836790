"""The instruction mix of a kernel's main loop in SASS: what one iteration of its hottest path
issues (docs/performance.md, "Tile f32 GEMM").

    nvdisasm -c KERNEL.cubin > KERNEL.sass     # nvdisasm: PyPI's nvidia-cuda-nvdisasm
    python -m benchmarks.sass_loop KERNEL.sass [-v]

The loop is the one around the basic block with the most FFMA; its hot path is the shortest
path, in instructions, from the loop's header to the block that branches back to it (the
paths a whole-tile GEMM block takes are the short ones: the checked paths are longer). Printed:
the path's instructions, its FFMA share and the count of every other opcode; `-v` lists the
path's blocks and their non-FFMA instructions.
"""

from __future__ import annotations

import heapq
import re
import sys
from collections import Counter

_LABEL = re.compile(r"^(\.L_x_\d+):")
_INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(.*?)\s*;")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)")


def opcode(instruction: str) -> str:
    """`FFMA` of `@P0 FFMA R1, ...`, `BRA.DIV` of `BRA.DIV UR4, ...`."""
    body = instruction.split(None, 1)[1] if instruction.startswith("@") else instruction
    return body.split()[0]


def blocks(text: str) -> list[dict]:
    """The basic blocks of `text` (`nvdisasm -c` output of one kernel): label, instructions,
    successors (block indices)."""
    out: list[dict] = [{"label": None, "ins": [], "succ": []}]
    for line in text.splitlines():
        m = _LABEL.match(line)
        if m:
            if out[-1]["ins"] or out[-1]["label"]:
                out.append({"label": None, "ins": [], "succ": []})
            out[-1]["label"] = m.group(1)
            continue
        m = _INSTRUCTION.match(line)
        if m is None:
            continue
        out[-1]["ins"].append(m.group(1))
        if opcode(m.group(1)).startswith(("BRA", "EXIT", "RET", "BRX", "JMP")):
            out.append({"label": None, "ins": [], "succ": []})
    out = [b for b in out if b["ins"] or b["label"]]
    labels = {b["label"]: k for k, b in enumerate(out) if b["label"]}
    for k, b in enumerate(out):
        last = b["ins"][-1] if b["ins"] else ""
        op = opcode(last) if last else ""
        conditional = last.startswith("@") or ".DIV" in op
        target = _TARGET.search(last)
        if op.startswith("EXIT") and not last.startswith("@"):
            continue
        if op.startswith("BRA") and target:
            b["succ"].append(labels[target.group(1)])
            if conditional and k + 1 < len(out):
                b["succ"].append(k + 1)
        elif k + 1 < len(out):
            b["succ"].append(k + 1)
    return out


def hot_path(bs: list[dict]) -> list[int]:
    """The blocks of the hottest loop's shortest iteration (module docstring)."""
    ffma = [sum(opcode(i).startswith("FFMA") for i in b["ins"]) for b in bs]
    hot = max(range(len(bs)), key=lambda k: ffma[k])
    # The innermost back edge around it: the nearest block at or after it branching to one at
    # or before it (out-of-line stubs branch back from further away).
    edges = [(k, s) for k, b in enumerate(bs) for s in b["succ"] if s <= hot <= k]
    latch, header = min(edges)
    dist, prev = {header: len(bs[header]["ins"])}, {}
    queue = [(dist[header], header)]
    while queue:
        d, k = heapq.heappop(queue)
        if k == latch:
            break
        if d > dist[k]:
            continue
        for s in bs[k]["succ"]:
            nd = d + len(bs[s]["ins"])
            if s != header and nd < dist.get(s, 1 << 62):
                dist[s], prev[s] = nd, k
                heapq.heappush(queue, (nd, s))
    path = [latch]
    while path[-1] != header:
        path.append(prev[path[-1]])
    return path[::-1]


def mix(text: str) -> tuple[int, Counter[str], list[tuple[str | None, list[str]]]]:
    """(instructions, count by opcode without modifiers, the path's blocks) of `text`'s hot
    path."""
    bs = blocks(text)
    path = hot_path(bs)
    ins = [i for k in path for i in bs[k]["ins"]]
    return (
        len(ins),
        Counter(opcode(i).split(".")[0] for i in ins),
        [(bs[k]["label"], bs[k]["ins"]) for k in path],
    )


def main(argv: list[str]) -> None:
    text = open(argv[0]).read()
    n, counts, path = mix(text)
    rest = ", ".join(f"{op} {c}" for op, c in counts.most_common() if op != "FFMA")
    print(f"{argv[0]}: {n} instructions, FFMA {counts['FFMA']} ({counts['FFMA'] / n:.1%}); {rest}")
    if "-v" in argv:
        for label, ins in path:
            print("--", label, len(ins))
            for i in ins:
                if not opcode(i).startswith("FFMA"):
                    print("   ", i)


if __name__ == "__main__":
    main(sys.argv[1:])
