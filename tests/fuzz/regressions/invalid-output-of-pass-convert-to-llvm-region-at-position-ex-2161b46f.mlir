// fuzz-signature: invalid output of pass convert-to-llvm: Region _ at position _ expected a single
// fuzz-config: opt-lower
// fuzz-status: fixed
// found by mutating tests/filecheck/dialects/simt/tile_support.mlir (nesting, line, line)
builtin.module {
  simt.kernel @tile_copy(%out: !simt.disjoint_slice<f32, tile<[4, 64], 4, arg1>>, %m: index, %n: index, %x: !simt.slice<f32>) contract<domain = 2, block = [64], requires = [len(arg0) == arg1 * arg2, len(arg3) == arg1 * arg2]> {
  }
    simt.store_chunk %o1[%w], %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v : !simt.disjoint_slice<i8, tile<[64], 16, arg1>>, !simt.thread_index<tile<[64], 16, arg1>>
  // CHECK-NEXT:   %i = simt.witness_value %w : !simt.thread_index<tile<[4, 64], 4, arg1>>
  // A rank-1 and a rank-3 space, a chunk of 1, and i8 elements (16 a chunk).
  simt.kernel @spaces(%o1: !simt.disjoint_slice<i8, tile<[64], 16, arg1>>, %n: index, %o3: !simt.disjoint_slice<f32, tile<[2, 2, 8], 1, arg3>>, %a: index, %b: index, %c: index) contract<domain = 1, block = [32]> {
    %k = arith.constant 0 : index
    %v = arith.constant 7 : i8
    %w = simt.tile_index %k dims(%n) : !simt.thread_index<tile<[64], 16, arg1>>
  // CHECK:        %w = simt.tile_index %c0 dims(%m, %n) : !simt.thread_index<tile<[4, 64], 4, arg1>>
    simt.return
  }
  // CHECK: %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a, %a, %a, %a] B[%b, %b] Carray<i32: array<i32: array<i32: array<i32: array<i32: array<i32: array<i32: array<i32: [%zero, %zero, %zero, %zero]>>>>>>>>
}
