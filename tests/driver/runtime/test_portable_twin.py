"""A tile GEMM on sm_90's TMA path and its portable twin (`TileLaunch.portable`), on the fake GPU:
the compile of `@mm` names `@mm__portable` (the same tile kernel lowered with `cp.async` +
`mma.sync`) in its launch facts but does not make it; the first launch whose tensors no TMA map
can describe (rows not a multiple of 16 bytes, an address off 16 bytes) compiles the twin, apart
and through the kernel cache (`portable_artifact`), and runs it instead of being refused; a
launch TMA can take runs `@mm` and compiles nothing more. Both match NumPy within the f32
summation bound, outputs poisoned with NaN. Kernels with no twin (a SIMT TMA kernel) still
refuse such a launch, with the reason."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import fake_gpu
import numpy as np
import pytest
from compiled import compiled
from tile_gemm import matmul, misaligned_operands, within_f32_sum_bound

import ferrox
from ferrox.driver.runtime.errors import ArgumentError, NoTensorMap
from ferrox.targets.cache import compile_cached, default_cache, portable_artifact

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "tile" / "matmul_bf16.mlir"

KERNEL = matmul(128, 128, 64)


def test_the_tma_kernel_names_its_twin_which_takes_the_same_arguments():
    art = ferrox.compile(KERNEL, chip="sm_90")
    mm = art["mm"]
    assert list(art.kernels) == ["mm"] and ".entry mm__portable" not in art.ptx
    assert mm.tensor_maps and mm.tile is not None and mm.tile.portable == "mm__portable"
    made = portable_artifact(art, "mm")
    assert list(made.kernels) == ["mm__portable"] and made.chip == art.chip
    twin = made["mm__portable"]
    assert twin.tensor_maps == () and twin.tile is not None and twin.tile.portable == ""
    assert twin.params == mm.params and twin.tile.sources == mm.tile.sources
    assert "mma.sync" in made.ptx and "wgmma" not in made.ptx and "cp.async.bulk" not in made.ptx


def test_a_twin_takes_threads_enough_for_64_accumulators_each():
    """A 128 x 256 tile: the wgmma kernel's two warpgroups, the twin's 512 threads (the default
    256 would hold 128 accumulators a thread)."""
    wide = matmul(128, 256, 64)
    assert ferrox.compile(wide, chip="sm_90", ptx=False)["mm"].tile.threads == 256  # type: ignore[union-attr]
    twin = compile_cached(wide, chip="sm_90", ptx=False, portable="mm")
    assert twin["mm__portable"].tile.threads == 512  # type: ignore[union-attr]
    # the twin the other tests here compile (a hit in the test run's cache)
    narrow = portable_artifact(ferrox.compile(KERNEL, chip="sm_90"), "mm")
    assert narrow["mm__portable"].tile.threads == 256  # type: ignore[union-attr]


def test_the_kernels_compile_lowers_no_twin(monkeypatch):
    """Counted, not timed: the compile of a TMA kernel lowers the tile kernel once (its twin
    not at all), and the twin's compile lowers the twin alone."""
    from ferrox.lowering.tile_to_simt import convert

    lower, chips = convert.lower_kernel, []

    def counted(kernel, threads, elems, state, helpers=None, chip=""):
        chips.append((kernel.sym_name.data, chip))
        return lower(kernel, threads, elems, state, helpers, chip)

    monkeypatch.setattr(convert, "lower_kernel", counted)
    art = ferrox.compile(KERNEL, chip="sm_90", cache=False, ptx=False)
    assert chips == [("mm", "sm_90a")] and art["mm"].tile.portable == "mm__portable"  # type: ignore[union-attr]
    chips.clear()
    compile_cached(KERNEL, chip="sm_90", cache=False, ptx=False, portable="mm")
    assert chips == [("mm__portable", "")]


