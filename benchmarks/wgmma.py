"""bf16 GEMM on Hopper's warpgroup tensor cores (`simt.wgmma`, sm_90a) against cuBLAS in the same
process, and the generator of the SIMT example `examples/simt/gemm_wgmma.mlir`.

The kernel computes C = A @ B^T (A m x k, B n x k, both row-major bf16, so both K-major as wgmma
reads them; C m x n f32). A block of `W` warpgroups computes a `BM x BN` tile of C, each
warpgroup `chains` m64nBNk16 accumulator chains (`BM = 64 chains W`). K advances 64 at a time
through a ring of `S` stages of shared tiles filled by `cp.async` in the 128-byte swizzled form;
each step waits for its stage, synchronises, issues the copies `S - 1` steps ahead, then fences,
multiplies (4 k16 steps x chains), commits and waits for 0 groups (the window rule,
docs/safety.md). The epilogue stages each warpgroup's fragments in a padded shared tile in turn
and writes C in 16-byte chunks through tile witnesses.

The accumulators (up to 128 a thread) are too many to type, so the IR is generated here:
`python -m benchmarks.wgmma --example` rewrites the example (the default config),
`python -m benchmarks.wgmma` times every config at 4096^3 and 8192^3 beside cuBLAS
(`torch.matmul` on the same bf16 operands, bf16 out, and the same with an f32 view of the result
where cuBLAS has one) and writes `$OUT/wgmma.json`. FLOP count 2 m n k.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "simt" / "gemm_wgmma.mlir"
BK = 64
SHARED_LIMIT = 227 * 1024


@dataclass(frozen=True)
class Config:
    warpgroups: int = 1
    chains: int = 2
    bn: int = 128
    stages: int = 4
    split: bool = False
    """Each stage its own arrays and the K loop unrolled by the stage count, so the copies of
    the next stage go in the wgmma window (SIMT 8 allows a copy into an array the window does not
    read) and overlap the multiply."""

    @property
    def bm(self) -> int:
        return 64 * self.chains * self.warpgroups

    @property
    def threads(self) -> int:
        return 128 * self.warpgroups

    @property
    def stride(self) -> int:
        return self.bn + 8

    @property
    def stage_a(self) -> int:
        return self.bm * BK

    @property
    def stage_b(self) -> int:
        return self.bn * BK

    @property
    def staging(self) -> int:
        """Elements of the f32 tile one warpgroup's fragments are staged in."""
        return 64 * self.chains * self.stride

    @property
    def shared_bytes(self) -> int:
        return 2 * self.stages * (self.stage_a + self.stage_b) + 4 * self.staging

    @property
    def label(self) -> str:
        return (
            f"{self.bm}x{self.bn}, {self.warpgroups} wg x {self.chains} m64n{self.bn}, "
            f"{self.stages} stages{', split (copies overlap the wgmma)' if self.split else ''}"
        )


DEFAULT = Config()
CONFIGS = (
    Config(1, 2, 128, 4),
    Config(1, 2, 128, 3),
    Config(2, 1, 256, 3),
    Config(2, 2, 128, 3),
    Config(1, 2, 128, 4, split=True),
    Config(2, 1, 256, 3, split=True),
    Config(2, 2, 128, 3, split=True),
)


def _f32s(k: int) -> str:
    return ", ".join(["f32"] * k)


