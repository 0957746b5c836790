"""bf16 and f16 arguments through the launch checker: how NumPy arrays are described (bf16 only
when marked: `ferrox.bf16_bits`, or ml_dtypes' bfloat16), the exact refusal of any other element
type, the alias and shape checks on bf16 views, and results back in the caller's arrays, on the
CPU interpreter and on the fake GPU (staged as bits, kernels run on the interpreter)."""

from __future__ import annotations

from pathlib import Path

import fake_gpu
import numpy as np
import pytest

import ferrox
from ferrox.driver.checker import numpy_buffer
from ferrox.driver.checker.args import element_of
from ferrox.driver.interpreter.bf16 import Bf16Bits, is_ml_bfloat16

ROOT = Path(__file__).resolve().parents[3]
VECTOR_ADD = ROOT / "examples" / "tile" / "vector_add.mlir"


def vector_add(element: str, device: str):
    """examples/tile/vector_add.mlir's kernel over `element` tensors."""
    text = VECTOR_ADD.read_text()
    kernel = text.split("func.func @main", 1)[0].rstrip() + "\n}\n"
    return ferrox.load(kernel.replace("f32", element), device=device)["vector_add"]


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake


@pytest.fixture
def rng():
    return np.random.default_rng()


def refused(launch, *args) -> list[str]:
    with pytest.raises(ferrox.LaunchError) as info:
        launch(*args)
    return info.value.problems


def test_numpy_arrays_are_bf16_only_when_marked():
    raw = np.zeros((3, 4), np.uint16)
    marked = numpy_buffer(ferrox.bf16_bits(raw))
    plain = numpy_buffer(raw)
    assert (marked.element, marked.shape, marked.length, marked.nbytes) == ("bf16", (3, 4), 12, 24)
    assert (marked.start, marked.end) == (plain.start, plain.end) and plain.element == "i16"
    assert numpy_buffer(np.zeros(5, np.float16)).element == "f16"
    assert element_of(np.dtype(np.float32)) == "f32"


def test_ml_dtypes_bfloat16_is_recognised_by_name_without_importing_it():
    class bfloat16:  # what ml_dtypes' scalar type says of itself
        __module__ = "ml_dtypes._ml_dtypes_ext"

    class Lookalike:  # another library's bfloat16 is not ml_dtypes'
        __module__ = "somewhere.else"
        __name__ = "bfloat16"

    class Dtype:
        def __init__(self, scalar):
            self.type = scalar

    assert is_ml_bfloat16(Dtype(bfloat16))
    assert not is_ml_bfloat16(Dtype(Lookalike)) and not is_ml_bfloat16(np.dtype(np.uint16))


def test_bf16_bits_in_and_out_on_the_cpu(rng):
    k = vector_add("bf16", "cpu")
    x, y = ferrox.to_bf16(rng.standard_normal(3001)), ferrox.to_bf16(rng.standard_normal(3001))
    z = ferrox.bf16_bits(np.full(3001, 0x7FC1, np.uint16))
    k(z, x, y)
    assert isinstance(z, Bf16Bits)
    assert np.array_equal(z.view(np.ndarray), ferrox.to_bf16(x.float32() + y.float32()))


def test_other_element_types_for_bf16_are_refused_with_the_way_out(rng):
    k = vector_add("bf16", "cpu")
    x, y = ferrox.to_bf16(rng.standard_normal(100)), ferrox.to_bf16(rng.standard_normal(100))
    z = ferrox.bf16_bits(np.full(100, 0x7FC1, np.uint16))
    hint = (
        ": NumPy has no bf16, so pass bf16 bit patterns as ferrox.bf16_bits(uint16 array), or "
        "round floats with ferrox.to_bf16(array)"
    )
    assert refused(
        k,
        z,
        x.float32(),
        y.view(np.ndarray),
    ) == [
        "%x (argument #1) of @vector_add is a tile tensor of bf16, but the array holds f32 (its "
        "element type must be bf16)" + hint,
        "%y (argument #2) of @vector_add is a tile tensor of bf16, but the array holds i16 (its "
        "element type must be bf16)" + hint,
    ]
    assert refused(k, np.zeros(100, np.float16), x, y) == [
        "%z (argument #0) of @vector_add is a partition of bf16, but the array holds f16 "
        "(its element type must be bf16)" + hint
    ]
    assert (z.view(np.ndarray) == 0x7FC1).all()  # nothing ran


def test_bf16_views_that_alias_are_refused(rng):
    k = vector_add("bf16", "cpu")
    whole = ferrox.to_bf16(rng.standard_normal(1500))
    y = ferrox.to_bf16(rng.standard_normal(1000))
    before = whole.copy()
    assert refused(k, whole[500:], whole[:1000], y) == [
        "%z (argument #0) and %x (argument #1) of @vector_add overlap by 1000 bytes, but %z is "
        "an exclusive output (partition) and must not alias any other argument (pass a copy)"
    ]
    assert np.array_equal(whole.view(np.ndarray), before.view(np.ndarray))


def test_a_bf16_tensor_of_the_wrong_rank_is_refused():
    k = vector_add("bf16", "cpu")
    z = ferrox.bf16_bits(np.zeros(64, np.uint16))
    x, y = ferrox.bf16_bits(np.zeros((8, 8), np.uint16)), ferrox.bf16_bits(np.zeros(64, np.uint16))
    assert refused(k, z, x, y) == [
        "%x of @vector_add has shape [?] (rank 1), but the array bound to it has shape [8, 8]"
    ]


def test_f16_numpy_arrays_on_the_cpu(rng):
    k = vector_add("f16", "cpu")
    x, y = (
        rng.standard_normal(3001).astype(np.float16),
        rng.standard_normal(3001).astype(np.float16),
    )
    z = np.full(3001, np.nan, np.float16)
    k(z, x, y)
    assert np.array_equal(z, (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16))


def test_numpy_bf16_bits_are_staged_on_the_gpu_and_copied_back(fake, rng):
    k = vector_add("bf16", "gpu")
    x, y = ferrox.to_bf16(rng.standard_normal(3001)), ferrox.to_bf16(rng.standard_normal(3001))
    z = ferrox.bf16_bits(np.full(3001, 0x7FC1, np.uint16))
    k(z, x, y)
    assert fake.launches and fake.launches[-1][0] == "vector_add"
    assert np.array_equal(z.view(np.ndarray), ferrox.to_bf16(x.float32() + y.float32()))
    assert refused(k, z, x.float32(), y)[0].startswith(
        "%x (argument #1) of @vector_add is a tile tensor of bf16, but the array holds f32"
    )


def test_f16_numpy_arrays_on_the_gpu(fake, rng):
    k = vector_add("f16", "gpu")
    x, y = rng.standard_normal(999).astype(np.float16), rng.standard_normal(999).astype(np.float16)
    z = np.full(999, np.nan, np.float16)
    k(z, x, y)
    assert np.array_equal(z, (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16))