def test_a_launch_tma_takes_compiles_no_twin_and_one_that_needs_it_does(monkeypatch, tmp_path):
    """In a cache of the test's own: loading and launching `@mm` on aligned tensors is one
    compile; the first launch whose rows TMA cannot take is a second (the twin), and runs the
    twin; its repeat, and a new load of the module, compile nothing more."""
    with fake_gpu.installed(monkeypatch, tmp_path, own_cache=True) as fake:
        cache = default_cache()
        rng = np.random.default_rng()
        kernel = ferrox.load(KERNEL, device="gpu")["mm"]
        for m, k, n, compiles in [(130, 128, 136, 1), (130, 100, 136, 2), (70, 100, 150, 2)]:
            a = ferrox.to_bf16(rng.uniform(-1, 1, (m, k)))
            b = ferrox.to_bf16(rng.uniform(-1, 1, (k, n)))
            c = np.full((m, n), np.nan, np.float32)
            kernel(c, a, b)
            assert cache.compiles == compiles
            assert not np.isnan(c).any()
            assert within_f32_sum_bound(c, a.float32(), b.float32())
        assert [launch[0] for launch in fake.launches] == ["mm", "mm__portable", "mm__portable"]
        again = ferrox.load(KERNEL, device="gpu")["mm"]
        c = np.full((64, 100), np.nan, np.float32)
        again(c, ferrox.to_bf16(np.ones((64, 100))), ferrox.to_bf16(np.ones((100, 100))))
        assert (c == 100).all() and cache.compiles == 2
        assert fake.launches[-1][0] == "mm__portable"


def test_a_twin_that_cannot_be_made_leaves_the_launch_refused(monkeypatch, tmp_path):
    """The twin's lowering failing (here forced) fails the twin's compile, not the kernel's:
    `@mm` compiles and runs where TMA takes its tensors, and a launch that needs the twin is
    refused with the map's reason and a note saying why there is no twin."""
    from ferrox.lowering.tile_to_simt import convert

    lower = convert.lower_kernel

    def no_portable(kernel, threads, elems, state, helpers=None, chip=""):
        made = lower(kernel, threads, elems, state, helpers, chip)
        if not chip:  # the twin: lowered all through (its helpers made), then failed
            state.diagnostics.error(kernel, "forced")
            return None
        return made

    monkeypatch.setattr(convert, "lower_kernel", no_portable)
    with fake_gpu.installed(monkeypatch, tmp_path, own_cache=True) as fake:
        kernel = ferrox.load(KERNEL, device="gpu")["mm"]
        c = np.full((64, 64), np.nan, np.float32)
        kernel(c, ferrox.to_bf16(np.ones((64, 64))), ferrox.to_bf16(np.ones((64, 64))))
        assert (c == 64).all()
        with pytest.raises(NoTensorMap, match="rows must be a multiple of 16 bytes") as info:
            kernel(c, ferrox.to_bf16(np.zeros((64, 100))), ferrox.to_bf16(np.zeros((100, 64))))
        assert any("portable twin @mm__portable cannot be made" in n for n in info.value.__notes__)
        assert [launch[0] for launch in fake.launches] == ["mm"] and (c == 64).all()


def test_other_chips_make_no_twin():
    art = ferrox.compile(KERNEL, chip="sm_80")
    assert list(art.kernels) == ["mm"] and art["mm"].tile.portable == ""  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "m, k, n, runs",
    [
        (130, 128, 136, "mm"),  # every row a multiple of 16 bytes: TMA
        (130, 100, 136, "mm__portable"),  # A's rows 200 bytes
        (70, 64, 150, "mm__portable"),  # B's rows 300 bytes
    ],
)
def test_a_launch_no_tma_map_fits_runs_the_twin(fake, m, k, n, runs):
    kernel = ferrox.load(KERNEL, device="gpu")["mm"]
    rng = np.random.default_rng()
    a = ferrox.to_bf16(rng.uniform(-1, 1, (m, k)))
    b = ferrox.to_bf16(rng.uniform(-1, 1, (k, n)))
    c = np.full((m, n), np.nan, np.float32)
    kernel(c, a, b)
    assert [launch[0] for launch in fake.launches] == [runs]
    assert not np.isnan(c).any()
    assert within_f32_sum_bound(c, a.float32(), b.float32())


