// RUN: ferrox-opt %s -p lower-to-llvm | filecheck %s
// RUN: ferrox-opt %s -p lower-to-llvm | filecheck %s --check-prefix=GONE
// RUN: ferrox-opt %s -p lower-to-llvm -t ptx | filecheck %s --check-prefix=PTX
// RUN: ferrox compile %s --chip sm_90 -o %t.ptx --cubin %t.cubin -v 2>&1 | filecheck %s --check-prefix=PTXAS
// REQUIRES: ptxas

// The whole chain (lowering/pipeline.py): verify-disjoint, extract-device-code (the host @main
// goes), convert-simt-to-nvvm, canonicalize, cse, convert-to-llvm. Only llvm ops are left.

// GONE-NOT: {{^ *(%[0-9a-z_]+ = )?"?(func|arith|scf|cf|nvvm|simt|host)\.}}
// GONE-NOT: @main
// PTXAS: kernel vecadd: {{[0-9]+}} registers, 0 bytes spill stores, 0 bytes spill loads, 0 bytes local

builtin.module attributes {ferrox.chip = "sm_90"} {
  // CHECK: builtin.module attributes {ferrox.chip = "sm_90"} {
  // CHECK-NEXT: llvm.func @vecadd(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 4 : i64}, %a_len: i64, %b: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 4 : i64}, %b_len: i64, %out: !llvm.ptr<1> {llvm.noalias, llvm.align = 4 : i64}, %out_len: i64)
  // CHECK-SAME: nvvm.kernel
  // CHECK-SAME: ferrox.abi = ["slice:f32", "slice:f32", "slice:f32"]
  // CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
  // CHECK: llvm.call_intrinsic "llvm.nvvm.read.ptx.sreg.ctaid.x"() : () -> i32
  // CHECK: %in_bounds = llvm.icmp "ult" %gid_x, %out_len : i64
  // CHECK: llvm.call_intrinsic "llvm.trap"() : () -> ()
  // CHECK: llvm.load %{{.*}} {invariant} : !llvm.ptr<1> -> f32
  // CHECK: llvm.store %s, %{{.*}} : f32, !llvm.ptr<1>
  // CHECK: llvm.return
  // PTX: .visible .entry vecadd(
  // PTX-NEXT: .param .u64 .ptr .global .align 4 vecadd_param_0,
  // PTX-NEXT: .param .u64 vecadd_param_1,
  // PTX: .reqntid 256, 1, 1
  // PTX: ld.global.nc.b32
  // PTX: ld.global.nc.b32
  // PTX: st.global.b32
  // The requires relations reach LLVM as assumptions: the loads cannot trap, and no trap is left.
  // PTX-NOT: trap;
  simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }

  // Host code is not device code: the pipeline drops it.
  func.func @main() {
    %n = host.param "n" = 1024 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 : !host.tensor<f32, [1024]>
    %b = host.random uniform(-1.0, 1.0) seed 2 : !host.tensor<f32, [1024]>
    %c = host.poison : !host.tensor<f32, [1024]>
    %s = host.stream
    %grid = arith.constant 4 : index
    %block = arith.constant 256 : index
    %p = host.prepare @vecadd grid(%grid) block(%block) args(%a, %b, %c : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>)
    %c2 = host.launch @vecadd with %p on %s ins(%a, %b : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>) outs(%c : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
    host.sync_on %s
    func.return
  }
}
