"""The nvvm lowering's intrinsics, checked against the LLVM that llvmlite bundles (LLVM 22).

An NVPTX intrinsic that LLVM does not know is not an error: it becomes a call to an external
function `llvm.nvvm.*`, which ptxas then rejects. So every entry of the intrinsic table is compiled
from hand-written LLVM IR to PTX for sm_90, checked for the instruction it must become and for the
absence of any `llvm.nvvm` symbol, and assembled with ptxas where one is found. The lowering is
then run end to end (nvvm ops -> xDSL llvm -> xDSL's LLVM export -> PTX) over every op family.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import llvmlite.binding as llvm
import pytest
from xdsl.backend.llvm.convert import convert_module
from xdsl.dialects import llvm as xllvm

from ferrox.dialects.nvvm import NVVM, Convergent
from ferrox.lowering.nvvm_to_llvm import (
    INTRINSIC_NAMES,
    INTRINSIC_TABLE,
    ConvertNvvmToLLVMPass,
    Intrinsic,
)
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.toolchain import find_ptxas

TRIPLE = "nvptx64-nvidia-cuda"
CHIP, FEATURES = "sm_90", "+ptx80"
PTXAS = find_ptxas()

CONVERGENT_OPS = {
    "nvvm.barrier0",
    "nvvm.barrier",
    "nvvm.bar.warp.sync",
    "nvvm.shfl.sync",
    "nvvm.vote.sync",
    "nvvm.redux.sync",
    "nvvm.mma.sync",
    "nvvm.ldmatrix",
}
LLVM_CONVERGENT_PREFIXES = tuple(
    f"llvm.nvvm.{p}" for p in ("barrier.", "bar.warp", "shfl.", "vote.", "redux.", "ldmatrix.")
)
"""The intrinsics LLVM 22 itself declares `convergent`; `mma` is only `memory(none)`."""


def _init() -> None:
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


def compile_ptx(ir_text: str) -> str:
    _init()
    module = llvm.parse_assembly(ir_text)
    module.verify()
    target = llvm.Target.from_triple(TRIPLE)
    return target.create_target_machine(cpu=CHIP, features=FEATURES).emit_assembly(module)


def assert_no_unknown_intrinsic(ptx: str) -> None:
    calls = [line for line in ptx.splitlines() if "llvm.nvvm" in line]
    assert not calls, "an unknown intrinsic became an external call:\n" + "\n".join(calls)


needs_ptxas = pytest.mark.skipif(
    PTXAS is None, reason="needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)"
)


def assemble(ptx: str, tmp_path: Path) -> None:
    assert PTXAS is not None
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    proc = subprocess.run(
        [PTXAS, f"-arch={CHIP}", str(path), "-o", str(tmp_path / "k.cubin")],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def _kernel_for(entry: Intrinsic) -> str:
    """A kernel that takes the intrinsic's arguments as parameters and stores every result."""
    # An `immarg` argument must be a constant: it gets 0, the others are kernel parameters.
    params = ["ptr addrspace(1) %out"] + [
        f"{t} %a{i}" for i, t in enumerate(entry.args) if "immarg" not in t
    ]
    args = ", ".join(
        f"{t.replace(' immarg', '')} 0" if "immarg" in t else f"{t} %a{i}"
        for i, t in enumerate(entry.args)
    )
    body = []
    if entry.result == "void":
        body.append(f'  call void @"{entry.name}"({args})')
    else:
        body.append(f'  %r = call {entry.result} @"{entry.name}"({args})')
        if entry.result.startswith("{"):
            for k, ty in enumerate(t.strip() for t in entry.result.strip("{}").split(",")):
                body.append(f"  %r{k} = extractvalue {entry.result} %r, {k}")
                body += _store(k, ty, f"%r{k}")
        else:
            body += _store(0, entry.result, "%r")
    declare = f'declare {entry.result} @"{entry.name}"({", ".join(entry.args)})'
    header = f'target triple = "{TRIPLE}"\n{declare}'
    kernel = f"define ptx_kernel void @k({', '.join(params)}) {{\n" + "\n".join(body)
    return f"{header}\n{kernel}\n  ret void\n}}\n"