def test_the_twin_is_checked_in_full_before_it_runs(fake, monkeypatch):
    """A device that fits the TMA kernel's shared memory but not the twin's: the launch that
    needs the twin is refused by the twin's own check, with its figures; nothing runs."""
    from ferrox.driver.runtime import device

    art = ferrox.compile(KERNEL, chip="sm_90")
    twin = portable_artifact(art, "mm")["mm__portable"]
    need, twin_need = art["mm"].contract.shared_bytes, twin.contract.shared_bytes  # type: ignore[union-attr]
    assert need < twin_need
    small = dataclasses.replace(fake_gpu.H200, max_shared_per_block_optin=need)
    monkeypatch.setattr(device, "_limits", {0: small})
    kernel = ferrox.load(KERNEL, device="gpu")["mm"]
    c = np.full((64, 64), np.nan, np.float32)
    kernel(c, ferrox.to_bf16(np.ones((64, 64))), ferrox.to_bf16(np.ones((64, 64))))
    assert (c == 64).all()  # the TMA kernel fits, and runs
    with pytest.raises(ferrox.LaunchError) as info:
        kernel(c, ferrox.to_bf16(np.zeros((64, 100))), ferrox.to_bf16(np.zeros((100, 64))))
    assert str(info.value) == (
        f"dynamic shared memory is {twin_need} bytes, but Fake H200 allows at most {need} per "
        "block (@mm__portable, run because argument 'a' (bf16 shared slice): a TMA tensor map's "
        "rows must be a multiple of 16 bytes, got 100 elements of bf16 (200 bytes))"
    )
    assert info.value.codes[0] is not None  # still the rule's code
    assert [launch[0] for launch in fake.launches] == ["mm"] and (c == 64).all()


def test_a_misaligned_address_sends_only_its_own_launch_to_the_twin(fake):
    """The address is not in a launch's signature key: after a launch on a slice 2 bytes into
    its storage (the twin runs), one with the same shapes on an aligned array goes through TMA
    again, and a repeat of the misaligned one runs the twin again. Rows that are no multiple of
    16 bytes are a fact of the shapes: their twin launch is repeated from the memo."""
    from ferrox.driver.runtime.buffers import DeviceArray

    m, k, n = 130, 64, 72
    a, b, shifted, aligned, y = misaligned_operands(m, k, n)
    kernel = ferrox.load(KERNEL, device="gpu")["mm"]
    for x in (shifted, aligned, shifted, aligned):
        c = DeviceArray.from_numpy(np.full((m, n), np.nan, np.float32))
        kernel(c, x, y)
        assert not kernel[None, None]._kept  # a TMA kernel is checked in full, so is this twin
        got = c.copy_to_host()
        assert not np.isnan(got).any()
        assert within_f32_sum_bound(got, a.float32(), b.float32())
    assert [launch[0] for launch in fake.launches] == [
        "mm__portable",
        "mm",
        "mm__portable",
        "mm",
    ]

    short = DeviceArray.from_numpy(np.asarray(ferrox.to_bf16(np.ones((m, 100)))), element="bf16")
    tall = DeviceArray.from_numpy(np.asarray(ferrox.to_bf16(np.ones((100, n)))), element="bf16")
    for _ in range(2):
        c = DeviceArray.from_numpy(np.full((m, n), np.nan, np.float32))
        kernel(c, short, tall)
        assert (c.copy_to_host() == 100).all()
    assert [launch[0] for launch in fake.launches][4:] == ["mm__portable"] * 2
    assert len(kernel[None, None]._kept) == 1  # 200-byte rows: the twin's launch is repeated


def test_no_tensor_map_is_an_argument_error():
    assert issubclass(NoTensorMap, ArgumentError)


def test_ferrox_run_launches_the_twin_for_the_examples_ragged_rows(fake):
    """`examples/tile/matmul_bf16.mlir` on the GPU (the host runner's path): its 200 x 100 and
    100 x 150 bf16 tensors have 200- and 300-byte rows, so its check passes on the twin."""
    from ferrox.driver.host_runner import run_host_program
    from ferrox.driver.host_runner.gpu import GpuBackend
    from ferrox.run_api import load_program

    result = run_host_program(load_program(EXAMPLE), GpuBackend(), out=None)
    assert result.checks and result.ok, [c.line() for c in result.checks]
    assert [launch[0] for launch in fake.launches] == ["matmul_bf16__portable"]


