// RUN: cotangent-opt %s --jx-vjp --jx-remat | cotangent-opt --pass-pipeline="builtin.module(func.func(jx-gpu-reload-residuals))" | FileCheck %s
// RUN: cotangent-opt %S/Inputs/mlp-offload-all.mlir --jx-vjp --jx-remat | cotangent-opt --pass-pipeline="builtin.module(func.func(jx-gpu-reload-residuals))" | FileCheck %s --check-prefix=IN-PLACE

// Under the offload policy the named pre-activation "pre" waits in pinned
// host memory; the backward copies it to the device right before its first
// user (the barrier opening the recomputation of the relu), after the
// gradient ops that do not need it. Device residuals and the forward get
// no copy.
// CHECK-LABEL: func.func @mlp_fwd
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK-LABEL: func.func @mlp_bwd
// CHECK-SAME:    %[[PRE:[a-z0-9]+]]: tensor<8x32xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}
// CHECK:         jx.dot_general
// CHECK:         %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[PRE]]) : tensor<8x32xf32>
// CHECK-NEXT:    jx.optimization_barrier %[[COPY]]
// CHECK-NOT:     bufferization.alloc_tensor
// CHECK:         return
func.func @mlp(%x: tensor<8x16xf32>, %W1: tensor<16x32xf32>, %W2: tensor<32x4xf32>) -> tensor<8x4xf32> {
  %h = jx.remat(%x, %W1) : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
      policy = #jx.policy<save_and_offload_only_these_names([], ["pre"], "device", "pinned_host")> {
  ^bb0(%xi: tensor<8x16xf32>, %w: tensor<16x32xf32>):
    %0 = jx.dot_general %xi, %w, contracting_dims = [1] x [0], batch_dims = [] x []
           : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
    %1 = jx.checkpoint_name %0, "pre" : tensor<8x32xf32>
    %z = jx.constant dense<0.0> : tensor<8x32xf32>
    %2 = jx.max %1, %z : tensor<8x32xf32>
    jx.yield %2 : tensor<8x32xf32>
  }
  %3 = jx.dot_general %h, %W2, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}

// Each offloaded dot output of mlp-offload-all is read by one tanh (behind
// its barrier): that kernel reads the pinned buffer itself, so no residual
// gets a device copy.
// IN-PLACE-LABEL: func.func @mlp_bwd
// IN-PLACE-SAME:    %[[D:[a-z0-9]+]]: tensor<8x32xf32> {jx.residual = #jx.residual<memory_kind = "pinned_host">}
// IN-PLACE-NOT:     bufferization.alloc_tensor
// IN-PLACE:         %[[B:.*]] = jx.optimization_barrier %[[D]]
// IN-PLACE-NEXT:    jx.tanh %[[B]]
// IN-PLACE-NOT:     bufferization.alloc_tensor
// IN-PLACE:         return
