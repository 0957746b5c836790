"""The host runner on the CPU backend: program order, streams, loops, launches, errors.

Every refusal is a located diagnostic raised before the launch it concerns; launches before it
have run, and a following good program runs normally.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import programs
import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.host_runner import CpuBackend, run_host_program


class Recording(CpuBackend):
    """The CPU backend, remembering each launch it was asked for."""

    def __init__(self) -> None:
        self.launched: list[str] = []

    def launch(self, module, kernel, grid, block, shared, args, stream):
        self.launched.append(kernel.name)
        super().launch(module, kernel, grid, block, shared, args, stream)

    def tile_launch(self, module, kernel, checked, args, stream):
        self.launched.append(kernel.name)
        super().tile_launch(module, kernel, checked, args, stream)


def at(text: str, snippet: str) -> str:
    """`:line:col:` of the first line holding `snippet`, as a diagnostic there starts."""
    for number, line in enumerate(text.splitlines(), start=1):
        if snippet in line:
            return f":{number}:{len(line) - len(line.lstrip()) + 1}:"
    raise AssertionError(f"{snippet!r} is not in the program")


def run(module, **kw):
    out = io.StringIO()
    backend = kw.pop("backend", None) or Recording()
    result = run_host_program(module, backend, out=out, **kw)
    return result, out.getvalue(), backend


def error_of(module, **kw) -> str:
    with pytest.raises(DiagnosticError) as info:
        run(module, **kw)
    return str(info.value)


def test_a_loop_reuses_one_prepared_launch(program):
    result, out, backend = run(program(programs.LOOP), params={"steps": 4})
    assert out == "check r: ok (max abs err 0, rtol 1.3e-06, atol 1e-05)\n"
    assert backend.launched == ["add"] * 4
    np.testing.assert_array_equal(result.outputs[0], 4 * np.arange(1, 301, dtype=np.float32))
    assert result.outputs[0].dtype == np.float32 and result.device == "cpu"


def test_a_launch_with_other_arguments_than_prepared_is_refused(program):
    backend = Recording()
    message = error_of(program(programs.STALE), backend=backend)
    assert message.endswith(
        at(programs.STALE, "%other2 = host.launch")
        + " error: argument #1 (%out) of @double has shape "
        "[600], but the launch was prepared with [300]: prepare it again with these arguments"
    )
    assert backend.launched == ["double"]  # the first launch ran; the stale one did not


def test_unsafe_launch_against_the_contract_block_fails_like_the_driver(program):
    message = error_of(program(programs.UNSAFE_BLOCK))
    assert message.endswith(
        at(programs.UNSAFE_BLOCK, "host.unsafe_launch")
        + " error: launch of @double failed: @double requires block (256, 1, 1) (its launch "
        "contract, emitted as .reqntid), but the launch has block (128, 1, 1)"
    )


def test_a_kernel_trap_is_located_in_the_kernel_with_the_launch_as_a_note(program):
    lines = error_of(program(programs.TRAPS)).splitlines()
    assert lines[0].endswith(
        at(programs.TRAPS, "simt.load")
        + " error: simt.load out of range: index 100 of %x (length 100) (block (0, 0, 0), "
        "thread (100, 0, 0))"
    )
    assert lines[1].endswith(
        at(programs.TRAPS, "host.launch") + " note: in the launch of @reads_past here"
    )


def test_a_failed_check_does_not_stop_the_program(program):
    result, out, _ = run(program(programs.CHECKS_GO_ON))
    assert out.splitlines() == [
        "check a: FAILED (4 of 4 elements differ, max abs err 1, rtol 1.3e-06, atol 1e-05; "
        "first at [0]: got 0, expected 1)",
        "check b: ok (max abs err 0, rtol 1.3e-06, atol 1e-05)",
        "check a: FAILED (expected shape [2], but the result has shape [4])",
        "b = [1. 2. 3. 4.]",
        "%n = 4",
    ]
    assert not result.ok and [c.ok for c in result.checks] == [False, True, False]
    assert f":{result.checks[0].location.line}:" in at(
        programs.CHECKS_GO_ON, 'host.check %a, "a + 1"'
    )


def test_two_streams(program):
    result, _, backend = run(program(programs.TWO_STREAMS))
    assert backend.launched == ["double", "double"]
    for r in result.outputs:
        np.testing.assert_array_equal(r, 2 * np.arange(300, dtype=np.float32))


def test_numpy_caller_arrays_are_copied(program):
    x, y = np.arange(300, dtype=np.float32), np.full(300, -1.0, dtype=np.float32)
    result, out, _ = run(program(programs.FROM_ARRAYS), arrays=[x, y])
    assert result.ok and out.startswith("check out2: ok")
    np.testing.assert_array_equal(result.outputs[0], 2 * x)
    assert (y == -1).all()


class OnDevice:
    """Looks like a CuPy/PyTorch CUDA array."""

    __cuda_array_interface__ = {"shape": (300,), "typestr": "<f4", "data": (0, False), "version": 3}


def test_bad_caller_arrays_are_all_refused_before_any_launch(program):
    module = program(programs.FROM_ARRAYS)
    backend = Recording()
    message = error_of(
        module,
        backend=backend,
        arrays=[np.zeros(300, np.float64), np.zeros((3, 100), np.float32), 7],
    )
    assert backend.launched == []
    text = programs.FROM_ARRAYS
    assert message.splitlines() == [
        message.split(":")[0]
        + at(text, "host.from_array 0")
        + " error: caller array 0 has element type f64, but the tensor's is f32 (f32)",
        message.split(":")[0]
        + at(text, "host.from_array 1")
        + " error: caller array 1 has 2 dimension(s) [3, 100], but !host.tensor<f32, [?]> has 1",
        message.split(":")[0]
        + at(text, "func.func @main")
        + " error: caller array 2 is not bound by any host.from_array in @main",
    ]
    missing = error_of(module, arrays=[np.zeros(300, np.float32)])
    assert missing.endswith(
        at(text, "host.from_array 1")
        + " error: host.from_array 1 needs caller array 1, but only 1 array was given"
    )
    device = error_of(module, arrays=[OnDevice(), np.zeros(300, np.float32)])
    assert (
        "caller array 0 cannot be bound: the OnDevice lives on a CUDA device, but this program "
        "runs on the CPU" in device
    )
    # and a good run right after
    result, _, _ = run(module, arrays=[np.ones(300, np.float32), np.zeros(300, np.float32)])
    assert result.ok


def test_static_dimensions_of_a_caller_array_must_match(program):
    text = programs.FROM_ARRAYS.replace(
        "%x = host.from_array 0 : !host.tensor<f32, [?]>",
        "%x = host.from_array 0 : !host.tensor<f32, [300]>",
    )
    text = text.replace(
        "args(%x, %out : !host.tensor<f32, [?]>,", "args(%x, %out : !host.tensor<f32, [300]>,"
    )
    text = text.replace("ins(%x : !host.tensor<f32, [?]>)", "ins(%x : !host.tensor<f32, [300]>)")
    text = text.replace("(x = %x : !host.tensor<f32, [?]>)", "(x = %x : !host.tensor<f32, [300]>)")
    message = error_of(program(text), arrays=[np.zeros(299, np.float32), np.zeros(300, np.float32)])
    assert message.endswith(
        "error: caller array 0 has shape [299], but !host.tensor<f32, [300]> needs dimension 0 "
        "= 300"
    )


def test_params(program):
    module = program(programs.LOOP)
    result, _, backend = run(module, params={"n": 513, "steps": "2"})
    assert result.outputs[0].shape == (513,) and backend.launched == ["add"] * 2
    text = programs.LOOP
    assert error_of(module, params={"q": 1}).endswith(
        at(text, "func.func @main")
        + " error: unknown parameter 'q' (this program's parameters: n, steps)"
    )
    assert error_of(module, params={"n": 2.5}).endswith(
        at(text, 'host.param "n"') + " error: parameter 'n': expected an integer for index, got 2.5"
    )
    assert error_of(module, params={"n": -3}).endswith(
        at(text, "host.arange") + " error: a tensor dimension cannot be negative, got -3"
    )


def test_the_entry_must_exist_and_take_no_arguments(program):
    assert error_of(program(programs.LOOP), entry="other").endswith(
        "error: no host program @other in this module (host functions: @main)"
    )
    text = programs.DOUBLE + "func.func @main(%x: !host.tensor<f32, [4]>) {\n  func.return\n}\n"
    assert "@main takes arguments, but a host program gets its inputs from host.param" in error_of(
        program(text)
    )


def test_tile_launch_on_the_interpreter(program):
    result, out, backend = run(program(programs.TILE_ADD), params={"n": 1000})
    assert backend.launched == ["vector_add"] and out.startswith("check z2: ok")
    rng3, rng4 = np.random.default_rng(3), np.random.default_rng(4)
    want = rng3.uniform(0, 1, 1000).astype(np.float32) + rng4.normal(0, 1, 1000).astype(np.float32)
    np.testing.assert_array_equal(result.outputs[0], want)


def test_tile_outputs_must_agree_on_the_grid(program):
    backend = Recording()
    message = error_of(program(programs.TILE_TWO_OUTS), backend=backend, params={"m": 700})
    assert message.endswith(
        "error: cannot launch @copy2: grid is [8], but @copy2's output partition %b of shape [700] "
        "in tiles of [128] has [6] tiles (the grid must be [6])"
    )
    assert backend.launched == []


def test_static_tile_tensor_dimensions_are_checked_at_launch(program):
    module = program(programs.TILE_STATIC_INPUT)
    assert run(module)[0].ok
    backend = Recording()
    message = error_of(module, backend=backend, params={"n": 999})
    assert message.endswith(
        "error: cannot launch @vector_add: %x of @vector_add has shape [1000], but the array bound "
        "to it has shape [999] (dimension 0 is 999, not 1000)"
    )
    assert backend.launched == []


def test_a_failure_at_sync_names_the_launches_it_may_have_been(program):
    """On the GPU a kernel's trap surfaces at the next sync; the error says which launches."""

    class FaultsAtSync(Recording):
        def sync(self, stream):
            raise RuntimeError("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_INSTRUCTION")

    lines = error_of(program(programs.TWO_STREAMS), backend=FaultsAtSync()).splitlines()
    assert lines[0].endswith(
        at(programs.TWO_STREAMS, "host.sync_on %s1") + " error: a kernel on this stream failed: "
        "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_INSTRUCTION; `ferrox run --device cpu` "
        "runs the same program on the interpreter, which locates the failing op and thread"
    )
    assert len(lines) == 2 and lines[1].endswith(
        at(programs.TWO_STREAMS, "%r1 = host.launch") + " note: launched here"
    )


