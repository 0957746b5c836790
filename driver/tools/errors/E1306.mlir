// E1306: a grid that does not cover an output
//
// Each element of an exclusive output is written by the one thread whose witness names it; a
// grid with too few threads leaves elements unwritten, and the host would read whatever was
// there. The launch checker compares the grid with every witness-guarded write the compiler
// recorded (`1d`: blocks x threads >= len) and refuses the launch. Launch ceil(len / block)
// blocks. The rule is docs/safety.md#launch-coverage.
// doc:begin example
simt.kernel @fill(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
  %w = simt.thread_index_1d
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %one = arith.constant 1.0 : f32
    simt.yield %one : f32
  }
  simt.return
}

func.func @main() {
  %n = arith.constant 1000 : index
  %out = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %blocks = arith.constant 3 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @fill grid(%blocks) block(%threads) args(%out : !host.tensor<f32, [?]>)
  %out2 = host.launch @fill with %p on %s outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  func.return
}
// doc:end
// doc:begin output
// error[E1306]: cannot prepare the launch of @fill: the grid does not cover %out: its 1d witness reaches grid.x * block.x = 3 * 256 = 768 elements, but len(%out) = 1000 (grid.x must be at least 4)
//   --> E1306.mlir:17:3
//    |
//  1 | simt.kernel @fill(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
//    | ----------- launch contract of @fill declared here
// ...
// 17 |   %p = host.prepare @fill grid(%blocks) block(%threads) args(%out : !host.tensor<f32, [?]>)
//    |                                                              ^^^^
//    |
//    = help: launch enough blocks for every element (ceil(len / block) blocks)
// doc:end
