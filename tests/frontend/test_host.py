"""Host programs in Python (`@ferrox.host.program`) on the CPU interpreter: the recorded IR,
results against NumPy on fresh random data with NaN-poisoned outputs, and the ownership rules
refused at the Python lines with the exact diagnostics `verify-ownership` gives MLIR input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox import host, simt, tile
from ferrox.diagnostics import render
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.tile import Partition, Tensor

ROOT = Path(__file__).resolve().parents[2]
TILE = host.mlir_kernels(ROOT / "examples" / "tile" / "vector_add.mlir")
vector_add = TILE["vector_add"]  # z = x + y, one 1024-element tile per tile block


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + b[i]


@tile.kernel
def tile_mul(z: Partition[f32, 1024], x: Tensor[f32, None], y: Tensor[f32, None]):
    tile.store(tile.load_like(x, z) * tile.load_like(y, z), z)


def blocks(n: int) -> int:
    return -(-n // 256)


@host.program
def add_into(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    return out


@host.program
def add_fresh(x, y):
    out = host.poison(x.shape, f32)
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    host.check(out, "x + y", x=x, y=y)
    return out


@host.program
def two_streams(x, y, out):
    s1 = host.stream()
    s2 = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s1, x, y, out)
    z = host.poison(x.shape, f32)
    pz = host.partition(z, 1024)
    pz = host.tile_launch(vector_add, s2, pz, x, y)
    z = host.unpartition(pz)
    host.sync(s1)
    host.sync(s2)
    host.check(z, out)
    return out, z


@host.program
def python_tile(x, y, z):
    s = host.stream()
    pz = host.tile_launch(tile_mul, s, host.partition(z, 1024), x, y)
    host.sync(s)
    return host.unpartition(pz)


@host.program
def partition_then_read(x, y, z):
    s = host.stream()
    pz = host.partition(z, 1024)  # at: partitioned z
    pz = host.tile_launch(tile_mul, s, pz, z, y)  # at: read partitioned z
    host.sync(s)
    return host.unpartition(pz)


@host.program
def tile_without_partition(x, y, z):
    s = host.stream()
    z = host.tile_launch(tile_mul, s, z, x, y)  # at: no partition
    host.sync(s)
    return z


@host.program
def prepare_a_tile_kernel(x, y, z):
    return host.prepare(tile_mul, 1, 1, z, x, y)  # at: prepare tile


@host.program
def made_here(n):
    x = host.random(n, f32, uniform=(-1.0, 1.0), seed=7)
    y = host.full(n, 0.5, f32)
    out = host.poison(n, f32)
    s = host.stream()
    p = host.prepare(vecadd, blocks(n), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    return x, out


@host.program
def repeated(x, acc, tmp, steps):
    s = host.stream()
    for _ in range(steps):  # a Python loop records its body once per iteration
        p = host.prepare(vecadd, blocks(len(acc)), 256, x, acc, tmp)
        tmp = host.launch(p, s, x, acc, tmp)
        acc, tmp = tmp, acc
    host.sync(s)
    return acc


@host.program
def wrong_check(x, y):
    out = host.poison(x.shape, f32)
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    host.check(out, "x - y", x=x, y=y)
    return out


# doc:begin use-after-launch
@host.program
def use_after_launch(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    result = host.launch(p, s, x, y, out)  # at: took out
    host.sync(s)
    host.check(out, "x + y", x=x, y=y)  # at: used out
    return result


# doc:end


# doc:begin read-before-sync
@host.program
def read_before_sync(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s, x, y, out)  # at: launched
    host.check(out, "x + y", x=x, y=y)  # at: read early
    host.sync(s)
    return out


# doc:end


@host.program
def return_before_sync(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s, x, y, out)  # at: unsynced launch
    return out  # at: returned early


@host.program
def other_stream(x, y, out, out2):
    s1 = host.stream()
    s2 = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y, out)
    out = host.launch(p, s1, x, y, out)  # at: written on s1
    q = host.prepare(vecadd, blocks(len(out2)), 256, x, out, out2)
    out2 = host.launch(q, s2, x, out, out2)  # at: read on s2
    host.sync(s1)
    host.sync(s2)
    return out2


@host.program
def wrong_arity(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, y)  # at: two arguments
    return host.launch(p, s, x, y, out)


@host.program
def ragged_tile(x, y, out):
    s = host.stream()
    pz = host.partition(out, 1000)  # at: not a power of two
    pz = host.tile_launch(vector_add, s, pz, x, y)
    host.sync(s)
    return host.unpartition(pz)


@host.program
def peek(x, y, out):
    if out:  # at: no data
        pass
    return out


FILE = __file__
LINES = open(FILE, encoding="utf-8").read().splitlines()


def at(marker: str, text: str) -> tuple[int, int]:
    """(line, column) of `text` on the line carrying `marker`."""
    hits = [i for i, line in enumerate(LINES) if "# " + marker in line]
    assert len(hits) == 1, marker
    return hits[0] + 1, LINES[hits[0]].index(text) + 1


def shown(marker: str, text: str, severity: str, message: str) -> str:
    """One diagnostic or note as a FrontendError shows it in the tests' short form (conftest.py):
    `file.py:line:col: error[CODE]: message` (`severity` carries the code: `error[E0382]`)."""
    line, col = at(marker, text)
    return f"{FILE}:{line}:{col}: {severity}: {message}"


def fresh(n: int = 3001, k: int = 2):
    rng = np.random.default_rng()
    return [rng.uniform(-1, 1, n).astype(np.float32) for _ in range(k)]


def poisoned(n: int = 3001) -> np.ndarray:
    return np.full(n, np.nan, np.float32)


# -- programs that run ---------------------------------------------------------------------


def test_a_caller_output_comes_back_as_the_callers_array_holding_the_result():
    x, y = fresh()
    out = poisoned()
    program = add_into.on("cpu")
    result = program(x, y, out)
    assert result is out
    assert np.array_equal(out, x + y)
    assert program.last_run.device == "cpu"


def test_a_tensor_the_program_makes_comes_back_as_numpy():
    x, y = fresh(1000)
    program = add_fresh.on("cpu")
    result = program(x, y)
    assert isinstance(result, np.ndarray) and result.dtype == np.float32
    assert np.array_equal(result, x + y)
    assert [c.ok for c in program.last_run.checks] == [True]


def test_two_streams_and_a_partition():
    x, y = fresh(3001)
    out = poisoned(3001)
    got_out, z = two_streams.on("cpu")(x, y, out)
    assert got_out is out
    assert np.array_equal(out, x + y)
    assert np.array_equal(z, x + y)  # the tile kernel's ragged last tile included


def test_a_python_tile_kernel_over_a_partition():
    x, y = fresh(3001)
    z = poisoned(3001)
    assert python_tile.on("cpu")(x, y, z) is z
    assert np.array_equal(z, x * y)


def test_tensors_the_program_makes_and_python_values_as_arguments():
    x, out = made_here.on("cpu")(1000)
    expected_x = np.random.default_rng(7).uniform(-1.0, 1.0, 1000).astype(np.float32)
    assert np.array_equal(x, expected_x)
    assert np.array_equal(out, expected_x + np.float32(0.5))


def test_a_python_loop_records_one_launch_per_iteration():
    (x,) = fresh(1000, 1)
    acc0 = np.random.default_rng().uniform(-1, 1, 1000).astype(np.float32)
    acc, tmp = acc0.copy(), poisoned(1000)
    program = repeated.on("cpu")
    result = program(x, acc, tmp, 3)
    assert result is tmp  # after three swaps the result is in tmp's buffer
    assert np.array_equal(result, ((acc0 + x) + x) + x)
    text = repeated.ir(x, acc, tmp, 3)
    assert text.count("host.launch @vecadd") == 3


def test_a_failed_check_fails_the_call():
    x, y = fresh(300)
    with pytest.raises(host.HostCheckFailed, match=r"^1 check\(s\) of wrong_check failed:\n"):
        wrong_check.on("cpu")(x, y)


def test_the_recorded_ir_carries_python_locations_and_variable_names():
    x, y = fresh(512)
    text = add_into.ir(x, y, poisoned(512))
    launch = next(i for i, s in enumerate(LINES) if "def add_into" in s) + 4
    col = LINES[launch - 1].index("host.launch") + 1
    assert (
        "%out_1 = host.launch @vecadd with %p on %s ins(%x, %y : !host.tensor<f32, [512]>, "
        "!host.tensor<f32, [512]>) outs(%out : !host.tensor<f32, [512]>) -> "
        f'!host.tensor<f32, [512]> loc("{FILE}":{launch}:{col})'
    ) in text
    assert f'%x = host.from_array 0 : !host.tensor<f32, [512]> loc("{FILE}":' in text
    assert "simt.kernel @vecadd" in text


def test_ferrox_opt_reads_the_recorded_ir_and_reports_at_the_python_lines(tmp_path, capsys):
    from ferrox.driver.tools.opt import main

    x, y = fresh(256)
    path = tmp_path / "program.mlir"
    path.write_text(use_after_launch.ir_unverified(x, y, poisoned(256)))
    assert main([str(path), "-p", "verify-ownership"]) == 1
    used, took = at("at: used out", "host.check"), at("at: took out", "host.launch")
    assert capsys.readouterr().err.splitlines()[:3] == [
        f"{FILE}:{used[0]}:{used[1]}: error[E0382]: use of moved value: %out",
        f"{FILE}:{took[0]}:{took[1]}: note: value moved here",
        f"{FILE}:{used[0]}:{used[1]}: note: value used here after move",
    ]
    path.write_text(add_into.ir(x, y, poisoned(256)))
    assert main([str(path), "-p", "verify-ownership"]) == 0


def test_the_recorded_ir_round_trips_through_the_parser_and_verify_ownership():
    from ferrox.parser import parse_source
    from ferrox.registry import make_context
    from ferrox.run_api import load_program

    x, y = fresh(256)
    recorded = two_streams.module(x, y, poisoned(256))
    module = parse_source(make_context(), str(recorded), "<frontend>")
    load_program(module)  # op verifiers, verify-disjoint, verify-ownership
    assert str(module) == str(recorded)


# -- the ownership rules at Python lines ---------------------------------------------------


def test_use_after_a_launch_took_the_tensor():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        use_after_launch.on("cpu")(x, y, poisoned(256))
    assert str(e.value) == "\n".join(
        [
            shown("at: used out", "host.check", "error[E0382]", "use of moved value: %out"),
            shown("at: took out", "host.launch", "note", "value moved here"),
            shown("at: used out", "host.check", "note", "value used here after move"),
        ]
    )


def test_reading_an_output_before_its_stream_is_synced():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        read_before_sync.on("cpu")(x, y, poisoned(256))
    assert str(e.value) == "\n".join(
        [
            shown(
                "at: read early",
                "host.check",
                "error[E1106]",
                "cannot read %out before `host.sync_on %s`: a launch on %s may still be writing it",
            ),
            shown("at: launched", "host.launch", "note", "launched here"),
        ]
    )


def test_returning_an_output_before_its_stream_is_synced():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        return_before_sync.on("cpu")(x, y, poisoned(256))
    assert str(e.value) == "\n".join(
        [
            shown(
                "at: returned early",
                "return",
                "error[E1106]",
                "cannot return %out before `host.sync_on %s`: a launch on %s may still be "
                "writing it",
            ),
            shown("at: unsynced launch", "host.launch", "note", "launched here"),
        ]
    )


def test_the_return_is_located_under_a_profiler_too():
    """With a profiler installed the hook that sees the `return` is left out: the location is
    the program's only return statement, and the profiler keeps running."""
    import cProfile

    x, y = fresh(256)
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        with pytest.raises(host.FrontendError) as e:
            return_before_sync.on("cpu")(x, y, poisoned(256))
    finally:
        profiler.disable()
    assert str(e.value).startswith(
        shown(
            "at: returned early",
            "return",
            "error[E1106]",
            "cannot return %out before `host.sync_on %s`: a launch on %s may still be writing it",
        )
    )
    assert profiler.getstats()  # it saw the call


