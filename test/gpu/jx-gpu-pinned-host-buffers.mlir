// RUN: cotangent-opt %s --jx-gpu-pinned-host-buffers | FileCheck %s

// A forward as bufferization leaves it: the residual copied into a pinned
// buffer, then (for the default-space result type) into a device buffer that
// is returned while the pinned one is freed. The pinned buffer is returned
// itself, allocated by the GPU runtime in pinned host memory and filled by a
// DMA; no type keeps the memory space.
// CHECK-LABEL: func.func @fwd(%{{.*}}: memref<4x8xf32>) -> memref<4x8xf32>
// CHECK:         %[[P:.*]] = gpu.alloc host_shared () : memref<4x8xf32>
// CHECK-NEXT:    %[[T0:.*]] = gpu.wait async
// CHECK-NEXT:    %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[P]], %[[D:.*]] : memref<4x8xf32>, memref<4x8xf32>
// CHECK-NEXT:    gpu.wait [%[[T1]]]
// CHECK-NEXT:    memref.dealloc %[[D]]
// CHECK-NEXT:    return %[[P]] : memref<4x8xf32>
// CHECK-NOT:   pinned_host
func.func @fwd(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %d = memref.alloc() : memref<4x8xf32>
  memref.copy %x, %d : memref<4x8xf32> to memref<4x8xf32>
  %p = memref.alloc() : memref<4x8xf32, "pinned_host">
  memref.copy %d, %p : memref<4x8xf32> to memref<4x8xf32, "pinned_host">
  memref.dealloc %d : memref<4x8xf32>
  %r = memref.alloc() : memref<4x8xf32>
  memref.copy %p, %r : memref<4x8xf32, "pinned_host"> to memref<4x8xf32>
  memref.dealloc %p : memref<4x8xf32, "pinned_host">
  return %r : memref<4x8xf32>
}

// A forward and backward in one function: the pinned buffer is copied back
// by DMA and freed like any buffer; a strided view is left to a copy kernel
// (which reads pinned memory through unified addressing).
// CHECK-LABEL: func.func @step
// CHECK:         %[[P:.*]] = gpu.alloc host_shared () : memref<4x8xf32>
// CHECK:         gpu.memcpy async [%{{.*}}] %[[P]], %{{.*}} : memref<4x8xf32>, memref<4x8xf32>
// CHECK:         gpu.memcpy async [%{{.*}}] %{{.*}}, %[[P]] : memref<4x8xf32>, memref<4x8xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[P]][0, 0] [4, 4] [1, 1] : memref<4x8xf32> to memref<4x4xf32, strided<[8, 1]>>
// CHECK-NEXT:    memref.copy %[[V]], %{{.*}} : memref<4x4xf32, strided<[8, 1]>> to memref<4x4xf32>
// CHECK:         memref.dealloc %[[P]] : memref<4x8xf32>
func.func @step(%x: memref<4x8xf32>, %y: memref<4x8xf32>, %z: memref<4x4xf32>) {
  %p = memref.alloc() : memref<4x8xf32, "pinned_host">
  memref.copy %x, %p : memref<4x8xf32> to memref<4x8xf32, "pinned_host">
  memref.copy %p, %y : memref<4x8xf32, "pinned_host"> to memref<4x8xf32>
  %v = memref.subview %p[0, 0] [4, 4] [1, 1]
      : memref<4x8xf32, "pinned_host"> to memref<4x4xf32, strided<[8, 1]>, "pinned_host">
  memref.copy %v, %z : memref<4x4xf32, strided<[8, 1]>, "pinned_host"> to memref<4x4xf32>
  memref.dealloc %p : memref<4x8xf32, "pinned_host">
  return
}
