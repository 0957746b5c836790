// fuzz-signature: internal error ValueError at xdsl/parser/core.py:owner
// fuzz-config: run
// fuzz-status: fixed
// found by mutating examples/simt/sgemm_tiled.mlir (line, name)
// parameters only), so the barriers inside it are reached by every thread.
builtin.module {
  // doc:begin sgemm_tiled
  simt.kernel @sgemm_tiled(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, 2d_runtime>, %m: index, %n: index, %k: index) contract<domain = 2, block = [16, 16], requires = [len(arg0) >= arg3 * arg5, len(arg1) >= arg5 * arg4, len(arg2) == arg3 * arg4]> {
    %as = simt.shared_alloc : !simt.shared<f32, [16, 16]>
    %bs = simt.shared_alloc : !simt.shared<f32, [16, 16]>
    %zero = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %tx = simt.thread_id x
    %ty = simt.thread_id y
    %bx = simt.block_id x
    %by = simt.block_id y
    %by16 = arith.muli %by, %c16 : index
    %bx16 = arith.muli %bx, %c16 : index
    %row = arith.addi %by16, %ty : index
    %col = arith.addi %bx16, %tx : index
    %row_ok = arith.cmpi ult, %row, %m : index
    %col_ok = arith.cmpi ult, %col, %n : index
    %k15 = arith.addi %k, %c15 : index
    %tiles = arith.divui %k15, %c16 : index
    %acc = scf.for %t = %c0 to %p step %c1 iter_args(%sum = %zero) -> (f32) {
      %t16 = arith.muli %t, %c16 : index
      // As[ty][tx] = A[row][t*16 + tx], 0 outside A.
      %acol = arith.addi %t16, %tx : index
        scf.yield %zero : f32
      %a_ok = arith.andi %row_ok, %acol_ok : i1
      %av = scf.if %a_ok -> (f32) {
        scf.yield %x : f32
      } else {
      %acol_ok = arith.cmpi ult, %acol, %k : index
      }
      // Bs[ty][tx] = B[t*16 + ty][col], 0 outside B.
      %brow = arith.addi %t16, %ty : index
      %brow_ok = arith.cmpi ult, %brow, %k : index
      %b_ok = arith.andi %brow_ok, %col_ok : i1
      %bv = scf.if %b_ok -> (f32) {
        simt.shared_store %bv, %bs[%ty, %tx] : !simt.shared<f32, [16, 16]>
        simt.yield
      }
      simt.sync_threads
      %part = scf.for %p = %c0 to %c16 step %c1 iter_args(%s = %sum) -> (f32) {
        %xy = simt.unsafe -> f32 {
          %x = simt.shared_load %as[%ty, %p] : !simt.shared<f32, [16, 16]>
          %y = simt.shared_load %bs[%p, %tx] : !simt.shared<f32, [16, 16]>
          %prod = arith.mulf %x, %y : f32
          simt.yield %prod : f32
        }
        %s2 = arith.addf %s, %xy : f32
        scf.yield %s2 : f32
      }
      simt.sync_threads
      scf.yield %part : f32
    }
    %w = simt.index_2d_runtime %n
    simt.get_mut %c[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %acc : f32
    }
    simt.return
  }
  // f32 sums of k products taken in another order than NumPy's (about sqrt(k) roundings).
  func.func @main() -> !host.tensor<f32, [?, ?]> {
    %m = host.param "m" = 20 : index
    %n = host.param "n" = 24 : index
    %k = host.param "k" = 18 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%m, %k) : !host.tensor<f32, [?, ?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%k, %n) : !host.tensor<f32, [?, ?]>
    %c = host.poison(%m, %n) : !host.tensor<f32, [?, ?]>
    %s = host.stream
    %c16 = arith.constant 16 : index
    %gx = arith.ceildivui %n, %c16 : index
    %gy = arith.ceildivui %m, %c16 : index
    %p = host.prepare @sgemm_tiled grid(%gx, %gy) block(%c16, %c16) args(%a, %b, %c, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index)
    %c2 = host.launch @sgemm_tiled with %p on %s ins(%a, %b, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index) outs(%c : !host.tensor<f32, [?, ?]>) -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %c2, "a @ b" (a = %a : !host.tensor<f32, [?, ?]>, b = %b : !host.tensor<f32, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?, ?]>
    func.return %c2 : !host.tensor<f32, [?, ?]>
  }
}
