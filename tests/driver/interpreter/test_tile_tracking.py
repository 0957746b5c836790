"""A tile read's race tracking through the lanes that decide it (memory.deciding_lanes) against
tracking every lane: on random recorded states (writers and readers of this barrier interval or
an earlier one, the reading lanes' own threads among them) and random tiles (classes of lanes
reading alike, classes sharing an element in a step, lanes that stop reading alike), the same
first race and the same records afterwards."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import f32

from ferrox.driver.interpreter import memory
from ferrox.driver.interpreter.engine import Executor, Launch

LANES = 64


class _Race(Exception):
    pass


def _executor() -> Executor:
    launch = Launch(None, (1, 1, 1), (LANES, 1, 1), 10**9)
    ex = Executor(launch, np.arange(LANES, dtype=np.int64), 0, 1, {})
    ex.epochs[:] = 3  # this barrier interval: 3; recorded ones are 3 or older
    return ex


def _state(rng, size: int) -> memory.Accesses:
    acc = memory.Accesses(size)
    acc.thread[:] = rng.integers(-1, LANES, acc.thread.shape)
    acc.thread[rng.random(acc.thread.shape) < 0.3] = rng.integers(0, 4)  # a few threads often
    acc.interval[:] = rng.choice([1, 2, 3], acc.interval.shape, p=[0.2, 0.2, 0.6])
    acc.op[:] = rng.integers(0, 2, acc.op.shape)
    acc.thread[0][rng.random(size) < 0.7] = -1  # most elements: no writer (or the race is all)
    return acc


def _tile(rng, steps: int, lanes: int, classes: int, pool: int, odd: bool) -> np.ndarray:
    """Steps x lanes elements: lanes in `classes` read alike, each step's elements its own
    (from `pool` per step: classes may meet on one), one lane leaving its class if `odd`."""
    cls = rng.integers(0, classes, lanes)
    per_class = np.arange(steps)[:, None] * pool + rng.integers(0, pool, (steps, classes))
    flat = per_class[:, cls]
    if odd and steps > 1:
        flat[rng.integers(1, steps), rng.integers(0, lanes)] = (steps - 1) * pool
    return flat


def _run(ex, acc, flat, lanes, reduce: bool, monkeypatch):
    def race(ex, op, buffer, elem, lane, write, other, other_op, other_wrote, show):
        raise _Race((int(elem), int(lane), other, other_wrote))

    monkeypatch.setattr(memory, "_race", race)
    if reduce:
        keep = memory.deciding_lanes(ex, acc, flat, lanes, memory.lane_classes(flat))
        assert keep is not None
        flat, lanes = flat[:, keep], lanes[keep]
    buffer = memory.shared_buffer(f32, (acc.thread.shape[1],), "%s", 1)
    try:
        memory.track(ex, "op", buffer, acc, flat, lanes, False, str)
    except _Race as e:
        return e.args[0]
    return None


@pytest.mark.parametrize("seed", range(60))
def test_the_deciding_lanes_find_and_record_what_every_lane_does(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    steps, pool = int(rng.integers(1, 6)), int(rng.integers(1, 4))
    classes = int(rng.integers(1, 6))
    lanes = np.sort(rng.choice(LANES, int(rng.integers(8, LANES + 1)), replace=False))
    flat = _tile(rng, steps, len(lanes), classes, pool, odd=seed % 5 == 4)
    acc = _state(rng, steps * pool)
    want_acc, ex = _copy(acc), _executor()
    ex.launch.op_number("earlier op")
    ex.launch.op_number("another op")
    want = _run(ex, want_acc, flat, lanes, False, monkeypatch)
    got = _run(ex, acc, flat, lanes, True, monkeypatch)
    assert got == want
    for a, b in zip(_rows(acc), _rows(want_acc)):
        np.testing.assert_array_equal(a, b)


def test_reads_ordered_by_a_warp_collective_are_all_tracked():
    ex = _executor()
    ex.warp_epochs[0] = 1
    flat = np.zeros((1, 8), np.int64)
    acc = memory.Accesses(1)
    assert memory.deciding_lanes(ex, acc, flat, np.arange(8), memory.lane_classes(flat)) is None


def test_lanes_that_part_after_the_first_step_are_classes_of_their_own():
    flat = np.array([[0, 0, 1, 1], [2, 2, 3, 4]])
    first, cls = memory.lane_classes(flat)
    assert list(first[cls]) == [0, 1, 2, 3]
    first, cls = memory.lane_classes(np.array([[0, 0, 1, 1], [2, 2, 3, 3]]))
    assert list(first[cls]) == [0, 0, 2, 2]


def _copy(acc: memory.Accesses) -> memory.Accesses:
    other = memory.Accesses(acc.thread.shape[1])
    for a, b in zip(_rows(other), _rows(acc)):
        a[:] = b
    return other


def _rows(acc: memory.Accesses):
    return acc.thread, acc.op, acc.interval, acc.warp_epoch


@pytest.mark.parametrize("writer", [0, 1, 7])
def test_a_class_whose_writer_is_one_of_its_lanes_races_at_its_next_lane(monkeypatch, writer):
    """Eight lanes read element 0 that thread `writer` wrote in this barrier interval: the first
    other lane races, found through the deciding lanes as through all."""
    ex, flat, lanes = _executor(), np.zeros((2, 8), np.int64), np.arange(8)
    flat[1] = 1
    for reduce in (False, True):
        acc = memory.Accesses(2)
        acc.thread[0, 0], acc.interval[0, 0] = writer, 3
        got = _run(ex, acc, flat, lanes, reduce, monkeypatch)
        assert got == (0, 1 if writer == 0 else 0, writer, True)
