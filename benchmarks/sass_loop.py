"""The instruction mix of a kernel's main loop in SASS: what one iteration of its hottest path
issues (docs/performance.md, "Tile f32 GEMM").

    nvdisasm -c KERNEL.cubin > KERNEL.sass     # nvdisasm: PyPI's nvidia-cuda-nvdisasm
    python -m benchmarks.sass_loop KERNEL.sass [-v] [--key=MUFU]

The loop is the one around the basic block with the most FFMA (`--key=MUFU`: the most `MUFU`,
the fused attention's softmax block); its hot path is the shortest
path, in instructions, from the loop's header to the block that branches back to it (the
paths a whole-tile GEMM block takes are the short ones: the checked paths are longer). Printed:
the path's instructions, its FFMA share and the count of every other opcode; `-v` lists the
path's blocks and their non-FFMA instructions. From `nvdisasm -hex -c` output (sm_70 and later
encodings) also the path's static stall cycles (the sum of ptxas's stall counts, bits 105-108
of each instruction: the cycles a warp waits before its next issue, besides the dynamic waits
on loads and barriers) and its FFMAs whose two or three fetched sources (no `.reuse`) share a
register bank under a two-bank model (register number mod 2; a model, not a documented rule).
"""

from __future__ import annotations

import heapq
import re
import sys
from collections import Counter

_LABEL = re.compile(r"^(\.L_x_\d+):")
_INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(.*?)\s*;")
_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
_HIGH_WORD = re.compile(r"^\s+/\* (0x[0-9a-f]{16}) \*/\s*$")
_REGISTER = re.compile(r"-?\|?R(\d+)(\.reuse)?")


def opcode(instruction: str) -> str:
    """`FFMA` of `@P0 FFMA R1, ...`, `BRA.DIV` of `BRA.DIV UR4, ...`."""
    body = instruction.split(None, 1)[1] if instruction.startswith("@") else instruction
    return body.split()[0]


def blocks(text: str) -> list[dict]:
    """The basic blocks of `text` (`nvdisasm -c` output of one kernel): label, instructions,
    successors (block indices)."""
    out: list[dict] = [{"label": None, "ins": [], "succ": [], "ctl": []}]
    last: dict | None = None  # the block of the last instruction (`-hex`: its high word follows)
    for line in text.splitlines():
        m = _LABEL.match(line)
        if m:
            if out[-1]["ins"] or out[-1]["label"]:
                out.append({"label": None, "ins": [], "succ": [], "ctl": []})
            out[-1]["label"] = m.group(1)
            continue
        h = _HIGH_WORD.match(line)
        if h is not None and last is not None:
            last["ctl"][-1] = int(h.group(1), 16) >> 41  # the control bits, 105-127
            continue
        m = _INSTRUCTION.match(line)
        if m is None:
            continue
        last = out[-1]
        last["ins"].append(m.group(1))
        last["ctl"].append(None)
        if opcode(m.group(1)).startswith(("BRA", "EXIT", "RET", "BRX", "JMP")):
            out.append({"label": None, "ins": [], "succ": [], "ctl": []})
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


def hot_path(bs: list[dict], key: str = "FFMA") -> list[int]:
    """The blocks of the hottest loop's shortest iteration (module docstring); the hot block is
    the one with the most instructions of opcode `key` (`MUFU` for the fused attention)."""
    ffma = [sum(opcode(i).startswith(key) for i in b["ins"]) for b in bs]
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


def mix(
    text: str, key: str = "FFMA"
) -> tuple[int, Counter[str], list[tuple[str | None, list[str]]]]:
    """(instructions, count by opcode without modifiers, the path's blocks) of `text`'s hot
    path (`hot_path`'s `key`)."""
    bs = blocks(text)
    path = hot_path(bs, key)
    ins = [i for k in path for i in bs[k]["ins"]]
    return (
        len(ins),
        Counter(opcode(i).split(".")[0] for i in ins),
        [(bs[k]["label"], bs[k]["ins"]) for k in path],
    )


def stalls(text: str, key: str = "FFMA") -> int | None:
    """The hot path's static stall cycles (module docstring); None without `-hex` output."""
    bs = blocks(text)
    ctl = [c for k in hot_path(bs, key) for c in bs[k]["ctl"]]
    return None if None in ctl else sum(c & 0xF for c in ctl)


def bank_pairs(text: str, key: str = "FFMA") -> tuple[int, int]:
    """(FFMAs of the hot path with two fetched sources in one bank, with three): the two-bank
    model of the module docstring."""
    bs = blocks(text)
    two = three = 0
    for ins in (i for k in hot_path(bs, key) for i in bs[k]["ins"]):
        if not opcode(ins).startswith("FFMA"):
            continue
        sources = [s.strip() for s in ins.split(None, 1)[1].split(",")][1:4]
        fetched = set()
        for src in sources:
            m = _REGISTER.match(src)
            if m and not m.group(2) and m.group(1) != "Z":
                fetched.add(int(m.group(1)))
        banks = [r % 2 for r in fetched]
        most = max(banks.count(0), banks.count(1))
        two += most >= 2
        three += most == 3
    return two, three


def main(argv: list[str]) -> None:
    text = open(argv[0]).read()
    key = next((a.split("=", 1)[1] for a in argv if a.startswith("--key=")), "FFMA")
    n, counts, path = mix(text, key)
    rest = ", ".join(f"{op} {c}" for op, c in counts.most_common() if op != "FFMA")
    print(f"{argv[0]}: {n} instructions, FFMA {counts['FFMA']} ({counts['FFMA'] / n:.1%}); {rest}")
    two, three = bank_pairs(text, key)
    cycles = stalls(text, key)
    static = f"static stall cycles {cycles}; " if cycles is not None else ""
    print(f"  {static}FFMA with 2 / 3 fetched sources in one bank: {two} / {three}")
    if "-v" in argv:
        for label, ins in path:
            print("--", label, len(ins))
            for i in ins:
                if not opcode(i).startswith("FFMA"):
                    print("   ", i)


if __name__ == "__main__":
    main(sys.argv[1:])
