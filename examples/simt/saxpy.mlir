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

  // The host program. `y` is updated in place, so it cannot be poisoned, and the launch moves it:
  // `%y0` draws the same numbers again (same seed) for the reference.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %alpha = host.param "alpha" = 2.5 : f32
    %x = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %y = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %y0 = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @saxpy grid(%blocks) block(%threads) args(%alpha, %x, %y : f32, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %y2 = host.launch @saxpy with %p on %s ins(%alpha, %x : f32, !host.tensor<f32, [?]>) outs(%y : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %y2, "alpha * x + y0" (alpha = %alpha : f32, x = %x : !host.tensor<f32, [?]>, y0 = %y0 : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
    func.return %y2 : !host.tensor<f32, [?]>
  }
}
