// RUN: cotangent-opt %s --split-input-file --jx-gpu-kernelize-host-code --verify-diagnostics | FileCheck %s

// A store into a device buffer of a value the host loaded from its stack:
// the load stays on the host, the one-thread kernel gets the value.
// CHECK-LABEL: func.func @value_from_the_stack
// CHECK:         %[[V:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<2xf32>
// CHECK:         gpu.launch
// CHECK-NOT:       memref.load
// CHECK:           memref.store %[[V]], %{{.*}}[] : memref<f32>
func.func @value_from_the_stack(%d: memref<f32>) {
  %c0 = arith.constant 0 : index
  %s = memref.alloca() : memref<2xf32>
  %one = arith.constant 1.0 : f32
  memref.store %one, %s[%c0] : memref<2xf32>
  %v = memref.load %s[%c0] : memref<2xf32>
  memref.store %v, %d[] : memref<f32>
  return
}

// -----

// A loop that would become one kernel but writes a stack buffer too: no
// kernel can reach the host's stack, so it is an error, not a crash.
func.func @mixed_loop(%d: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = memref.alloca() : memref<4xf32>
  // expected-error @+1 {{host code mixes stack buffers and device buffers in what would become one kernel}}
  scf.for %i = %c0 to %c4 step %c1 {
    %x = memref.load %d[%i] : memref<4xf32>
    memref.store %x, %s[%i] : memref<4xf32>
  }
  return
}
