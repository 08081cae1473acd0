// The jx-to-nvvm pipeline on y = relu(x W + b): the broadcast add and the
// relu fuse into one kernel, the matmul is a call the runtime binds to
// cuBLAS, allocations go through the counted hooks, and the host launches
// kernels embedded as gpu.binary ops.
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa" --mlir-print-ir-after=gpu-kernel-outlining -o %t.mlir 2>&1 | FileCheck %s --check-prefix=KERNELS
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa cublas=false" --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOBLAS
// RUN: cotangent-opt %s --jx-to-nvvm="format=isa vector-bytes=0" --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: not cotangent-opt %s --jx-to-nvvm="threads-per-block=2048" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

func.func @mlp(%x: tensor<8x16xf32>, %W: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %0 = jx.dot_general %x, %W, contracting_dims = [1] x [0], batch_dims = [] x []
         : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %1 = jx.broadcast_in_dim %b, dims = [1] : tensor<32xf32> -> tensor<8x32xf32>
  %2 = jx.add %0, %1 : tensor<8x32xf32>
  %z = jx.constant dense<0.0> : tensor<8x32xf32>
  %3 = jx.max %2, %z : tensor<8x32xf32>
  return %3 : tensor<8x32xf32>
}

// The matmul writes its whole output (cuBLAS with beta = 0), so its zero
// fill is gone: no kernel before the call, then one fused kernel; each
// thread takes 4 neighbouring columns (16-byte loads and stores), so the 32
// columns are 8 threads along x, the 8 rows thread_y: one 64-thread block.
// KERNELS-LABEL: func.func @mlp(
// KERNELS:         memref.alloc() : memref<1x8x32xf32>
// KERNELS-NOT:     gpu.launch_func
// KERNELS:         call @cotangent_batch_matmul_f32(
// KERNELS:         gpu.launch_func @mlp_kernel::@mlp_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}})
// KERNELS-NOT:     gpu.launch_func
// KERNELS:         return
// KERNELS:       gpu.module @mlp_kernel
// KERNELS:         gpu.func @mlp_kernel(
// KERNELS:           vector.load %{{.*}} : memref<8x32xf32>, vector<4xf32>
// KERNELS:           vector.load %{{.*}} : memref<32xf32>, vector<4xf32>
// KERNELS-COUNT-4:   arith.addf
// KERNELS-COUNT-4:   arith.maximumf
// KERNELS:           vector.store %{{.*}} : memref<8x32xf32>, vector<4xf32>
// KERNELS:           gpu.return

// With vector-bytes=0, one element per thread.
// SCALAR:       gpu.func @mlp_kernel(
// SCALAR-NOT:     vector.load
// SCALAR:         memref.load %{{.*}} : memref<8x32xf32>
// SCALAR:         memref.load %{{.*}} : memref<32xf32>
// SCALAR:         memref.store %{{.*}} : memref<8x32xf32>

// HOST-DAG:  llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// HOST-DAG:  llvm.func @_mlir_ciface_cotangent_batch_matmul_f32(
// HOST:      gpu.launch_func @mlp_kernel::@mlp_kernel
// HOST:      llvm.func @_mlir_ciface_mlp(
// HOST:      gpu.binary @mlp_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// HOST-NOT:  gpu.binary

// Without cuBLAS the matmul is a kernel too, with the contraction as a loop
// in each thread.
// NOBLAS-LABEL: func.func @mlp(
// NOBLAS-NOT:     cotangent_batch_matmul
// NOBLAS:       gpu.module @mlp_kernel_0
// NOBLAS:         gpu.func @mlp_kernel(
// NOBLAS:           scf.for
// NOBLAS:             arith.mulf
// NOBLAS:             arith.addf

// BAD: threads-per-block must be in [1, 1024], got 2048
