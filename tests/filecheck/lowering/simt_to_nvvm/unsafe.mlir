// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// Unsafe regions and raw pointers (lowering/simt_to_nvvm/unsafe.py): the region is inlined in
// place, its results are what it yields; pointer loads and stores are plain and unchecked.

builtin.module {
  // CHECK-LABEL: func.func @raw(%a: !llvm.ptr<1>, %out: !llvm.ptr<1>, %i: index)
  // CHECK-SAME: ferrox.abi = ["ptr", "ptr", "index"]
  // CHECK-NEXT: %[[I:.*]] = arith.index_cast %i : index to i64
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %a[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK-NEXT: %x = llvm.load %[[P]] : !llvm.ptr<1> -> f32
  // CHECK-NEXT: %two = arith.constant 2.000000e+00 : f32
  // CHECK-NEXT: %m = arith.mulf %x, %two : f32
  // CHECK-NEXT: %[[Q:.*]] = llvm.getelementptr %out[%[[I]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  // CHECK-NEXT: llvm.store %m, %[[Q]] : f32, !llvm.ptr<1>
  // CHECK-NEXT: func.return
  // PTX-LABEL: .entry raw(
  // PTX-NOT: trap
  // PTX: ld.global.b32
  // PTX: st.global.b32
  // PTX: ret;
  simt.kernel @raw(%a: !simt.ptr<f32>, %out: !simt.ptr<f32>, %i: index) {
    %y = simt.unsafe -> f32 {
      %x = simt.ptr_load %a[%i] : !simt.ptr<f32>
      %two = arith.constant 2.0 : f32
      %m = arith.mulf %x, %two : f32
      simt.yield %m : f32
    }
    simt.unsafe {
      simt.ptr_store %y, %out[%i] : !simt.ptr<f32>
      simt.yield
    }
    simt.return
  }

  // Nested regions and several results.
  // CHECK-LABEL: func.func @nested(%p: !llvm.ptr<1>)
  // CHECK-NEXT: %one = arith.constant 1 : i32
  // CHECK-NEXT: %t = arith.constant 2 : i32
  // CHECK-NEXT: %s = arith.addi %one, %t : i32
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : index
  // CHECK-NEXT: %[[ZI:.*]] = arith.index_cast %[[Z]] : index to i64
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %p[%[[ZI]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
  // CHECK-NEXT: llvm.store %s, %[[P]] : i32, !llvm.ptr<1>
  // CHECK-NEXT: func.return
  simt.kernel @nested(%p: !simt.ptr<i32>) unsafe {
    %a, %b = simt.unsafe -> i32, i32 {
      %one = arith.constant 1 : i32
      %two = simt.unsafe -> i32 {
        %t = arith.constant 2 : i32
        simt.yield %t : i32
      }
      simt.yield %one, %two : i32, i32
    }
    %s = arith.addi %a, %b : i32
    %c0 = arith.constant 0 : index
    simt.unsafe {
      simt.ptr_store %s, %p[%c0] : !simt.ptr<i32>
      simt.yield
    }
    simt.return
  }
}
