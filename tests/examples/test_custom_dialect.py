"""The out-of-tree dialect of docs/custom-dialect.md, installed and driven through ferrox-opt."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "custom_dialect"


def _local_build_backend() -> bool:
    """setuptools can build a wheel here without an index (>= 70.1, or with `wheel`)."""
    try:
        import setuptools
    except ImportError:
        return False
    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    """Install the plugin package (not editable, no deps) into a private folder."""
    site = tmp_path_factory.mktemp("plugin-site")
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
    if _local_build_backend():
        cmd.append("--no-build-isolation")  # offline hosts: build with what is installed
    source = tmp_path_factory.mktemp("plugin-src") / "custom_dialect"
    shutil.copytree(PLUGIN, source)  # building in place would leave build/ in the checkout
    subprocess.run([*cmd, str(source)], check=True, capture_output=True, text=True)
    return site


def opt(site: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    )
    return subprocess.run(
        [sys.executable, "-m", "ferrox.driver.tools.opt", *args],
        capture_output=True,
        text=True,
        env=env,
        input=stdin,
    )


def run_lit_file(site: Path, path: Path) -> None:
    """Run the RUN lines of one of the plugin's own .mlir tests."""
    bindir = Path(sys.executable).parent
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
        PATH=os.pathsep.join([str(bindir), os.environ.get("PATH", "")]),
    )
    runs = [
        line.split("RUN:", 1)[1].strip() for line in path.read_text().splitlines() if "RUN:" in line
    ]
    assert runs
    for cmd in runs:
        script = "set -o pipefail\n" + cmd.replace("%s", str(path))
        proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env)
        assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"


@pytest.mark.parametrize("name", ["clamp.mlir", "invalid.mlir"])
def test_plugin_lit_files(plugin_site, name):
    run_lit_file(plugin_site, PLUGIN / "tests" / name)


def test_plugin_dialect_and_pass_are_listed(plugin_site):
    proc = opt(plugin_site, "--help")
    assert proc.returncode == 0
    assert "lower-sat-to-arith" in proc.stdout


def test_without_plugin_the_dialect_is_unknown():
    proc = subprocess.run(
        [sys.executable, "-m", "ferrox.driver.tools.opt"],
        input="func.func @f(%x: f32) {\n  %y = sat.clamp %x to [0.0 : f32, 1.0 : f32] : f32\n"
        "  func.return\n}\n",
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1
    assert "<stdin>:2:" in proc.stderr and "sat.clamp" in proc.stderr


def test_plugin_lowering_computes_a_clamp(plugin_site):
    """The lowered IR, evaluated by xDSL's interpreter, saturates like NumPy's clip."""
    import numpy as np

    text = (PLUGIN / "tests" / "clamp.mlir").read_text()
    proc = opt(plugin_site, "-p", "lower-sat-to-arith", stdin=text)
    assert proc.returncode == 0, proc.stderr
    from xdsl.interpreter import Interpreter
    from xdsl.interpreters import arith as arith_impl
    from xdsl.interpreters import func as func_impl

    from ferrox.parser import parse_module
    from ferrox.registry import make_context

    module = parse_module(make_context(), proc.stdout)
    interp = Interpreter(module)
    interp.register_implementations(arith_impl.ArithFunctions())
    interp.register_implementations(func_impl.FuncFunctions())
    xs = np.random.default_rng().uniform(-10, 10, size=16).astype(np.float32)
    got = [interp.call_op("relu6", (float(x),))[0] for x in xs]
    np.testing.assert_allclose(got, np.clip(xs, 0, 6), rtol=0, atol=0)
