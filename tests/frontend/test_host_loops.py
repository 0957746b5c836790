"""`host.fori_loop`: a host program's loop kept as `scf.for` with `iter_args`, its body recorded
once, carrying a stream and tensors through the trips. Results against NumPy on the CPU
interpreter (fresh random data, poisoned outputs); the ownership rules refused at the Python
lines with verify-ownership's words; the surface's own mistakes located at the loop."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox import host, simt
from ferrox.simt import DisjointSlice, Slice, f32, index


@simt.kernel(block=256, requires=["len(a) >= len(out)"])
def add_step(a: Slice[f32], out: DisjointSlice[f32], k: index):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + f32(k)


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + b[i]


def blocks(n: int) -> int:
    return -(-n // 256)


# doc:begin fori-loop
@host.program
def count_up(acc, steps):
    s = host.stream()

    def step(i, s, acc):  # recorded once: the body of an scf.for
        fresh = host.poison(acc.shape, f32)
        p = host.prepare(add_step, blocks(len(acc)), 256, acc, fresh, i)  # i: an index
        fresh = host.launch(p, s, acc, fresh, i)  # reads acc, takes fresh: acc + i
        return s, fresh  # what the next trip gets

    s, acc = host.fori_loop(0, steps, step, s, acc)
    host.sync(s)  # the loop's stream, synced through the loop's result
    return acc


# doc:end


@host.program
def moves_outer(x, out, steps):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(out)), 256, x, x, out)

    def step(i, s):
        host.launch(p, s, x, x, out)  # at: moved every trip
        return s

    s = host.fori_loop(0, steps, step, s)
    host.sync(s)
    return x


@host.program
def read_before_the_loops_sync(x, acc, steps):
    s = host.stream()
    p = host.prepare(vecadd, blocks(len(acc)), 256, x, x, acc)

    def step(i, s, acc):
        fresh = host.poison(acc.shape, f32)
        return s, host.launch(p, s, acc, x, fresh)  # at: launched in the loop

    s, acc = host.fori_loop(0, steps, step, s, acc)
    host.check(acc, "acc", acc=acc)  # at: read early
    host.sync(s)
    return acc


@host.program
def gives_back_swapped(acc, steps):
    s = host.stream()

    def step(i, s, acc):
        return acc, s

    s, acc = host.fori_loop(0, steps, step, s, acc)  # at: swapped
    return acc


@host.program
def body_without_the_index(acc, steps):
    def step(acc):
        return acc

    return host.fori_loop(0, steps, step, acc)  # at: no index


@host.program
def carries_a_number(acc, steps):
    def step(i, acc, n):
        return acc, n

    acc, _ = host.fori_loop(0, steps, step, acc, 3)  # at: a number
    return acc


FILE = __file__
LINES = open(FILE, encoding="utf-8").read().splitlines()


def shown(marker: str, text: str, severity: str, message: str) -> str:
    """One diagnostic or note as a FrontendError shows it in the tests' short form (conftest.py):
    `file.py:line:col: error[CODE]: message` (`severity` carries the code: `error[E0382]`)."""
    hits = [i for i, line in enumerate(LINES) if "# at: " + marker in line]
    assert len(hits) == 1, marker
    line, col = hits[0] + 1, LINES[hits[0]].index(text) + 1
    return f"{FILE}:{line}:{col}: {severity}: {message}"


def refusal(program, *args) -> str:
    with pytest.raises(host.FrontendError) as e:
        program.on("cpu")(*args)
    return str(e.value)


@pytest.mark.parametrize("steps", [0, 1, 5])
def test_a_loop_carries_its_stream_and_tensor_through_the_trips(steps):
    acc0 = np.random.default_rng().uniform(-1, 1, 1000).astype(np.float32)
    got = count_up.on("cpu")(acc0.copy(), steps)
    expected = acc0.copy()
    for k in range(steps):
        expected = expected + np.float32(k)
    assert np.array_equal(got, expected)


def test_the_loop_is_one_scf_for_whatever_its_trip_count():
    acc = np.zeros(1000, np.float32)
    text = count_up.ir(acc, 7)
    assert text.count("host.launch @add_step") == 1
    assert "%s_1, %acc_1 = scf.for %i = " in text
    assert "iter_args(%s_2 = %s, %acc_2 = %acc) -> (!host.stream, !host.tensor<f32, [1000]>)" in (
        text
    )
    assert "host.sync_on %s_1" in text


def test_a_value_the_body_moves_without_carrying_it_is_moved_on_the_previous_trip():
    x = np.ones(256, np.float32)
    assert refusal(moves_outer, x, np.zeros(256, np.float32), 3) == "\n".join(
        [
            shown("moved every trip", "host.launch", "error[E0382]", "use of moved value: %out"),
            shown(
                "moved every trip",
                "host.launch",
                "note",
                "value moved here, in previous iteration of loop",
            ),
            shown("moved every trip", "host.launch", "note", "value used here after move"),
        ]
    )


def test_the_loops_result_is_read_only_after_its_stream_is_synced():
    x = np.ones(256, np.float32)
    assert refusal(read_before_the_loops_sync, x, np.zeros(256, np.float32), 3) == "\n".join(
        [
            shown(
                "read early",
                "host.check",
                "error[E1106]",
                "cannot read %acc before `host.sync_on %s`: a launch on %s may still be writing it",
            ),
            shown("launched in the loop", "host.launch", "note", "launched here"),
        ]
    )


def test_the_surfaces_own_mistakes_are_located_at_the_loop():
    acc = np.zeros(256, np.float32)
    assert refusal(gives_back_swapped, acc, 2) == shown(
        "swapped",
        "host.fori_loop",
        "error",
        "the loop body returns <host tensor %acc f32 [256]> for carried value #0, which entered "
        "as <host stream %s>: a trip must give back what it got, of the same type",
    )
    assert refusal(body_without_the_index, acc, 2) == shown(
        "no index",
        "host.fori_loop",
        "error",
        "the loop body takes the index and the 1 carried value(s), 2 parameter(s); step takes "
        "1 (acc)",
    )
    assert refusal(carries_a_number, acc, 2) == shown(
        "a number",
        "host.fori_loop",
        "error",
        "host.fori_loop carries tensors, partitions and streams; value #1 is int 3",
    )


def test_the_loop_runs_on_the_gpu_backend_too(monkeypatch, tmp_path):
    import fake_gpu

    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        acc0 = np.random.default_rng().uniform(-1, 1, 1000).astype(np.float32)
        program = count_up.on("gpu")
        got = program(acc0.copy(), 3)
        assert program.last_run.device == "gpu"
        assert np.array_equal(got, ((acc0 + np.float32(0)) + np.float32(1)) + np.float32(2))
        assert [n for n, *_ in fake.launches] == ["add_step"] * 3


def test_the_recorded_loop_reads_back_and_verifies():
    from ferrox.parser import parse_source
    from ferrox.registry import make_context
    from ferrox.run_api import load_program

    acc = np.zeros(1000, np.float32)
    recorded = count_up.module(acc, 4)
    module = parse_source(make_context(), str(recorded), "<frontend>")
    load_program(module)  # op verifiers, verify-disjoint, verify-ownership
    assert str(module) == str(recorded)


def test_ferrox_opt_refuses_the_recorded_loop_at_the_python_line(tmp_path, capsys):
    from ferrox.driver.tools.opt import main

    path = tmp_path / "program.mlir"
    x = np.ones(256, np.float32)
    path.write_text(moves_outer.ir_unverified(x, np.zeros(256, np.float32), 3))
    assert main([str(path), "-p", "verify-ownership"]) == 1
    first = shown("moved every trip", "host.launch", "error[E0382]", "use of moved value: %out")
    assert capsys.readouterr().err.splitlines()[0] == first
