"""The JIT: a kernel is compiled at its first call and kept in the disk cache under its source,
the constants it reads, its Constexpr values, the argument types and the chip, so a second
process compiles nothing; a changed global constant is another kernel; FERROX_DUMP writes each
stage."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """\
    import sys
    import numpy as np
    from ferrox import simt
    from ferrox.simt import DisjointSlice, Slice, f32
    from ferrox.targets.cache import default_cache

    SCALE = float(sys.argv[1])

    @simt.kernel(block=256, requires=["len(x) >= len(out)"])
    def scale(x: Slice[f32], out: DisjointSlice[f32]):
        w = simt.thread_index_1d()
        i = w.value
        out[w] = x[i] * SCALE

    x = np.random.default_rng().uniform(-1, 1, 300).astype(np.float32)
    out = np.full(300, np.nan, np.float32)
    scale.on("cpu")[2, 256](x, out)
    assert np.array_equal(out, x * np.float32(SCALE))
    print(default_cache().compiles)
    """
)


def run(script: Path, cache: Path, scale: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), scale],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "FERROX_CACHE_DIR": str(cache), **env},
    )


def test_a_second_process_takes_the_kernel_from_the_disk_cache(tmp_path):
    script = tmp_path / "scale.py"
    script.write_text(SCRIPT, encoding="utf-8")
    cache = tmp_path / "cache"
    compiles = [run(script, cache, scale) for scale in ("2.0", "3.0", "2.0")]
    assert [c.returncode for c in compiles] == [0, 0, 0], [c.stderr for c in compiles]
    # compiled once per value of the global SCALE (another value is another kernel), then read
    # back (the first value's kernel is still there after the second's was added)
    assert [c.stdout.strip() for c in compiles] == ["1", "1", "0"]


def test_dump_writes_every_stage(tmp_path):
    script = tmp_path / "scale.py"
    script.write_text(SCRIPT, encoding="utf-8")
    dumps = tmp_path / "dumps"
    done = run(script, tmp_path / "cache", "2.0", FERROX_DUMP="all", FERROX_DUMP_DIR=str(dumps))
    assert done.returncode == 0, done.stderr
    files = {p.name: p.read_text(encoding="utf-8") for p in dumps.iterdir()}
    assert sorted(files) == [
        "scale.ir.txt",
        "scale.llvm.txt",
        "scale.lowering.txt",
        "scale.ptx.txt",
    ]
    assert "simt.get_mut %out[%w]" in files["scale.ir.txt"]
    assert f'loc("{script}":13:5)' in files["scale.ir.txt"]
    assert "// after convert-simt-to-nvvm" in files["scale.lowering.txt"]
    assert "define" in files["scale.llvm.txt"]
    assert ".entry scale" in files["scale.ptx.txt"]
