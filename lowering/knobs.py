"""The lowering's benchmark knobs, as part of the compile cache's key.

A knob is a module-level setting of the lowering (an upper-case bool, int, float, str or None,
such as `gemm_wgmma.PERSISTENT`) that a benchmark or a test flips at run time to compare two
schedules of one source. The cache keys an artifact by its source and options, so without this a
compile after a flip would return the artifact made under the other setting. A module holding
knobs calls `watch(globals())` at its end; `changed()` names each setting that no longer has its
import-time value. The keys add it only when something changed, so a default compile's key, and
a cache hit that never imports the lowering, are what they were.
"""

from __future__ import annotations

import sys
import types
from typing import Any

_SCALARS = (bool, int, float, str, type(None))
_defaults: dict[str, dict[str, tuple[type, Any]]] = {}
_version = 0
_changed: tuple[int, tuple[tuple[str, Any], ...]] = (0, ())


class _KnobModule(types.ModuleType):
    """A watched module: setting one of its upper-case names (`setattr`, `monkeypatch`) bumps
    the version, so `changed()` looks again only after a setting moved."""

    def __setattr__(self, name: str, value: Any) -> None:
        global _version
        super().__setattr__(name, value)
        if name.isupper():
            _version += 1


def watch(namespace: dict[str, Any]) -> None:
    """Take the calling module's upper-case scalar settings, as they are now, as its defaults."""
    name = namespace["__name__"]
    _defaults[name] = {
        key: (type(value), value)
        for key, value in namespace.items()
        if key.isupper() and isinstance(value, _SCALARS)
    }
    sys.modules[name].__class__ = _KnobModule


def changed() -> tuple[tuple[str, Any], ...]:
    """(`module.NAME`, value) for each watched setting not at its default, sorted; () when none."""
    global _changed
    if _changed[0] == _version:
        return _changed[1]
    moved = []
    for module_name, defaults in sorted(_defaults.items()):
        settings = vars(sys.modules[module_name])
        for key, default in sorted(defaults.items()):
            value = settings.get(key)
            if (type(value), value) != default:
                moved.append((f"{module_name}.{key}", value))
    _changed = (_version, tuple(moved))
    return _changed[1]
