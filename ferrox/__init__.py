"""ferrox: NVIDIA GPU kernels that are safe by construction, on xDSL."""

from pathlib import Path as _Path

__version__ = "0.1.0"

# In a source checkout the subpackages (`dialects/`, `passes/`, ...) sit beside this folder, not
# inside it (setup.py maps them). When Python finds this folder first, e.g. `python -m pytest`
# run from the checkout with a non-editable install, search the checkout root too.
_root = _Path(__file__).resolve().parent.parent
if (_root / "setup.py").is_file() and (_root / "dialects" / "__init__.py").is_file():
    __path__.append(str(_root))  # type: ignore[name-defined]  # noqa: F821
