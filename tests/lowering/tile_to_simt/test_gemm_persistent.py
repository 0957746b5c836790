"""The persistent sm_90 tile GEMM (`gemm_wgmma.PERSISTENT`, lowering/tile_to_simt/persistent.py):
the lowered kernel is one loop over a `simt.tile_schedule` whose witnesses name the loop's tile
(docs/safety.md#simt-1-persistent), its wgmma ring runs on across tiles, and on the CPU
interpreter (3 blocks, `tile_lowered.INTERPRETER_SMS`: several tiles a block, uneven last rounds)
it matches NumPy on fresh random data into NaN-poisoned outputs, ragged M, N and K included."""

from __future__ import annotations

import numpy as np
import pytest
from compiled import assembled
from tile_gemm import matmul

from ferrox.dialects import simt
from ferrox.dialects.simt.tile_support import schedule_of
from ferrox.lowering.tile_to_simt import GRID_PERSISTENT_KEY, gemm_specialized, gemm_wgmma

from .conftest import launch_args, lower_text, simt_kernel
from .test_gemm_wgmma import product_on_interpreter


@pytest.fixture
def persistent(monkeypatch):
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", True)


def _loop(kernel: simt.KernelOp):
    (loop,) = [op for op in kernel.walk() if schedule_of(op) is not None]
    return loop


def test_the_kernel_is_one_loop_over_its_tiles(persistent):
    kernel = simt_kernel(lower_text(matmul(128, 256, 64, chip="sm_90a")), "mm")
    loop = _loop(kernel)
    assert loop.parent_block() is kernel.body.blocks[0]
    assert isinstance(loop.next_op, simt.ReturnOp) and loop.next_op.next_op is None
    space = kernel.body.blocks[0].args[0].type.space
    assert space.is_persistent and kernel.contract.domain.data == 1
    assert GRID_PERSISTENT_KEY in kernel.attributes["tile.grid"].data
    witnesses = [op for op in kernel.walk() if isinstance(op, simt.TileIndexOp)]
    assert witnesses and all(w.tile is loop.body.block.args[0] for w in witnesses)
    assert not any(isinstance(op, simt.BlockIdOp) for op in loop.walk())  # no ctaid in a tile
    # The ring's barriers are made once, in the block's first tile, not per tile.
    inits = [op for op in kernel.walk() if op.name == "simt.mbarrier_init"]
    assert len(inits) == 4


def test_the_knob_off_other_tiles_and_warp_specialised_keep_one_block_a_tile(monkeypatch):
    for tile, knob, ws in [((128, 256, 64), False, False), ((128, 128, 64), True, False),
                           ((128, 256, 64), True, True)]:  # fmt: skip
        monkeypatch.setattr(gemm_wgmma, "PERSISTENT", knob)
        monkeypatch.setattr(gemm_specialized, "WARP_SPECIALIZE", ws)
        kernel = simt_kernel(lower_text(matmul(*tile, chip="sm_90a")), "mm")
        assert not any(isinstance(op, simt.TileScheduleOp) for op in kernel.walk())
        assert not kernel.body.blocks[0].args[0].type.space.is_persistent


@pytest.mark.parametrize(
    "walk, order, reverse",
    [("grid_order [1, 0]", (1, 0), ()), ("grid_reverse [1]", (0, 1), (1,)),
     ("grid_order [1, 0] grid_reverse [0, 1]", (1, 0), (0, 1))],
)  # fmt: skip
def test_a_grid_order_or_reversal_keeps_one_block_a_tile(persistent, walk, order, reverse):
    """A persistent space takes no grid order or reversal (its tiles come from its loop, not
    its block ids): with the knob on, a GEMM that has either lowers one block a tile, its
    space keeping the walk; the two never combine."""
    text = matmul(128, 256, 64, chip="sm_90a").replace(") {\n    %i", f") {walk} {{\n    %i", 1)
    assert walk in text
    kernel = simt_kernel(lower_text(text), "mm")
    assert not any(isinstance(op, simt.TileScheduleOp) for op in kernel.walk())
    space = kernel.body.blocks[0].args[0].type.space
    assert (
        not space.is_persistent and GRID_PERSISTENT_KEY not in kernel.attributes["tile.grid"].data
    )
    assert (space.get_grid_order(), space.get_grid_reverse()) == (order, reverse)