def test_using_an_output_on_another_stream_before_the_sync():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        other_stream.on("cpu")(x, y, poisoned(256), poisoned(256))
    message = str(e.value)
    assert message.startswith(
        shown(
            "at: read on s2",
            "host.launch",
            "error[E1106]",
            "cannot use %out on stream %s2 before `host.sync_on %s1`: a launch on %s1 may still "
            "be writing it",
        )
    )
    assert shown("at: written on s1", "host.launch", "note", "launched here") in message


def test_the_same_array_bound_twice_would_alias():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        add_into.on("cpu")(x, y, x)
    line = next(i for i, s in enumerate(LINES) if "def add_into" in s) + 1
    text = LINES[line - 1]
    first, second = text.index("x") + 1, text.index("out") + 1
    assert str(e.value) == (
        f"{FILE}:{line}:{second}: error[E1101]: caller array 0 is already bound to a tensor; "
        "binding it again would alias it\n"
        f"{FILE}:{line}:{first}: note: first bound here"
    )


def test_two_arrays_that_share_memory_are_refused_at_bind():
    (x,) = fresh(512, 1)
    a, b = x[:300], x[200:]  # views of one buffer, overlapping in 100 elements
    with pytest.raises(host.FrontendError) as e:
        add_into.on("cpu")(a, b, poisoned(300))
    line = next(i for i, s in enumerate(LINES) if "def add_into" in s) + 1
    text = LINES[line - 1]
    first, second = text.index("x") + 1, text.index("y") + 1
    assert str(e.value) == (
        f"{FILE}:{line}:{second}: error[E1101]: caller arrays `x` and `y` share memory (numpy "
        "f32 300 and numpy f32 312); each caller array is bound to its own tensor, so no two may "
        "alias (pass a copy)\n"
        f"{FILE}:{line}:{first}: note: `x` bound here"
    )