def _store(k: int, ty: str, value: str) -> list[str]:
    return [
        f"  %p{k} = getelementptr i64, ptr addrspace(1) %out, i32 {k}",
        f"  store {ty} {value}, ptr addrspace(1) %p{k}",
    ]


@pytest.mark.parametrize("entry", INTRINSIC_TABLE, ids=lambda e: e.name)
def test_intrinsic_compiles_to_its_instruction(entry: Intrinsic) -> None:
    ptx = compile_ptx(_kernel_for(entry))
    assert_no_unknown_intrinsic(ptx)
    assert entry.ptx in ptx, f"{entry.name} should become `{entry.ptx}`:\n{ptx}"


@needs_ptxas
@pytest.mark.parametrize("entry", INTRINSIC_TABLE, ids=lambda e: e.name)
def test_intrinsic_ptx_assembles_for_sm_90(entry: Intrinsic, tmp_path: Path) -> None:
    assemble(compile_ptx(_kernel_for(entry)), tmp_path)


def _declared_attributes(ir_text: str, name: str) -> set[str]:
    _init()
    module = llvm.parse_assembly(ir_text)
    return set(" ".join(a.decode() for a in module.get_function(name).attributes).split())


@pytest.mark.parametrize("entry", INTRINSIC_TABLE, ids=lambda e: e.name)
def test_which_intrinsics_llvm_declares_convergent(entry: Intrinsic) -> None:
    """LLVM attaches an intrinsic's attributes when it parses the declaration, whatever it says.

    Barriers, shuffles, votes, redux and ldmatrix come out `convergent`; the mma intrinsics do not,
    which is why the lowering marks the calls themselves (see the next test).
    """
    attributes = _declared_attributes(_kernel_for(entry), entry.name)
    assert ("convergent" in attributes) == entry.name.startswith(LLVM_CONVERGENT_PREFIXES), (
        entry.name,
        attributes,
    )


def test_unknown_intrinsic_shows_up_as_an_external_call() -> None:
    """Why the check above matters: LLVM 22 has no `fence.acq_rel.cluster` intrinsic."""
    bogus = Intrinsic("llvm.nvvm.fence.acq_rel.cluster", "void", (), "fence.acq_rel.cluster")
    ptx = compile_ptx(_kernel_for(bogus))
    assert ".extern .func llvm.nvvm.fence.acq_rel.cluster" in ptx
    with pytest.raises(AssertionError, match="external call"):
        assert_no_unknown_intrinsic(ptx)


def test_table_names_are_unique_and_complete() -> None:
    assert len(INTRINSIC_NAMES) == len(INTRINSIC_TABLE) == 67
    assert {e.name for e in INTRINSIC_TABLE if e.name.startswith("llvm.nvvm.read.ptx.sreg.")} == {
        f"llvm.nvvm.read.ptx.sreg.{r}.{d}"
        for r in ("tid", "ntid", "ctaid", "nctaid")
        for d in "xyz"
    } | {"llvm.nvvm.read.ptx.sreg.laneid", "llvm.nvvm.read.ptx.sreg.warpsize"}


def test_docs_name_every_op() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "dialects" / "nvvm.md").read_text()
    for op in NVVM.operations:
        name = op.name
        if name.startswith("nvvm.read.ptx.sreg."):
            base, _, dim = name.rpartition(".")
            if dim in "xyz":
                name = f"{base}.{{x,y,z}}"
        assert f"`{name}" in doc, f"docs/dialects/nvvm.md does not list {op.name}"


def test_convergent_trait_marks_barriers_and_warp_collectives() -> None:
    marked = {op.name for op in NVVM.operations if op.has_trait(Convergent)}
    assert marked == CONVERGENT_OPS