def test_the_interpreter_grid_is_min_of_tiles_and_three(persistent):
    from ferrox.driver.checker.limits import INTERPRETER_LIMITS
    from ferrox.driver.interpreter.tile_lowered import INTERPRETER_SMS

    assert INTERPRETER_SMS == INTERPRETER_LIMITS.sm_count == 3  # the same grid either way
    kernel = simt_kernel(lower_text(matmul(128, 256, 64, chip="sm_90a")), "mm")
    for (m, n), blocks in [((300, 600), 3), ((100, 200), 1), ((260, 10), 3), ((200, 10), 2)]:
        c = np.zeros((m, n), np.float32)
        a, b = np.zeros((m, 8), np.float16), np.zeros((8, n), np.float16)
        grid, _, _ = launch_args(kernel, [c, a, b])
        assert grid == (blocks,)


@pytest.mark.parametrize(
    "el, tile, mnk",
    [
        # 3 x 2 = 6 tiles on 3 blocks (two rounds each); K: 3 trips, one round of 4 stages a
        # tile, so the barriers' parity flips from tile to tile.
        ("bf16", (128, 256, 64), (300, 300, 130)),
        # 4 x 1 tiles: an uneven last round (block 0 runs two tiles, blocks 1 and 2 one);
        # K: 9 trips, 3 rounds a tile; ragged M and N.
        ("f16", (128, 256, 64), (450, 250, 520)),
        # 256 x 128 (3 stages), 2 x 3 = 6 tiles, K: 5 trips (2 rounds of 3), ragged all over.
        ("bf16", (256, 128, 64), (300, 330, 300)),
        # 7 tiles on 3 blocks (3, 2, 2), one K trip (the ring's tail loads the next tile
        # at once).
        ("f16", (128, 256, 64), (900, 200, 40)),
    ],
)
def test_interpreter_matches_numpy(persistent, interpreter, el, tile, mnk):
    module = lower_text(matmul(*tile, el=el, chip="sm_90a"))
    assert any(isinstance(op, simt.TileScheduleOp) for op in simt_kernel(module, "mm").walk())
    product_on_interpreter(interpreter, module, el, mnk)


@pytest.mark.parametrize("el", ["bf16", "f16"])
@pytest.mark.parametrize("tile", [(128, 256, 64), (256, 128, 64)])
def test_the_artifact_launches_it_persistent_and_its_ptx_assembles_without_spills(
    persistent, el, tile
):
    import ferrox
    from ferrox.artifact import ModuleArtifact
    from ferrox.targets.cache import compile_cached
    from ferrox.targets.toolchain import find_ptxas

    art = ferrox.compile(matmul(*tile, el=el), chip="sm_90")
    facts = art["mm"]
    assert facts.tile.persistent and facts.writes[0].space.persistent
    assert facts.tile.launch_grid([32, 16], 132) == (132,)  # 4096^2 in 128 x 256: 512 tiles
    assert facts.tile.launch_grid([2, 1], 132) == (2,)
    if (el, tile) == ("bf16", (128, 256, 64)):  # the cp.async twin keeps its grid
        twin = compile_cached(matmul(*tile, el=el), chip="sm_90", ptx=False, portable="mm")
        assert not twin["mm__portable"].tile.persistent  # type: ignore[union-attr]
    back = ModuleArtifact.from_json(art.to_json())  # the artifact's JSON keeps both
    assert back["mm"].tile == facts.tile and back["mm"].writes == facts.writes
    # the schedule: grid.x, y = z = 0 alone
    assert "%nctaid.x" in art.ptx and "%ctaid.y" in art.ptx
    if find_ptxas() is None:
        pytest.skip("needs ptxas")
    got = assembled(art.ptx, "sm_90a").resources["mm"]  # the compile's ptxas run
    assert got.spill_stores == 0 and got.spill_loads == 0 and got.registers <= 255
