// RUN: cotangent-opt %s --jx-gpu-merge-kernels | FileCheck %s

// @f_kernel_1 is @f_kernel but for its names (a repeated layer's kernel),
// and so is @g_kernel (the same kernel launched from another function): both
// launch @f_kernel's module and are gone. @f_kernel_2 doubles instead of
// adding one, @f_kernel_3 runs with another known block size: both stay.
// CHECK-LABEL: func.func @host
// CHECK:         gpu.launch_func @f_kernel::@f_kernel
// CHECK-NEXT:    gpu.launch_func @f_kernel::@f_kernel
// CHECK-NEXT:    gpu.launch_func @f_kernel_2::@f_kernel
// CHECK-NEXT:    gpu.launch_func @f_kernel_3::@f_kernel
// CHECK-NEXT:    gpu.launch_func @f_kernel::@f_kernel
// CHECK:       gpu.module @f_kernel
// CHECK-NOT:   gpu.module @f_kernel_1
// CHECK:       gpu.module @f_kernel_2
// CHECK:       gpu.module @f_kernel_3
// CHECK-NOT:   gpu.module @g_kernel
module attributes {gpu.container_module} {
  func.func @host(%m: memref<256xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<256xf32>)
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<256xf32>)
    gpu.launch_func @f_kernel_2::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<256xf32>)
    gpu.launch_func @f_kernel_3::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<256xf32>)
    gpu.launch_func @g_kernel::@g_kernel blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%m : memref<256xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%m: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %m[%t] : memref<256xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %m[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel(%m: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %m[%t] : memref<256xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %m[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_2 {
    gpu.func @f_kernel(%m: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %t = gpu.thread_id x
      %two = arith.constant 2.0 : f32
      %x = memref.load %m[%t] : memref<256xf32>
      %y = arith.mulf %x, %two : f32
      memref.store %y, %m[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_3 {
    gpu.func @f_kernel(%m: memref<256xf32>) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %m[%t] : memref<256xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %m[%t] : memref<256xf32>
      gpu.return
    }
  }
  gpu.module @g_kernel {
    gpu.func @g_kernel(%m: memref<256xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>} {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %x = memref.load %m[%t] : memref<256xf32>
      %y = arith.addf %x, %one : f32
      memref.store %y, %m[%t] : memref<256xf32>
      gpu.return
    }
  }
}
