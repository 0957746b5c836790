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
}