def example_text(cfg: Config = DEFAULT, name: str = "gemm_wgmma", host: bool = True) -> str:
    """The IR of the kernel for `cfg` (and, with `host`, the example's host program)."""
    assert cfg.shared_bytes <= SHARED_LIMIT, cfg
    W, H, BN, S, P = cfg.warpgroups, cfg.chains, cfg.bn, cfg.stages, cfg.threads
    BM, STRIDE = cfg.bm, cfg.stride
    acc_n = H * BN // 2  # accumulators a thread
    chain = BN // 2
    ring = 1 if cfg.split else S  # stages an A (B) array holds
    atype = f"!simt.shared<bf16, [{ring * cfg.stage_a}]>"
    btype = f"!simt.shared<bf16, [{ring * cfg.stage_b}]>"
    ctype = f"!simt.shared<f32, [{cfg.staging}]>"
    out = f"!simt.disjoint_slice<f32, tile<[{BM}, {BN}], 4, arg3>>"
    wit = f"!simt.thread_index<tile<[{BM}, {BN}], 4, arg3>>"
    rows_a, rows_b = BM * 8 // P, BN * 8 // P  # copies a thread per stage
    step = P // 8  # rows between one thread's copies
    L: list[str] = []
    add = L.append

    def issue(p: str, q: str, kt: str, stage: str, split_stage: int | None = None) -> None:
        """The copies of K tile `kt` into `stage` of the ring (or, split, into the arrays of
        stage `split_stage`, inside the caller's unsafe region), then a commit."""
        add(f"{p}%{q}kc = arith.muli {kt}, %c64 : index")
        add(f"{p}%{q}kcol = arith.addi %{q}kc, %gcol : index")
        add(f"{p}%{q}kin = arith.cmpi ult, %{q}kcol, %k : index")
        add(f"{p}%{q}kleft0 = arith.subi %k, %{q}kcol : index")
        add(f"{p}%{q}kleft = arith.select %{q}kin, %{q}kleft0, %c0 : index")
        if split_stage is None:
            add(f"{p}%{q}abase = arith.muli {stage}, %cstagea : index")
            add(f"{p}%{q}adst = arith.addi %{q}abase, %soff : index")
            add(f"{p}%{q}bbase = arith.muli {stage}, %cstageb : index")
            add(f"{p}%{q}bdst = arith.addi %{q}bbase, %soff : index")
            add(f"{p}simt.unsafe {{")
            arrays = {"a": "%as", "b": "%bs"}
        else:
            add(f"{p}%{q}adst = arith.addi %soff, %c0 : index")
            add(f"{p}%{q}bdst = arith.addi %soff, %c0 : index")
            arrays = {"a": f"%as{split_stage}", "b": f"%bs{split_stage}"}
            p = p[:-2]  # the body's indent, as if inside a region
        for x, count, base, lim, ty in (
            ("a", rows_a, "%row0", "%m", atype),
            ("b", rows_b, "%col0", "%n", btype),
        ):
            for j in range(count):
                v = f"%{q}{x}{j}"
                add(f"{p}  {v}r = arith.addi %tr, %r{j} : index")
                add(f"{p}  {v}g = arith.addi {base}, {v}r : index")
                add(f"{p}  {v}ok = arith.cmpi ult, {v}g, {lim} : index")
                add(f"{p}  {v}n = arith.select {v}ok, %{q}kleft, %c0 : index")
                add(f"{p}  {v}x = arith.muli {v}g, %k : index")
                add(f"{p}  {v}i = arith.addi {v}x, %{q}kcol : index")
                add(f"{p}  {v}d = arith.addi %{q}{x}dst, %d{j} : index")
                add(
                    f"{p}  simt.async_copy %{x}[{v}i], {v}n, {arrays[x]}[{v}d] {{width = 8}} : "
                    f"!simt.slice<bf16>, {ty}"
                )
        if split_stage is None:
            add(f"{p}  simt.yield")
            add(f"{p}}}")
            add(f"{p}simt.async_commit")
        else:
            add(f"{p}  simt.async_commit")

    def main_loop(p: str) -> None:
        add(
            f"{p}%acc:{acc_n} = scf.for %kt = %c0 to %tiles step %c1 iter_args("
            + ", ".join(f"%x{i} = %z" for i in range(acc_n))
            + f") -> ({_f32s(acc_n)}) {{"
        )
        q = p + "  "
        add(f"{q}%st = arith.remui %kt, %cstages : index")
        add(f"{q}simt.async_wait {{pending = {S - 2}}}")
        add(f"{q}simt.sync_threads")
        add(f"{q}// K tile kt + {S - 1} into the stage step kt - 1 read (every thread is past it).")
        add(f"{q}%ahead = arith.addi %kt, %cahead : index")
        add(f"{q}%ast = arith.remui %ahead, %cstages : index")
        issue(q, "q", "%ahead", "%ast")
        add(f"{q}%sa0 = arith.muli %st, %cstagea : index")
        add(f"{q}%sa = arith.addi %sa0, %wga : index")
        add(f"{q}%sb = arith.muli %st, %cstageb : index")
        add(f"{q}%d:{acc_n} = simt.unsafe -> {_f32s(acc_n)} {{")
        add(f"{q}  simt.wgmma_fence")
        src = [", ".join(f"%x{i}" for i in range(h * chain, (h + 1) * chain)) for h in range(H)]
        for s, kk in enumerate(("%c0", "%c16", "%c32", "%c48")):
            add(f"{q}  %kb{s} = arith.addi %sb, {kk} : index")
            for h in range(H):
                add(f"{q}  %ka{s}_{h}0 = arith.addi %sa, {kk} : index")
                if h:
                    add(f"{q}  %ch{s}_{h} = arith.muli %cchain, %c{h} : index")
                    add(f"{q}  %ka{s}_{h} = arith.addi %ka{s}_{h}0, %ch{s}_{h} : index")
                else:
                    add(f"{q}  %ka{s}_{h} = arith.addi %ka{s}_{h}0, %c0 : index")
                r = f"%g{s}_{h}"
                add(
                    f"{q}  {r}:{chain} = simt.wgmma %as[%ka{s}_{h}], %bs[%kb{s}], acc({src[h]}) "
                    f"{{n = {BN}}} : {atype}, {btype}"
                )
                src[h] = ", ".join(f"{r}#{i}" for i in range(chain))
        add(f"{q}  simt.wgmma_commit")
        add(f"{q}  %w:{acc_n} = simt.wgmma_wait {', '.join(src)} {{pending = 0}}")
        add(f"{q}  simt.yield " + ", ".join(f"%w#{i}" for i in range(acc_n)) + f" : {_f32s(acc_n)}")
        add(f"{q}}}")
        add(f"{q}scf.yield " + ", ".join(f"%d#{i}" for i in range(acc_n)) + f" : {_f32s(acc_n)}")
        add(f"{p}}}")

    def mma(q: str, tag: str, a_arr: str, b_arr: str, sa: str, src: list[str]) -> list[str]:
        """The 4 x chains wgmma ops of one K step on `a_arr[sa ..]` and `b_arr`."""
        for s4, kk in enumerate(("%c0", "%c16", "%c32", "%c48")):
            for h in range(H):
                add(f"{q}%ka{tag}{s4}_{h}0 = arith.addi {sa}, {kk} : index")
                add(f"{q}%ch{tag}{s4}_{h} = arith.muli %cchain, %c{h} : index")
                add(f"{q}%ka{tag}{s4}_{h} = arith.addi %ka{tag}{s4}_{h}0, %ch{tag}{s4}_{h} : index")
                r = f"%g{tag}{s4}_{h}"
                add(
                    f"{q}{r}:{chain} = simt.wgmma {a_arr}[%ka{tag}{s4}_{h}], {b_arr}[{kk}], "
                    f"acc({src[h]}) {{n = {BN}}} : {atype}, {btype}"
                )
                src[h] = ", ".join(f"{r}#{i}" for i in range(chain))
        return src

    def main_loop_split(p: str) -> None:
        for st in range(S - 1):
            add(f"{p}%pk{st} = arith.constant {st} : index")
            add(f"{p}simt.unsafe {{")
            issue(p + "    ", f"p{st}", f"%pk{st}", "", split_stage=st)
            add(f"{p}  simt.yield")
            add(f"{p}}}")
        add(
            f"{p}%acc:{acc_n} = scf.for %kbase = %c0 to %tiles step %cstages iter_args("
            + ", ".join(f"%x{i} = %z" for i in range(acc_n))
            + f") -> ({_f32s(acc_n)}) {{"
        )
        q = p + "  "
        prev = [f"%x{i}" for i in range(acc_n)]
        for st in range(S):
            nxt = (st + S - 1) % S
            add(
                f"{q}// Stage {st}: K tile kbase + {st}; its window also issues K tile kbase + "
                f"{st + S - 1} into stage {nxt}, which the step before read."
            )
            add(f"{q}%ks{st} = arith.constant {st} : index")
            add(f"{q}%kt{st} = arith.addi %kbase, %ks{st} : index")
            add(f"{q}%go{st} = arith.cmpi ult, %kt{st}, %tiles : index")
            add(f"{q}%y{st}:{acc_n} = scf.if %go{st} -> ({_f32s(acc_n)}) {{")
            r = q + "  "
            add(f"{r}simt.async_wait {{pending = {S - 2}}}")
            add(f"{r}simt.sync_threads")
            add(f"{r}%ahead{st} = arith.addi %kt{st}, %cahead : index")
            add(f"{r}%mm{st}:{acc_n} = simt.unsafe -> {_f32s(acc_n)} {{")
            u = r + "  "
            add(f"{u}simt.wgmma_fence")
            src = [", ".join(prev[h * chain : (h + 1) * chain]) for h in range(H)]
            src = mma(u, f"s{st}_", f"%as{st}", f"%bs{st}", "%wga", src)
            issue(u + "  ", f"q{st}", f"%ahead{st}", "", split_stage=nxt)
            add(f"{u}simt.wgmma_commit")
            add(f"{u}%w{st}:{acc_n} = simt.wgmma_wait {', '.join(src)} {{pending = 0}}")
            tail = ", ".join(f"%w{st}#{i}" for i in range(acc_n))
            add(f"{u}simt.yield {tail} : {_f32s(acc_n)}")
            add(f"{r}}}")
            done = ", ".join(f"%mm{st}#{i}" for i in range(acc_n))
            add(f"{r}scf.yield {done} : {_f32s(acc_n)}")
            add(f"{q}}} else {{")
            add(f"{r}scf.yield {', '.join(prev)} : {_f32s(acc_n)}")
            add(f"{q}}}")
            prev = [f"%y{st}#{i}" for i in range(acc_n)]
        add(f"{q}scf.yield {', '.join(prev)} : {_f32s(acc_n)}")
        add(f"{p}}}")

    if host:
        plural = "s" if W > 1 else ""
        header = (
            f"{name}: C = A @ B^T on Hopper's warpgroup tensor cores (sm_90a), bf16 in, f32 out. "
            "A is m x k and B is n x k, both row-major (K-major, as wgmma reads both operands); "
            f"C is m x n. A block of {P} threads ({W} warpgroup{plural}) computes a {BM} x {BN} "
            f"tile of C, each warpgroup {H} m64n{BN}k16 accumulator chain{'s' if H > 1 else ''} "
            f"({chain} f32 values a thread each). K advances {BK} at a time through a {S}-stage "
            "ring of shared tiles filled by cp.async (16-byte chunks, zero-filled past the "
            "matrix) in the 128-byte swizzled form wgmma reads: chunk j of row r lands at chunk "
            "j ^ (r % 8). Each K step waits for its stage and synchronises, issues the copies "
            f"of the step {S - 1} ahead into the stage the last step read, then multiplies: "
            "fence, wgmma, commit, wait 0 (the window rule of docs/safety.md). The epilogue "
            "stages the fragments in a padded shared tile and writes C in 16-byte chunks "
            "through tile witnesses. Generated by `python -m benchmarks.wgmma --example` (the "
            "accumulators are too many to type): regenerate rather than edit."
        )
        for line in textwrap.wrap(header, 96):
            add(f"// {line}")
    add('builtin.module attributes {"ferrox.chip" = "sm_90a"} {')
    add(f"  // doc:begin {name}")
    add(
        f"  simt.kernel @{name}(%a: !simt.slice<bf16>, %b: !simt.slice<bf16>, %c: {out}, "
        f"%m: index, %n: index, %k: index) contract<domain = 2, block = [{P}], "
        f"shared_bytes = {cfg.shared_bytes}, requires = [len(arg0) >= arg3 * arg5, "
        f"len(arg1) >= arg4 * arg5, len(arg2) == arg3 * arg4]> {{"
    )
    p = "    "
    if cfg.split:
        for x, ty in (("a", atype), ("b", btype)):
            for st in range(S):
                add(f"{p}%{x}s{st} = simt.shared_alloc {{dynamic}} : {ty}")
    else:
        add(f"{p}%as = simt.shared_alloc {{dynamic}} : {atype}")
        add(f"{p}%bs = simt.shared_alloc {{dynamic}} : {btype}")
    add(f"{p}%cs = simt.shared_alloc {{dynamic}} : {ctype}")
    add(f"{p}%z = arith.constant 0.0 : f32")
    for v in (0, 1, 4, 8, 16, 32, 48, 63, 64, 128):
        add(f"{p}%c{v} = arith.constant {v} : index")
    add(f"{p}%cbm = arith.constant {BM} : index")
    add(f"{p}%cbn = arith.constant {BN} : index")
    add(f"{p}%cstages = arith.constant {S} : index")
    add(f"{p}%cahead = arith.constant {S - 1} : index")
    add(f"{p}%cstride = arith.constant {STRIDE} : index")
    add(f"{p}%cstagea = arith.constant {cfg.stage_a} : index")
    add(f"{p}%cstageb = arith.constant {cfg.stage_b} : index")
    add(f"{p}%cwgrows = arith.constant {64 * H * BK} : index")
    add(f"{p}%cchain = arith.constant {64 * BK} : index")
    for j in range(max(rows_a, rows_b)):
        add(f"{p}%r{j} = arith.constant {step * j} : index")
        add(f"{p}%d{j} = arith.constant {step * j * BK} : index")
    add(f"""{p}%t = simt.thread_id x
{p}%wg = arith.divui %t, %c128 : index
{p}%bx = simt.block_id x
{p}%by = simt.block_id y
{p}%row0 = arith.muli %bx, %cbm : index
{p}%col0 = arith.muli %by, %cbn : index
{p}// This thread copies chunk t % 8 of rows t / 8 + {step} j of each tile; its swizzled column in
{p}// shared memory, 8 ((t % 8) ^ (t / 8 % 8)), is the same for every j.
{p}%tq = arith.remui %t, %c8 : index
{p}%tr = arith.divui %t, %c8 : index
{p}%tr8 = arith.remui %tr, %c8 : index
{p}%sw = arith.xori %tq, %tr8 : index
{p}%scol = arith.muli %sw, %c8 : index
{p}%trow = arith.muli %tr, %c64 : index
{p}%soff = arith.addi %trow, %scol : index
{p}%gcol = arith.muli %tq, %c8 : index
{p}%k63 = arith.addi %k, %c63 : index
{p}%tiles = arith.divui %k63, %c64 : index
{p}// This warpgroup's first row of A in a stage.
{p}%wga = arith.muli %wg, %cwgrows : index
{p}// The prologue: K tiles 0 .. {S - 2} into stages 0 .. {S - 2} (zeros past k).""")
    if cfg.split:
        main_loop_split(p)
    else:
        add(f"{p}scf.for %pt = %c0 to %cahead step %c1 {{")
        issue(p + "  ", "p", "%pt", "%pt")
        add(f"{p}}}")
        main_loop(p)
    add(f"{p}simt.async_wait {{pending = 0}}")
    # The epilogue, one warpgroup at a time.
    chunks = 64 * H * BN // 4 // P  # chunks a thread copies out per warpgroup
    add(f"{p}%cquads = arith.constant {BN // 4} : index")
    add(f"{p}%cchunks = arith.constant {chunks} : index")
    for w in range(W):
        add(f"{p}// The epilogue of warpgroup {w}: its fragments into the padded tile, then C.")
        if W > 1:
            add(f"{p}%cw{w} = arith.constant {w} : index")
            add(f"{p}%is{w} = arith.cmpi eq, %wg, %cw{w} : index")
            add(f"{p}scf.if %is{w} {{")
        e = p + ("  " if W > 1 else "")
        add(f"{e}simt.unsafe {{")
        for h in range(H):
            vals = ", ".join(f"%acc#{i}" for i in range(h * chain, (h + 1) * chain))
            add(f"{e}  %co{w}_{h} = arith.constant {h * 64 * STRIDE} : index")
            add(
                f"{e}  simt.wgmma_store %cs[%co{w}_{h}], {vals} {{n = {BN}, stride = {STRIDE}}} "
                f": {ctype}"
            )
        add(f"{e}  simt.yield")
        add(f"{e}}}")
        if W > 1:
            add(f"{p}}}")
        add(f"{p}simt.sync_threads")
        add(f"{p}%e0{w} = arith.constant {w * chunks} : index")
        add(f"{p}%e1{w} = arith.constant {(w + 1) * chunks} : index")
        add(f"{p}scf.for %e = %e0{w} to %e1{w} step %c1 {{")
        add(f"{p}  %wit = simt.tile_index %e dims(%m, %n) : {wit}")
        add(f"{p}  %eloc = arith.subi %e, %e0{w} : index")
        add(
            f"{p}  %ep = arith.muli %eloc, %c{P} : index"
            if P in (128,)
            else f"{p}  %cp = arith.constant {P} : index"
        )
        if P not in (128,):
            add(f"{p}  %ep = arith.muli %eloc, %cp : index")
        add(f"{p}  %ch = arith.addi %ep, %t : index")
        add(f"{p}  %er = arith.divui %ch, %cquads : index")
        add(f"{p}  %eq = arith.remui %ch, %cquads : index")
        add(f"{p}  %ec = arith.muli %eq, %c4 : index")
        add(f"{p}  %erow = arith.muli %er, %cstride : index")
        add(f"{p}  %ei = arith.addi %erow, %ec : index")
        add(f"{p}  %v:4 = simt.unsafe -> f32, f32, f32, f32 {{")
        add(
            f"{p}    %v0, %v1, %v2, %v3 = simt.shared_load_vector %cs[%ei] {{width = 4}} : "
            f"{ctype} -> f32, f32, f32, f32"
        )
        add(f"{p}    simt.yield %v0, %v1, %v2, %v3 : f32, f32, f32, f32")
        add(f"{p}  }}")
        add(f"{p}  simt.store_chunk %c[%wit], %v#0, %v#1, %v#2, %v#3 : {out}, {wit}")
        add(f"{p}}}")
        if w + 1 < W:
            add(f"{p}simt.sync_threads")
    add(f"{p}simt.return")
    add("  }")
    add("  // doc:end")
    if host:
        t2 = "!host.tensor<bf16, [?, ?]>"
        f2 = "!host.tensor<f32, [?, ?]>"
        launch_args = f"(%a, %b, %c, %m, %n, %k : {t2}, {t2}, {f2}, index, index, index)"
        ins = f"ins(%a, %b, %m, %n, %k : {t2}, {t2}, index, index, index)"
        check = (
            f'host.check %c2, "a.astype(np.float64) @ b.astype(np.float64).T" (a = %a : {t2}, '
            f"b = %b : {t2}) rtol 1.0e-04 atol 1.0e-03 : {f2}"
        )
        for line in (
            "",
            "  // The host program: sizes multiples of the tile (the kernel zero-fills past m, n",
            "  // and k, and the witnesses store only inside C: ragged sizes are safe too). B is",
            "  // given as n x k.",
            f"  func.func @main() -> {f2} {{",
            '    %m = host.param "m" = 128 : index',
            '    %n = host.param "n" = 256 : index',
            '    %k = host.param "k" = 192 : index',
            f"    %a = host.random uniform(-1.0, 1.0) seed 81 (%m, %k) : {t2}",
            f"    %b = host.random uniform(-1.0, 1.0) seed 82 (%n, %k) : {t2}",
            f"    %c = host.poison(%m, %n) : {f2}",
            "    %s = host.stream",
            f"    %cbm = arith.constant {BM} : index",
            f"    %cbn = arith.constant {BN} : index",
            f"    %cp = arith.constant {P} : index",
            "    %gx = arith.ceildivui %m, %cbm : index",
            "    %gy = arith.ceildivui %n, %cbn : index",
            f"    %p = host.prepare @{name} grid(%gx, %gy) block(%cp) args{launch_args}",
            f"    %c2 = host.launch @{name} with %p on %s {ins} outs(%c : {f2}) -> {f2}",
            "    host.sync_on %s",
            f"    {check}",
            f"    func.return %c2 : {f2}",
            "  }",
        ):
            add(line)
    add("}")
    return "\n".join(L) + "\n"


