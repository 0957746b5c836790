"""Variants of the SIMT SGEMM with 8 x 8 register micro-tiles (`examples/simt/sgemm_micro.mlir`)
for tuning its inner loop, as IR text for `benchmarks.common.compile_source`.

- `xvec` (0, 2 or 4): a thread's x values for `xvec` k at once, one `shared_load_vector` a row
  (x rows are padded to 20 floats, so a row's 4 k values are 16-byte aligned), where the example
  (0) reads one f32 a row per k: 8 / xvec x loads a k in place of 8.
- `yperm`: a stage of y is stored with its 4-column groups permuted, so that the 16 threads of
  a half warp read 16 consecutive 16-byte groups (a thread's columns 8c .. 8c + 3 at 4c, and
  8c + 4 .. 8c + 7 at 64 + 4c), where the example's layout has them 32 bytes apart (two
  threads of a quarter warp on the same banks).
- `unroll`: the k loop of a tile written `unroll` k steps a trip (scalar x loads).
The output layout (the chunk witnesses) is the example's in every variant; the example itself
now has the `yperm` layout.
"""

from __future__ import annotations

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32, index, space_tile

BM = BN = 128
BK = 16
XROW = BK + 4
XSTAGE = BM * XROW
YSTAGE = BK * BN


def make(xvec: int, yperm: bool, unroll: int = 1):
    """The kernel with the two choices (module docstring)."""

    @simt.kernel(
        block=256,
        domain=2,
        requires=["len(a) >= m * k", "len(b) >= k * n", "len(c) == m * n"],
    )
    def sgemm_micro(
        a: Slice[f32],
        b: Slice[f32],
        c: DisjointSlice[f32, space_tile((BM, BN), 8, "m")],
        m: index,
        n: index,
        k: index,
    ):
        xs = simt.shared(f32, 2 * XSTAGE)
        ys = simt.shared(f32, 2 * YSTAGE)
        t = simt.thread_id.x
        row0 = simt.block_id.x * BM
        col0 = simt.block_id.y * BN
        tiles = (k + BK - 1) // BK
        xr, xk = t // 4, t % 4 * 4
        yr, yq = t // 32, t % 32
        yn = yq * 4
        if yperm:  # the shared column of y's 4-column group yq
            ys_col = yq % 2 * 64 + yq // 2 * 4
        else:
            ys_col = yn
        with simt.unsafe():
            for q in simt.static_range(2):
                row, col = row0 + xr + 64 * q, xk
                ok = row < m and col < k
                at, count = simt.where(ok, row * k + col, 0), simt.where(ok, min(k - col, 4), 0)
                simt.async_copy(a, at, count, xs, (xr + 64 * q) * XROW + xk, 4)
                row, col = yr + 8 * q, col0 + yn
                ok = row < k and col < n
                at, count = simt.where(ok, row * n + col, 0), simt.where(ok, min(n - col, 4), 0)
                simt.async_copy(b, at, count, ys, (yr + 8 * q) * BN + ys_col, 4)
        simt.async_commit()
        acc = (0.0,) * 64
        for kt in range(tiles):
            simt.async_wait(0)
            simt.sync_threads()
            kn = (kt + 1) * BK
            xo, yo = (kt + 1) % 2 * XSTAGE, (kt + 1) % 2 * YSTAGE
            with simt.unsafe():
                for q in simt.static_range(2):
                    row, col = row0 + xr + 64 * q, kn + xk
                    ok = row < m and col < k
                    at = simt.where(ok, row * k + col, 0)
                    count = simt.where(ok, min(k - col, 4), 0)
                    simt.async_copy(a, at, count, xs, xo + (xr + 64 * q) * XROW + xk, 4)
                    row, col = kn + yr + 8 * q, col0 + yn
                    ok = row < k and col < n
                    at = simt.where(ok, row * n + col, 0)
                    count = simt.where(ok, min(n - col, 4), 0)
                    simt.async_copy(b, at, count, ys, yo + (yr + 8 * q) * BN + ys_col, 4)
            simt.async_commit()
            xb = kt % 2 * XSTAGE + t // 16 * XROW
            tc = t % 16
            if yperm:
                y_lo, y_hi = tc * 4, 64 + tc * 4
            else:
                y_lo, y_hi = tc * 8, tc * 8 + 4
            yb = kt % 2 * YSTAGE
            if xvec:
                for pv in range(BK // xvec):
                    p = pv * xvec
                    with simt.unsafe():
                        xv = ()
                        for i in simt.static_range(8):
                            xv += simt.shared_load_vector(xs, xb + 16 * XROW * i + p, xvec)
                        yv = ()
                        for j in simt.static_range(xvec):
                            yv += simt.shared_load_vector(ys, yb + (p + j) * BN + y_lo, 4)
                            yv += simt.shared_load_vector(ys, yb + (p + j) * BN + y_hi, 4)
                    for j in simt.static_range(xvec):
                        new = ()
                        for i in simt.static_range(8):
                            for jj in simt.static_range(8):
                                xi = xv[xvec * i + j]
                                new += (simt.fma(xi, yv[8 * j + jj], acc[8 * i + jj]),)
                        acc = new
            else:
                for pu in range(BK // unroll):
                    for u in simt.static_range(unroll):
                        p = pu * unroll + u
                        with simt.unsafe():
                            x = ()
                            for i in simt.static_range(8):
                                x += (xs[xb + 16 * XROW * i + p],)
                            y = simt.shared_load_vector(ys, yb + p * BN + y_lo, 4)
                            y += simt.shared_load_vector(ys, yb + p * BN + y_hi, 4)
                        new = ()
                        for i in simt.static_range(8):
                            for j in simt.static_range(8):
                                new += (simt.fma(x[i], y[j], acc[8 * i + j]),)
                        acc = new
        for i in simt.static_range(8):
            c[simt.tile_index(c, i)] = acc[8 * i : 8 * i + 8]

    return sgemm_micro


VARIANTS = {
    "example layout (Python)": (0, False),
    "y permuted": (0, True),
    "x v2 along k": (2, False),
    "x v2 along k, y permuted": (2, True),
    "x v4 along k": (4, False),
    "x v4 along k, y permuted": (4, True),
    "y permuted, k loop unrolled 2": (0, True, 2),
    "y permuted, k loop unrolled 4": (0, True, 4),
}


def sources() -> dict[str, str]:
    """IR text of every variant."""
    return {name: make(*opts).ir() for name, opts in VARIANTS.items()}


__all__ = ["VARIANTS", "make", "sources"]
