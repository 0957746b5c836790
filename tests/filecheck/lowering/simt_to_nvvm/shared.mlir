// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// Shared memory (lowering/simt_to_nvvm/shared.py): one internal, 16-byte aligned addrspace(3)
// global per shared_alloc, placed before its kernel and named after it; never a parameter.
// Loads and stores index it row-major with one GEP over the array type, unchecked.

builtin.module {
  // CHECK: llvm.mlir.global internal @tiles_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x !llvm.array<33 x f32>>
  // CHECK-NEXT: llvm.mlir.global internal @tiles_row() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<128 x i32>
  // CHECK-NEXT: llvm.mlir.global internal @tiles_cube() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2 x !llvm.array<4 x !llvm.array<8 x f64>>>
  // CHECK-NEXT: func.func @tiles(%out: !llvm.ptr<1>) attributes {nvvm.kernel, ferrox.abi = ["ptr"]} {
  // CHECK-NEXT: %[[TILE:.*]] = llvm.mlir.addressof @tiles_tile : !llvm.ptr<3>
  // CHECK-NEXT: %[[ROW:.*]] = llvm.mlir.addressof @tiles_row : !llvm.ptr<3>
  // CHECK-NEXT: %[[CUBE:.*]] = llvm.mlir.addressof @tiles_cube : !llvm.ptr<3>
  // CHECK: %[[T:.*]] = arith.extui %{{.*}} : i32 to i64
  // CHECK: %[[ONE:.*]] = arith.index_cast %c1 : index to i64
  // CHECK-NEXT: %[[P:.*]] = llvm.getelementptr %[[TILE]][0, %[[T]], %[[ONE]]] : (!llvm.ptr<3>, i64, i64) -> !llvm.ptr<3>, !llvm.array<32 x !llvm.array<33 x f32>>
  // CHECK-NEXT: llvm.store %v, %[[P]] : f32, !llvm.ptr<3>
  // CHECK: %[[Q:.*]] = llvm.getelementptr %[[TILE]][0, %{{.*}}, %[[T]]] : (!llvm.ptr<3>, i64, i64) -> !llvm.ptr<3>, !llvm.array<32 x !llvm.array<33 x f32>>
  // CHECK-NEXT: %x = llvm.load %[[Q]] : !llvm.ptr<3> -> f32
  // CHECK: %[[R:.*]] = llvm.getelementptr %[[CUBE]][0, %{{.*}}, %{{.*}}, %[[T]]] : (!llvm.ptr<3>, i64, i64, i64) -> !llvm.ptr<3>, !llvm.array<2 x !llvm.array<4 x !llvm.array<8 x f64>>>
  // CHECK-NEXT: %y = llvm.load %[[R]] : !llvm.ptr<3> -> f64
  // CHECK: %[[S:.*]] = llvm.getelementptr %[[ROW]][0, %[[T]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<128 x i32>
  // CHECK-NEXT: llvm.store %k, %[[S]] : i32, !llvm.ptr<3>
  // PTX: .shared .align 16 .b8 tiles_tile[4224];
  // PTX: st.shared.b32
  // PTX: ld.shared.b32
  // PTX: st.global.b32
  simt.kernel @tiles(%out: !simt.ptr<f32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<f32, [32, 33]>
    %row = simt.shared_alloc : !simt.shared<i32, [128]>
    %cube = simt.shared_alloc : !simt.shared<f64, [2, 4, 8]>
    %t = simt.thread_id x
    %c1 = arith.constant 1 : index
    %v = arith.constant 1.0 : f32
    simt.shared_store %v, %tile[%t, %c1] : !simt.shared<f32, [32, 33]>
    simt.sync_threads
    %x = simt.shared_load %tile[%c1, %t] : !simt.shared<f32, [32, 33]>
    %y = simt.shared_load %cube[%c1, %c1, %t] : !simt.shared<f64, [2, 4, 8]>
    %k = arith.constant 7 : i32
    simt.shared_store %k, %row[%t] : !simt.shared<i32, [128]>
    simt.ptr_store %x, %out[%t] : !simt.ptr<f32>
    simt.return
  }

  // Names stay unique: an alloc named like an existing symbol gets a suffix; an unnamed one is
  // `<kernel>_shared`.
  // CHECK: func.func @other_tile() attributes {llvm.linkage = #llvm.linkage<"internal">}
  // CHECK: llvm.mlir.global internal @other_tile_1() {{.*}} : !llvm.array<4 x f32>
  // CHECK-NEXT: llvm.mlir.global internal @other_shared() {{.*}} : !llvm.array<8 x f32>
  // CHECK-NEXT: func.func @other()
  // CHECK-NEXT: llvm.mlir.addressof @other_tile_1 : !llvm.ptr<3>
  // CHECK-NEXT: llvm.mlir.addressof @other_shared : !llvm.ptr<3>
  simt.func @other_tile() {
    simt.return
  }
  simt.kernel @other() unsafe {
    %tile = simt.shared_alloc : !simt.shared<f32, [4]>
    %0 = simt.shared_alloc : !simt.shared<f32, [8]>
    simt.return
  }
}