def test_ferrox_run_reports_a_refused_twin_at_the_launch(fake, monkeypatch, tmp_path):
    """A device that fits the TMA kernel but not its twin, which the example's ragged rows need:
    `ferrox run`'s host program gets a located error naming the twin and the figures, not a
    traceback; nothing runs. The example on 128 x 128 tiles, whose TMA kernel needs less shared
    memory than its twin (its own 128 x 256 tiles need more: 4 stages)."""
    from ferrox.diagnostics import DiagnosticError
    from ferrox.driver.host_runner import run_host_program
    from ferrox.driver.host_runner.gpu import GpuBackend
    from ferrox.driver.runtime import device
    from ferrox.run_api import load_program

    text = EXAMPLE.read_text().replace("[128, 256]", "[128, 128]").replace("[64, 256]", "[64, 128]")
    program = tmp_path / "matmul_bf16.mlir"
    program.write_text(text)
    # the artifact under the host runner's own key (the parsed program's text, its chip), so
    # that the run below reads this compile from the test run's cache instead of making another
    art = compiled(program, "sm_90")
    need = art["matmul_bf16"].contract.shared_bytes
    twin_need = portable_artifact(art, "matmul_bf16")["matmul_bf16__portable"].contract.shared_bytes
    assert need < twin_need
    small = dataclasses.replace(fake_gpu.H200, max_shared_per_block_optin=need)
    monkeypatch.setattr(device, "_limits", {0: small})
    with pytest.raises(DiagnosticError) as info:
        run_host_program(load_program(program), GpuBackend(), out=None)
    assert str(info.value).startswith(f"{program}:37:5: error: ")
    assert (
        f"cannot launch @matmul_bf16__portable: dynamic shared memory is {twin_need} bytes, "
        f"but Fake H200 allows at most {need} per block"
    ) in str(info.value)
    assert fake.launches == []


def test_ferrox_run_reports_a_twin_that_cannot_be_made_at_the_launch(fake, monkeypatch):
    """The host runner's path: the example's ragged rows need the twin, whose compile fails
    (here forced): a located refusal, the map's reason, and a note saying why; nothing runs."""
    from ferrox.diagnostics import DiagnosticError, error
    from ferrox.driver.host_runner import run_host_program
    from ferrox.driver.host_runner.gpu import GpuBackend
    from ferrox.run_api import load_program
    from ferrox.targets import cache

    def fails(artifact, kernel):
        raise error(None, "forced")

    monkeypatch.setattr(cache, "portable_artifact", fails)
    with pytest.raises(DiagnosticError) as info:
        run_host_program(load_program(EXAMPLE), GpuBackend(), out=None)
    text = str(info.value)
    assert text.startswith(f"{EXAMPLE}:") and "rows must be a multiple of 16 bytes" in text
    assert "its portable twin @matmul_bf16__portable cannot be made" in text and "forced" in text
    assert fake.launches == []


def test_an_artifact_that_holds_its_twin_needs_no_compile(fake, monkeypatch):
    """An artifact stored before twins were compiled apart has the twin among its kernels: the
    launcher takes that one, and compiles nothing."""
    from ferrox.targets import cache

    art = ferrox.compile(KERNEL, chip="sm_90")
    twin = portable_artifact(art, "mm")["mm__portable"]
    old = dataclasses.replace(art, kernels={**art.kernels, "mm__portable": twin})
    monkeypatch.setattr(cache, "portable_artifact", lambda *args: pytest.fail("compiled"))
    device = ferrox.load(old, device="gpu")._device
    assert device.portable(old["mm"]) is twin


def _wrong_twin(art, kernel: str, how: str):
    """`portable_artifact`'s result for `kernel`, made wrong `how`: its twin under another
    parameter name ("params"), beside a second kernel named as the TMA kernel ("extra"), or
    gone ("empty"): what a stale or foreign cache entry could hold."""
    made = portable_artifact(art, kernel)
    name = f"{kernel}__portable"
    twin = made[name]
    if how == "params":
        first = dataclasses.replace(twin.params[0], name="other")
        kernels = {name: dataclasses.replace(twin, params=(first, *twin.params[1:]))}
    elif how == "extra":
        kernels = {name: twin, kernel: twin}
    else:
        kernels = {}
    return dataclasses.replace(made, kernels=kernels)