# Every op family, each result stored so LLVM keeps it, in a function xDSL's exporter can take.
D4 = "!llvm.struct<(f32, f32, f32, f32)>"
ROW_COL = "layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>"
K16 = "shape = #nvvm.shape<m = 16, n = 8, k = 16>"
K8 = "shape = #nvvm.shape<m = 16, n = 8, k = 8>"
SYS, CTA, CLUSTER = (f"#nvvm.mem_scope<{s}>" for s in ("sys", "cta", "cluster"))
I32_FRAGMENTS = "A[%i, %i, %i, %i] B[%i, %i] C[%f, %f, %f, %f]"

STEPS: list[tuple[str, str | None]] = [
    ("nvvm.read.ptx.sreg.tid.x : i32", "i32"),
    ("nvvm.read.ptx.sreg.nctaid.z : i32", "i32"),
    ("nvvm.read.ptx.sreg.laneid : i32", "i32"),
    ("nvvm.barrier0", None),
    ("nvvm.barrier id = %i number_of_threads = %i", None),
    ("nvvm.bar.warp.sync %i : i32", None),
    ("nvvm.shfl.sync bfly %i, %i, %i, %i : i32 -> i32", "i32"),
    ("nvvm.shfl.sync down %i, %f, %i, %i : f32 -> f32", "f32"),
    (
        "nvvm.shfl.sync idx %i, %i, %i, %i {return_value_and_is_valid} "
        ": i32 -> !llvm.struct<(i32, i1)>",
        "!llvm.struct<(i32, i1)>",
    ),
    ("nvvm.vote.sync ballot %i, %p -> i32", "i32"),
    ("nvvm.vote.sync uni %i, %p -> i1", "i1"),
    ("nvvm.redux.sync umax %i, %i : i32 -> i32", "i32"),
    ("nvvm.memory_barrier #nvvm.mem_scope<gpu>", None),
    (f"nvvm.memory_barrier {CLUSTER}", None),
    (f"nvvm.fence.sc {CTA}", None),
    (f"nvvm.fence.acq_rel {SYS}", None),
    ("nvvm.atomic.rmw fadd %g, %f : !llvm.ptr<1>, f32", "f32"),
    (f"nvvm.atomic.rmw fadd %g, %f scope = {SYS} ordering = acq_rel : !llvm.ptr<1>, f32", "f32"),
    (f"nvvm.atomic.rmw add %s, %i scope = {CTA} : !llvm.ptr<3>, i32", "i32"),
    ("nvvm.atomic.rmw umin %s, %l ordering = seq_cst : !llvm.ptr<3>, i64", "i64"),
    (f"nvvm.atomic.rmw max %gen, %i scope = {CLUSTER} ordering = release : !llvm.ptr, i32", "i32"),
    ("nvvm.atomic.rmw xchg %g, %l : !llvm.ptr<1>, i64", "i64"),
    ("nvvm.atomic.rmw fadd %g, %d ordering = acquire : !llvm.ptr<1>, f64", "f64"),
    ("nvvm.atomic.cas %g, %i, %i : !llvm.ptr<1>, i32", "i32"),
    (f"nvvm.atomic.cas %s, %l, %l scope = {CTA} ordering = acq_rel : !llvm.ptr<3>, i64", "i64"),
    (
        f"nvvm.mma.sync A[%h, %h, %h, %h] B[%h, %h] C[%f, %f, %f, %f] {{{ROW_COL}, {K16}}} "
        f": (vector<2xf16>, vector<2xf16>, f32) -> {D4}",
        D4,
    ),
    (
        f"nvvm.mma.sync {I32_FRAGMENTS} {{{ROW_COL}, "
        f"multiplicandAPtxType = #nvvm.mma_type<bf16>, {K16}}} : (i32, i32, f32) -> {D4}",
        D4,
    ),
    (
        f"nvvm.mma.sync {I32_FRAGMENTS} {{{ROW_COL}, "
        f"multiplicandAPtxType = #nvvm.mma_type<tf32>, {K8}}} : (i32, i32, f32) -> {D4}",
        D4,
    ),
    (
        "nvvm.ldmatrix %s {num = 4 : i32, layout = #nvvm.mma_layout<row>} "
        ": (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>",
        "!llvm.struct<(i32, i32, i32, i32)>",
    ),
    (
        "nvvm.ldmatrix %gen {num = 2 : i32, layout = #nvvm.mma_layout<col>} "
        ": (!llvm.ptr) -> !llvm.struct<(i32, i32)>",
        "!llvm.struct<(i32, i32)>",
    ),
    (
        "nvvm.ldmatrix %s {num = 1 : i32, layout = #nvvm.mma_layout<col>} : (!llvm.ptr<3>) -> i32",
        "i32",
    ),
]

