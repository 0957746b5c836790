// E1305: a launch that breaks the contract's `requires`
//
// A contract's `requires = [len(arg0) >= len(arg2), ...]` states what the kernel assumes of
// its arguments (here: every input at least as long as the output, so that a thread that owns
// an output element may read the inputs at its index). The launch checker evaluates each
// relation on the actual lengths and scalars and refuses the launch, naming the relation and
// both values. The rule is docs/safety.md#launch-requires.
// doc:begin example
simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    simt.yield %x : f32
  }
  simt.return
}

func.func @main() {
  %n = arith.constant 512 : index
  %m = arith.constant 1024 : index
  %a = host.zeros(%n) : !host.tensor<f32, [?]>
  %out = host.poison(%m) : !host.tensor<f32, [?]>
  %s = host.stream
  %blocks = arith.constant 4 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @copy grid(%blocks) block(%threads) args(%a, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
  %out2 = host.launch @copy with %p on %s ins(%a : !host.tensor<f32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  func.return
}
// doc:end
// doc:begin output
// error[E1305]: cannot prepare the launch of @copy: @copy requires len(arg0) >= len(arg1), but len(arg0) = 512 and len(arg1) = 1024 [arg0 is %a, arg1 is %out]
//   --> E1305.mlir:20:3
//    |
//  1 | simt.kernel @copy(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
//    | ----------- launch contract of @copy declared here
// ...
// 20 |   %p = host.prepare @copy grid(%blocks) block(%threads) args(%a, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
//    |                                                              ^^
//    |
//    = help: launch with arguments that satisfy the relation, or change the contract
// doc:end
