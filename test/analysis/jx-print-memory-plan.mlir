// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-memory-plan -o /dev/null | FileCheck %s
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-memory-plan=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: cotangent-opt %s --jx-vjp --jx-remat --jx-print-memory-plan=timeline=false -o /dev/null | FileCheck %s --check-prefix=SHORT
// The prediction is what cotangent-run measures:
// RUN: cotangent-run %s --vjp --split --fn=layer | FileCheck %s --check-prefix=MEASURED
// RUN: cotangent-run %s --vjp --split --fn=branch | FileCheck %s --check-prefix=MEASURED-COND
// RUN: cotangent-run %s --vjp --split --fn=same_operands --seed=1 | FileCheck %s --check-prefix=TWO-OPERANDS
// RUN: cotangent-run %s --vjp --split --fn=same_operands --seed=2 | FileCheck %s --check-prefix=TWO-OPERANDS

// One layer, tanh(x @ w), summed. The forward keeps tanh's output (over the
// matmul's dead block) and both arguments (by reference); the backward's peak
// holds that output, the cotangent it makes, and the two gradients, each the
// block its BLAS call writes (x^T g reads x transposed: no copy).
func.func @layer(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<f32> {
  %h = jx.dot_general %x, %w, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = jx.tanh %h : tensor<4x8xf32>
  %s = jx.reduce_sum %t, axes = [0, 1] : tensor<4x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: memory plan of @layer (@layer_fwd, then @layer_bwd, on the CPU runtime)
// CHECK-NEXT:  peak: 640 bytes, in @layer_bwd
// CHECK-NEXT:  residuals held between the calls: 512 bytes (384 of them arguments, held without a copy)
// CHECK-NEXT:  live at the peak: 4 blocks
// CHECK-NEXT:         256  f32[1,8,8]     gradient 1   @layer_bwd {{.*}}jx-print-memory-plan.mlir:15
// CHECK-NEXT:         128  f32[1,4,8]     residual 2   @layer_fwd {{.*}}jx-print-memory-plan.mlir:15
// CHECK-NEXT:         128  f32[4,8]                    @layer_bwd {{.*}}jx-print-memory-plan.mlir:17
// CHECK-NEXT:         128  f32[1,4,8]     gradient 0   @layer_bwd
// CHECK-NEXT:  timeline: 7 events (bytes allocated or freed, then live)
// The forward: the matmul's result, which tanh overwrites, the residual;
// the output, freed once read. The arguments x and w are residuals held in
// the caller's buffers: no block of the forward's.
// CHECK-NEXT:    +       128         128      f32[1,4,8]     residual 2   @layer_fwd
// CHECK-NEXT:    +         4         132      f32[]          output 0     @layer_fwd
// CHECK-NEXT:    -         4         128      f32[]          output 0     @layer_fwd
// CHECK:         +       256         640 peak f32[1,8,8]     gradient 1   @layer_bwd

// A cond on the data: both branches are followed.
func.func @branch(%x: tensor<6xf32>) -> tensor<6xf32> {
  %zero = jx.constant dense<0.0> : tensor<f32>
  %s = jx.reduce_sum %x, axes = [0] : tensor<6xf32> -> tensor<f32>
  %p = jx.gt %s, %zero : tensor<f32>
  %r = jx.cond %p (%x) : tensor<i1>, (tensor<6xf32>) -> tensor<6xf32> {
  ^bb0(%a: tensor<6xf32>):
    %0 = jx.neg %a : tensor<6xf32>
    jx.yield %0 : tensor<6xf32>
  }, {
  ^bb0(%a: tensor<6xf32>):
    %0 = jx.exp %a : tensor<6xf32>
    %1 = jx.mul %0, %a : tensor<6xf32>
    jx.yield %1 : tensor<6xf32>
  }
  return %r : tensor<6xf32>
}

// One predicate, one decision: the simulator decides a predicate where it
// is read from tensor data, so the forward's branches, the deallocation's
// ownership tests and the backward's cond all follow it (2 paths, not one per
// test). Found by fuzz-valid-programs: deciding at each branch followed paths
// no run takes and reported "a block is freed twice" for this program, whose
// false branch saves both operands, one buffer.
func.func @same_operands(%x: tensor<4xf64>) -> tensor<4xf64> {
  %v = jx.neg %x : tensor<4xf64>
  %s = jx.reduce_sum %v, axes = [0] : tensor<4xf64> -> tensor<f64>
  %zero = jx.constant dense<0.0> : tensor<f64>
  %p = jx.gt %s, %zero : tensor<f64>
  %r = jx.cond %p (%v, %v) : tensor<i1>, (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64> {
  ^bb0(%a: tensor<4xf64>, %b: tensor<4xf64>):
    %0 = jx.sin %a : tensor<4xf64>
    jx.yield %0 : tensor<4xf64>
  }, {
  ^bb0(%a: tensor<4xf64>, %b: tensor<4xf64>):
    %0 = jx.mul %a, %b : tensor<4xf64>
    jx.yield %0 : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}

// CHECK-LABEL: memory plan of @branch
// CHECK-NEXT:  peak: {{[0-9]+}} bytes, in @branch_fwd
// CHECK-NEXT:    the largest over 2 paths through data-dependent branches; the smallest is {{[0-9]+}} bytes
// CHECK-LABEL: memory plan of @same_operands
// CHECK-NEXT:  peak: 190 bytes, in @same_operands_bwd
// CHECK-NEXT:    the largest over 2 paths through data-dependent branches; the smallest is 169 bytes
// CHECK-NEXT:  residuals held between the calls: 65 bytes

// JSON:      "argument_residual_bytes": 384,
// JSON:      "function": "layer",
// JSON:      "live_at_peak": [
// JSON:          "bytes": 256,
// JSON-NEXT:     "function": "layer_bwd",
// JSON:          "role": "gradient 1",
// JSON:      "min_peak_bytes": 640,
// JSON-NEXT: "paths": 1,
// JSON-NEXT: "peak_bytes": 640,
// JSON-NEXT: "peak_event": 5,
// JSON-NEXT: "residual_bytes": 512,
// JSON-NEXT: "target": "cpu",
// JSON-NEXT: "timeline": [
// JSON-NEXT:   {
// JSON-NEXT:     "bytes": 128,
// JSON-NEXT:     "delta": 128,
// JSON-NEXT:     "function": "layer_fwd",
// JSON-NEXT:     "live": 128,
// JSON:      "function": "branch",

// SHORT:     peak: 640 bytes, in @layer_bwd
// SHORT-NOT: timeline:
// SHORT:     memory plan of @branch

// MEASURED:       residual bytes: 512 (384 of them arguments, held without a copy)
// MEASURED-NEXT:  peak bytes: 640
// MEASURED-NEXT:  predicted peak bytes: 640
// MEASURED-COND:  peak bytes: {{[0-9]+}}
// MEASURED-COND-NEXT: predicted peak bytes: {{[0-9]+}} (the largest of 2 paths through data-dependent branches; the smallest {{[0-9]+}})
// TWO-OPERANDS:       residual bytes: 65
// TWO-OPERANDS-NEXT:  peak bytes: {{190|169}}
// TWO-OPERANDS-NEXT:  predicted peak bytes: 190 (the largest of 2 paths through data-dependent branches; the smallest 169)

// The GPU runtime's device memory:
// RUN: cotangent-opt %S/../gpu/Inputs/mlp-offload-all.mlir --jx-vjp --jx-remat --jx-print-memory-plan=timeline=false -o /dev/null | FileCheck %s --check-prefix=OFFLOAD-CPU
// RUN: cotangent-opt %S/../gpu/Inputs/mlp-offload-all.mlir --jx-vjp --jx-remat --jx-print-memory-plan="target=cuda timeline=false" -o /dev/null | FileCheck %s --check-prefix=OFFLOAD-GPU
// Three offloaded 8x32 dot outputs (1024 bytes each): held by the CPU, which
// does not offload; on the GPU the forward copies each to pinned memory as it
// is computed, the backward's tanh reads it there (no device copy), and the
// peak is lower by exactly the three.
// OFFLOAD-CPU:      on the CPU runtime
// OFFLOAD-CPU-NEXT: peak: 17408 bytes, in @mlp_bwd
// OFFLOAD-CPU:      1024  f32[1,8,32]    residual 4   @mlp_fwd
// OFFLOAD-GPU:      memory plan of @mlp (@mlp_fwd, then @mlp_bwd, on the GPU runtime)
// OFFLOAD-GPU-NEXT: peak: 14336 bytes, in @mlp_bwd
// OFFLOAD-GPU-NEXT: residuals held between the calls: 13312 bytes (13312 of them arguments, held without a copy)
// OFFLOAD-GPU-NOT:  residual 4
