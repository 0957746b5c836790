"""An installed plugin is part of the kernel cache's key: its lowering or dialect decides the PTX
as the compiler's own modules do, and an editable plugin changes without a new version, so a
changed plugin source must not be answered with PTX made by the old one."""

from __future__ import annotations

import sys

import pytest

from ferrox.targets import cache


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A fake distribution on sys.path with one `ferrox.lowerings` entry point."""
    dist = tmp_path / "fakeplug-0.1.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text(
        "[console_scripts]\nfp = fakeplug.cli:main\n\n"
        "[ferrox.lowerings]\nfake = fakeplug.lower:Pass\n"
    )
    package = tmp_path / "fakeplug"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "lower.py").write_text("class Pass: ...\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    cache.plugins_fingerprint.cache_clear()
    yield package
    cache.plugins_fingerprint.cache_clear()


def key() -> str:
    return cache.KernelKey("builtin.module {}", "sm_90", {"opt": 3}).digest()


def test_no_plugin_no_key_part():
    cache.plugins_fingerprint.cache_clear()
    assert cache.plugin_modules() == []
    assert "plugins" not in cache.KernelKey("m", "sm_90").parts()


def test_a_plugin_and_its_sources_are_in_the_key(plugin):
    assert cache.plugin_modules() == [("fakeplug-0.1.dist-info", "fakeplug")]
    with_plugin = key()
    assert cache.KernelKey("m", "sm_90").parts()["plugins"] == cache.plugins_fingerprint()

    (plugin / "lower.py").write_text("class Pass:\n    changed = True\n")
    cache.plugins_fingerprint.cache_clear()
    assert key() != with_plugin  # an edited (editable) plugin: another key

    sys.path.remove(str(plugin.parent))
    cache.plugins_fingerprint.cache_clear()
    assert "plugins" not in cache.KernelKey("m", "x").parts()  # uninstalled: no part


def test_entry_points_of_other_groups_are_not_plugins(tmp_path, monkeypatch):
    dist = tmp_path / "other-1.0.dist-info"
    dist.mkdir()
    (dist / "entry_points.txt").write_text("[console_scripts]\nother = other.cli:main\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert cache.plugin_modules() == []