INTERNAL = "internal error (a ferrox bug, please report it): "
WRONG_TWIN = {
    "params": "@{k}'s twin @{k}__portable takes other parameters",
    "extra": "@{k}'s twin compiled to {k}__portable, {k}, not @{k}__portable",
    "empty": "@{k}'s twin compiled to no kernel, not @{k}__portable",
}
"""`twin_in`'s message for each wrong twin artifact of `_wrong_twin`, for kernel `k` (after
`INTERNAL`: a bug of ours or a foreign cache entry, never the user's)."""


@pytest.mark.parametrize("how", ["params", "extra", "empty"])
def test_a_twin_artifact_not_holding_exactly_the_twin_is_never_launched(fake, monkeypatch, how):
    """The Python API: a twin's artifact whose one kernel is not the twin, with the TMA kernel's
    parameters, is an internal error; nothing runs."""
    from ferrox.driver.runtime.errors import InternalError
    from ferrox.targets import cache

    art = ferrox.compile(KERNEL, chip="sm_90")
    wrong = _wrong_twin(art, "mm", how)
    monkeypatch.setattr(cache, "portable_artifact", lambda *args: wrong)
    kernel = ferrox.load(art, device="gpu")["mm"]
    c = np.full((64, 64), np.nan, np.float32)
    with pytest.raises(InternalError) as info:
        kernel(c, ferrox.to_bf16(np.zeros((64, 100))), ferrox.to_bf16(np.zeros((100, 64))))
    assert str(info.value) == INTERNAL + WRONG_TWIN[how].format(k="mm")
    assert fake.launches == []


@pytest.mark.parametrize("how", ["params", "extra", "empty"])
def test_ferrox_run_refuses_a_twin_artifact_not_holding_exactly_the_twin(fake, monkeypatch, how):
    """The host runner's path: the same wrong twin artifacts are a located refusal at the
    launch (not a KeyError, not a launch of whatever the artifact holds); nothing runs."""
    from ferrox.diagnostics import DiagnosticError
    from ferrox.driver.host_runner import run_host_program
    from ferrox.driver.host_runner.gpu import GpuBackend
    from ferrox.run_api import load_program
    from ferrox.targets import cache

    program = load_program(EXAMPLE)
    art = compiled(EXAMPLE, "sm_90")
    wrong = _wrong_twin(art, "matmul_bf16", how)
    monkeypatch.setattr(cache, "portable_artifact", lambda *args: wrong)
    with pytest.raises(DiagnosticError) as info:
        run_host_program(program, GpuBackend(), out=None)
    text = str(info.value)
    assert text.startswith(f"{EXAMPLE}:") and "rows must be a multiple of 16 bytes" in text
    made = "its portable twin @matmul_bf16__portable cannot be made: "
    assert text.endswith(made + INTERNAL + WRONG_TWIN[how].format(k="matmul_bf16"))
    assert fake.launches == []


def test_two_threads_needing_the_twin_at_once_compile_and_load_it_once(fake, monkeypatch):
    """Two threads asking for the twin together (each launch that needs it does): one compile,
    one loaded module, and both get the twin of that module, so the artifact a launch checks is
    the one whose kernel it launches (a second compile would replace the first's module under
    the first thread's checked artifact)."""
    import threading
    import time

    from ferrox.targets import cache

    art = ferrox.compile(KERNEL, chip="sm_90")
    made = portable_artifact(art, "mm")
    calls: list[int] = []

    def slow(*args):
        calls.append(1)
        time.sleep(0.2)  # the other thread arrives while this one compiles
        return dataclasses.replace(made)  # a new artifact each compile, as a real one is

    monkeypatch.setattr(cache, "portable_artifact", slow)
    device = ferrox.load(art, device="gpu")._device
    got: list = []
    threads = [threading.Thread(target=lambda: got.append(device.portable(art["mm"])))]
    threads.append(threading.Thread(target=lambda: got.append(device.portable(art["mm"]))))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(got) == 2 and got[0] is got[1]
    assert device._loaded_for(got[0]).artifact["mm__portable"] == got[0]
