// Bad jx input -- malformed IR, an unknown or invalid policy, a shape error --
// is a diagnostic at file:line:col and exit code 1, never a crash.
// RUN: not cotangent-opt %s -split-input-file 2>&1 | FileCheck %s
// RUN: sh -c 'cotangent-opt %s -split-input-file 2>/dev/null; echo "exit code $?"' | FileCheck %s --check-prefix=EXIT
// EXIT: exit code 1

func.func @missing_batch_dims(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<5xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+1]]:59: error: expected ','
  %0 = jx.dot_general %W, %x, contracting_dims = [1] x [0] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @unknown_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+2]]:27: error: unknown remat policy 'dots_savable'; expected one of: everything_saveable, nothing_saveable, dots_saveable,
  %0 = jx.remat (%x) : (tensor<4xf32>) -> tensor<4xf32>
      policy = #jx.policy<dots_savable> {
  ^bb0(%a: tensor<4xf32>):
    jx.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @bad_nested_policy(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+2]]:51: error: name 'h' is both saveable and offloadable; the two sets must be disjoint
  %0 = jx.remat (%x) : (tensor<4xf32>) -> tensor<4xf32>
      policy = #jx.policy<save_from_both_policies(save_and_offload_only_these_names(["h"], ["h"], "device", "pinned_host"), dots_saveable)> {
  ^bb0(%a: tensor<4xf32>):
    jx.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @policy_with_arguments(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+2]]:27: error: remat policy 'nothing_saveable' takes no arguments
  %0 = jx.remat (%x) : (tensor<4xf32>) -> tensor<4xf32>
      policy = #jx.policy<nothing_saveable("h")> {
  ^bb0(%a: tensor<4xf32>):
    jx.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @shape_error(%x: tensor<20xf32>) -> tensor<4x4xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+1]]:8: error: 'jx.reshape' op cannot reshape 'tensor<20xf32>' (20 elements) to 'tensor<4x4xf32>' (16 elements)
  %0 = jx.reshape %x : tensor<20xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @inference_error(%a: tensor<5x4xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+1]]:8: error: contracting dimension sizes differ: lhs dimension 1 has size 4, rhs dimension 0 has size 3
  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<3xf32> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @empty_branch(%p: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+1]]:8: error: 'jx.cond' op branch 0 must end in jx.yield
  %0 = jx.cond %p (%x) : tensor<i1>, (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
  }, {
  ^bb0(%a: tensor<4xf32>):
    jx.yield %a : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}

// -----

func.func @dynamic_shape(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: jx-errors.mlir:[[@LINE+1]]:8: error: 'jx.sin' op operand #0 must be statically shaped tensor
  %0 = jx.sin %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