def ordered_transpose() -> str:
    """examples/tile/transpose.mlir with `grid_order [1, 0]` on its kernel."""
    text = (
        Path(__file__).resolve().parents[3] / "examples" / "tile" / "transpose.mlir"
    ).read_text()
    head = "%x: !tile.tensor<f32, [?, ?]>) {"
    assert text.count(head) == 1
    return text.replace(head, "%x: !tile.tensor<f32, [?, ?]>) grid_order [1, 0] {")


class Grids(Recording):
    """The CPU backend, remembering each tile launch's checked grid."""

    def __init__(self) -> None:
        super().__init__()
        self.grids: list[tuple[int, int, int]] = []

    def tile_launch(self, module, kernel, checked, args, stream):
        self.grids.append(checked.grid)
        super().tile_launch(module, kernel, checked, args, stream)


def test_a_host_program_launches_a_tile_kernel_in_its_grid_order(program):
    """The transpose example with `grid_order [1, 0]`: 300 x 200 in 32 x 64 tiles is 10 x 4
    tiles, launched as (4, 10) (blockIdx.x walks tile axis 1), poisoned output checked whole."""
    backend = Grids()
    result, _, _ = run(program(ordered_transpose()), backend=backend)
    assert result.ok and [c.ok for c in result.checks] == [True]
    assert backend.grids == [(4, 10, 1)]


