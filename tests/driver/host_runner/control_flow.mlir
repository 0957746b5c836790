// A host program with helper functions (func.call), an scf.while and an scf.index_switch,
// run by tests/driver/host_runner/test_control_flow.py on the CPU and on the fake GPU.
builtin.module {
  simt.kernel @add(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %c: !simt.disjoint_slice<f32, 1d>, %n: index) contract<domain = 1, block = [256], requires = [len(arg0) >= arg3, len(arg1) >= arg3, len(arg2) >= arg3]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %c[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %s = arith.addf %x, %y : f32
      simt.yield %s : f32
    }
    simt.return
  }
  simt.kernel @double(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %v = simt.load %x[%i] : !simt.slice<f32>
      %r = arith.addf %v, %v : f32
      simt.yield %r : f32
    }
    simt.return
  }

  // doc:begin host-helpers
  // acc + x on the caller's stream, into a fresh poisoned tensor, synced before it returns (a
  // tensor a launch may still be writing cannot leave a function). A call moves its tensor
  // arguments, so the helper gives x back.
  func.func @accumulate(%s: !host.stream, %acc: !host.tensor<f32, [?]>, %x: !host.tensor<f32, [?]>, %n: index) -> (!host.tensor<f32, [?]>, !host.tensor<f32, [?]>) {
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %fresh = host.poison(%n) : !host.tensor<f32, [?]>
    %p = host.prepare @add grid(%blocks) block(%threads) args(%acc, %x, %fresh, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index)
    %r = host.launch @add with %p on %s ins(%acc, %x, %n : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) outs(%fresh : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    func.return %x, %r : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>
  }

  // 2 * v on a stream of its own, synced before it returns.
  func.func @doubled(%v: !host.tensor<f32, [?]>, %n: index) -> !host.tensor<f32, [?]> {
    %t = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %p = host.prepare @double grid(%blocks) block(%threads) args(%v, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
    %r = host.launch @double with %p on %t ins(%v : !host.tensor<f32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %t
    func.return %r : !host.tensor<f32, [?]>
  }
  // doc:end

  // acc = x added `steps` times by an scf.while that calls @accumulate, then by `mode`:
  // 0 keeps it, 1 doubles it, 2 doubles it twice; any other mode gives zeros.
  func.func @main() -> !host.tensor<f32, [?]> {
    // doc:begin host-main
    %n = host.param "n" = 300 : index
    %steps = host.param "steps" = 3 : index
    %mode = host.param "mode" = 1 : index
    %x = host.random uniform(-1.0, 1.0) seed 5 (%n) : !host.tensor<f32, [?]>
    %zero = host.zeros(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r:3 = scf.while (%k = %c0, %acc = %zero, %xk = %x) : (index, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) -> (index, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>) {
      %more = arith.cmpi ult, %k, %steps : index
      scf.condition(%more) %k, %acc, %xk : index, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>
    } do {
    ^bb0(%k1: index, %acc1: !host.tensor<f32, [?]>, %x1: !host.tensor<f32, [?]>):
      %x2, %next = func.call @accumulate(%s, %acc1, %x1, %n) : (!host.stream, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, index) -> (!host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
      %k2 = arith.addi %k1, %c1 : index
      scf.yield %k2, %next, %x2 : index, !host.tensor<f32, [?]>, !host.tensor<f32, [?]>
    }
    %out = scf.index_switch %mode -> !host.tensor<f32, [?]>
    case 0 {
      scf.yield %r#1 : !host.tensor<f32, [?]>
    }
    case 1 {
      %d = func.call @doubled(%r#1, %n) : (!host.tensor<f32, [?]>, index) -> !host.tensor<f32, [?]>
      scf.yield %d : !host.tensor<f32, [?]>
    }
    case 2 {
      %d = func.call @doubled(%r#1, %n) : (!host.tensor<f32, [?]>, index) -> !host.tensor<f32, [?]>
      %d2 = func.call @doubled(%d, %n) : (!host.tensor<f32, [?]>, index) -> !host.tensor<f32, [?]>
      scf.yield %d2 : !host.tensor<f32, [?]>
    }
    default {
      %copy = host.zeros(%n) : !host.tensor<f32, [?]>
      scf.yield %copy : !host.tensor<f32, [?]>
    }
    // doc:end
    host.check %out, "x * steps * [1, 2, 4][mode] if mode < 3 else 0 * x" (x = %r#2 : !host.tensor<f32, [?]>, steps = %steps : index, mode = %mode : index) rtol 1.0e-06 atol 1.0e-06 : !host.tensor<f32, [?]>
    func.return %out : !host.tensor<f32, [?]>
  }
}
