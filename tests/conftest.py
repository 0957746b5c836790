"""Collect `.mlir` files with `// RUN:` lines as tests, the way lit runs them.

Each RUN line runs in bash with `set -o pipefail`; `%s` is the file, `%S` its folder, `%t` a
scratch path; `not CMD` inverts an exit status as in lit. `// REQUIRES: ptxas` skips with a
reason where NVIDIA's assembler is missing.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Tests import the installed ferrox. `python -m pytest` puts the working directory first on
# sys.path, where the checkout's `ferrox/` folder (the core alone: setup.py maps the other root
# folders into the package) would shadow a non-editable install. Drop it before anything imports
# ferrox; an editable install still resolves to the checkout through its own finder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
# The same for every Python the tests start (`python -m ferrox.driver.tools.opt`, the console
# scripts): no working directory first on their sys.path either.
os.environ["PYTHONSAFEPATH"] = "1"
assert "ferrox" not in sys.modules, "ferrox was imported before tests/conftest.py"


def pytest_configure(config: pytest.Config) -> None:
    """The whole run (and the tools it starts) uses a kernel cache of its own, never the user's:
    a test must not be answered by PTX a different compiler left behind."""
    if "FERROX_CACHE_DIR" not in os.environ:
        import tempfile

        os.environ["FERROX_CACHE_DIR"] = tempfile.mkdtemp(prefix="ferrox-test-cache-")


_RUN = re.compile(r"//\s*RUN:\s*(.*)$")
_REQUIRES = re.compile(r"//\s*REQUIRES:\s*(.*)$")


def _tool_path() -> str:
    """Put the running interpreter's scripts (ferrox-opt, filecheck) first on PATH."""
    return os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])


def find_ptxas() -> str | None:
    from ferrox.targets.toolchain import find_ptxas as find

    return find()


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix == ".mlir" and "RUN:" in file_path.read_text(errors="replace"):
        return MlirFile.from_parent(parent, path=file_path)
    return None


class MlirFile(pytest.File):
    def collect(self):
        yield MlirTest.from_parent(self, name=self.path.name)


class MlirTest(pytest.Item):
    def runtest(self) -> None:
        text = self.path.read_text()
        runs: list[str] = []
        pending = ""
        for line in text.splitlines():
            if (m := _REQUIRES.search(line)) is not None:
                for feature in (f.strip() for f in m.group(1).split(",")):
                    if feature == "ptxas" and find_ptxas() is None:
                        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
            if (m := _RUN.search(line)) is not None:
                cmd = pending + m.group(1)
                if cmd.endswith("\\"):
                    pending = cmd[:-1] + " "
                    continue
                pending = ""
                runs.append(cmd)
        assert runs, "no RUN lines"
        tmp = Path(self.config._tmp_path_factory.mktemp(self.path.stem))  # type: ignore[attr-defined]
        env = dict(os.environ, PATH=_tool_path())
        for cmd in runs:
            expanded = (
                cmd.replace("%s", str(self.path))
                .replace("%S", str(self.path.parent))
                .replace("%t", str(tmp / "out"))
            )
            script = 'set -o pipefail\nnot() { ! "$@"; }\n' + expanded
            proc = subprocess.run(
                ["bash", "-c", script], capture_output=True, text=True, env=env, cwd=ROOT
            )
            if proc.returncode != 0:
                raise MlirTestFailure(expanded, proc.stdout, proc.stderr, proc.returncode)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, MlirTestFailure):
            e = excinfo.value
            return f"RUN: {e.cmd}\nexit {e.code}\n--- stdout ---\n{e.out}\n--- stderr ---\n{e.err}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"mlir: {self.path.relative_to(ROOT)}"


class MlirTestFailure(Exception):
    def __init__(self, cmd: str, out: str, err: str, code: int):
        super().__init__(cmd)
        self.cmd, self.out, self.err, self.code = cmd, out, err, code
