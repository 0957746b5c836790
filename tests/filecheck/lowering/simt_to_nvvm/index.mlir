// RUN: ferrox-opt %s -p convert-simt-to-nvvm | filecheck %s

// The witness ops (lowering/simt_to_nvvm/index.py): index arithmetic over the special registers,
// in 64 bits. Each witness is a raw index and a validity bit that get_mut ands with raw < len.

builtin.module {
  // 1d without a contract: raw = ctaid.x * ntid.x + tid.x, always valid. Each function's
  // integer constants are made once, at its entry (lowering/simt_to_nvvm/constants.py).
  // CHECK-LABEL: func.func @one_d(
  // CHECK-NEXT: %{{.*}} = arith.constant true
  // CHECK-NEXT: %[[NT:.*]] = nvvm.read.ptx.sreg.ntid.x : i32
  // CHECK-NEXT: %ntid_x = arith.extui %[[NT]] : i32 to i64
  // CHECK-NEXT: %[[CT:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-NEXT: %ctaid_x = arith.extui %[[CT]] : i32 to i64
  // CHECK-NEXT: %[[BASE:.*]] = arith.muli %ctaid_x, %ntid_x : i64
  // CHECK-NEXT: %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %tid_x = arith.extui %[[T]] : i32 to i64
  // CHECK-NEXT: %gid_x = arith.addi %[[BASE]], %tid_x : i64
  // CHECK-NEXT: %i = arith.index_cast %gid_x : i64 to index
  // CHECK-NEXT: %in_bounds = arith.cmpi ult, %gid_x, %out_len : i64
  // CHECK-NEXT: scf.if %in_bounds {
  simt.kernel @one_d(%out: !simt.disjoint_slice<f32, 1d>) unsafe {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %old : f32
    }
    simt.return
  }

  // Under a launch contract ntid is the contract's block, a constant (the PTX's .reqntid).
  // CHECK-LABEL: func.func @one_d_contract(
  // CHECK-NEXT: %[[B:.*]] = arith.constant 256 : i64
  // CHECK-NEXT: %{{.*}} = arith.constant true
  // CHECK-NEXT: %[[CT:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-NEXT: %ctaid_x = arith.extui %[[CT]] : i32 to i64
  // CHECK-NEXT: %{{.*}} = arith.muli %ctaid_x, %[[B]] : i64
  // CHECK-NOT: nvvm.read.ptx.sreg.ntid
  // CHECK: func.return
  simt.kernel @one_d_contract(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.return
  }

  // 2d<16>: raw = row * 16 + col, valid when col < 16; exact in 64 bits (16 <= 2^21). The
  // stride and the block's x (16 both) are one constant.
  // CHECK-LABEL: func.func @two_d(
  // CHECK-NEXT: %[[S:.*]] = arith.constant 16 : i64
  // CHECK-NEXT: %[[BY:.*]] = arith.constant 8 : i64
  // CHECK-NEXT: %[[CTX:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK-NEXT: %ctaid_x = arith.extui %[[CTX]] : i32 to i64
  // CHECK-NEXT: %{{.*}} = arith.muli %ctaid_x, %[[S]] : i64
  // CHECK: %gid_x = arith.addi %{{.*}}, %tid_x : i64
  // CHECK-NEXT: %[[CTY:.*]] = nvvm.read.ptx.sreg.ctaid.y : i32
  // CHECK-NEXT: %ctaid_y = arith.extui %[[CTY]] : i32 to i64
  // CHECK-NEXT: %[[BASEY:.*]] = arith.muli %ctaid_y, %[[BY]] : i64
  // CHECK-NEXT: %[[TY:.*]] = nvvm.read.ptx.sreg.tid.y : i32
  // CHECK-NEXT: %tid_y = arith.extui %[[TY]] : i32 to i64
  // CHECK-NEXT: %gid_y = arith.addi %[[BASEY]], %tid_y : i64
  // CHECK-NEXT: %col_ok = arith.cmpi ult, %gid_x, %[[S]] : i64
  // CHECK-NEXT: %[[ROW:.*]] = arith.muli %gid_y, %[[S]] : i64
  // CHECK-NEXT: %raw = arith.addi %[[ROW]], %gid_x : i64
  // CHECK-NEXT: %i = arith.index_cast %raw : i64 to index
  // CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %raw, %out_len : i64
  // CHECK-NEXT: %in_bounds = arith.andi %col_ok, %[[LT]] : i1
  // CHECK-NEXT: scf.if %in_bounds {
  simt.kernel @two_d(%out: !simt.disjoint_slice<f32, 2d<16>>) contract<domain = 2, block = [16, 8]> {
    %w = simt.index_2d : !simt.thread_index<2d<16>>
    %i = simt.witness_value %w : !simt.thread_index<2d<16>>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d<16>>, !simt.thread_index<2d<16>> {
    ^bb0(%old: f32):
      simt.yield %old : f32
    }
    simt.return
  }

  // 2d_runtime: the row * width product is exact in 128 bits; a thread whose index does not fit
  // in 64 bits (it would wrap onto another thread's element) is not valid.
  // CHECK-LABEL: func.func @two_d_runtime(%out: !llvm.ptr<1> {{.*}}, %out_len: i64, %width: index)
  // CHECK-NEXT: %[[C64:.*]] = arith.constant 64 : i128
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
  // CHECK-NEXT: %[[W:.*]] = arith.index_cast %width : index to i64
  // CHECK: %gid_x = arith.addi
  // CHECK: %gid_y = arith.addi
  // CHECK-NEXT: %col_ok = arith.cmpi ult, %gid_x, %[[W]] : i64
  // CHECK-NEXT: %[[R128:.*]] = arith.extui %gid_y : i64 to i128
  // CHECK-NEXT: %[[W128:.*]] = arith.extui %[[W]] : i64 to i128
  // CHECK-NEXT: %[[P:.*]] = arith.muli %[[R128]], %[[W128]] : i128
  // CHECK-NEXT: %[[LO:.*]] = arith.trunci %[[P]] : i128 to i64
  // CHECK-NEXT: %[[HI128:.*]] = arith.shrui %[[P]], %[[C64]] : i128
  // CHECK-NEXT: %[[HI:.*]] = arith.trunci %[[HI128]] : i128 to i64
  // CHECK-NEXT: %raw = arith.addi %[[LO]], %gid_x : i64
  // CHECK-NEXT: %[[NOHI:.*]] = arith.cmpi eq, %[[HI]], %[[Z]] : i64
  // CHECK-NEXT: %[[NOCARRY:.*]] = arith.cmpi uge, %raw, %[[LO]] : i64
  // CHECK-NEXT: %fits = arith.andi %[[NOHI]], %[[NOCARRY]] : i1
  // CHECK-NEXT: %valid = arith.andi %col_ok, %fits : i1
  // CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %raw, %out_len : i64
  // CHECK-NEXT: %in_bounds = arith.andi %valid, %[[LT]] : i1
  simt.kernel @two_d_runtime(%out: !simt.disjoint_slice<f32, 2d_runtime>, %width: index) unsafe {
    %w = simt.index_2d_runtime %width
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: f32):
      simt.yield %old : f32
    }
    simt.return
  }

  // A static stride above 2^21 takes the exact 128-bit path too.
  // CHECK-LABEL: func.func @wide_stride(
  // CHECK: %[[S:.*]] = arith.constant 4194304 : i64
  // CHECK: %col_ok = arith.cmpi ult, %gid_x, %[[S]] : i64
  // CHECK-NEXT: %{{.*}} = arith.extui %gid_y : i64 to i128
  // CHECK: %valid = arith.andi %col_ok, %fits : i1
  simt.kernel @wide_stride() unsafe {
    %w = simt.index_2d : !simt.thread_index<2d<4194304>>
    %i = simt.witness_value %w : !simt.thread_index<2d<4194304>>
    simt.return
  }

  // warp: raw = global thread id / 32; valid only on the warp's first thread.
  // CHECK-LABEL: func.func @warp(
  // CHECK-NEXT: %{{.*}} = arith.constant 64 : i64
  // CHECK-NEXT: %[[FIVE:.*]] = arith.constant 5 : i64
  // CHECK-NEXT: %[[MASK:.*]] = arith.constant 31 : i64
  // CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i64
  // CHECK: %gid_x = arith.addi
  // CHECK-NEXT: %warp = arith.shrui %gid_x, %[[FIVE]] : i64
  // CHECK-NEXT: %[[LANE:.*]] = arith.andi %gid_x, %[[MASK]] : i64
  // CHECK-NEXT: %first_lane = arith.cmpi eq, %[[LANE]], %[[Z]] : i64
  // CHECK-NEXT: %i = arith.index_cast %warp : i64 to index
  // CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %warp, %out_len : i64
  // CHECK-NEXT: %in_bounds = arith.andi %first_lane, %[[LT]] : i1
  simt.kernel @warp(%out: !simt.disjoint_slice<f32, warp>) contract<domain = 1, block = [64]> {
    %w = simt.warp_index
    %i = simt.witness_value %w : !simt.thread_index<warp>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, warp>, !simt.thread_index<warp> {
    ^bb0(%old: f32):
      simt.yield %old : f32
    }
    simt.return
  }
}
