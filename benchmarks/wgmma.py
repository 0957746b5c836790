"""bf16 GEMM on Hopper's warpgroup tensor cores (`simt.wgmma`, sm_90a) against cuBLAS in the same
process, and the generator of the SIMT example `examples/simt/gemm_wgmma.mlir`.

The kernel computes C = A @ B^T (A m x k, B n x k, both row-major bf16, so both K-major as wgmma
reads them; C m x n f32). A block of `W` warpgroups computes a `BM x BN` tile of C, each
warpgroup `chains` m64nBNk16 accumulator chains (`BM = 64 chains W`). K advances 64 at a time
through `S` stages of shared tiles filled by `cp.async` in the 128-byte swizzled form, each stage
its own `simt.shared_alloc` (or, `split=False`, one ring array); the K loop is unrolled by `S`
so every stage is named statically. Each step waits for its stage, synchronises, fences,
multiplies (4 k16 steps x chains), commits, issues the copies `S - 1 - pending` steps ahead into
the stage every warpgroup has retired, and waits until at most `pending` groups are pending:
with `pending` >= 1 the multiply runs on into the next step, its accumulators carried through
the loop in flight and retired after it (SIMT 8, docs/safety.md). The epilogue stages each
accumulator chain in a padded shared tile in turn and writes C in 16-byte chunks through tile
witnesses.

The accumulators (up to 128 a thread) are too many to type, so the IR is generated here:
`python -m benchmarks.wgmma --example` rewrites the example (the default config),
`python -m benchmarks.wgmma` checks every config on NaN-poisoned outputs (ragged sizes and
misaligned rows included), times it at 4096^3 and 8192^3 beside cuBLAS (`torch.matmul` on the
same bf16 operands), prints a compact table with ptxas's wgmma notes and writes
`$OUT/wgmma.json`. FLOP count 2 m n k.
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
    warpgroups: int = 2
    chains: int = 1
    bn: int = 256
    stages: int = 3
    split: bool = True
    """Each stage its own `simt.shared_alloc` (else one ring array, stage `s` at `s` times the
    stage size). SIMT 8 tells tiles apart by allocation, so only split stages may be refilled
    while a group reading another stage is in flight."""
    pending: int = 1
    """The wait at the end of each K step: 0 retires the step's group (nothing overlaps the next
    step), 1 (or more) leaves the newest groups running into the next steps (needs split
    stages)."""
    unroll: bool = False
    """The epilogue's copy-out of each staged chain unrolled, its shared loads before its
    stores (else a loop of one load and one store)."""

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
    def ahead(self) -> int:
        """How many K tiles the copies run ahead: the stage refilled in step kt is the one step
        kt - 1 - pending read, whose group every warpgroup retired before this step's barrier."""
        return self.stages - 1 - self.pending

    @property
    def stage_a(self) -> int:
        return self.bm * BK

    @property
    def stage_b(self) -> int:
        return self.bn * BK

    @property
    def staging(self) -> int:
        """Elements of the f32 tile one accumulator chain's fragments are staged in."""
        return 64 * self.stride

    @property
    def shared_bytes(self) -> int:
        return 2 * self.stages * (self.stage_a + self.stage_b) + 4 * self.staging

    @property
    def label(self) -> str:
        ring = "split stages" if self.split else "one ring array"
        return (
            f"{self.bm}x{self.bn}, {self.warpgroups} wg x {self.chains} m64n{self.bn}, "
            f"{self.stages} stages ({ring}), wait {self.pending}"
            + (", unrolled epilogue" if self.unroll else "")
        )


DEFAULT = Config()
CONFIGS = (
    Config(2, 1, 256, 3, split=False, pending=0),  # the previous best's schedule
    Config(2, 2, 128, 3, split=False, pending=0),
    Config(2, 1, 256, 3),
    Config(2, 2, 128, 4),
    Config(2, 2, 128, 3),
    Config(2, 1, 128, 6),
    Config(2, 1, 128, 5),
    Config(1, 2, 128, 5),
    Config(2, 2, 128, 4, pending=0),
    Config(2, 1, 256, 3, pending=0),
    Config(2, 1, 128, 6, pending=2),  # two groups in flight, copies 3 tiles ahead
)


