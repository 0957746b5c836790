"""A compile pauses Python's cyclic collector (targets/compile.py) and gives it back as it found
it: on, after a compile that worked and after one that was refused; off, for a process that
turned it off itself."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets import compile as compile_mod
from ferrox.targets import ptxas_job

VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"


def module(text: str, name: str):
    return parse_module(make_context(), text, name)


def test_the_collector_is_off_during_a_compile_and_on_after(monkeypatch):
    seen: list[bool] = []
    real = compile_mod._compile_module

    def spy(*args):
        seen.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(compile_mod, "_compile_module", spy)
    assert gc.isenabled()
    compile_mod.compile_module(module(VECADD.read_text(), str(VECADD)), cubin=False)
    assert seen == [False] and gc.isenabled()


def test_a_refused_compile_turns_it_back_on(monkeypatch):
    def refuse(*args):
        assert not gc.isenabled()
        raise DiagnosticError([])

    monkeypatch.setattr(compile_mod, "_compile_module", refuse)
    with pytest.raises(DiagnosticError):
        compile_mod.compile_module(module(VECADD.read_text(), str(VECADD)), cubin=False)
    assert gc.isenabled()


def test_a_process_that_turned_it_off_keeps_it_off():
    gc.disable()
    try:
        compile_mod.compile_module(module(VECADD.read_text(), str(VECADD)), cubin=False)
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.skipif(not ptxas_job.early_start_possible(), reason="needs ptxas started early")
def test_the_lowering_garbage_is_collected_while_ptxas_works():
    """The youngest generation is collected once, beside ptxas, with the collector still
    paused; the lowered copy is garbage by then, so little is left for after the compile."""
    seen: list[tuple[int, bool]] = []

    def watch(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append((info["generation"], gc.isenabled()))

    parsed = module(VECADD.read_text(), str(VECADD))
    gc.collect()
    gc.callbacks.append(watch)
    try:
        compile_mod.compile_module(parsed, cubin=True)
    finally:
        gc.callbacks.remove(watch)
    assert (0, False) in seen


@pytest.mark.skipif(not ptxas_job.early_start_possible(), reason="needs ptxas started early")
def test_no_collection_in_a_process_that_turned_the_collector_off():
    seen: list[int] = []
    gc.disable()
    gc.callbacks.append(lambda phase, info: seen.append(info["generation"]))
    try:
        compile_mod.compile_module(module(VECADD.read_text(), str(VECADD)), cubin=True)
    finally:
        gc.callbacks.pop()
        gc.enable()
    assert seen == []
