// saxpy: y[i] = alpha * x[i] + y[i], in place. The get_mut region receives the element's current
// value, so the output slice is also the `y` input without ever being read as a shared slice.
builtin.module {
  // doc:begin saxpy
  simt.kernel @saxpy(%alpha: f32, %x: !simt.slice<f32>, %y: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %y[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %xi = simt.load %x[%i] : !simt.slice<f32>
      %ax = arith.mulf %alpha, %xi : f32
      %r = arith.addf %ax, %old : f32
      simt.yield %r : f32
    }
    simt.return
  }
  // doc:end
}
