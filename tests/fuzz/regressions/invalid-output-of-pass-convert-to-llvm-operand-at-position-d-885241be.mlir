// fuzz-signature: invalid output of pass convert-to-llvm: operand _ at position _ does not verify:
// fuzz-config: opt-lower
// fuzz-status: fixed
// found by the seeded smoke campaign (tests/fuzz/test_fuzz_smoke.py) once the corpus grew by
// the persistent tile tests (gemm-persistent-11); the same input fails on main 29038b7:
// host.prepare's grid kept an i64 after convert-to-llvm where it takes an index: the stray op
// wraps the module in another, and extract-device-code dropped host functions at the top
// level only (fixed: nested modules' too)
    %n = host.param "n" = 1024 : index
builtin.module attributes {ferrox.chip = "sm_90"} {
  simt.kernel @vecadd(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg2), len(arg1) >= len(arg2)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }
  func.func @main() {
    %a = host.random uniform(-1.0, 1.0) seed 1 : !host.tensor<f32, [1024]>
    %b = host.random uniform(-1.0, 1.0) seed 2 : !host.tensor<f32, [1024]>
    %c = host.poison : !host.tensor<f32, [1024]>
    %s = host.stream
    %grid = arith.constant 4 : index
    %block = arith.constant 256 : index
    %p = host.prepare @vecadd grid(%grid) block(%block) args(%a, %b, %c : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>)
    %c2 = host.launch @vecadd with %p on %s ins(%a, %b : !host.tensor<f32, [1024]>, !host.tensor<f32, [1024]>) outs(%c : !host.tensor<f32, [1024]>) -> !host.tensor<f32, [1024]>
    host.sync_on %s
    func.return
  }
}
