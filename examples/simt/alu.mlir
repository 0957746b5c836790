// alu: out[i] = op[i] applied to a[i] and b[i], chosen per element by an `scf.index_switch`:
// 0 adds, 1 subtracts, 2 multiplies, anything else takes the maximum.
builtin.module {
  // doc:begin alu
  simt.kernel @alu(%a: !simt.slice<f32>, %b: !simt.slice<f32>, %op: !simt.slice<i32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg3), len(arg1) >= len(arg3), len(arg2) >= len(arg3)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %x = simt.load %a[%i] : !simt.slice<f32>
      %y = simt.load %b[%i] : !simt.slice<f32>
      %code = simt.load %op[%i] : !simt.slice<i32>
      %k = arith.index_cast %code : i32 to index
      %r = scf.index_switch %k -> f32
      case 0 {
        %s = arith.addf %x, %y : f32
        scf.yield %s : f32
      }
      case 1 {
        %s = arith.subf %x, %y : f32
        scf.yield %s : f32
      }
      case 2 {
        %s = arith.mulf %x, %y : f32
        scf.yield %s : f32
      }
      default {
        %s = arith.maximumf %x, %y : f32
        scf.yield %s : f32
      }
      simt.yield %r : f32
    }
    simt.return
  }
  // doc:end

  // The host program: op codes 0..4 (4 takes the default), outputs poisoned with NaN.
  func.func @main() -> !host.tensor<f32, [?]> {
    %n = host.param "n" = 1000 : index
    %a = host.random uniform(-1.0, 1.0) seed 1 (%n) : !host.tensor<f32, [?]>
    %b = host.random uniform(-1.0, 1.0) seed 2 (%n) : !host.tensor<f32, [?]>
    %op = host.random uniform(0.0, 5.0) seed 3 (%n) : !host.tensor<i32, [?]>
    %out = host.poison(%n) : !host.tensor<f32, [?]>
    %s = host.stream
    %threads = arith.constant 256 : index
    %blocks = arith.ceildivui %n, %threads : index
    %p = host.prepare @alu grid(%blocks) block(%threads) args(%a, %b, %op, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<i32, [?]>, !host.tensor<f32, [?]>)
    %out2 = host.launch @alu with %p on %s ins(%a, %b, %op : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>, !host.tensor<i32, [?]>) outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
    host.sync_on %s
    host.check %out2, "np.select([op == 0, op == 1, op == 2], [a + b, a - b, a * b], np.maximum(a, b))" (a = %a : !host.tensor<f32, [?]>, b = %b : !host.tensor<f32, [?]>, op = %op : !host.tensor<i32, [?]>) rtol 0.0 atol 0.0 : !host.tensor<f32, [?]>
    func.return %out2 : !host.tensor<f32, [?]>
  }
}