def _f32s(k: int) -> str:
    return ", ".join(["f32"] * k)


def example_text(cfg: Config = DEFAULT, name: str = "gemm_wgmma", host: bool = True) -> str:
    """The IR of the kernel for `cfg` (and, with `host`, the example's host program)."""
    assert cfg.shared_bytes <= SHARED_LIMIT, cfg
    assert cfg.ahead >= 1, cfg
    W, H, BN, S, P = cfg.warpgroups, cfg.chains, cfg.bn, cfg.stages, cfg.threads
    BM, STRIDE, D = cfg.bm, cfg.stride, cfg.ahead
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

    def arrays(stage: int) -> tuple[str, str, str, str]:
        """A's and B's array for `stage` and the offset constants of the stage in them."""
        if cfg.split:
            return f"%as{stage}", f"%bs{stage}", "%c0", "%c0"
        return "%as", "%bs", f"%soa{stage}", f"%sob{stage}"

    def issue(p: str, q: str, kt: str, stage: int) -> None:
        """The copies of K tile `kt` into `stage` (zeros past the matrix), then a commit; inside
        the caller's unsafe region."""
        a_arr, b_arr, a_off, b_off = arrays(stage)
        add(f"{p}%{q}kc = arith.muli {kt}, %c64 : index")
        add(f"{p}%{q}kcol = arith.addi %{q}kc, %gcol : index")
        add(f"{p}%{q}kin = arith.cmpi ult, %{q}kcol, %k : index")
        add(f"{p}%{q}kleft0 = arith.subi %k, %{q}kcol : index")
        add(f"{p}%{q}kleft = arith.select %{q}kin, %{q}kleft0, %c0 : index")
        add(f"{p}%{q}adst = arith.addi %soff, {a_off} : index")
        add(f"{p}%{q}bdst = arith.addi %soff, {b_off} : index")
        for x, count, base, lim, ty, arr in (
            ("a", rows_a, "%row0", "%m", atype, a_arr),
            ("b", rows_b, "%col0", "%n", btype, b_arr),
        ):
            for j in range(count):
                v = f"%{q}{x}{j}"
                add(f"{p}{v}r = arith.addi %tr, %r{j} : index")
                add(f"{p}{v}g = arith.addi {base}, {v}r : index")
                add(f"{p}{v}ok = arith.cmpi ult, {v}g, {lim} : index")
                add(f"{p}{v}n = arith.select {v}ok, %{q}kleft, %c0 : index")
                if j == 0:
                    add(f"{p}{v}x = arith.muli {v}g, %k : index")
                    add(f"{p}{v}i = arith.addi {v}x, %{q}kcol : index")
                else:  # a chain through the step's column: one row base held, not one a row
                    add(f"{p}{v}i = arith.addi %{q}{x}{j - 1}i, %stepk : index")
                add(f"{p}{v}d = arith.addi %{q}{x}dst, %d{j} : index")
                add(
                    f"{p}simt.async_copy %{x}[{v}i], {v}n, {arr}[{v}d] {{width = 8}} : "
                    f"!simt.slice<bf16>, {ty}"
                )
        add(f"{p}simt.async_commit")

    def mma(q: str, st: int, src: list[str]) -> list[str]:
        """The 4 x chains wgmma ops of one K step on `stage` st."""
        a_arr, b_arr, a_off, b_off = arrays(st)
        add(f"{q}%sa{st} = arith.addi %wga, {a_off} : index")
        for s4, kk in enumerate(("%c0", "%c16", "%c32", "%c48")):
            add(f"{q}%kb{st}_{s4} = arith.addi {b_off}, {kk} : index")
            for h in range(H):
                t = f"{st}_{s4}_{h}"
                add(f"{q}%ka{t}0 = arith.addi %sa{st}, {kk} : index")
                add(f"{q}%ka{t} = arith.addi %ka{t}0, %ch{h} : index")
                r = f"%g{t}"
                add(
                    f"{q}{r}:{chain} = simt.wgmma {a_arr}[%ka{t}], {b_arr}[%kb{st}_{s4}], "
                    f"acc({src[h]}) {{n = {BN}}} : {atype}, {btype}"
                )
                src[h] = ", ".join(f"{r}#{i}" for i in range(chain))
        return src

    def main_loop(p: str) -> None:
        add(f"{p}// The prologue: K tiles 0 .. {D - 1} into stages 0 .. {D - 1}.")
        add(f"{p}simt.unsafe {{")
        for st in range(D):
            issue(p + "  ", f"p{st}", f"%c{st}", st)
        add(f"{p}  simt.yield")
        add(f"{p}}}")
        result = "%acc" if cfg.pending == 0 else "%inflight"
        add(
            f"{p}{result}:{acc_n} = scf.for %kbase = %c0 to %kend step %cstages iter_args("
            + ", ".join(f"%x{i} = %z" for i in range(acc_n))
            + f") -> ({_f32s(acc_n)}) {{"
        )
        q = p + "  "
        prev = [f"%x{i}" for i in range(acc_n)]
        for st in range(S):
            nxt = (st + D) % S
            add(
                f"{q}// Step {st}: K tile kbase + {st} from stage {st}; K tile kbase + {st + D} "
                f"into stage {nxt}, which step kbase + {st + D - S} read."
            )
            add(f"{q}%kt{st} = arith.addi %kbase, %c{st} : index")
            add(f"{q}%ahead{st} = arith.addi %kt{st}, %cahead : index")
            add(f"{q}simt.async_wait {{pending = {D - 1}}}")
            add(f"{q}simt.sync_threads")
            add(f"{q}%mm{st}:{acc_n} = simt.unsafe -> {_f32s(acc_n)} {{")
            u = q + "  "
            if not cfg.split:  # the refill writes the ring array the multiply reads: before it
                issue(u, f"q{st}", f"%ahead{st}", nxt)
            add(f"{u}simt.wgmma_fence")
            src = [", ".join(prev[h * chain : (h + 1) * chain]) for h in range(H)]
            src = mma(u, st, src)
            add(f"{u}simt.wgmma_commit")
            if cfg.split:  # another allocation: the copies overlap the multiply
                issue(u, f"q{st}", f"%ahead{st}", nxt)
            add(f"{u}%w{st}:{acc_n} = simt.wgmma_wait {', '.join(src)} {{pending = {cfg.pending}}}")
            tail = ", ".join(f"%w{st}#{i}" for i in range(acc_n))
            add(f"{u}simt.yield {tail} : {_f32s(acc_n)}")
            add(f"{q}}}")
            prev = [f"%mm{st}#{i}" for i in range(acc_n)]
        add(f"{q}scf.yield {', '.join(prev)} : {_f32s(acc_n)}")
        add(f"{p}}}")
        if cfg.pending:
            add(f"{p}// The last group retired: the accumulators are ordinary values from here.")
            add(
                f"{p}%acc:{acc_n} = simt.wgmma_wait "
                + ", ".join(f"%inflight#{i}" for i in range(acc_n))
                + " {pending = 0}"
            )

    def staged_load(p: str, y: str) -> None:
        """`%v{y}:4`, chunk `%ch{y}` of the staged chain (row `ch / (BN / 4)`, its quad `ch %
        (BN / 4)` in the padded tile)."""
        add(f"{p}%er{y} = arith.divui %ch{y}, %cquads : index")
        add(f"{p}%eq{y} = arith.remui %ch{y}, %cquads : index")
        add(f"{p}%ec{y} = arith.muli %eq{y}, %c4 : index")
        add(f"{p}%erow{y} = arith.muli %er{y}, %cstride : index")
        add(f"{p}%ei{y} = arith.addi %erow{y}, %ec{y} : index")
        add(f"{p}%v{y}:4 = simt.unsafe -> f32, f32, f32, f32 {{")
        add(
            f"{p}  %v0, %v1, %v2, %v3 = simt.shared_load_vector %cs[%ei{y}] {{width = 4}} : "
            f"{ctype} -> f32, f32, f32, f32"
        )
        add(f"{p}  simt.yield %v0, %v1, %v2, %v3 : f32, f32, f32, f32")
        add(f"{p}}}")

    def unrolled_copy(p: str, x: int, chunks: int) -> None:
        """Copy-out of staged chain `x` unrolled: every shared load first, then the stores
        (the loop form waits for each load before its store)."""
        for j in range(chunks):
            y = f"{x}_{j}"
            add(f"{p}%ce{y} = arith.constant {j * P} : index")
            add(f"{p}%ch{y} = arith.addi %ce{y}, %t : index")
            staged_load(p, y)
        for j in range(chunks):
            y = f"{x}_{j}"
            add(f"{p}%e{y} = arith.constant {x * chunks + j} : index")
            add(f"{p}%wit{y} = simt.tile_index %e{y} dims(%m, %n) : {wit}")
            add(
                f"{p}simt.store_chunk %c[%wit{y}], %v{y}#0, %v{y}#1, %v{y}#2, %v{y}#3 : "
                f"{out}, {wit}"
            )

    if host:
        plural = "s" if W > 1 else ""
        header = (
            f"{name}: C = A @ B^T on Hopper's warpgroup tensor cores (sm_90a), bf16 in, f32 out. "
            "A is m x k and B is n x k, both row-major (K-major, as wgmma reads both operands); "
            f"C is m x n. A block of {P} threads ({W} warpgroup{plural}) computes a {BM} x {BN} "
            f"tile of C, each warpgroup {H} m64n{BN}k16 accumulator chain{'s' if H > 1 else ''} "
            f"({chain} f32 values a thread each). K advances {BK} at a time through {S} stages "
            f"of shared tiles, {'each its own allocation' if cfg.split else 'in one ring array'}"
            ", filled by cp.async (16-byte chunks, zero-filled past the matrix) in the 128-byte "
            "swizzled form wgmma reads: chunk j of row r lands at chunk j ^ (r % 8). The K loop "
            f"is unrolled by the stage count, so every stage is named statically. Each K step "
            "waits for its stage and synchronises, then fences, multiplies and commits, issues "
            f"the copies of the K tile {D} ahead into the stage whose group every warpgroup has "
            f"retired, and waits until at most {cfg.pending} of its groups are pending: "
            + (
                "the multiply runs on while the next step's copies and wgmma ops are issued, "
                "its accumulators carried through the loop in flight and retired by one wait "
                "after it (SIMT 8, docs/safety.md). "
                if cfg.pending
                else "nothing overlaps the next step (SIMT 8, docs/safety.md). "
            )
            + "The epilogue stages each accumulator chain in a padded shared tile in turn and "
            "writes C in 16-byte chunks through tile witnesses. Generated by `python -m "
            "benchmarks.wgmma --example` (the accumulators are too many to type): regenerate "
            "rather than edit."
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
                add(f"{p}%{x}s{st} = simt.shared_alloc {{dynamic, align = 1024}} : {ty}")
    else:
        add(f"{p}%as = simt.shared_alloc {{dynamic, align = 1024}} : {atype}")
        add(f"{p}%bs = simt.shared_alloc {{dynamic, align = 1024}} : {btype}")
    add(f"{p}%cs = simt.shared_alloc {{dynamic}} : {ctype}")
    add(f"{p}%z = arith.constant 0.0 : f32")
    for v in sorted({0, 1, 4, 8, 16, 32, 48, 63, 64, 128, *range(S)}):
        add(f"{p}%c{v} = arith.constant {v} : index")
    add(f"{p}%cbm = arith.constant {BM} : index")
    add(f"{p}%cbn = arith.constant {BN} : index")
    add(f"{p}%cstages = arith.constant {S} : index")
    add(f"{p}%cstagesm1 = arith.constant {S - 1} : index")
    add(f"{p}%cahead = arith.constant {D} : index")
    add(f"{p}%cstride = arith.constant {STRIDE} : index")
    add(f"{p}%cwgrows = arith.constant {64 * H * BK} : index")
    for h in range(H):
        add(f"{p}%ch{h} = arith.constant {64 * BK * h} : index")
    if not cfg.split:
        for st in range(S):
            add(f"{p}%soa{st} = arith.constant {st * cfg.stage_a} : index")
            add(f"{p}%sob{st} = arith.constant {st * cfg.stage_b} : index")
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
{p}%cstep = arith.constant {step} : index
{p}%stepk = arith.muli %cstep, %k : index
{p}%k63 = arith.addi %k, %c63 : index
{p}%tiles = arith.divui %k63, %c64 : index
{p}// The K loop runs whole rounds of stages: the steps past the last K tile multiply zeros.
{p}%tiles1 = arith.addi %tiles, %cstagesm1 : index
{p}%rounds = arith.divui %tiles1, %cstages : index
{p}%kend = arith.muli %rounds, %cstages : index
{p}// This warpgroup's first row of A in a stage.
{p}%wga = arith.muli %wg, %cwgrows : index""")
    main_loop(p)
    add(f"{p}simt.async_wait {{pending = 0}}")
    # The epilogue, one accumulator chain at a time.
    chunks = 64 * BN // 4 // P  # chunks a thread copies out per chain
    add(f"{p}%cquads = arith.constant {BN // 4} : index")
    add(f"{p}%cp = arith.constant {P} : index")
    for w in range(W):
        if W > 1:
            add(f"{p}%cw{w} = arith.constant {w} : index")
            add(f"{p}%is{w} = arith.cmpi eq, %wg, %cw{w} : index")
        for h in range(H):
            x = w * H + h
            add(
                f"{p}// The epilogue of chain {h} of warpgroup {w}: its fragments into the "
                "padded tile, then C."
            )
            if x:
                add(f"{p}simt.sync_threads")
            if W > 1:
                add(f"{p}scf.if %is{w} {{")
            e = p + ("  " if W > 1 else "")
            vals = ", ".join(f"%acc#{i}" for i in range(h * chain, (h + 1) * chain))
            add(f"{e}simt.unsafe {{")
            add(f"{e}  simt.wgmma_store %cs[%c0], {vals} {{n = {BN}, stride = {STRIDE}}} : {ctype}")
            add(f"{e}  simt.yield")
            add(f"{e}}}")
            if W > 1:
                add(f"{p}}}")
            add(f"{p}simt.sync_threads")
            if cfg.unroll:
                unrolled_copy(p, x, chunks)
                continue
            add(f"{p}%e0_{x} = arith.constant {x * chunks} : index")
            add(f"{p}%e1_{x} = arith.constant {(x + 1) * chunks} : index")
            add(f"{p}scf.for %e = %e0_{x} to %e1_{x} step %c1 {{")
            add(f"{p}  %wit = simt.tile_index %e dims(%m, %n) : {wit}")
            add(f"{p}  %eloc = arith.subi %e, %e0_{x} : index")
            add(f"{p}  %ep = arith.muli %eloc, %cp : index")
            add(f"{p}  %ch = arith.addi %ep, %t : index")
            staged_load(p + "  ", "")
            add(f"{p}  simt.store_chunk %c[%wit], %v#0, %v#1, %v#2, %v#3 : {out}, {wit}")
            add(f"{p}}}")
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


def checked(art, name: str, args: list, grid_: tuple[int, int], ref) -> tuple:
    """The launch of `name` with `args` (`benchmarks.common.launcher`), after one run on the
    output `args[2]` poisoned with NaN: (launch, its largest error relative to `ref`'s largest
    magnitude and whether that is within f32 sums of exact products)."""
    import torch

    from benchmarks.common import launcher

    go = launcher(art, name, args, grid=grid_)
    args[2].fill_(float("nan"))
    go()
    torch.cuda.synchronize()
    err = ((args[2] - ref).abs().max() / ref.abs().max()).item()
    return go, {"max_rel_err": err, "correct": bool(err <= 1e-4)}


RAGGED = ((1030, 1050, 1000), (300, 200, 1001))
"""Sizes checked, not timed: ragged edges, and rows that are not 16-byte aligned (k = 1001)."""


def _compile(cfg: Config) -> tuple[str, str]:
    """(artifact JSON or an error line, ptxas's wgmma notes) for `cfg`, in a worker process."""
    from benchmarks.common import compile_source
    from ferrox.targets.toolchain import find_ptxas, run_ptxas

    try:
        art = compile_source(example_text(cfg, host=False))
    except Exception as exc:  # record and go on
        return f"error: {type(exc).__name__}: {exc}", ""
    notes = ""
    if find_ptxas() is not None:
        log = run_ptxas(art.ptx, "sm_90a").log
        notes = " ".join(
            line.split(")")[0].split("(")[-1] for line in log.splitlines() if "C75" in line
        )
    return art.to_json(), notes


def rows(sizes=(4096, 8192), configs=CONFIGS) -> list[dict]:
    """One row per (config, size): ferrox's TFLOP/s, cuBLAS's in the same process, the ratio and
    the largest error against an f32 product of the same bf16 operands (checked on a
    NaN-poisoned output before timing). The configs compile in parallel processes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    import torch

    from benchmarks.common import bench
    from ferrox.artifact import ModuleArtifact

    torch.backends.cuda.matmul.allow_tf32 = False
    out = []
    kernels: dict[Config, object] = {}
    notes: dict[Config, str] = {}
    context = multiprocessing.get_context("fork")  # before CUDA starts
    with ProcessPoolExecutor(min(len(configs), os.cpu_count() or 1), mp_context=context) as pool:
        for cfg, (text, note) in zip(configs, pool.map(_compile, configs), strict=True):
            kernels[cfg] = text if text.startswith("error:") else ModuleArtifact.from_json(text)
            notes[cfg] = note
    for m, n, k in RAGGED:  # correctness only: edges, and k = 1001 (misaligned rows)
        g = torch.Generator(device="cuda").manual_seed(k)
        a = (torch.rand(m, k, device="cuda", generator=g) - 0.5).to(torch.bfloat16)
        b = (torch.rand(n, k, device="cuda", generator=g) - 0.5).to(torch.bfloat16)
        c = torch.empty(m, n, device="cuda")
        ref = a.float() @ b.float().T
        for cfg in configs:
            art = kernels[cfg]
            if isinstance(art, str):
                continue
            row = {"config": cfg.label, "size": f"{m}x{n}x{k}", "ptxas": notes[cfg]}
            try:
                row.update(checked(art, "gemm_wgmma", [a, b, c, m, n, k], grid(cfg, m, n), ref)[1])
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {exc}"
            out.append(row)
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
                   "cublas_tflops": flops / peer_ms / 1e9, "ptxas": notes[cfg]}  # fmt: skip
            art = kernels[cfg]
            if isinstance(art, str):
                row["error"] = art
                out.append(row)
                continue
            try:
                go, facts = checked(art, "gemm_wgmma", [a, b, c, m, n, k], grid(cfg, m, n), ref)
                row.update(facts)
                ms = bench(go)
                row["ms"] = ms
                row["tflops"] = flops / ms / 1e9
                row["ratio"] = peer_ms / ms
            except Exception as exc:
                row["error"] = f"{type(exc).__name__}: {exc}"
            out.append(row)
    return out


def table(result: list[dict]) -> str:
    """The rows as a compact text table (one line per config and size)."""
    lines = []
    for r in result:
        if "error" in r:
            lines.append(f"{r['size']} {r['config']}: {r['error'][:300]}")
            continue
        if "tflops" not in r:
            ok = "ok" if r["correct"] else "WRONG"
            lines.append(f"{r['size']} err {r['max_rel_err']:.1e} {ok} | {r['config']}")
            continue
        lines.append(
            f"{r['size']:5d} {r['tflops']:6.1f} TF/s {r['ratio']:.3f} of cuBLAS "
            f"({r['cublas_tflops']:.1f}) err {r['max_rel_err']:.1e} "
            f"{'ok' if r['correct'] else 'WRONG'} | {r['config']} {r['ptxas']}"
        )
    return "\n".join(lines)


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
    print(table(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
