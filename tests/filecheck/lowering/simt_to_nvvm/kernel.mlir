// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm | ferrox-opt -p convert-to-llvm | filecheck %s --check-prefix=LLVM

// Kernels, device functions, calls and returns (lowering/simt_to_nvvm/kernel.py), and the ABI
// (abi.py): every slice is a global pointer plus an i64 length; shared slices are noalias and
// readonly, disjoint slices noalias, atomic slices neither; raw pointers and scalars pass as is.

builtin.module {
  // CHECK-LABEL: func.func @abi(
  // CHECK-SAME: %a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 4 : i64}, %a_len: i64,
  // CHECK-SAME: %out: !llvm.ptr<1> {llvm.noalias, llvm.align = 8 : i64}, %out_len: i64,
  // CHECK-SAME: %h: !llvm.ptr<1> {llvm.align = 4 : i64}, %h_len: i64,
  // CHECK-SAME: %n: index, %x: f32, %y: i32, %z: i64, %d: f64)
  // CHECK-SAME: attributes {nvvm.kernel, ferrox.abi = ["slice:f32", "slice:f64", "slice:i32", "index", "f32", "i32", "i64", "f64"], nvvm.reqntid = array<i32: 128, 2, 1>}
  // CHECK-NEXT: %[[N:.*]] = arith.index_cast %a_len : i64 to index
  // CHECK-NEXT: func.return
  // LLVM: llvm.func @abi(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 4 : i64}, %a_len: i64, {{.*}}, %n: i64, %x: f32, %y: i32, %z: i64, %d: f64)
  // LLVM-SAME: nvvm.kernel
  simt.kernel @abi(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f64, 1d>, %h: !simt.atomic_slice<i32>, %n: index, %x: f32, %y: i32, %z: i64, %d: f64) contract<domain = 2, block = [128, 2]> {
    %len = simt.len %a : !simt.slice<f32>
    simt.return
  }

  // An unsafe kernel without a contract has no `nvvm.reqntid`; user attributes stay.
  // A raw pointer (unsafe kernels only) passes as it is.
  // CHECK-LABEL: func.func @no_contract(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 2 : i64}, %a_len: i64, %p: !llvm.ptr<1>)
  // CHECK-SAME: attributes {note = "kept", nvvm.kernel, ferrox.abi = ["slice:f16", "ptr"]} {
  // CHECK-NOT: nvvm.reqntid
  // CHECK: func.return
  simt.kernel @no_contract(%a: !simt.slice<f16>, %p: !simt.ptr<f32>) unsafe attributes {note = "kept"} {
    simt.return
  }

  // Device functions are internal, so LLVM may inline them and drop them; their slices split too.
  // CHECK-LABEL: func.func @scale(%v: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 4 : i64}, %v_len: i64, %k: f32) -> f32
  // CHECK-SAME: attributes {llvm.linkage = #llvm.linkage<"internal">}
  // CHECK: %[[R:.*]] = arith.mulf
  // CHECK-NEXT: func.return %[[R]] : f32
  // LLVM: llvm.func internal @scale(
  simt.func @scale(%v: !simt.slice<f32>, %k: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %x = simt.load %v[%c0] : !simt.slice<f32>
    %r = arith.mulf %x, %k : f32
    simt.return %r : f32
  }

  // A device function may take a shared-memory array, as its addrspace(3) address.
  // CHECK-LABEL: func.func @zero_tile(%t: !llvm.ptr<3>, %i: index)
  // CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
  // CHECK: func.return
  simt.func @zero_tile(%t: !simt.shared<f32, [64]>, %i: index) unsafe {
    %z = arith.constant 0.0 : f32
    simt.shared_store %z, %t[%i] : !simt.shared<f32, [64]>
    simt.return
  }

  // Several results travel as one struct, as MLIR's func-to-llvm returns them.
  // CHECK-LABEL: func.func @two(%x: f32, %n: i32) -> !llvm.struct<(f32, i32)>
  // CHECK-NEXT: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, i32)>
  // CHECK-NEXT: %[[S0:.*]] = llvm.insertvalue %x, %[[U]][0] : !llvm.struct<(f32, i32)>
  // CHECK-NEXT: %[[S1:.*]] = llvm.insertvalue %n, %[[S0]][1] : !llvm.struct<(f32, i32)>
  // CHECK-NEXT: func.return %[[S1]] : !llvm.struct<(f32, i32)>
  simt.func @two(%x: f32, %n: i32) -> (f32, i32) {
    simt.return %x, %n : f32, i32
  }

  // Calls pass each slice as its two parts (a disjoint slice where a shared one is expected is a
  // verify-disjoint error, which the pass checks first; so is returning a slice).
  // CHECK-LABEL: func.func @calls(
  // CHECK: %{{.*}} = func.call @scale(%a, %a_len, %k) : (!llvm.ptr<1>, i64, f32) -> f32
  // CHECK: func.call @zero_tile(%{{.*}}, %{{.*}}) : (!llvm.ptr<3>, index) -> ()
  // CHECK-NEXT: %[[T:.*]] = func.call @two(%k, %n) : (f32, i32) -> !llvm.struct<(f32, i32)>
  // CHECK-NEXT: %f = llvm.extractvalue %[[T]][0] : !llvm.struct<(f32, i32)>
  // CHECK-NEXT: %g = llvm.extractvalue %[[T]][1] : !llvm.struct<(f32, i32)>
  // CHECK: func.return
  simt.kernel @calls(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %n: i32, %k: f32) unsafe {
    %v = simt.call @scale(%a, %k) : (!simt.slice<f32>, f32) -> f32
    %t = simt.shared_alloc : !simt.shared<f32, [64]>
    %i = simt.thread_id x
    simt.call @zero_tile(%t, %i) : (!simt.shared<f32, [64]>, index) -> ()
    %f, %g = simt.call @two(%k, %n) : (f32, i32) -> (f32, i32)
    simt.return
  }
}