def test_disjoint_views_of_one_buffer_are_fine():
    (x,) = fresh(600, 1)
    a, b = x[:300], x[300:]
    out = poisoned(300)
    add_into.on("cpu")(a, b, out)
    assert np.array_equal(out, a + b)


def test_a_partitioned_tensor_passed_again_was_moved():
    x, y = fresh(2048)
    with pytest.raises(host.FrontendError) as e:
        partition_then_read.on("cpu")(x, y, poisoned(2048))
    assert str(e.value) == "\n".join(
        [
            shown(
                "at: read partitioned z",
                "host.tile_launch",
                "error[E0382]",
                "use of moved value: %z",
            ),
            shown("at: partitioned z", "host.partition", "note", "value moved here"),
            shown(
                "at: read partitioned z", "host.tile_launch", "note", "value used here after move"
            ),
        ]
    )


# -- mistakes in the surface itself --------------------------------------------------------


def test_a_launch_with_the_wrong_number_of_arguments():
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        wrong_arity.on("cpu")(x, y, poisoned(256))
    assert str(e.value) == shown(
        "at: two arguments",
        "host.prepare",
        "error",
        "@vecadd takes 3 argument(s) (!simt.slice<f32>, !simt.slice<f32>, "
        "!simt.disjoint_slice<f32, 1d>), got 2",
    )


