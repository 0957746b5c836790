"""Host programs with helper functions (`func.call`), `scf.while` and `scf.index_switch`
(control_flow.mlir): they pass verify-ownership, run on the CPU interpreter and on the fake GPU
with every value checked against NumPy, and their racy variants are refused before anything
runs, by a diagnostic that names both launches. More racy variants, one per shape of the race,
are pinned in tests/filecheck/passes/verify-ownership-control-invalid.mlir."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.host_runner import run_host_program, select_backend
from ferrox.driver.host_runner.gpu import GpuBackend
from ferrox.run_api import load_program, run_program

PROGRAM = Path(__file__).with_name("control_flow.mlir")
T = "!host.tensor<f32, [?]>"


def expected(n: int, steps: int, mode: int) -> np.ndarray:
    """What @main computes, in its own order of f32 additions."""
    x = np.random.default_rng(5).uniform(-1.0, 1.0, size=n).astype(np.float32)
    acc = np.zeros(n, np.float32)
    for _ in range(steps):
        acc = acc + x
    if mode in (1, 2):
        for _ in range(mode):
            acc = acc + acc
        return acc
    return acc if mode == 0 else np.zeros(n, np.float32)


@pytest.mark.parametrize("mode", [0, 1, 2, 7])
@pytest.mark.parametrize(("n", "steps"), [(300, 3), (257, 0), (1000, 5)])
def test_runs_on_the_interpreter(mode, n, steps):
    params = {"n": n, "steps": steps, "mode": mode}
    result = run_program(PROGRAM, device="cpu", params=params, out=None)
    assert result.ok and [c.name for c in result.checks] == ["out"], result.checks[0].line()
    (got,) = result.outputs
    np.testing.assert_array_equal(got, expected(n, steps, mode))


def test_runs_on_the_fake_gpu(fake_device):
    params = {"n": 300, "steps": 4, "mode": 2}
    module = load_program(PROGRAM)
    out = io.StringIO()
    result = run_host_program(module, GpuBackend(), params=params, out=out)
    assert result.device == "gpu" and result.ok, out.getvalue()
    # 4 accumulations (one per call in the while loop), then 2 doublings in case 2.
    assert [launch[0] for launch in fake_device.launches] == ["add"] * 4 + ["double"] * 2
    cpu = run_host_program(load_program(PROGRAM), select_backend("cpu")[0], params=params)
    np.testing.assert_array_equal(result.outputs[0], cpu.outputs[0])
    np.testing.assert_array_equal(result.outputs[0], expected(300, 4, 2))


def _refusal(tmp_path, old: str, new: str) -> str:
    text = PROGRAM.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / "racy.mlir"
    path.write_text(text.replace(old, new))
    with pytest.raises(DiagnosticError) as info:
        run_program(path, device="cpu", out=None)
    return str(info.value).replace(str(path), "racy.mlir")


def _variant(tmp_path, old: str, new: str) -> Path:
    text = PROGRAM.read_text()
    assert text.count(old) == 1, old
    path = tmp_path / "variant.mlir"
    path.write_text(text.replace(old, new))
    return path


def test_a_helper_that_does_not_sync_its_own_stream_is_refused_at_its_second_call(tmp_path):
    """Without its sync, @doubled's launch is still pending on the stream of the first call
    when case 2 calls it again on that result: the diagnostic names the launch, the earlier run
    it races with, and the call; then every later use of the pending results."""
    path = _variant(
        tmp_path, f"outs(%out : {T}) -> {T}\n    host.sync_on %t\n", f"outs(%out : {T}) -> {T}\n"
    )
    with pytest.raises(DiagnosticError) as info:
        run_program(path, device="cpu", out=None)
    lines = str(info.value).replace(str(path), "p").splitlines()
    assert lines == [
        "p:49:5: error: launch of @double cannot use %v on stream %t: a launch of @double on the "
        "%t of an earlier run of its `host.stream` (an earlier iteration or call) may still be "
        "writing it",
        "p:49:5: note: launched here, on the %t of an earlier run",
        "p:85:7: note: in this call of @doubled",
        "p:50:5: error: cannot return %r before `host.sync_on %t`: a launch on %t may still be "
        "writing it",
        "p:49:5: note: launched here",
        "p:85:7: error: cannot read %d before `host.sync_on %t`: a launch on %t may still be "
        "writing it",
        "p:49:5: note: launched here",
        "p:93:5: error: cannot read %out before `host.sync_on %t`: a launch on %t may still be "
        "writing it",
        "p:49:5: note: launched here",
        "p:94:5: error: cannot return %out before `host.sync_on %t`: a launch on %t may still be "
        "writing it",
        "p:49:5: note: launched here",
    ]


def test_a_stream_made_in_the_while_body_and_synced_by_the_helper_is_safe(tmp_path):
    """A new stream on each trip is fine when the helper syncs it before the trip ends."""
    path = _variant(
        tmp_path,
        "      %x2, %next = func.call @accumulate(%s,",
        "      %t = host.stream\n      %x2, %next = func.call @accumulate(%t,",
    )
    result = run_program(path, device="cpu", params={"steps": 6, "mode": 1}, out=None)
    assert result.ok
    np.testing.assert_array_equal(result.outputs[0], expected(300, 6, 1))
