// RUN: cotangent-opt %S/Inputs/mlp-offload.mlir --jx-vjp --jx-remat | cotangent-opt --pass-pipeline="builtin.module(func.func(jx-gpu-offload-residuals))" | FileCheck %s

// Under the offload policy the forward copies the named pre-activation to
// pinned host memory right after it is computed and returns the copy;
// relu still reads the device value, which is freed after it. The backward
// and the primal get no copy.
// CHECK-LABEL: func.func @mlp_fwd
// CHECK:         %[[ADD:.*]] = jx.add
// CHECK-NEXT:    %[[PRE:.*]] = jx.checkpoint_name %[[ADD]], "pre"
// CHECK-NEXT:    %[[PINNED:.*]] = bufferization.alloc_tensor() copy(%[[PRE]]) {memory_space = "pinned_host"}
// CHECK:         jx.max %[[PRE]]
// CHECK:         return {{.*}}%[[PINNED]]
// CHECK-LABEL: func.func @mlp_bwd
// CHECK-NOT:     memory_space
// CHECK:         return
