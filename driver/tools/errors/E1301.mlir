// E1301: a launch that does not match the kernel's contract
//
// A kernel's contract fixes its block (`block = [256]`), its domain (how many grid dimensions
// it may have) and its dynamic shared memory; a launch with another block, more grid
// dimensions or other shared memory is refused before it runs (at `host.prepare` in a host
// program, at the call in Python), and nothing is written. A kernel without a contract cannot
// be launched safely at all. The rule is docs/safety.md#launch-contract.
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
  %n = arith.constant 1024 : index
  %out = host.poison(%n) : !host.tensor<f32, [?]>
  %s = host.stream
  %blocks = arith.constant 8 : index
  %threads = arith.constant 128 : index
  %p = host.prepare @fill grid(%blocks) block(%threads) args(%out : !host.tensor<f32, [?]>)
  %out2 = host.launch @fill with %p on %s outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  func.return
}
// doc:end
// doc:begin output
// error[E1301]: cannot prepare the launch of @fill: block is (128, 1, 1), but @fill's contract requires block = [256], i.e. (256, 1, 1)
//   --> E1301.mlir:17:3
//    |
//  1 | simt.kernel @fill(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
//    | ----------- launch contract of @fill declared here
// ...
// 17 |   %p = host.prepare @fill grid(%blocks) block(%threads) args(%out : !host.tensor<f32, [?]>)
//    |        ^^^^^^^^^^^^
//    |
//    = help: launch with the grid, block and shared memory the contract declares
// doc:end