def test_a_tile_that_is_not_a_power_of_two_is_the_op_verifiers_error_at_the_python_line():
    x, y = fresh(1000)
    with pytest.raises(host.FrontendError) as e:
        ragged_tile.on("cpu")(x, y, poisoned(1000))
    assert str(e.value) == shown(
        "at: not a power of two",
        "host.partition",
        "error[E1104]",
        "tile dimensions must be static powers of two, got 1000 in [1000]",
    )


def test_a_tile_launch_needs_a_partition_and_prepare_a_simt_kernel():
    x, y = fresh(64)
    with pytest.raises(host.FrontendError) as e:
        tile_without_partition.on("cpu")(x, y, poisoned(64))
    assert str(e.value) == shown(
        "at: no partition",
        "host.tile_launch",
        "error",
        "argument #0 of @tile_mul (!tile.partition<f32, [1024]>) needs a partition "
        "(host.partition(t, tile)), got <host tensor %z f32 [64]>",
    )
    with pytest.raises(host.FrontendError) as e:
        prepare_a_tile_kernel.on("cpu")(x, y, poisoned(64))
    assert str(e.value) == shown(
        "at: prepare tile",
        "host.prepare",
        "error",
        "@tile_mul is a tile kernel: launch it with host.tile_launch",
    )


def test_a_recorded_value_has_no_data():
    x, y = fresh(16)
    with pytest.raises(TypeError, match="have no data while the program is recorded"):
        peek.on("cpu")(x, y, poisoned(16))


def test_the_surface_outside_a_program():
    with pytest.raises(TypeError) as e:
        host.stream()
    assert str(e.value) == (
        "host.stream() records an op of a host program: call it inside a function decorated "
        "with @ferrox.host.program"
    )


# -- torch in, torch out -------------------------------------------------------------------


def test_torch_in_torch_out_on_the_cpu():
    torch = pytest.importorskip("torch", reason="torch is not installed here")
    x, y = (torch.from_numpy(a) for a in fresh(1000))
    out = torch.full((1000,), float("nan"))
    result = add_into.on("cpu")(x, y, out)
    assert result is out
    assert torch.equal(out, x + y)
    fresh_out = add_fresh.on("cpu")(x, y)
    assert isinstance(fresh_out, torch.Tensor) and torch.equal(fresh_out, x + y)


# -- the docs show these diagnostics as they are -------------------------------------------


@pytest.mark.parametrize(
    ("snippet", "program"),
    [("use-after-launch", "use_after_launch"), ("read-before-sync", "read_before_sync")],
)
def test_the_docs_show_the_diagnostics_as_they_are(snippet, program):
    page = (ROOT / "docs" / "python-host.md").read_text(encoding="utf-8")
    after = page.split(f"<!-- snippet: tests/frontend/test_host.py#{snippet} -->", 1)[1]
    shown_text = after.split("```text\n", 1)[1].split("```", 1)[0]
    x, y = fresh(256)
    with pytest.raises(host.FrontendError) as e:
        globals()[program].on("cpu")(x, y, poisoned(256))
    # The page shows what a user sees: the human form (rustc's shape), not the tests' short one.
    assert shown_text == render(e.value, "human").replace(FILE, "test_host.py") + "\n"
