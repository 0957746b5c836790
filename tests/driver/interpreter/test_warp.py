"""Warp collectives against a NumPy model of PTX's shfl.sync and vote.sync (full mask, width 32)."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import run_simt_kernel

SHUFFLES = """
  simt.kernel @shuffles(%out: !simt.ptr<i32>, %outf: !simt.ptr<f32>, %offset: i32) unsafe {
    %t = simt.thread_id x
    %n = simt.block_dim x
    %t32 = arith.index_cast %t : index to i32
    %c1000 = arith.constant 1000 : i32
    %v = arith.addi %t32, %c1000 : i32
    %a = simt.shuffle idx %v, %offset : i32
    %b = simt.shuffle up %v, %offset : i32
    %c = simt.shuffle down %v, %offset : i32
    %d = simt.shuffle xor %v, %offset : i32
    %f = arith.sitofp %v : i32 to f32
    %e = simt.shuffle down %f, %offset : f32
    %n2 = arith.addi %n, %n : index
    %n3 = arith.addi %n2, %n : index
    %i1 = arith.addi %t, %n : index
    %i2 = arith.addi %t, %n2 : index
    %i3 = arith.addi %t, %n3 : index
    simt.ptr_store %a, %out[%t] : !simt.ptr<i32>
    simt.ptr_store %b, %out[%i1] : !simt.ptr<i32>
    simt.ptr_store %c, %out[%i2] : !simt.ptr<i32>
    simt.ptr_store %d, %out[%i3] : !simt.ptr<i32>
    simt.ptr_store %e, %outf[%t] : !simt.ptr<f32>
    simt.return
  }