def grid(cfg: Config, m: int, n: int) -> tuple[int, int]:
    return (-(-m // cfg.bm), -(-n // cfg.bn))


def rows(sizes=(4096, 8192), configs=CONFIGS) -> list[dict]:
    """One row per (config, size): ferrox's TFLOP/s, cuBLAS's in the same process, the ratio and
    the largest error against an f32 cuBLAS product of the same bf16 operands."""
    import torch

    from benchmarks.common import bench, compile_source, launcher

    torch.backends.cuda.matmul.allow_tf32 = False
    out = []
    kernels = {}
    for cfg in configs:
        try:
            kernels[cfg] = compile_source(example_text(cfg, host=False))
        except Exception as exc:  # record and go on
            kernels[cfg] = exc
    for size in sizes:
        m = n = k = size
        g = torch.Generator(device="cuda").manual_seed(size)
        a = (torch.rand(m, k, device="cuda", generator=g) - 0.5).to(torch.bfloat16)
        b = (torch.rand(n, k, device="cuda", generator=g) - 0.5).to(torch.bfloat16)
        c = torch.empty(m, n, device="cuda")
        ref = a.float() @ b.float().T
        flops = 2 * m * n * k
        peer_ms = bench(lambda a=a, b=b: a @ b.T)
        for cfg in configs:
            row = {"config": cfg.label, "size": size, "cublas_ms": peer_ms,
                   "cublas_tflops": flops / peer_ms / 1e9}  # fmt: skip
            art = kernels[cfg]
            if isinstance(art, Exception):
                row["error"] = f"{type(art).__name__}: {art}"
                out.append(row)
                print(json.dumps(row), flush=True)
                continue
            try:
                go = launcher(art, "gemm_wgmma", [a, b, c, m, n, k], grid=grid(cfg, m, n))
                c.fill_(float("nan"))
                go()
                torch.cuda.synchronize()
                err = ((c - ref).abs().max() / ref.abs().max()).item()
                row["max_rel_err"] = err
                row["correct"] = bool(err <= 1e-4)  # f32 sums of exact bf16 products
                ms = bench(go)
                row["ms"] = ms
                row["tflops"] = flops / ms / 1e9
                row["ratio"] = peer_ms / ms
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {exc}"
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", action="store_true", help="rewrite the example and stop")
    parser.add_argument("--sizes", default="4096,8192")
    args = parser.parse_args(argv)
    if args.example:
        EXAMPLE.write_text(example_text())
        return 0
    result = rows(tuple(int(s) for s in args.sizes.split(",")))
    Path(os.environ.get("OUT", "."), "wgmma.json").write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