EXPECTED_PTX_PATTERNS = [
    r"mov\.u32\s+%r\d+, %tid\.x;",
    r"bar\.sync\s+0;",
    r"bar\.sync\s+%r\d+, %r\d+;",
    r"shfl\.sync\.idx\.b32\s+%r\d+\|%p\d+",
    r"fence\.sc\.gpu;\s+atom\.acq_rel\.gpu\.shared\.min\.u64",
]
EXPECTED_PTX = [
    "%nctaid.z",
    "%laneid",
    "bar.warp.sync",
    "shfl.sync.bfly.b32",
    "shfl.sync.down.b32",
    "vote.sync.ballot.b32",
    "vote.sync.uni.pred",
    "redux.sync.max.u32",
    "membar.gl;",
    "fence.sc.cluster;",
    "fence.sc.cta;",
    "fence.acq_rel.sys;",
    "atom.global.add.f32",
    "atom.acq_rel.sys.global.add.f32",
    "atom.relaxed.cta.shared.add.u32",
    "atom.release.cluster.max.s32",
    "atom.global.exch.b64",
    "atom.acquire.gpu.global.add.f64",
    "atom.global.cas.b32",
    "atom.acq_rel.cta.shared.cas.b64",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
    "ldmatrix.sync.aligned.m8n8.x2.trans.b16",
    "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
]


def _program() -> str:
    lines = []
    for k, (op, result) in enumerate(STEPS):
        if result is None:
            lines.append(f"    {op}")
            continue
        lines.append(f"    %v{k} = {op}")
        value, ty = f"%v{k}", result
        if result.startswith("!llvm.struct"):
            ty = result.removeprefix("!llvm.struct<(").split(",")[0]
            lines.append(f"    %e{k} = llvm.extractvalue %v{k}[0] : {result}")
            value = f"%e{k}"
        lines.append(f"    %q{k} = llvm.getelementptr %out[{k}] : (!llvm.ptr) -> !llvm.ptr, i64")
        lines.append(f"    llvm.store {value}, %q{k} : {ty}, !llvm.ptr")
    params = (
        "%out: !llvm.ptr, %g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %gen: !llvm.ptr, %i: i32, %l: i64, "
        "%f: f32, %d: f64, %p: i1, %h: vector<2xf16>"
    )
    body = "\n".join(lines)
    return f"builtin.module {{\n  llvm.func @k({params}) {{\n{body}\n    llvm.return\n  }}\n}}\n"


@pytest.fixture(scope="module")
def lowered():
    ctx = make_context()
    module = parse_module(ctx, _program(), "nvvm_ops.mlir")
    ConvertNvvmToLLVMPass().apply(ctx, module)
    module.verify()
    return module


def test_lowering_leaves_no_nvvm_and_calls_only_table_intrinsics(lowered) -> None:
    assert not [op.name for op in lowered.walk() if op.name.startswith("nvvm.")]
    called = {op.intrin.data for op in lowered.walk() if isinstance(op, xllvm.CallIntrinsicOp)}
    assert called <= INTRINSIC_NAMES, called - INTRINSIC_NAMES
    assert len(called) == 20


