"""A cached kernel reaches its launch check without the compiler: a new process that compiles a
kernel the cache has, and checks a launch of it, imports no module of xDSL, the dialects, the
passes, the lowering or llvmlite (not even `xdsl.utils.exceptions`, the base class of ferrox's
diagnostics: those load only when a diagnostic is made), and gets the artifact with its cubin
where ptxas made one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import ferrox
from ferrox.targets import cache as cache_module
from ferrox.targets.toolchain import find_ptxas

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"

HEAVY = ("xdsl", "llvmlite", "ferrox.dialects", "ferrox.passes", "ferrox.lowering", "ferrox.parser")

CHILD = """
import json, sys
import numpy as np
import ferrox
from ferrox.driver.checker import INTERPRETER_LIMITS, check_launch, numpy_buffer
from ferrox.driver.runtime import launcher  # what a GPU launch adds: cuda.core, no compiler

artifact = ferrox.compile(sys.argv[1], chip="sm_90")
n = 1000
a, b, out = (np.zeros(n, np.float32) for _ in range(3))
checked = check_launch(
    artifact["vecadd"], 4, 256, None, [numpy_buffer(x) for x in (a, b, out)], INTERPRETER_LIMITS
)
heavy = sorted(m for m in sys.modules if m.startswith(tuple(sys.argv[2].split(","))))
print(json.dumps({"heavy": heavy, "grid": list(checked.grid), "cubin": artifact.cubin is not None}))
"""


def test_a_new_process_hits_the_cache_without_importing_the_compiler(tmp_path: Path, monkeypatch):
    # This process's versions measured now, from the sources as they are (as the child's are).
    monkeypatch.setattr(cache_module, "_versions", None)
    cache_module.toolchain_signature.cache_clear()
    cache_module.compiler_fingerprint.cache_clear()  # other edits since this process began
    env = dict(os.environ, FERROX_CACHE_DIR=str(tmp_path / "cache"))
    os.environ["FERROX_CACHE_DIR"], saved = env["FERROX_CACHE_DIR"], os.environ["FERROX_CACHE_DIR"]
    try:
        compiled = ferrox.compile(VECADD, chip="sm_90")  # on disk now, in this test's folder
    finally:
        os.environ["FERROX_CACHE_DIR"] = saved
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(VECADD), ",".join(HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result = json.loads(out.stdout)
    assert result["heavy"] == []
    assert result["grid"] == [4, 1, 1]
    assert result["cubin"] == (find_ptxas() is not None) == (compiled.cubin is not None)


def test_a_miss_in_a_new_process_does_import_the_compiler(tmp_path: Path):
    """The check above can fail: on a miss the same child compiles, and imports it all."""
    env = dict(os.environ, FERROX_CACHE_DIR=str(tmp_path / "empty"))
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(VECADD), ",".join(HEAVY)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    heavy = set(json.loads(out.stdout)["heavy"])
    assert {"ferrox.lowering.pipeline", "xdsl.ir", "llvmlite"} <= heavy


COMPILE_ONLY = """
import json, sys
import ferrox

artifact = ferrox.compile(sys.argv[1], chip="sm_90")
heavy = sorted(m for m in sys.modules if m.startswith(tuple(sys.argv[2].split(","))))
print(json.dumps({"heavy": heavy, "kernels": list(artifact.kernels)}))
"""


def test_a_compile_hit_imports_neither_numpy_nor_the_runtime(tmp_path: Path, monkeypatch):
    """`ferrox.compile` alone (what `ferrox compile` and a build step do) needs the artifact, not
    NumPy, cuda.core, the checker or the compiler."""
    monkeypatch.setattr(cache_module, "_versions", None)
    cache_module.toolchain_signature.cache_clear()
    cache_module.compiler_fingerprint.cache_clear()  # other edits since this process began
    env = dict(os.environ, FERROX_CACHE_DIR=str(tmp_path / "cache"))
    os.environ["FERROX_CACHE_DIR"], saved = env["FERROX_CACHE_DIR"], os.environ["FERROX_CACHE_DIR"]
    try:
        ferrox.compile(VECADD, chip="sm_90")
    finally:
        os.environ["FERROX_CACHE_DIR"] = saved
    heavy = (*HEAVY, "numpy", "cuda", "ferrox.driver", "ferrox.loaded")
    out = subprocess.run(
        [sys.executable, "-c", COMPILE_ONLY, str(VECADD), ",".join(heavy)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result = json.loads(out.stdout)
    assert result["heavy"] == []
    assert result["kernels"] == ["vecadd"]