"""


def ptx_source(mode: str, lane: np.ndarray, offset: int) -> np.ndarray:
    """PTX: only offset[4:0] counts; a source outside the warp (up/down) is the lane itself."""
    b = (offset & 0xFFFFFFFF) & 31
    if mode == "idx":
        return np.full_like(lane, b)
    if mode == "up":
        return np.where(lane - b >= 0, lane - b, lane)
    if mode == "down":
        return np.where(lane + b <= 31, lane + b, lane)
    return lane ^ b


@pytest.mark.parametrize("offset", [0, 1, 5, 16, 31, 32, 33, -1, -31])
def test_shuffle_modes_match_ptx(kernel, offset):
    out, outf = np.zeros(4 * 64, np.int32), np.zeros(64, np.float32)
    run_simt_kernel(kernel(SHUFFLES), "shuffles", (1, 1, 1), (64, 1, 1), [out, outf, offset])
    t = np.arange(64)
    lane, base = t % 32, t - t % 32
    for k, mode in enumerate(("idx", "up", "down", "xor")):
        expected = 1000 + base + ptx_source(mode, lane, offset)
        assert out[64 * k : 64 * (k + 1)].tolist() == expected.tolist(), mode
    assert (
        outf.tolist()
        == (1000 + base + ptx_source("down", lane, offset)).astype(np.float32).tolist()
    )


def test_shuffle_out_of_range_lanes_keep_their_own_value(kernel):
    out, outf = np.zeros(4 * 32, np.int32), np.zeros(32, np.float32)
    run_simt_kernel(kernel(SHUFFLES), "shuffles", (1, 1, 1), (32, 1, 1), [out, outf, 4])
    up, down = out[32:64], out[64:96]
    assert up[:4].tolist() == [1000, 1001, 1002, 1003]  # lanes 0-3 have no lane 4 below them
    assert up[4:].tolist() == list(range(1000, 1028))
    assert down[28:].tolist() == [1028, 1029, 1030, 1031]
    assert down[:28].tolist() == list(range(1004, 1032))


def test_lanes_follow_the_linear_thread_id_in_a_2d_block(kernel):
    text = """
  simt.kernel @swap_rows(%out: !simt.ptr<i32>) unsafe {
    %c8 = arith.constant 8 : index
    %c100 = arith.constant 100 : index
    %eight = arith.constant 8 : i32
    %x = simt.thread_id x
    %y = simt.thread_id y
    %x100 = arith.muli %x, %c100 : index
    %v = arith.addi %x100, %y : index
    %v32 = arith.index_cast %v : index to i32
    %s = simt.shuffle xor %v32, %eight : i32
    %y8 = arith.muli %y, %c8 : index
    %i = arith.addi %y8, %x : index
    simt.ptr_store %s, %out[%i] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(64, np.int32)
    run_simt_kernel(kernel(text), "swap_rows", (1, 1, 1), (8, 8, 1), [out])
    y, x = np.divmod(np.arange(64), 8)
    assert out.tolist() == (x * 100 + (y ^ 1)).tolist()


VOTES = """
  simt.kernel @votes(%out: !simt.ptr<i32>, %lo: index, %hi: index) unsafe {
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %c1 = arith.constant 1 : index
    %t = simt.thread_id x
    %n = simt.block_dim x
    %p_all = arith.cmpi ult, %t, %hi : index
    %p_any = arith.cmpi eq, %t, %lo : index
    %bit = arith.andi %t, %c1 : index
    %p_odd = arith.cmpi eq, %bit, %c1 : index
    %all = simt.vote_all %p_all
    %any = simt.vote_any %p_any
    %mask = simt.ballot %p_odd
    %all32 = arith.select %all, %one, %zero : i32
    %any32 = arith.select %any, %one, %zero : i32
    %n2 = arith.addi %n, %n : index
    %i1 = arith.addi %t, %n : index
    %i2 = arith.addi %t, %n2 : index
    simt.ptr_store %all32, %out[%t] : !simt.ptr<i32>
    simt.ptr_store %any32, %out[%i1] : !simt.ptr<i32>
    simt.ptr_store %mask, %out[%i2] : !simt.ptr<i32>
    simt.return
  }
"""


def test_votes_and_ballot(kernel):
    out = np.zeros(3 * 64, np.int32)
    run_simt_kernel(kernel(VOTES), "votes", (1, 1, 1), (64, 1, 1), [out, 40, 48])
    all_, any_, mask = out[:64], out[64:128], out[128:]
    assert all_.tolist() == [1] * 32 + [0] * 32  # warp 1 holds t = 48..63
    assert any_.tolist() == [0] * 32 + [1] * 32  # only warp 1 holds t == 40
    assert (mask.view(np.uint32) == 0xAAAAAAAA).all()


def test_partial_warp_counts_only_present_lanes(kernel):
    out = np.zeros(3 * 48, np.int32)
    run_simt_kernel(kernel(VOTES), "votes", (1, 1, 1), (48, 1, 1), [out, 40, 47])
    all_, any_, mask = out[:48], out[48:96], out[96:]
    assert all_.tolist() == [1] * 32 + [0] * 16
    assert any_.tolist() == [0] * 32 + [1] * 16
    assert (mask[:32].view(np.uint32) == 0xAAAAAAAA).all()
    assert (mask[32:].view(np.uint32) == 0x0000AAAA).all()  # lanes 16-31 do not exist


def test_shuffle_from_a_missing_lane_is_poison(kernel):
    out, outf = np.zeros(4 * 48, np.int32), np.zeros(48, np.float32)
    run_simt_kernel(kernel(SHUFFLES), "shuffles", (1, 1, 1), (48, 1, 1), [out, outf, 20])
    idx = out[:48]
    assert idx[:32].tolist() == [1020] * 32
    assert (idx[32:].view(np.uint32) == 0xDEADBEEF).all()  # warp 1 has lanes 0-15 only
    down = outf
    # lanes 0-11 of warp 1 read lanes 20-31, which are missing: NaN; lanes 12-15 keep their own
    assert np.isnan(down[32:44]).all()
    assert down[44:].tolist() == [1044.0, 1045.0, 1046.0, 1047.0]