def persistent_matmul() -> str:
    """examples/tile/matmul_bf16.mlir on sm_90 with 300 x 300 x 64 (TMA-able rows): 3 x 2 = 6
    tiles of 128 x 256."""
    text = (
        Path(__file__).resolve().parents[3] / "examples" / "tile" / "matmul_bf16.mlir"
    ).read_text()
    text = text.replace("builtin.module {", 'builtin.module attributes {"ferrox.chip" = "sm_90"} {')
    for name, old, new in (("m", 200, 300), ("n", 150, 300), ("k", 100, 64)):
        line = f'host.param "{name}" = {old} : index'
        assert text.count(line) == 1
        text = text.replace(line, f'host.param "{name}" = {new} : index')
    return text


def test_a_host_program_launches_a_persistent_tile_kernel_on_three_sms(
    program, monkeypatch, tmp_path
):
    """`gemm_wgmma.PERSISTENT`: the checked launch is min(6 tiles, the interpreter's 3 SMs)
    blocks on grid.x, and the poisoned output is the product (the example's own check). A cache
    of its own: the kernel cache's key does not know the lowering's knobs."""
    from ferrox.lowering.tile_to_simt import gemm_wgmma

    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", True)
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    backend = Grids()
    result, _, _ = run(program(persistent_matmul()), backend=backend)
    assert result.ok and [c.ok for c in result.checks] == [True]
    assert backend.grids == [(3, 1, 1)]
