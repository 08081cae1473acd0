// RUN: cotangent-opt %s -split-input-file --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null | FileCheck %s

// A scan inside a checkpoint: the policy is asked about the values its body
// computes, as JAX does, so what it allows is stacked per iteration and kept;
// the carries, which it does not allow, are recomputed by re-running the scan.
func.func @named_in_scan(%h0: tensor<4xf32> {jx.arg_name = "h0"}, %xs: tensor<3x4xf32> {jx.arg_name = "xs"}) -> tensor<4xf32> {
  %r = jx.remat(%h0, %xs) : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<4xf32> policy = #jx.policy<save_only_these_names("a")> {
  ^bb0(%a0: tensor<4xf32>, %a1: tensor<3x4xf32>):
    %c, %ys = jx.scan(%a0, %a1) length = 3, consts = 0, carry = 1
        : (tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
    ^bb0(%h: tensor<4xf32>, %x: tensor<4xf32>):
      %0 = jx.mul %h, %x : tensor<4xf32>
      %1 = jx.sin %0 : tensor<4xf32>
      %2 = jx.checkpoint_name %1, "a" : tensor<4xf32>
      %3 = jx.sin %2 : tensor<4xf32>
      jx.yield %3, %3 : tensor<4xf32>, tensor<4xf32>
    }
    jx.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// CHECK-LABEL: saved residuals of @named_in_scan:
// CHECK-NEXT:  f32[4] from the argument h0
// CHECK-NEXT:  f32[3,4] from the argument xs
// CHECK-NEXT:  f32[3,4] stacked by the scan from {{.*}}, one 'a' from {{.*}}:14 per iteration
// CHECK-NEXT:  total: 3 residuals, 112 bytes

// -----

func.func @dot_in_scan(%w: tensor<4x4xf32> {jx.arg_name = "w"}, %h0: tensor<4xf32> {jx.arg_name = "h0"}) -> tensor<4xf32> {
  %r = jx.remat(%w, %h0) : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> policy = #jx.policy<dots_saveable> {
  ^bb0(%a0: tensor<4x4xf32>, %a1: tensor<4xf32>):
    %c = jx.scan(%a0, %a1) length = 3, consts = 1, carry = 1
        : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>):
      %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
      %1 = jx.sin %0 : tensor<4xf32>
      jx.yield %1 : tensor<4xf32>
    }
    jx.yield %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
// CHECK-LABEL: saved residuals of @dot_in_scan:
// CHECK-NEXT:  f32[4,4] from the argument w
// CHECK-NEXT:  f32[4] from the argument h0
// CHECK-NEXT:  f32[3,4] stacked by the scan from {{.*}}, one output of dot_general from {{.*}} per iteration
// CHECK-NEXT:  total: 3 residuals, 128 bytes
