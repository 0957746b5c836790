// REQUIRES: ptxas
// RUN: ferrox-opt %s -t 'ptx{chip=sm_90}' > %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | filecheck %s --check-prefix=PTXAS
// RUN: ferrox compile %s --chip sm_90 -o %t.2.ptx --cubin -v 2>&1 | filecheck %s --check-prefix=COMPILE
// RUN: test -s %t.2.cubin

// ptxas accepts what the ptx target emits, and the simple kernel neither spills nor uses local memory.

// PTXAS: Compiling entry function 'saxpy' for 'sm_90'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// COMPILE: kernel saxpy: {{[0-9]+}} registers, 0 bytes spill stores, 0 bytes spill loads, 0 bytes local, 1024 bytes shared
llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<256 x f32>

llvm.func @saxpy(%x: !llvm.ptr<1> {llvm.noalias, llvm.readonly}, %y: !llvm.ptr<1> {llvm.noalias}, %a: f32, %n: i32)
    attributes {nvvm.kernel, nvvm.reqntid = array<i32: 256>} {
  %tid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.tid.x"() : () -> i32
  %bid = llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  %ntid = llvm.mlir.constant(256 : i32) : i32
  %base = llvm.mul %bid, %ntid : i32
  %i = llvm.add %base, %tid : i32
  %in = llvm.icmp "slt" %i, %n : i32
  llvm.cond_br %in, ^body, ^exit
^body:
  %px = llvm.getelementptr inbounds %x[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %py = llvm.getelementptr inbounds %y[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
  %vx = llvm.load %px : !llvm.ptr<1> -> f32
  %vy = llvm.load %py : !llvm.ptr<1> -> f32
  %s = llvm.intr.fmuladd(%a, %vx, %vy) : (f32, f32, f32) -> f32
  %stage = llvm.mlir.addressof @stage : !llvm.ptr<3>
  %slot = llvm.getelementptr inbounds %stage[0, %tid] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, !llvm.array<256 x f32>
  llvm.store %s, %slot : f32, !llvm.ptr<3>
  %zero = llvm.mlir.constant(0 : i32) : i32
  llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.all"(%zero) : (i32) -> ()
  %back = llvm.load %slot : !llvm.ptr<3> -> f32
  llvm.store %back, %py : f32, !llvm.ptr<1>
  llvm.br ^exit
^exit:
  llvm.return
}
