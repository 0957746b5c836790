"""ferrox's benchmarks: `python -m benchmarks` runs every kernel beside its peers on the GPU.

Run from the checkout's root, `python -m` puts that root first on `sys.path`, where the folder
`ferrox/` holds only the top-level module of the package (setup.py maps `dialects/` and the
others into it at install time). Moving the root to the end lets `import ferrox` find the
installed package first (an editable install maps to this checkout anyway), while `benchmarks`
itself, already imported, keeps its own path. (xDSL's wheel installs a top-level package
named `benchmarks` too: this one is found only with the checkout's root first, as `-m` puts it.)
"""

from __future__ import annotations

import os
import sys

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "ferrox" not in sys.modules:
    for _entry in list(sys.path):
        if os.path.abspath(_entry or os.curdir) == _root:
            sys.path.remove(_entry)
            sys.path.append(_entry)
