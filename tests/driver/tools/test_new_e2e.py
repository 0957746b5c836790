"""The scaffolds of `ferrox new`, installed into a fresh virtual environment and tested there, as
their READMEs and docs/custom-dialect.md say: `pip install`, then `python -m pytest` and `lit`.

The dialect package is examples/custom_dialect (the tutorial's; tests/driver/tools/test_new.py
checks that it is exactly what `ferrox new --dialect sat` makes), the project is what
`ferrox new` makes. The environment is made with `--system-site-packages` and sees this
Python's packages (ferrox, xDSL, NumPy, pytest, lit, filecheck, setuptools) after its own, so
the package is built and installed offline: `pip install --no-deps --no-build-isolation`. Its
tests then run with the environment's Python: the dialect reaches ferrox only through the entry
points of its installed metadata.
"""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

from ferrox.driver.tools.cli import main

ROOT = Path(__file__).resolve().parents[3]
LIT = "import sys; from lit.main import main; sys.argv[0] = 'lit'; main()"


def fresh_environment(folder: Path) -> Path:
    """A new virtual environment whose Python sees this one's packages after its own."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(folder)],
        check=True,
    )
    python = folder / "bin" / "python"
    purelib = run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
    # Where this Python is itself a virtual environment, --system-site-packages reaches the base
    # Python's packages, not this environment's: add its site folders (their .pth files too).
    lines = [f"import site; site.addsitedir({p!r})" for p in site.getsitepackages()]
    Path(purelib.strip(), "_ferrox_test_parent.pth").write_text("\n".join(lines) + "\n")
    return python


def run(cmd: list[str], cwd: Path | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def make(kind: str, tmp_path: Path) -> tuple[Path, int, int]:
    """(the package's folder, its pytest tests, its lit tests)."""
    if kind == "dialect":
        package = tmp_path / "ferrox-sat"
        shutil.copytree(ROOT / "examples" / "custom_dialect", package)
        return package, 4, 3
    assert main(["new", "e2e-kernels", "--directory", str(tmp_path)]) == 0
    return tmp_path / "e2e-kernels", 8, 1


@pytest.mark.parametrize("kind", ["dialect", "project"])
def test_scaffold_installs_and_passes_its_tests(kind, tmp_path):
    package, pytests, lits = make(kind, tmp_path)
    python = fresh_environment(tmp_path / "venv")
    pip = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    run([*pip, "--no-index", "--disable-pip-version-check", str(package)])
    where = run(
        [str(python), "-c", f"import {package.name.replace('-', '_')} as p; print(p.__file__)"]
    )
    assert Path(where).is_relative_to(tmp_path / "venv")  # the installed copy, not the source

    out = run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=package)
    assert re.search(rf"\b{pytests} passed\b", out) and "failed" not in out, out
    out = run([str(python), "-c", LIT, "-v", "tests"], cwd=package)
    assert f"Passed: {lits} (100.00%)" in out, out
