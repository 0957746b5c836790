// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s
// RUN: ferrox-opt %s -p convert-simt-to-nvvm,convert-to-llvm -t ptx | filecheck %s --check-prefix=PTX

// Warp collectives (lowering/simt_to_nvvm/warp.py) over the full warp: member mask -1, and the
// clamp lane 31 (0 for `up`) so an out-of-warp source leaves a lane its own value.

builtin.module {
  // The full-warp mask and the clamps are the function's constants, made once at its entry
  // (constants.py).
  // CHECK-LABEL: func.func @warp(
  simt.kernel @warp(%v: f32, %n: i32, %o: i32, %out: !simt.ptr<i32>) unsafe {
    // CHECK-NEXT: %[[M:.*]] = arith.constant -1 : i32
    // CHECK-NEXT: %[[C31:.*]] = arith.constant 31 : i32
    // CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : i32
    // CHECK-NEXT: %a = nvvm.shfl.sync idx %[[M]], %v, %o, %[[C31]] : f32 -> f32
    // PTX: shfl.sync.idx.b32 {{.*}}, 31, -1;
    %a = simt.shuffle idx %v, %o : f32
    // CHECK-NEXT: %b = nvvm.shfl.sync up %[[M]], %n, %o, %[[C0]] : i32 -> i32
    // PTX: shfl.sync.up.b32 {{.*}}, 0, -1;
    %b = simt.shuffle up %n, %o : i32
    // CHECK-NEXT: %c = nvvm.shfl.sync down %[[M]], %v, %o, %[[C31]] : f32 -> f32
    // PTX: shfl.sync.down.b32 {{.*}}, 31, -1;
    %c = simt.shuffle down %v, %o : f32
    // CHECK-NEXT: %d = nvvm.shfl.sync bfly %[[M]], %n, %o, %[[C31]] : i32 -> i32
    // PTX: shfl.sync.bfly.b32 {{.*}}, 31, -1;
    %d = simt.shuffle xor %n, %o : i32
    // CHECK-NEXT: %zero = arith.constant 0 : i32
    // CHECK-NEXT: %p = arith.cmpi sgt, %n, %zero : i32
    %zero = arith.constant 0 : i32
    %p = arith.cmpi sgt, %n, %zero : i32
    // CHECK-NEXT: %all = nvvm.vote.sync all %[[M]], %p -> i1
    // PTX: vote.sync.all.pred {{.*}}, -1;
    %all = simt.vote_all %p
    // CHECK-NEXT: %any = nvvm.vote.sync any %[[M]], %p -> i1
    // PTX: vote.sync.any.pred {{.*}}, -1;
    %any = simt.vote_any %p
    // CHECK-NEXT: %mask = nvvm.vote.sync ballot %[[M]], %p -> i32
    // PTX: vote.sync.ballot.b32 {{.*}}, -1;
    %mask = simt.ballot %p
    %t = simt.thread_id x
    %ab = arith.bitcast %a : f32 to i32
    %cb = arith.bitcast %c : f32 to i32
    %s0 = arith.addi %ab, %b : i32
    %s1 = arith.addi %s0, %cb : i32
    %s2 = arith.addi %s1, %d : i32
    %s3 = arith.addi %s2, %mask : i32
    %both = arith.andi %all, %any : i1
    %s4 = arith.select %both, %s3, %zero : i32
    simt.ptr_store %s4, %out[%t] : !simt.ptr<i32>
    simt.return
  }
}
