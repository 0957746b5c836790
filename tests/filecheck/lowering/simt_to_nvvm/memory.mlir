// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// Global slices (lowering/simt_to_nvvm/memory.py): loads trap out of range and read shared
// slices as invariant; len is the length parameter; get_mut is a guarded read-modify-write.

builtin.module {
  // CHECK-LABEL: func.func @load(%a: !llvm.ptr<1> {{.*}}, %a_len: i64, %i: index, %h: !llvm.ptr<1> {{.*}}, %h_len: i64, %o: !llvm.ptr<1>)
  // CHECK-NEXT: %[[I:.*]] = arith.index_cast %i : index to i64
  // CHECK-NEXT: %out_of_range = arith.cmpi uge, %[[I]], %a_len : i64
  // CHECK-NEXT: scf.if %out_of_range {
  // CHECK-NEXT: llvm.call_intrinsic "llvm.trap"() : () -> ()
  // CHECK-NEXT: }
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %a[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  // CHECK-NEXT: %x = llvm.load %[[P]] {invariant} : !llvm.ptr<1> -> i64
  // CHECK-NEXT: %n = arith.index_cast %a_len : i64 to index
  // CHECK-NEXT: %hn = arith.index_cast %h_len : i64 to index
  // CHECK: func.return
  // PTX-LABEL: .entry load(
  // PTX: setp.{{ge|lt}}.u64
  // PTX: ld.global.nc.b64
  // PTX: trap;
  simt.kernel @load(%a: !simt.slice<i64>, %i: index, %h: !simt.atomic_slice<i32>, %o: !simt.ptr<i64>) unsafe {
    %x = simt.load %a[%i] : !simt.slice<i64>
    %n = simt.len %a : !simt.slice<i64>
    %hn = simt.len %h : !simt.atomic_slice<i32>
    %n64 = arith.index_cast %n : index to i64
    %t = arith.addi %x, %n64 : i64
    simt.ptr_store %t, %o[%hn] : !simt.ptr<i64>
    simt.return
  }

  // The region reads the old value: load it, run the body, store what it yields.
  // CHECK-LABEL: func.func @accumulate(
  // CHECK: %in_bounds = arith.cmpi ult, %gid_x, %out_len : i64
  // CHECK-NEXT: scf.if %in_bounds {
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %out[%gid_x] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  // CHECK-NEXT: %old = llvm.load %[[P]] : !llvm.ptr<1> -> i64
  // CHECK-NEXT: %s = arith.addi %old, %v : i64
  // CHECK-NEXT: llvm.store %s, %[[P]] : i64, !llvm.ptr<1>
  // CHECK-NEXT: }
  // CHECK-NEXT: func.return
  // PTX-LABEL: .entry accumulate(
  // PTX: ld.global.b64
  // PTX: st.global.b64
  simt.kernel @accumulate(%out: !simt.disjoint_slice<i64, 1d>, %v: i64) unsafe {
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<i64, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: i64):
      %s = arith.addi %old, %v : i64
      simt.yield %s : i64
    }
    simt.return
  }

  // `index` elements are i64 in memory (as convert-to-llvm lowers index), cast on the way in and out.
  // CHECK-LABEL: func.func @index_elements(%a: !llvm.ptr<1> {llvm.noalias, llvm.readonly, llvm.align = 8 : i64}, %a_len: i64, %out: !llvm.ptr<1> {llvm.noalias, llvm.align = 8 : i64}, %out_len: i64, %i: index)
  // CHECK-SAME: ferrox.abi = ["slice:i64", "slice:i64", "index"]
  // CHECK: %[[X:.*]] = llvm.load %{{.*}} {invariant} : !llvm.ptr<1> -> i64
  // CHECK-NEXT: %x = arith.index_cast %[[X]] : i64 to index
  // CHECK: scf.if %in_bounds {
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %out[%gid_x] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i64
  // CHECK-NEXT: %[[OLD:.*]] = llvm.load %[[P]] : !llvm.ptr<1> -> i64
  // CHECK-NEXT: %old = arith.index_cast %[[OLD]] : i64 to index
  // CHECK-NEXT: %s = arith.addi %old, %x : index
  // CHECK-NEXT: %[[S:.*]] = arith.index_cast %s : index to i64
  // CHECK-NEXT: llvm.store %[[S]], %[[P]] : i64, !llvm.ptr<1>
  simt.kernel @index_elements(%a: !simt.slice<index>, %out: !simt.disjoint_slice<index, 1d>, %i: index) unsafe {
    %x = simt.load %a[%i] : !simt.slice<index>
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<index, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: index):
      %s = arith.addi %old, %x : index
      simt.yield %s : index
    }
    simt.return
  }

  // The region ignores the old value: no load, only the store.
  // CHECK-LABEL: func.func @overwrite(
  // CHECK: scf.if %in_bounds {
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr inbounds %out[%gid_x] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.store %v, %[[P]] : f32, !llvm.ptr<1>
  // CHECK-NEXT: }
  // PTX-LABEL: .entry overwrite(
  // PTX-NOT: ld.global.b32
  // PTX: st.global.b32
  simt.kernel @overwrite(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) unsafe {
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
}
