// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=KEEP
// RUN: cotangent-opt %s --jx-vjp --jx-remat="default-policy=nothing_saveable" --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTHING
// RUN: cotangent-opt %s --jx-vjp --jx-remat="default-policy=dots_saveable" --jx-print-saved-residuals -o /dev/null 2>&1 | FileCheck %s --check-prefix=DOTS
// RUN: cotangent-opt %s --jx-vjp --jx-remat="default-policy=nothing_saveable" | FileCheck %s --check-prefix=IR
//
// JAX's FSDP idiom: each rank holds a shard of the weight and all-gathers
// it where it is used. Without a policy the gathered weight is a residual
// (the whole f32[4,3] on every rank); under nothing_saveable or
// dots_saveable only the shard is kept and the backward gathers it again.
// The backward's other collectives are transposes: the loss's psum gives a
// psum of its cotangent, the all_gather a psum_scatter of the weight's.

// KEEP: saved residuals of @f:
// KEEP-DAG: f32[4,3] output of all_gather
// KEEP-DAG: f32[3] from the argument arg1
// KEEP: total: 3 residuals, 76 bytes

// NOTHING: saved residuals of @f:
// NOTHING-NEXT: f32[2,3] from the argument arg0
// NOTHING-NEXT: f32[3] from the argument arg1
// NOTHING-NEXT: total: 2 residuals, 36 bytes

// DOTS: saved residuals of @f:
// DOTS-NOT: all_gather
// DOTS: total: 3 residuals, 52 bytes

// IR-LABEL: func.func @f_bwd
// IR: jx.psum %{{.*}}, axis = "data" : tensor<f32>
// IR: jx.all_gather %{{.*}}, axis = "data"(2), dimension = 0 tiled : tensor<2x3xf32> -> tensor<4x3xf32>
// IR: jx.psum_scatter %{{.*}}, axis = "data"(2), dimension = 0 tiled : tensor<4x3xf32> -> tensor<2x3xf32>
func.func @f(%w: tensor<2x3xf32>, %x: tensor<3xf32>) -> tensor<f32> {
  %0 = jx.all_gather %w, axis = "data"(2), dimension = 0 tiled : tensor<2x3xf32> -> tensor<4x3xf32>
  %1 = jx.dot_general %0, %x, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x3xf32>, tensor<3xf32> -> tensor<4xf32>
  %2 = jx.tanh %1 : tensor<4xf32>
  %3 = jx.reduce_sum %2, axes = [0] : tensor<4xf32> -> tensor<f32>
  %4 = jx.psum %3, axis = "data" : tensor<f32>
  return %4 : tensor<f32>
}
