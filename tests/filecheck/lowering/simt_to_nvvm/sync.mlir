// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// sync_threads (lowering/simt_to_nvvm/sync.py) becomes the convergent nvvm.barrier, in place:
// here inside a uniform loop, between the shared-memory store and load it orders.

builtin.module {
  // CHECK-LABEL: func.func @barrier(
  // CHECK: scf.for
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: llvm.store
  // CHECK-NEXT: nvvm.barrier
  // CHECK-NEXT: arith.index_cast
  // CHECK-NEXT: llvm.getelementptr
  // CHECK-NEXT: llvm.load
  // CHECK: nvvm.barrier
  // CHECK-NEXT: scf.yield
  // PTX-LABEL: .entry barrier(
  // PTX: st.shared.b32
  // PTX-NEXT: bar.sync 0;
  // PTX: ld.shared.b32
  // PTX: bar.sync 0;
  simt.kernel @barrier(%n: index, %out: !simt.ptr<f32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<f32, [256]>
    %t = simt.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %v = arith.constant 1.0 : f32
    %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      simt.shared_store %v, %tile[%t] : !simt.shared<f32, [256]>
      simt.sync_threads
      %x = simt.shared_load %tile[%k] : !simt.shared<f32, [256]>
      %s = arith.addf %acc, %x : f32
      simt.sync_threads
      scf.yield %s : f32
    }
    simt.ptr_store %sum, %out[%t] : !simt.ptr<f32>
    simt.return
  }
}
