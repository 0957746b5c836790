// sgemm_naive: C = A * B for row-major A (m x k), B (k x n), C (m x n), one C element per thread.
// The 2d_runtime witness (width n) gives row = raw / n and col = raw % n inside get_mut, where the
// witness is in bounds (col < n, raw < len(C) == m * n), so every load is in range.
builtin.module {
  // doc:begin sgemm_naive
  simt.kernel @sgemm_naive(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, 2d_runtime>, %m: index, %n: index, %k: index) contract<domain = 2, block = [16, 16], requires = [len(arg0) >= arg3 * arg5, len(arg1) >= arg5 * arg4, len(arg2) == arg3 * arg4]> {
    %w = simt.index_2d_runtime %n
    %raw = simt.witness_value %w : !simt.thread_index<2d_runtime>
    simt.get_mut %c[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      %row = arith.divui %raw, %n : index
      %col = arith.remui %raw, %n : index
      %zero = arith.constant 0.0 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %arow = arith.muli %row, %k : index
      %acc = scf.for %p = %c0 to %k step %c1 iter_args(%sum = %zero) -> (f32) {
        %ai = arith.addi %arow, %p : index
        %bp = arith.muli %p, %n : index
        %bi = arith.addi %bp, %col : index
        %x = simt.load %a[%ai] : !simt.slice<f32>
        %y = simt.load %b[%bi] : !simt.slice<f32>
        %xy = arith.mulf %x, %y : f32
        %next = arith.addf %sum, %xy : f32
        scf.yield %next : f32
      }
      simt.yield %acc : f32
    }
    simt.return
  }
  // doc:end

  // The host program: m, n, k all ragged against the 16 x 16 tile. The tolerance allows for
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
    %p = host.prepare @sgemm_naive grid(%gx, %gy) block(%c16, %c16) args(%a, %b, %c, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index)
    %c2 = host.launch @sgemm_naive with %p on %s ins(%a, %b, %m, %n, %k : !host.tensor<f32, [?, ?]>, !host.tensor<f32, [?, ?]>, index, index, index) outs(%c : !host.tensor<f32, [?, ?]>) -> !host.tensor<f32, [?, ?]>
    host.sync_on %s
    host.check %c2, "a @ b" (a = %a : !host.tensor<f32, [?, ?]>, b = %b : !host.tensor<f32, [?, ?]>) rtol 1.0e-04 atol 1.0e-03 : !host.tensor<f32, [?, ?]>
    func.return %c2 : !host.tensor<f32, [?, ?]>
  }
}
