"""lit's configuration of this package's FileCheck tests: `lit tests` (or `lit -v tests`).

The tools run as modules of the Python that runs lit (`python -m lit tests` in a virtual
environment uses that environment's ferrox and this package as installed there).
"""

import atexit
import os
import shutil
import sys
import tempfile

import lit.formats

config.name = "ferrox-sat"  # noqa: F821 (lit defines `config`)
config.test_format = lit.formats.ShTest(execute_external=False)  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
# Scratch files (%t) in a folder of this run's own, removed when lit ends.
config.test_exec_root = tempfile.mkdtemp(prefix="ferrox-sat-lit-")  # noqa: F821
atexit.register(shutil.rmtree, config.test_exec_root, ignore_errors=True)  # noqa: F821

python = f'"{sys.executable}"'
for tool, module in [
    ("ferrox-opt", "ferrox.driver.tools.opt"),
    ("ferrox", "ferrox.driver.tools.cli"),
    ("filecheck", "filecheck"),
]:
    # the tool's name where a command starts (not inside a path or an option)
    config.substitutions.append(  # noqa: F821
        (rf"(?<![^\s|;&(]){tool}(?![^\s|;&)])", f"{python} -m {module}")
    )
# PYTHONPATH too: where ferrox is installed into a folder on it rather than site-packages.
for name in ("HOME", "TMPDIR", "PYTHONPATH", "FERROX_CACHE_DIR", "FERROX_ERROR_FORMAT"):
    if name in os.environ:
        config.environment[name] = os.environ[name]  # noqa: F821
