// fuzz-signature: unlocated diagnostic: Integer value _ is out of range for
// fuzz-config: opt-llvm
// fuzz-status: fixed
// found by mutating tests/filecheck/lowering/simt_to_nvvm/kernel.mlir (number)
builtin.module {
  // CHECK-LABEL: func.func @abi(
  simt.kernel @abi(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f64, 1d>, %h: !simt.atomic_slice<i32>, %n: index, %x: f32, %y: i32, %z: i64, %d: f64) contract<domain = 2, block = [128, 2]> {
    %len = simt.len %a : !simt.slice<f32>
    simt.return
  }
  // CHECK-NEXT: func.return %[[R]] : f32
  // LLVM: llvm.func internal @scale(
  simt.func @scale(%v: !simt.slice<f32>, %k: f32) -> f32 {
    %c0 = arith.constant 0xFFFFFFFFFFFFFFFFFFFF : index
    %x = simt.load %v[%c0] : !simt.slice<f32>
    %r = arith.mulf %x, %k : f32
    simt.return %r : f32
  }
  simt.func @zero_tile(%t: !simt.shared<f32, [64]>, %i: index) unsafe {
  }
  // CHECK-NEXT: %[[S1:.*]] = llvm.insertvalue %n, %[[S0]][1] : !llvm.struct<(f32, i32)>
  // CHECK-NEXT: func.return %[[S1]] : !llvm.struct<(f32, i32)>
  simt.kernel @calls(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %n: i32, %k: f32) unsafe {
    %v = simt.call @scale(%a, %k) : (!simt.slice<f32>, f32) -> f32
    %t = simt.shared_alloc : !simt.shared<f32, [64]>
    simt.return
  }
}