def test_calls_from_convergent_ops_are_marked_convergent(lowered) -> None:
    calls = [op for op in lowered.walk() if isinstance(op, xllvm.CallIntrinsicOp)]
    marked = {op.intrin.data for op in calls if "convergent" in op.attributes}
    unmarked = {op.intrin.data for op in calls if "convergent" not in op.attributes}
    assert marked == {
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        "llvm.nvvm.barrier.cta.sync.aligned.count",
        "llvm.nvvm.bar.warp.sync",
        "llvm.nvvm.shfl.sync.bfly.i32",
        "llvm.nvvm.shfl.sync.down.f32",
        "llvm.nvvm.shfl.sync.idx.i32p",
        "llvm.nvvm.vote.ballot.sync",
        "llvm.nvvm.vote.uni.sync",
        "llvm.nvvm.redux.sync.umax",
        "llvm.nvvm.mma.m16n8k16.row.col.f32.f32",
        "llvm.nvvm.mma.m16n8k16.row.col.bf16",
        "llvm.nvvm.mma.m16n8k8.row.col.tf32",
        "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3",
        "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p0",
        "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.trans.b16.p3",
    }
    assert all(not name.startswith(("llvm.nvvm.mma", "llvm.nvvm.shfl")) for name in unmarked)


def test_convergent_call_site_attribute_is_expressible_in_llvmlite() -> None:
    """What the exporter must do for a `{convergent}` call: llvmlite's `call(..., attrs=...)`."""
    import llvmlite.ir as ir

    module = ir.Module()
    module.triple = TRIPLE
    f32, i32 = ir.FloatType(), ir.IntType(32)
    mma = ir.Function(
        module,
        ir.FunctionType(ir.LiteralStructType([f32] * 4), [i32] * 6 + [f32] * 4),
        name="llvm.nvvm.mma.m16n8k8.row.col.tf32",
    )
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [i32, f32]), name="k")
    builder = ir.IRBuilder(fn.append_basic_block())
    builder.call(mma, [fn.args[0]] * 6 + [fn.args[1]] * 4, attrs=("convergent",))
    builder.ret_void()
    _init()
    parsed = llvm.parse_assembly(str(module))
    parsed.verify()
    (call, _ret) = parsed.get_function("k").blocks.__next__().instructions
    assert [a.decode() for a in call.attributes] == ["convergent"]


def _lowered_ptx(module) -> str:
    return compile_ptx(str(convert_module(module, fallback_target_triple=TRIPLE)))


def test_lowered_ops_export_and_compile_to_ptx(lowered) -> None:
    ptx = _lowered_ptx(lowered)
    assert_no_unknown_intrinsic(ptx)
    for expected in EXPECTED_PTX:
        assert expected in ptx, f"`{expected}` missing from the PTX:\n{ptx}"
    for pattern in EXPECTED_PTX_PATTERNS:
        assert re.search(pattern, ptx), f"no match for {pattern} in the PTX:\n{ptx}"


@needs_ptxas
def test_lowered_ptx_assembles_for_sm_90(lowered, tmp_path: Path) -> None:
    """The inline-asm atomics and fences are checked here: llvmlite passes asm text through."""
    assemble(_lowered_ptx(lowered), tmp_path)


@needs_ptxas
def test_ptxas_rejects_an_unknown_scope(tmp_path: Path) -> None:
    """ptxas really checks the asm text: an atom with a scope PTX lacks (`.warp`) is refused."""
    bad = (
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 p) {\n"
        ".reg .b64 %rd<2>; .reg .b32 %r<2>;\nld.param.u64 %rd1, [p];\n"
        "atom.acq_rel.warp.global.add.u32 %r1, [%rd1], 1;\nret;\n}\n"
    )
    path = tmp_path / "bad.ptx"
    path.write_text(bad)
    out = str(tmp_path / "bad.cubin")
    proc = subprocess.run(
        [PTXAS, f"-arch={CHIP}", str(path), "-o", out], capture_output=True, text=True
    )
    assert proc.returncode != 0 and "warp" in proc.stderr, proc.stderr
