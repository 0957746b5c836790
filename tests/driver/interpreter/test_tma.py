"""TMA loads and mbarriers on the CPU interpreter (driver/interpreter/simt_ops/tma.py), against
NumPy: examples/simt/tma_copy_f32.mlir's dense f32 and tma_copy.mlir's 128-byte swizzled bf16
copies on fresh random data, ragged shapes included, outputs NaN-poisoned; and the faults: a
wait that nothing before it can complete, a barrier used before its init, a tensor map past its
slice, a box past its tile; an arrival after its phase completed counts in the next; a tile read
before its wait reads poison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "simt"


def _example(name: str):
    return parse_module(make_context(), (EXAMPLES / f"{name}.mlir").read_text(), f"{name}.mlir")


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


@pytest.mark.parametrize("rows, cols", [(32, 32), (45, 36), (70, 100), (1, 4)])
def test_f32_copy(rows, cols):
    x = np.random.default_rng().standard_normal(rows * cols, dtype=np.float32)
    out = np.full(rows * cols, np.nan, np.float32)
    grid = (-(-rows // 64), -(-cols // 32), 1)
    run_simt_kernel(
        _example("tma_copy_f32"), "tma_copy_f32", grid, (128, 1, 1), [x, rows, cols, out], 4112
    )
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("rows, cols", [(64, 64), (70, 72), (130, 136)])
def test_bf16_swizzled_copy(rows, cols):
    x = _bf16(np.random.default_rng().standard_normal(rows * cols))
    out = np.full(rows * cols, np.nan, np.float32)
    grid = (-(-rows // 64), -(-cols // 64), 1)
    run_simt_kernel(_example("tma_copy"), "tma_copy", grid, (128, 1, 1), [x, rows, cols, out], 8208)
    np.testing.assert_array_equal(out, x)


# One thread loads a 8 x 8 f32 box at (%r, %c) of a %rows x %cols tensor into a tile at %off and
# writes the tile out; the barrier lines are spliced in per test.
KERNEL = """builtin.module {
  simt.kernel @k(%x: !simt.slice<f32>, %rows: index, %cols: index, %out: !simt.disjoint_slice<f32, 1d>, %r: index, %c: index, %off: index) contract<domain = 1, block = [64], shared_bytes = 528> {
    %tile = simt.shared_alloc {dynamic} : !simt.shared<f32, [128]>
    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [1]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %n = arith.constant 256 : index
    %t = simt.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    simt.unsafe {
      scf.if %first {
        INIT
        simt.tma_load %x[%r, %c] shape(%rows, %cols), %tile[%off], %bar[%c0] {box = array<i64: 8, 8>, swizzle = 0} : !simt.slice<f32>, !simt.shared<f32, [128]>, !simt.shared<i64, [1]>
        ARRIVE
      }
      WAIT
      simt.yield
    }
    %w = simt.thread_index_1d
    %v = simt.unsafe -> f32 {
      %e = simt.shared_load %tile[%t] : !simt.shared<f32, [128]>
      simt.yield %e : f32
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
}"""
INIT = "simt.mbarrier_init %bar[%c0], %c1 : !simt.shared<i64, [1]>"
ARRIVE = "simt.mbarrier_arrive_expect_tx %bar[%c0], %n : !simt.shared<i64, [1]>"
WAIT = "simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [1]>"


def _run(rows=20, cols=12, r=8, c=8, off=0, length=None, init=INIT, arrive=ARRIVE, wait=WAIT):
    text = KERNEL.replace("INIT", init).replace("ARRIVE", arrive).replace("WAIT", wait)
    module = parse_module(make_context(), text, "k.mlir")
    x = np.random.default_rng().standard_normal(length or rows * cols, dtype=np.float32)
    out = np.full(64, np.nan, np.float32)
    run_simt_kernel(module, "k", (1, 1, 1), (64, 1, 1), [x, rows, cols, out, r, c, off], 528)
    return x, out


def test_a_box_across_the_edge_reads_zeros_past_it():
    x, out = _run()  # rows 8..15 of 20, columns 8..15 of 12: columns 12..15 are outside
    box = np.zeros((8, 8), np.float32)
    box[:, :4] = x.reshape(20, 12)[8:16, 8:12]
    np.testing.assert_array_equal(out, box.reshape(-1))


def test_the_load_may_complete_before_the_bytes_are_expected():
    x, out = _run(rows=8, cols=8, r=0, c=0)  # arrive after the load: the phase still completes
    np.testing.assert_array_equal(out, x)


def _fault(**kwargs) -> str:
    with pytest.raises(KernelFault) as info:
        _run(**kwargs)
    return str(info.value)


def test_a_wait_nothing_before_it_completes_faults():
    message = _fault(arrive="")
    assert (
        "'simt.mbarrier_wait' would wait forever: phase 0 of the barrier at %bar[0] still "
        "expects 1 arrivals and -256 bytes, and nothing before it in program order provides them"
    ) in message


def test_a_wait_for_the_next_phase_faults():
    message = _fault(wait="simt.mbarrier_wait %bar[%c0], %c1 : !simt.shared<i64, [1]>")
    assert "phase 1 of the barrier at %bar[0] still expects 1 arrivals and 0 bytes" in message


def test_a_barrier_used_before_its_init_faults():
    message = _fault(init="")
    assert "'simt.tma_load' on a barrier of %bar that was never initialised" in message


def test_a_map_past_the_slice_faults():
    message = _fault(length=20 * 12 - 1)
    assert (
        "'simt.tma_load': a 20 x 12 tensor map reaches past the 239 elements of %x (the runtime "
        "refuses such a launch)"
    ) in message


def test_a_box_past_the_tile_faults():
    message = _fault(off=65)
    assert (
        "'simt.tma_load' out of range: a box of 64 elements at 65 of %tile (length 128)" in message
    )


def test_an_arrival_after_the_phase_completed_belongs_to_the_next():
    x, out = _run(rows=8, cols=8, r=0, c=0, arrive=ARRIVE + "\n" + ARRIVE)
    np.testing.assert_array_equal(out, x)  # phase 0 completed
    wait1 = "simt.mbarrier_wait %bar[%c0], %c1 : !simt.shared<i64, [1]>"
    message = _fault(rows=8, cols=8, r=0, c=0, arrive=ARRIVE + "\n" + ARRIVE, wait=wait1)
    assert "phase 1 of the barrier at %bar[0] still expects 0 arrivals and 256 bytes" in message


def test_predicated_ops_run_on_the_lanes_whose_predicate_holds():
    """Every thread reaches the expect and the load, `if %first`: only thread 0's take effect
    (one arrival, one box), and the checks hold on all of them."""
    text = KERNEL.replace("INIT", INIT).replace("ARRIVE", "").replace("WAIT", WAIT)
    load = text[text.index("        simt.tma_load") : text.index("\n", text.index("simt.tma_load"))]
    text = text.replace(load + "\n", "")
    predicated = (
        "simt.mbarrier_arrive_expect_tx %bar[%c0], %n if %first : !simt.shared<i64, [1]>\n"
        + load.replace("%bar[%c0] {", "%bar[%c0] if %first {").strip()
        + "\n      WAIT"
    )
    text = text.replace("      " + WAIT, "      " + predicated.replace("WAIT", WAIT))
    module = parse_module(make_context(), text, "k.mlir")
    x = np.random.default_rng().standard_normal(64, dtype=np.float32)
    out = np.full(64, np.nan, np.float32)
    assert text.count(" if %first") == 2
    run_simt_kernel(module, "k", (1, 1, 1), (64, 1, 1), [x, 8, 8, out, 0, 0, 0], 528)
    np.testing.assert_array_equal(out, x)


def test_a_tile_read_before_the_wait_reads_poison():
    """The box lands when a wait observes its phase: read before any wait, the tile is poison
    (on the GPU the read would race with the copy)."""
    _, out = _run(rows=8, cols=8, r=0, c=0, wait="")
    assert np.isnan(out).all()
