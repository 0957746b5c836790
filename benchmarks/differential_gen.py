# ruff: noqa: E501 (kernel signatures in the MLIR templates are one line, as the parser prints them)
"""Random small kernels within the verifiers' rules, each with the NumPy evaluation of what it
computes (`differential.py` runs them on the interpreter and the GPU).

Kinds: `simt-int` and `simt-float` (an expression DAG over two slices, written through the
thread's disjoint witness), `gather` (loads through a computed index `(i * k + c) mod n`),
`block-reduce` (a shared-memory tree with a barrier per step, then one atomic per block),
`warp-reduce` (an xor-shuffle butterfly, one output per warp) and `tile` (an elementwise tile
kernel over a ragged length). Sizes and block shapes are random, so partial blocks and ragged
tiles come up.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

INT_OPS = [
    "addi",
    "subi",
    "muli",
    "andi",
    "ori",
    "xori",
    "minsi",
    "maxsi",
    "shli",
    "shrui",
    "shrsi",
]
FLOAT_OPS = ["addf", "subf", "mulf", "divf", "minimumf", "maximumf", "negf", "select"]


def _np_int(op: str, x: np.ndarray, y: np.ndarray, c: int) -> np.ndarray:
    u = np.uint32
    with np.errstate(all="ignore"):
        return {
            "addi": lambda: x + y,
            "subi": lambda: x - y,
            "muli": lambda: x * y,
            "andi": lambda: x & y,
            "ori": lambda: x | y,
            "xori": lambda: x ^ y,
            "minsi": lambda: np.minimum(x, y),
            "maxsi": lambda: np.maximum(x, y),
            "shli": lambda: (x.view(u) << u(c)).view(np.int32),
            "shrui": lambda: (x.view(u) >> u(c)).view(np.int32),
            "shrsi": lambda: x >> np.int32(c),
        }[op]()


def _min_max(x: np.ndarray, y: np.ndarray, smaller: bool) -> np.ndarray:
    pick = (x < y) if smaller else (x > y)
    tie = x == y
    pick |= tie & (np.signbit(x) if smaller else ~np.signbit(x))
    r = np.where(pick, x, y)
    return np.where(np.isnan(x) | np.isnan(y), np.float32("nan"), r).astype(np.float32)


def _np_float(op: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return {
            "addf": lambda: x + y,
            "subf": lambda: x - y,
            "mulf": lambda: x * y,
            "divf": lambda: x / y,
            "minimumf": lambda: _min_max(x, y, True),
            "maximumf": lambda: _min_max(x, y, False),
            "negf": lambda: -x,
            "select": lambda: np.where(x < y, x, y),
        }[op]()


@dataclass
class Case:
    name: str
    kind: str
    text: str
    run: Callable[[Any], list[np.ndarray]]
    expected: list[np.ndarray]
    exact: bool = True
    notes: dict = field(default_factory=dict)

    def judge(self, got: list[np.ndarray], want: list[np.ndarray], exact_floats: bool):
        """('exact' | 'tolerance' | 'MISMATCH', max abs difference)."""
        worst, verdict = 0.0, "exact"
        for a, b in zip(got, want):
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind == "f":
                same = (a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))
            else:
                same = a == b
            if same.all():
                continue
            if a.dtype.kind != "f" or exact_floats:
                return "MISMATCH", float(np.max(np.abs(a.astype(float) - b.astype(float))))
            with np.errstate(invalid="ignore"):
                err = np.abs(a.astype(np.float64) - b.astype(np.float64))
                ok = (err <= 1e-5 * np.abs(b.astype(np.float64)) + 1e-30) | (
                    np.isnan(a) & np.isnan(b)
                )
            worst = max(worst, float(np.nanmax(err)))
            verdict = "tolerance" if ok.all() else "MISMATCH"
            if verdict == "MISMATCH":
                return verdict, worst
        return verdict, worst


def _elementwise(rng, k: int, floating: bool) -> Case:
    t = "f32" if floating else "i32"
    n = int(rng.integers(1, 5000))
    block = int(rng.choice([32, 64, 128, 256, 96]))
    if floating:
        a = rng.uniform(-4, 4, n).astype(np.float32)
        b = rng.uniform(-4, 4, n).astype(np.float32)
        specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40], np.float32)
        for arr in (a, b):
            picks = rng.integers(0, n, max(1, n // 50))
            arr[picks] = rng.choice(specials, len(picks))
    else:
        a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
        b = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    values = [("%x", a), ("%y", b)]
    lines = []
    for j in range(int(rng.integers(1, 9))):
        op = str(rng.choice(FLOAT_OPS if floating else INT_OPS))
        (lx, x), (ly, y) = (
            values[int(rng.integers(len(values)))],
            values[int(rng.integers(len(values)))],
        )
        name = f"%v{j}"
        if floating:
            result = _np_float(op, x, y)
            if op == "negf":
                lines.append(f"{name} = arith.negf {lx} : f32")
            elif op == "select":
                lines.append(f"%c{j} = arith.cmpf olt, {lx}, {ly} : f32")
                lines.append(f"{name} = arith.select %c{j}, {lx}, {ly} : f32")
            else:
                lines.append(f"{name} = arith.{op} {lx}, {ly} : f32")
        else:
            c = int(rng.integers(0, 32))
            result = _np_int(op, x, y, c)
            if op.startswith("sh"):
                lines.append(f"%s{j} = arith.constant {c} : i32")
                lines.append(f"{name} = arith.{op} {lx}, %s{j} : i32")
            else:
                lines.append(f"{name} = arith.{op} {lx}, {ly} : i32")
        values.append((name, result))
    last, expected = values[-1]
    body = "\n      ".join(lines)
    text = f"""builtin.module {{
  simt.kernel @k(%a: !simt.slice<{t}>, %b: !simt.slice<{t}>, %out: !simt.disjoint_slice<{t}, 1d>) contract<domain = 1, block = [{block}], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<{t}, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: {t}):
      %x = simt.load %a[%i] : !simt.slice<{t}>
      %y = simt.load %b[%i] : !simt.slice<{t}>
      {body}
      simt.yield {last} : {t}
    }}
    simt.return
  }}
}}
"""

    def run(mod) -> list[np.ndarray]:
        out = np.full(n, np.nan, np.float32) if floating else np.full(n, -7, np.int32)
        mod["k"][-(-n // block), block](a, b, out)
        return [out]

    return Case(f"{k}-simt-{t}", "simt-float" if floating else "simt-int", text, run, [expected])


def _gather(rng, k: int) -> Case:
    n = int(rng.integers(1, 5000))
    block = int(rng.choice([32, 128, 256]))
    mul, add = int(rng.integers(1, 1000)), int(rng.integers(0, 1000))
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    text = f"""builtin.module {{
  simt.kernel @k(%a: !simt.slice<i32>, %out: !simt.disjoint_slice<i32, 1d>) contract<domain = 1, block = [{block}], requires = [len(arg0) >= len(arg1), len(arg0) >= 1]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %m = arith.constant {mul} : index
    %c = arith.constant {add} : index
    %n = simt.len %a : !simt.slice<i32>
    %im = arith.muli %i, %m : index
    %j0 = arith.addi %im, %c : index
    %j = arith.remui %j0, %n : index
    %v = simt.load %a[%j] : !simt.slice<i32>
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: i32):
      simt.yield %v : i32
    }}
    simt.return
  }}
}}
"""
    expected = a[(np.arange(n, dtype=np.int64) * mul + add) % n]

    def run(mod):
        out = np.full(n, -7, np.int32)
        mod["k"][-(-n // block), block](a, out)
        return [out]

    return Case(f"{k}-gather", "gather", text, run, [expected])


def _block_reduce(rng, k: int) -> Case:
    block = int(rng.choice([32, 64, 128, 256]))
    steps = block.bit_length() - 1
    n = int(rng.integers(1, 20000))
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    text = f"""builtin.module {{
  simt.kernel @k(%in: !simt.slice<i32>, %sum: !simt.atomic_slice<i32>) contract<domain = 1, block = [{block}], requires = [len(arg1) >= 1]> {{
    %tile = simt.shared_alloc : !simt.shared<i32, [{block}]>
    %zero = arith.constant 0 : i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %csteps = arith.constant {steps} : index
    %chalf = arith.constant {block // 2} : index
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %n = simt.len %in : !simt.slice<i32>
    %inb = arith.cmpi ult, %i, %n : index
    %v = scf.if %inb -> (i32) {{
      %x = simt.load %in[%i] : !simt.slice<i32>
      scf.yield %x : i32
    }} else {{
      scf.yield %zero : i32
    }}
    simt.unsafe {{
      simt.shared_store %v, %tile[%tid] : !simt.shared<i32, [{block}]>
      simt.yield
    }}
    simt.sync_threads
    scf.for %step = %c0 to %csteps step %c1 {{
      %stride = arith.shrui %chalf, %step : index
      %active = arith.cmpi ult, %tid, %stride : index
      scf.if %active {{
        %other = arith.addi %tid, %stride : index
        simt.unsafe {{
          %p = simt.shared_load %tile[%tid] : !simt.shared<i32, [{block}]>
          %q = simt.shared_load %tile[%other] : !simt.shared<i32, [{block}]>
          %s = arith.addi %p, %q : i32
          simt.shared_store %s, %tile[%tid] : !simt.shared<i32, [{block}]>
          simt.yield
        }}
      }}
      simt.sync_threads
    }}
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {{
      %total = simt.unsafe -> i32 {{
        %t = simt.shared_load %tile[%c0] : !simt.shared<i32, [{block}]>
        simt.yield %t : i32
      }}
      %old = simt.atomic_add %sum[%c0], %total : !simt.atomic_slice<i32>
    }}
    simt.return
  }}
}}
"""
    expected = np.array([x.astype(np.int64).sum() & 0xFFFFFFFF], np.uint32).view(np.int32)

    def run(mod):
        out = np.zeros(1, np.int32)
        mod["k"][-(-n // block), block](x, out)
        return [out]

    return Case(f"{k}-block-reduce-{block}", "block-reduce", text, run, [expected])


def _warp_reduce(rng, k: int) -> Case:
    n = int(rng.integers(1, 20000))
    x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    offsets = "\n    ".join(
        f"%o{s} = arith.constant {s} : i32\n    %s{s} = simt.shuffle xor %v{2 * s}, %o{s} : i32\n"
        f"    %v{s} = arith.addi %v{2 * s}, %s{s} : i32"
        for s in (16, 8, 4, 2, 1)
    )
    text = f"""builtin.module {{
  simt.kernel @k(%in: !simt.slice<i32>, %out: !simt.disjoint_slice<i32, warp>) contract<domain = 1, block = [128]> {{
    %zero = arith.constant 0 : i32
    %bid = simt.block_id x
    %bdim = simt.block_dim x
    %tid = simt.thread_id x
    %base = arith.muli %bid, %bdim : index
    %i = arith.addi %base, %tid : index
    %n = simt.len %in : !simt.slice<i32>
    %inb = arith.cmpi ult, %i, %n : index
    %v32 = scf.if %inb -> (i32) {{
      %x = simt.load %in[%i] : !simt.slice<i32>
      scf.yield %x : i32
    }} else {{
      scf.yield %zero : i32
    }}
    {offsets}
    %w = simt.warp_index
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, warp>, !simt.thread_index<warp> {{
    ^bb0(%old: i32):
      simt.yield %v1 : i32
    }}
    simt.return
  }}
}}
"""
    warps = -(-n // 32)
    padded = np.zeros(warps * 32, np.int64)
    padded[:n] = x
    expected = (padded.reshape(warps, 32).sum(axis=1) & 0xFFFFFFFF).astype(np.uint32).view(np.int32)

    def run(mod):
        out = np.full(warps, -7, np.int32)
        mod["k"][-(-n // 128), 128](x, out)
        return [out]

    return Case(f"{k}-warp-reduce", "warp-reduce", text, run, [expected])


def _tile(rng, k: int) -> Case:
    floating = bool(rng.integers(2))
    t = "f32" if floating else "i32"
    size = int(rng.choice([64, 128, 256, 1024]))
    n = int(rng.integers(1, 6000))
    if floating:
        x = rng.uniform(-4, 4, n).astype(np.float32)
        y = rng.uniform(-4, 4, n).astype(np.float32)
    else:
        x = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
        y = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    tt = f"!tile.tile<{t}, [{size}]>"
    values = [("%a", x), ("%b", y)]
    lines = []
    ops = {
        "add": "addf",
        "sub": "subf",
        "mul": "mulf",
        "maximum": "maximumf",
        "minimum": "minimumf",
    }
    for j in range(int(rng.integers(1, 6))):
        op = str(rng.choice(list(ops)))
        (lx, vx), (ly, vy) = (
            values[int(rng.integers(len(values)))],
            values[int(rng.integers(len(values)))],
        )
        if floating:
            result = _np_float(ops[op], vx, vy)
        else:
            int_op = {
                "add": "addi",
                "sub": "subi",
                "mul": "muli",
                "maximum": "maxsi",
                "minimum": "minsi",
            }
            result = _np_int(int_op[op], vx, vy, 0)
        lines.append(f"%v{j} = tile.{op} {lx}, {ly} : {tt}")
        values.append((f"%v{j}", result))
    last, expected = values[-1]
    body = "\n    ".join(lines)
    part = f"!tile.partition<{t}, [{size}]>"
    tensor = f"!tile.tensor<{t}, [?]>"
    text = f"""builtin.module {{
  tile.kernel @k(%z: {part}, %x: {tensor}, %y: {tensor}) {{
    %a = tile.load_like %x, %z : {tensor}, {part} -> {tt}
    %b = tile.load_like %y, %z : {tensor}, {part} -> {tt}
    {body}
    tile.store {last}, %z : {tt}, {part}
    tile.return
  }}
}}
"""

    def run(mod):
        z = np.full(n, np.nan, np.float32) if floating else np.full(n, -7, np.int32)
        mod["k"](z, x, y)
        return [z]

    return Case(f"{k}-tile-{t}-{size}", "tile", text, run, [expected])


def generate(rng: np.random.Generator, k: int) -> Case:
    kind = k % 6  # every kind in turn; sizes, shapes and expressions are random
    if kind == 0:
        return _elementwise(rng, k, False)
    if kind == 1:
        return _elementwise(rng, k, True)
    if kind == 2:
        return _gather(rng, k)
    if kind == 3:
        return _block_reduce(rng, k)
    if kind == 4:
        return _warp_reduce(rng, k)
    return _tile(rng, k)
